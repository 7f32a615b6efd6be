#!/bin/sh
# bench/syscalls.sh BUILD_DIR — nanoseconds per system call bare, under TartarOS's hardening
# seccomp filter and under a long linear filter like a container runtime's default profile,
# each also in a form the kernel's action cache cannot skip (bench/syscalls.cpp says how).
# Prints the machine, then a markdown table. Environment: ITERS (calls per round, default
# 20000), REPEATS (rounds, default 25; the best round counts).
set -eu

die() { echo "syscalls.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: bench/syscalls.sh BUILD_DIR"
BUILD=$(cd "$1" && pwd) || die "no build directory $1"
BENCH=$BUILD/bench/bench_syscalls
[ -x "$BENCH" ] || die "$BENCH missing; build first"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), \
kernel $(uname -r), $(date -u '+%Y-%m-%d'), load $(cut -d' ' -f1-3 /proc/loadavg)"
LOAD=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$LOAD" 'BEGIN { exit !(l >= 1) }'; then
  echo "warning: the machine is busy (load $LOAD): other work shares the CPUs, so expect tens" \
       "of ns of noise in every cell"
fi
echo
"$BENCH" "${ITERS:-20000}" "${REPEATS:-25}"
