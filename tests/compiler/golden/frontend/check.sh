#!/bin/sh
# tests/compiler/golden/frontend/check.sh TARTAROS_COMPILE — tartaros-compile's command line, end to end.
#  - every NAME.toml here but good.toml is refused: exit 78 and a stderr exactly NAME.expected,
#    whose first line starts with "tartaros:" (UPDATE=1 rewrites the .expected files);
#  - good.toml compiles to a plan of mode 0644, twice to the same bytes, and --explain prints it
#    (its limits and broker steps too); from a directory whose name is not UTF-8, --explain
#    --json is still valid UTF-8;
#  - bad command lines, an unreadable policy and a damaged plan are refusals too.
set -u
compile=$(realpath "$1")
corpus=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/tartaros-golden-XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# refused EXPECTED_FIRST_LINE_PREFIX ARGS... — runs the compiler, which must refuse.
refused() {
    prefix=$1
    shift
    "$compile" "$@" >"$work/out" 2>"$work/err"
    rc=$?
    [ "$rc" -eq 78 ] || fail "$* exited $rc, not 78"
    case $(head -n 1 "$work/err") in
    "$prefix"*) ;;
    *) fail "$*: first stderr line is not '$prefix...': $(head -n 1 "$work/err")" ;;
    esac
}

cd "$corpus" || exit 1
for policy in *.toml; do
    name=${policy%.toml}
    [ "$name" = good ] && continue
    refused "tartaros: $policy: " "$policy" -o "$work/$name.bin"
    [ -e "$work/$name.bin" ] && fail "$policy: a plan was written"
    if [ "${UPDATE:-0}" = 1 ]; then
        cp "$work/err" "$name.expected"
    elif ! diff -u "$name.expected" "$work/err"; then
        fail "$policy: stderr differs from $name.expected"
    fi
done

cp good.toml "$work/good.toml"
cd "$work" || exit 1
"$compile" good.toml -o plan.bin 2>/dev/null || fail "good.toml did not compile"
cp plan.bin first.bin
"$compile" good.toml -o plan.bin 2>/dev/null || fail "good.toml did not compile twice"
cmp -s plan.bin first.bin || fail "the same policy gave different plans"
[ "$(stat -c %a plan.bin)" = 644 ] || fail "plan.bin has mode $(stat -c %a plan.bin), not 644"
[ -z "$(find . -name '.*.bin.*')" ] || fail "a temporary file was left behind"
"$compile" --explain plan.bin >explain.txt || fail "--explain failed on a plan just compiled"
[ -s explain.txt ] || fail "--explain printed nothing"
"$compile" --explain plan.bin --json >explain.json || fail "--explain --json failed"
[ -s explain.json ] || fail "--explain --json printed nothing"
grep -q '^[0-9]*\. limits: max_processes, memory_max, timeout (required' explain.txt ||
    fail "--explain has no limits step"
grep -q '^   [0-9.]* rlimit core 0  (default)$' explain.txt || fail "--explain does not show the default core = 0"
grep -q '^[0-9]*\. broker: 127\.0\.0\.1:3129 inside (required)  good\.toml:' explain.txt ||
    fail "--explain has no broker step"
grep -q '"step":"broker"' explain.json || fail "--explain --json has no broker step"
# A path is bytes: a policy in a directory whose name is not UTF-8 (a lone 0xC3, and an
# overlong 0xC0 0xAF) still gets JSON that a strict UTF-8 decoder reads.
odd=$(printf 'caf\303-\300\257')
mkdir "$odd" && cp good.toml "$odd/good.toml"
"$compile" "$odd/good.toml" -o odd.bin 2>/dev/null || fail "good.toml in a non-UTF-8 directory did not compile"
"$compile" --explain odd.bin --json >odd.json || fail "--explain --json of a non-UTF-8 path failed"
python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' odd.json ||
    fail "--explain --json of a non-UTF-8 path is not valid UTF-8 JSON"

refused "tartaros: cannot read missing.toml: No such file or directory" missing.toml -o x.bin
refused "tartaros: usage: " good.toml
refused "tartaros: usage: " --no-such-flag good.toml -o x.bin
refused "tartaros: usage: " good.toml -o
refused "tartaros: usage: " good.toml other.toml -o x.bin
refused "tartaros: usage: " --json good.toml -o x.bin
refused "tartaros: usage: " --explain
refused "tartaros: usage: " --explain plan.bin -o x.bin
refused "tartaros: usage: "
head -c 40 plan.bin >truncated.bin
refused "tartaros: truncated.bin: invalid plan: " --explain truncated.bin
refused "tartaros: good.toml: invalid plan: " --explain good.toml
# --verify: a plan is exactly what its policy compiles to now, or a refusal that says why.
"$compile" --verify plan.bin | grep -q '^plan.bin: verified: byte-identical' || fail "--verify of a fresh plan"
"$compile" --verify plan.bin good.toml >/dev/null || fail "--verify with the policy named"
refused "tartaros: truncated.bin: invalid plan, or it names no policy" --verify truncated.bin
refused "tartaros: truncated.bin: does not implement good.toml: the plan reader refuses it" --verify truncated.bin good.toml
refused "tartaros: usage: " --verify
refused "tartaros: usage: " --verify plan.bin good.toml other.toml
refused "tartaros: usage: " --verify plan.bin --json
sed 's/^max_processes = 64$/max_processes = 65/' good.toml >changed.toml
cmp -s good.toml changed.toml && fail "changed.toml is not changed"
refused "tartaros: plan.bin: does not implement changed.toml: " --verify plan.bin changed.toml
# The plan with every EPERM return of its seccomp program made ALLOW and the checksum resealed,
# so only translation validation can tell: --verify names a call and both answers.
python3 - plan.bin <<'PYEOF2' || fail "patching the seccomp program"
import struct, sys
plan = bytearray(open(sys.argv[1], "rb").read())
eperm = struct.pack("<HBBI", 0x06, 0, 0, 0x00050001)
allow = struct.pack("<HBBI", 0x06, 0, 0, 0x7FFF0000)
assert plan.count(eperm) >= 1
plan = plan.replace(eperm, allow)
plan[48:56] = bytes(8)
h = 0xCBF29CE484222325
for b in plan:
    h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
plan[48:56] = struct.pack("<Q", h)
open(sys.argv[1], "wb").write(plan)
PYEOF2
refused "tartaros: plan.bin: does not implement good.toml: seccomp: " --verify plan.bin good.toml
grep -q 'returns ALLOW, the profile says ERRNO(EPERM)' "$work/err" ||
    fail "--verify names the call the tampered filter lets through: $(cat "$work/err")"
cp first.bin plan.bin
"$compile" --version | grep -q '^tartaros-compile ' || fail "--version"
"$compile" --help | grep -q '^usage: tartaros-compile' || fail "--help"

[ "$failures" -eq 0 ] && echo "all command-line checks passed"
[ "$failures" -eq 0 ]
