#!/bin/bash
# tartaros-exec is one static musl binary: statically linked, no interpreter, no glibc
# symbol versions, no C++ runtime, and at most 200 KiB.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

LAST_CMD="file -L $EXEC" RC=- OUT="" ERR="" IT_DUMPED=1
info=$(file -L "$EXEC")
echo "   $info"
check_match "file -L: statically linked" 'statically linked' "$info"
check_no_match "file -L: not dynamically linked, no interpreter" 'dynamically linked|interpreter' "$info"
check_no_match "readelf: no PT_INTERP, no dynamic section" 'INTERP|DYNAMIC' "$(readelf -lW "$EXEC")"
ldd_out=$(ldd "$EXEC" 2>&1)
check_match "ldd: not a dynamic executable" 'not a dynamic executable' "$ldd_out"
check_eq "strings: no GLIBC" 0 "$(strings -a "$EXEC" | grep -c GLIBC)"
check_eq "strings: no libstdc++" 0 "$(strings -a "$EXEC" | grep -ci 'libstdc++\|GLIBCXX\|__cxa_throw')"
size=$(stat -c %s "$EXEC")
echo "   tartaros-exec: $size bytes ($((size / 1024)) KiB; limit 204800)"
if [ "$size" -le 204800 ]; then pass "size $size <= 204800"; else fail "size" "<= 204800" "$size"; fi

it_finish
