#!/bin/sh
# bench/proxy.sh BUILD_DIR — what a tartaros-proxy CONNECT tunnel costs against direct loopback
# TCP: throughput of one stream, 1-byte round-trip latency, and 1,000 tunnels open at once with
# the proxy's RSS (bench/proxy.cpp says how). Prints the machine, then a markdown table.
# The project's target: throughput through the tunnel >= 80% of direct loopback; the script
# measures, it does not gate. Environment: BYTES (one stream, default 1073741824), REPEATS
# (streams each way, default 5; the best counts), ROUNDTRIPS (default 20000), TUNNELS
# (default 1000).
set -eu

die() { echo "proxy.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: bench/proxy.sh BUILD_DIR"
BUILD=$(cd "$1" && pwd) || die "no build directory $1"
BENCH=$BUILD/bench/bench_proxy
PROXY=$BUILD/bin/tartaros-proxy
[ -x "$BENCH" ] && [ -x "$PROXY" ] || die "bench_proxy or tartaros-proxy missing in $BUILD; build first"
"$BENCH" "$PROXY" "${BYTES:-1073741824}" "${REPEATS:-5}" "${ROUNDTRIPS:-20000}" "${TUNNELS:-1000}"
