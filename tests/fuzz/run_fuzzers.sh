#!/bin/sh
# tests/fuzz/run_fuzzers.sh BIN_DIR SECONDS WORK_DIR [TARGET...] — runs each libFuzzer target of
# the clang build (BIN_DIR: build/fuzz/tests/fuzz) for SECONDS, one process each, FUZZ_JOBS of
# them at a time (default: the number of CPUs). Each target starts from its committed seeds (and, for fuzz_frontend, the
# policy corpus, the examples and the golden policies), with its dictionary; what it finds
# new goes to WORK_DIR/corpus/TARGET, its log to WORK_DIR/TARGET.log, a crash, leak or
# timeout to WORK_DIR/TARGET/ (crash-*, leak-*, timeout-*). Prints one line per target
# (executions, execs/s, coverage: libFuzzer's cov and ft) and exits 1 when any target found
# something. `make check-fuzz` (CI, ~20 s a target) and `make fuzz` (FUZZ_SECONDS) call it.
# libFuzzer's -timeout counts wall-clock time, so it is far above any input's own (a policy
# of the corpus takes up to 2 s under ASan): a busy machine must not make a finding.
set -u
[ $# -ge 3 ] || { echo "usage: $0 BIN_DIR SECONDS WORK_DIR [TARGET...]" >&2; exit 2; }
bin=$1 seconds=$2 work=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
targets=${*:-"http_request http_body http_response broker channel plan plan_roundtrip host_pattern cache_entry frontend"}

# What a CI log needs to reproduce a finding without the machine it ran on: libFuzzer's report
# from its first error line (the stack, the property that broke) with the ten lines before it
# (an abort's assertion or uncaught exception is printed there), and the input itself in
# base64 when small (`base64 -d > crash; fuzz_TARGET crash` replays it).
report_finding() {
    log="$work/$1.log"
    grep -av '^#[0-9]' "$log" | awk '
        found { print; next }
        /==[0-9]*== ?ERROR|property broken|^ERROR:/ { for (i = n - 10; i < n; i++) if (i >= 0) print kept[i % 10]; found = 1; print; next }
        { kept[n % 10] = $0; n++ }' | head -n 70 >&2
    for unit in "$work/$1"/crash-* "$work/$1"/leak-* "$work/$1"/timeout-* "$work/$1"/oom-*; do
        [ -f "$unit" ] || continue
        size=$(wc -c <"$unit")
        echo "input $unit ($size bytes)$([ "$size" -le 4096 ] && echo ', base64:')" >&2
        [ "$size" -le 4096 ] && base64 -w 100 "$unit" >&2
    done
}

# run_target T: one target for its time, its exit status written to WORK_DIR/T.status.
run_target() {
    t=$1
    exe="$bin/fuzz_$t"
    if [ ! -x "$exe" ]; then
        echo "$t: $exe is missing (build it: cmake --build build --target fuzz_targets)" >&2
        echo 127 >"$work/$t.status"
        return
    fi
    mkdir -p "$work/corpus/$t" "$work/$t"
    case $t in
    frontend) seeds="$here/corpus $root/examples $root/tests/compiler/golden" dict="$here/tart.dict" limit=30 ;;
    http_request | http_body | http_response | broker) seeds="$here/seeds/$t" dict="$here/dict/http.dict" limit=10 ;;
    plan) seeds="$here/seeds/$t" dict="$here/dict/plan.dict" limit=10 ;;
    host_pattern) seeds="$here/seeds/$t" dict="$here/dict/host.dict" limit=10 ;;
    *) seeds="$here/seeds/$t" dict="" limit=10 ;;
    esac
    # shellcheck disable=SC2086
    "$exe" ${dict:+-dict="$dict"} -max_total_time="$seconds" -timeout="$limit" -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="$work/$t/" "$work/corpus/$t" $seeds >"$work/$t.log" 2>&1
    echo $? >"$work/$t.status"
}

# As many targets at once as the machine has CPUs (FUZZ_JOBS): each is one single-threaded
# process, so two cores fuzz two targets in the time of one.
jobs=${FUZZ_JOBS:-$(nproc)}
mkdir -p "$work/corpus"
running=0
for t in $targets; do
    rm -f "$work/$t.status"
    run_target "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait

passed=0
failed=0
printf '%-16s %10s %8s %7s %7s %6s  %s\n' target runs exec/s cov ft corpus result
for t in $targets; do
    status=$(cat "$work/$t.status" 2>/dev/null || echo 127)
    # The last status line: "#N  DONE  cov: C ft: F corp: K/… exec/s: E …" (or the last pulse).
    last=$(grep -aE '^#[0-9]+' "$work/$t.log" 2>/dev/null | tail -n 1)
    runs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
    cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
    execs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$t.log" 2>/dev/null)
    if [ "$status" -eq 0 ]; then
        result=ok
        passed=$((passed + 1))
    else
        result="FOUND (exit $status): $work/$t.log"
        failed=$((failed + 1))
    fi
    printf '%-16s %10s %8s %7s %7s %6s  %s\n' "$t" "${runs:-?}" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
    if [ "$status" -ne 0 ] && [ -f "$work/$t.log" ]; then
        report_finding "$t"
    fi
done
# The closing line CI reads: targets that ran their time without a finding, and those that found one.
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
