#!/bin/sh
# tests/compiler/golden/dsl/check.sh TARTAROS_COMPILE — the .tart front-end end to end, through
# tartaros-compile, with HOME=/home/dsl. In each directory, a file whose name starts with '_'
# is only included by others, and @DIR@ in an expected file stands for that directory.
#  - good/: every NAME.tart (and NAME.toml that includes .tart files) compiles (exit 0, a plan
#    written) with a stderr exactly NAME.expected (empty when there is none); and
#    `--print-policy NAME` is exactly that of NAME.equiv.toml, the same policy in TOML, or, for
#    what TOML cannot say (syscall rules), exactly NAME.printed;
#  - bad/: every NAME.tart (and NAME.toml) is refused: exit 78, no plan, and a stderr exactly
#    NAME.expected, whose first line is "tartaros: NAME: N error(s)".
# UPDATE=1 rewrites the .expected and .printed files: read each line before committing.
set -u
compile=$(realpath "$1")
corpus=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/tartaros-dsl-golden-XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0
export HOME=/home/dsl

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# compare EXPECTED ACTUAL WHAT — ACTUAL (with the case directory as @DIR@) against EXPECTED,
# or into it under UPDATE=1.
compare() {
    sed "s|$dir|@DIR@|g" "$2" >"$work/compared"
    if [ "${UPDATE:-0}" = 1 ]; then
        if [ -s "$work/compared" ] || [ -e "$1" ]; then cp "$work/compared" "$1"; fi
    elif [ -e "$1" ]; then
        diff -u "$1" "$work/compared" || fail "$3 differs from $(basename "$1")"
    elif [ -s "$work/compared" ]; then
        fail "$3 is not empty and there is no $(basename "$1"): $(cat "$work/compared")"
    fi
}

# The cases of directory $1: its .tart and .toml files but the included ones and the twins.
cases() {
    for file in "$corpus/$1"/*.tart "$corpus/$1"/*.toml; do
        name=$(basename "$file")
        case $name in _* | *.equiv.toml) continue ;; esac
        [ -e "$file" ] && echo "$name"
    done
}

echo "-- good: constructs that compile, read as their TOML twins read"
dir="$corpus/good"
cd "$dir" || exit 1
for policy in $(cases good); do
    name=${policy%.*}
    "$compile" "$policy" -o "$work/plan" 2>"$work/err"
    rc=$?
    [ "$rc" -eq 0 ] || fail "$policy: exit $rc, not 0: $(cat "$work/err")"
    [ -s "$work/plan" ] || fail "$policy: no plan written"
    rm -f "$work/plan"
    compare "$name.expected" "$work/err" "$policy: stderr"
    "$compile" --print-policy "$policy" >"$work/printed" 2>&1 || fail "$policy: --print-policy failed"
    if [ -e "$name.equiv.toml" ]; then
        "$compile" --print-policy "$name.equiv.toml" >"$work/twin" 2>&1 || fail "$name.equiv.toml: --print-policy failed"
        diff -u "$work/twin" "$work/printed" || fail "$policy: not the policy $name.equiv.toml is"
    else
        compare "$name.printed" "$work/printed" "$policy: --print-policy"
        [ -e "$name.printed" ] || fail "$policy: neither $name.equiv.toml nor $name.printed"
    fi
done

echo "-- bad: one error each, refused with exactly its diagnostics"
dir="$corpus/bad"
cd "$dir" || exit 1
for policy in $(cases bad); do
    name=${policy%.*}
    "$compile" "$policy" -o "$work/plan" >"$work/out" 2>"$work/err"
    rc=$?
    [ "$rc" -eq 78 ] || fail "$policy: exit $rc, not 78"
    [ -e "$work/plan" ] && fail "$policy: a plan was written" && rm -f "$work/plan"
    case $(head -n 1 "$work/err") in
    "tartaros: $policy: "*" error"*) ;;
    *) fail "$policy: the first line is not 'tartaros: $policy: N errors': $(head -n 1 "$work/err")" ;;
    esac
    [ -e "$name.expected" ] || [ "${UPDATE:-0}" = 1 ] || fail "$policy: no $name.expected"
    compare "$name.expected" "$work/err" "$policy: stderr"
done

[ "$failures" -eq 0 ] && echo "all .tart golden checks passed"
[ "$failures" -eq 0 ]
