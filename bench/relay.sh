#!/bin/sh
# bench/relay.sh BUILD_DIR — what relaying the command's fds 0-2 costs: the command never gets
# the caller's files, pipes or terminal, so tartaros-exec copies between them and pipes (or a
# pty) of the sandbox's own. Three measures, each against bare and against bubblewrap (which
# hands the command the caller's fds as they are) in one run:
#  1. start-up with stdout and stderr on a pipe (hyperfine --output=pipe): the relay thread
#     and its pipes are made per run; with /dev/null (startup.sh) nothing is relayed;
#  2. 1 GiB through stdout into a pipe (`head -c 1G /dev/zero | cat >/dev/null`): splice;
#  3. keystroke echo on a terminal (relay_echo.py): the time from a byte written to the
#     caller's pty until a raw-mode echo program's answer is back, median and 99th
#     percentile over 2000 keystrokes; under tartaros-exec the byte crosses the relay and the
#     sandbox's own pty twice.
# Environment: RUNS (default 50), OUT (directory for the exports; default: temporary).
set -eu

die() { echo "relay.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: bench/relay.sh BUILD_DIR"
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd) || die "no build directory $1"
COMPILE=$BUILD/bin/tartaros-compile
EXEC=$BUILD/bin/tartaros-exec
[ -x "$COMPILE" ] && [ -x "$EXEC" ] || die "tartaros-compile or tartaros-exec missing in $BUILD; build first"
if ! command -v hyperfine >/dev/null || ! command -v bwrap >/dev/null; then
  "$REPO/scripts/install-deps"
fi
RUNS=${RUNS:-50}
TMP=$(mktemp -d /var/tmp/tartaros-bench-relay.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
OUT=${OUT:-$TMP}
mkdir -p "$OUT" "$TMP/work"
cat > "$TMP/bench.toml" <<EOF
version = 1
[filesystem]
read_scope = "all"
writable_roots = ["work"]
EOF
"$COMPILE" "$TMP/bench.toml" -o "$TMP/bench.plan"
BWRAP="bwrap --ro-bind / / --bind $TMP/work $TMP/work --dev /dev --proc /proc --unshare-all --die-with-parent"
TART="$EXEC $TMP/bench.plan --"

echo "== start-up, stdout and stderr on a pipe"
hyperfine -N --output=pipe --warmup 5 --runs "$((RUNS * 2))" --export-json "$OUT/relay-startup.json" \
  -n bare "/bin/true" -n bwrap "$BWRAP /bin/true" -n tartaros "$TART /bin/true"

echo "== 1 GiB through stdout into a pipe"
GIB="head -c 1073741824 /dev/zero"
hyperfine --warmup 1 --runs 5 --export-json "$OUT/relay-gib.json" \
  -n bare "$GIB | cat >/dev/null" -n bwrap "$BWRAP $GIB | cat >/dev/null" -n tartaros "$TART $GIB | cat >/dev/null"

echo "== keystroke echo on a terminal (2000 keystrokes)"
for who in bare bwrap tartaros; do
  case $who in
    bare) prefix="" ;;
    bwrap) prefix=$BWRAP ;;
    tartaros) prefix=$TART ;;
  esac
  # shellcheck disable=SC2086
  python3 "$REPO/bench/relay_echo.py" "$who" 2000 $prefix
done
