#!/bin/bash
# tests/format_check.sh SOURCE_DIR — every C and C++ source is as .clang-format has it (the
# one formatter; `make format` applies it). Lists each file that is not, with clang-format's
# first complaint. Skips (77) only where clang-format is not installed.
set -u
cd "$1" || exit 1
command -v clang-format >/dev/null || { echo "clang-format is not installed"; exit 77; }
status=0
while IFS= read -r -d '' file; do
    if ! out=$(clang-format --dry-run --Werror "$file" 2>&1); then
        echo "not formatted: $file: $(printf '%s\n' "$out" | head -1)"
        status=1
    fi
done < <(find compiler enforcer front ir proxy shared tests bench \( -name '*.cpp' -o -name '*.h' -o -name '*.c' \) -print0 | sort -z)
[ "$status" -eq 0 ] && echo "every source is formatted"
exit "$status"
