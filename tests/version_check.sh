#!/bin/bash
# tests/version_check.sh VERSION TARTAROS TARTAROS_COMPILE TARTAROS_EXEC TARTAROS_PROXY — every
# binary answers --version alike: exit 0 and one line "NAME VERSION", VERSION being the
# project's (with the checkout's git description after it when built from one), the same for all.
set -u
version=$1
shift
status=0
lines=""
for tool in "$@"; do
    name=$(basename "$tool")
    out=$("$tool" --version 2>&1)
    rc=$?
    if [ "$rc" -ne 0 ] || ! [[ $out =~ ^$name\ ${version//./\\.}(\ \(git\ [0-9a-f]+(-dirty)?\))?$ ]]; then
        echo "FAIL $name --version: exit $rc, printed: $out"
        status=1
    fi
    lines+="${out#"$name "}"$'\n'
done
if [ "$(printf '%s' "$lines" | sort -u | wc -l)" -ne 1 ]; then
    echo "FAIL the binaries print different versions:"
    printf '%s' "$lines"
    status=1
fi
[ "$status" -eq 0 ] && echo "every binary answers --version with: ${lines%%$'\n'*}"
exit "$status"
