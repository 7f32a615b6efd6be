#!/bin/sh
# bench/sendmsg.sh BUILD_DIR — what mediating sendmsg() costs. Every sendmsg() and sendmmsg() of
# a sandboxed command is made by the mediator (its address lies in memory a seccomp filter
# cannot read); send() and write() are not mediated. bench_sendmsg runs bare, under bubblewrap
# and under tartaros-exec in one run:
#  1. pingpong: one-byte round trips over a socketpair, each way a sendmsg(): the latency a
#     mediated call adds (two per round trip);
#  2. stream: 2 GiB one way in 64 KiB sendmsg() calls: throughput through the mediator's copy;
#  3. write: the same with write(), not mediated: the baseline.
# Environment: ROUNDS (default 20000 round trips), MIB (default 2048).
set -eu

die() { echo "sendmsg.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: bench/sendmsg.sh BUILD_DIR"
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd) || die "no build directory $1"
COMPILE=$BUILD/bin/tartaros-compile
EXEC=$BUILD/bin/tartaros-exec
BENCH=$BUILD/bench/bench_sendmsg
[ -x "$COMPILE" ] && [ -x "$EXEC" ] && [ -x "$BENCH" ] || die "tartaros-compile, tartaros-exec or bench_sendmsg missing in $BUILD; build first"
command -v bwrap >/dev/null || "$REPO/scripts/install-deps"
ROUNDS=${ROUNDS:-20000}
MIB=${MIB:-2048}
TMP=$(mktemp -d /var/tmp/tartaros-bench-sendmsg.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir -p "$TMP/work"
cat > "$TMP/bench.toml" <<POLICY
version = 1
[filesystem]
read_scope = "all"
writable_roots = ["work"]
POLICY
"$COMPILE" "$TMP/bench.toml" -o "$TMP/bench.plan"

for who in bare bwrap tartaros; do
  case $who in
    bare) prefix="" ;;
    bwrap) prefix="bwrap --ro-bind / / --bind $TMP/work $TMP/work --dev /dev --proc /proc --unshare-all --die-with-parent" ;;
    tartaros) prefix="$EXEC $TMP/bench.plan --" ;;
  esac
  for mode in "pingpong $ROUNDS" "stream $MIB" "write $MIB"; do
    # shellcheck disable=SC2086
    printf '%-9s %s\n' "$who" "$($prefix "$BENCH" $mode)"
  done
done
