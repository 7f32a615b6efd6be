#!/bin/bash
# [process] limits: max_processes (exactly N tasks for the command, a fork bomb stays inside
# and the host keeps working), memory_max (an OOM kill of the command or of a child, each
# reported), cpu_max (measured throttling, also across threads), timeout and timeout_grace
# (TERM, then KILL; the status and the line), rlimits (the values inside, never raised above
# the launcher's hard limit, EFBIG, SIGXCPU, no way to raise them). As root the limits live in
# v1 cgroups tartaros-<supervisor pid> beneath the caller's own cgroups, which the sandbox sees
# as "/" and cannot write, escape or lift, and which are gone after every run. As an
# unprivileged user (no cgroup here) max_processes is RLIMIT_NPROC in the sandbox's user
# namespace, exact and accepted by --strict; memory_max and cpu_max are "not enforced", and
# --strict refuses each of them (78).
. "$(dirname "$0")/lib.sh"
it_setup "$@"
. "$(dirname "$0")/limits_lib.sh"

W=$T/ws
mkdir -p "$W"
policy base '' || it_finish
policy procs 'max_processes = 8' || it_finish
policy bomb 'max_processes = 24
timeout = "3s"
timeout_grace = "1s"' || it_finish
policy mem 'memory_max = "64M"' || it_finish
policy cpu 'cpu_max = 0.25' || it_finish
policy cpu_pct 'cpu_max = "25%"' || it_finish
policy all 'max_processes = 8
memory_max = "64M"
cpu_max = 0.25' || it_finish
policy timeout 'timeout = 1' || it_finish
policy timeout10 'timeout = "10s"' || it_finish
policy grace 'timeout = "1s"
timeout_grace = "1s"' || it_finish
policy rl 'rlimits = { nofile = 64, fsize = "1M", stack = "8M", nproc = 100, cpu = 5 }' || it_finish
policy rl_cpu 'rlimits = { cpu = { soft = 1, hard = 3 } }' || it_finish
policy rl_high 'rlimits = { nofile = 100000, stack = { soft = "8M", hard = "unlimited" }, core = "unlimited" }' || it_finish
policy procs_unhardened 'max_processes = 8
harden_syscalls = false' || it_finish
policy nproc_mix 'max_processes = 8
rlimits = { nproc = 1000 }' || it_finish
# The run's own helpers in the sandbox here: init and the connect mediator.
HELPERS=2
bomb_safe=no

section "max_processes: the command and its descendants get exactly N tasks"
sbx "$T/procs.plan" "$PROBE" forks fork-count 100
expect_rc 0 "the probe ran"
expect forks EAGAIN "the 8th task's fork fails with EAGAIN"
expect forks.data 7 "the probe plus 7 children = max_processes 8"
result_of forks.data
[[ $RESULT =~ ^[0-9]+$ ]] && [ "$RESULT" -le 8 ] && bomb_safe=yes
if [ "$RUN_USER" = root ]; then
    check_match "a line says the limit was hit" \
        '^tartaros: max_processes 8 \(policy line 5:[0-9]+\) reached: the kernel refused 1 fork$' "$ERR"
    check_cgroups_gone "$(last_supervisor)" "after the run"
else
    check_no_match "RLIMIT_NPROC in the sandbox's user namespace is exact: no warning" '^tartaros: warning' "$ERR"
    sbx "$T/procs.plan" "$PROBE" nproc rlimit nproc
    expect nproc.data "$((8 + HELPERS)):$((8 + HELPERS))" "RLIMIT_NPROC = max_processes + the helpers"
    sbx "$T/nproc_mix.plan" "$PROBE" nproc rlimit nproc
    expect nproc.data "$((8 + HELPERS)):$((8 + HELPERS))" "rlimits.nproc = 1000 does not weaken the limit"
    sbx --strict "$T/procs.plan" "$PROBE" forks fork-count 100
    expect_rc 0 "--strict runs: RLIMIT_NPROC holds the limit"
    expect forks.data 7 "--strict: the probe plus 7 children = max_processes 8"
fi
# The hardening list refuses nested user namespaces; without it, one must not reset the count.
for plan in procs procs_unhardened; do
    sbx "$T/$plan.plan" "$PROBE" nsforks ns-fork-count 100
    result_of nsforks
    if [ "$RESULT" = EAGAIN ]; then
        expect nsforks.data 7 "$plan: a nested user namespace (a fresh count) gets no more tasks"
    else
        expect nsforks "EPERM|EACCES|ENOSPC" "$plan: a nested user namespace to escape the count is refused"
    fi
done

section "a fork bomb stays inside max_processes and the host keeps working"
if [ "$bomb_safe" != yes ]; then
    fail "the fork bomb runs only where max_processes holds" "the fork-count check above passing" "skipped"
else
    bomb=bomb-$$-$RANDOM
    bg_start "$T/bomb.plan" "$PROBE" "$bomb" fork-bomb 20
    # The bomb saturates both CPUs: one read, one ps, nothing that forks per process.
    sleep 1
    if [ "$RUN_USER" = root ]; then
        dir=$(run_cgroup_dir pids "$BG_SUP")
        check_content "pids.max of the run's cgroup = max_processes + helpers" "$dir/pids.max" $((24 + HELPERS))
        check_content "pids.current is at that maximum" "$dir/pids.current" $((24 + HELPERS))
    fi
    check_eq "seen from the host, the bomb holds exactly max_processes tasks" 24 \
        "$(ps -eLo args= | grep -c "^$PROBE $bomb fork-bomb")"
    capture_as /bin/sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true || exit 1; done; echo host-ok'
    check_eq "meanwhile the host (the same user) forks and runs commands" "0 host-ok" "$RC $OUT"
    bg_wait 20 && {
        expect_rc 137 "the bomb ends by its timeout"
        check_match "the timeout line" \
            '^tartaros: timeout 3 s \(policy line 6:[0-9]+\) reached: the command got SIGTERM' "$ERR"
        [ "$RUN_USER" = root ] && check_match "the max_processes line counts the refused forks" \
            '^tartaros: max_processes 24 \(policy line 5:[0-9]+\) reached: the kernel refused [0-9]+ forks$' "$ERR"
        check_elapsed "the run's wall time (timeout 3 s, grace 1 s)" "$BG_START" 2.5 15
    }
    check_none_with "$bomb" "no process of the bomb is left" 5
    check_cgroups_gone "$BG_SUP" "after the bomb"
fi

section "memory_max"
if [ "$RUN_USER" = root ]; then
    sbx "$T/mem.plan" "$PROBE" small hog 32
    expect_rc 0 "32 MiB under memory_max 64M"
    expect small ok "the allowed work is done"
    check_eq "no line for a limit not hit" "" "$ERR"
    sbx "$T/mem.plan" "$PROBE" big hog 256
    expect_rc 137 "256 MiB: the command is OOM-killed"
    expect big "<missing>" "the hog never finished"
    check_match "the line names the limit" \
        "^tartaros: memory_max 64 MiB \\(policy line 5:[0-9]+\\) reached: the kernel's OOM killer ended the command\$" "$ERR"
    check_cgroups_gone "$(last_supervisor)" "after the OOM kill"
    sbx_script "$T/mem.plan" <<EOF
$PROBE child hog 256
echo child_rc=\$?
$PROBE after hog 8
EOF
    expect_rc 0 "only a child was killed: the command's own status"
    expect child_rc 137 "the hogging child got SIGKILL"
    expect after ok "the command goes on afterwards"
    check_match "the line counts the processes the OOM killer ended" \
        "^tartaros: memory_max 64 MiB \\(policy line 5:[0-9]+\\) reached: the kernel's OOM killer ended 1 process in the sandbox\$" "$ERR"
    # A private tmpfs is memory too: its pages are charged to the run's cgroup.
    printf 'version = 1\n[filesystem]\nwritable_roots = ["ws"]\nprivate_tmp = true\n[process]\nmemory_max = "64M"\n' >"$T/tmpfs.toml"
    compile "$T/tmpfs.toml" "$T/tmpfs.plan" && {
        sbx_script "$T/tmpfs.plan" <<EOF
t fill dd if=/dev/zero of=/tmp/fill bs=1M count=256 status=none
EOF
        result_of fill
        check_eq "256 MiB cannot be parked in the private /tmp under memory_max 64M" yes \
            "$([ "$RESULT" != ok ] && echo yes || echo "no: fill=$RESULT")"
        check_cgroups_gone "$(last_supervisor)" "after the tmpfs fill"
    }
else
    sbx "$T/mem.plan" "$PROBE" small hog 32
    expect_rc 0 "the command runs"
    check_match "the warning says memory_max is not enforced" '^tartaros: warning: not enforced: .*memory_max' "$ERR"
    sbx --strict "$T/mem.plan" /bin/sh -c 'echo RAN'
    expect_rc 78 "--strict refuses"
    check_match "the first line names memory_max" '^tartaros: .*memory_max' "${ERR%%$'\n'*}"
    check_no_match "the command did not run" '^RAN$' "$OUT"
fi

section "cpu_max throttles (measured inside: CPU time per wall time, permille)"
if [ "$RUN_USER" = root ]; then
    sbx "$T/base.plan" "$PROBE" spin spin 1.5 1
    result_of spin.data
    control=$RESULT
    sbx "$T/cpu.plan" "$PROBE" spin spin 1.5 1
    expect_rc 0 "the spinner ran under cpu_max = 0.25"
    result_of spin.data
    one=$RESULT
    sbx "$T/cpu_pct.plan" "$PROBE" spin spin 1.5 2
    expect_rc 0 "two spinning threads ran under cpu_max = \"25%\""
    result_of spin.data
    two=$RESULT
    if [[ $control =~ ^[0-9]+$ && $one =~ ^[0-9]+$ && $two =~ ^[0-9]+$ ]] &&
        [ "$one" -lt 500 ] && [ "$two" -lt 500 ] && [ "$control" -gt $((one + 200)) ]; then
        pass "throttled to $one and $two (two threads) permille of a CPU; unthrottled $control"
    else
        fail "cpu_max 0.25: under 500 permille, the control 200 above" "one<500 two<500 control>one+200" \
            "one=$one two=$two control=$control"
    fi
    check_cgroups_gone "$(last_supervisor)" "after the throttled run"
else
    sbx "$T/cpu.plan" /bin/true
    expect_rc 0 "the command runs"
    check_match "the warning says cpu_max is not enforced" '^tartaros: warning: not enforced: .*cpu_max' "$ERR"
    sbx --strict "$T/cpu.plan" /bin/sh -c 'echo RAN'
    expect_rc 78 "--strict refuses"
    check_match "the first line names cpu_max" '^tartaros: .*cpu_max' "${ERR%%$'\n'*}"
    check_no_match "the command did not run" '^RAN$' "$OUT"
fi

section "the run's cgroups: limits written, the sandbox confined to them"
if [ "$RUN_USER" = root ]; then
    own_mem_limit=$(cat "/sys/fs/cgroup/memory$(own_cgroup memory)/memory.limit_in_bytes")
    sleeper=sleep-$$-$RANDOM
    cat >"$T/cg.awk" <<'EOF'
{ n = split($2, a, ","); for (i = 1; i <= n; i++) seen[a[i]] = $3 }
END { printf "cpu=%s freezer=%s memory=%s pids=%s\n", seen["cpu"], seen["freezer"], seen["memory"], seen["pids"] }
EOF
    cat >"$T/inside.sh" <<'EOF'
t() {
    __l=$1; shift
    if __o=$("$@" 2>&1); then echo "$__l=ok"; else echo "$__l=fail($?)"; fi
    printf '%s.data=%s\n' "$__l" "$(printf '%s' "$__o" | tr '\n' '|' | cut -c1-400)"
}
EOF
    cat >>"$T/inside.sh" <<EOF
while [ ! -s $W/cg ]; do sleep 0.1; done
. $W/cg
t cg_self awk -F: -f $T/cg.awk /proc/self/cgroup
t cg_mkdir mkdir /sys/fs/cgroup/pids/tartaros-escape
t cg_leave sh -c 'echo \$\$ > /sys/fs/cgroup/pids/cgroup.procs'
t cg_leave_mem sh -c "echo \\\$\\\$ > \$mem_parent/cgroup.procs"
t cg_lift sh -c "echo max > \$pids_dir/pids.max"
t cg_lift_mem sh -c "echo -1 > \$mem_dir/memory.limit_in_bytes"
$PROBE ns_pids ns-cgroup-write pids pids.max max /tmp
$PROBE ns_memory ns-cgroup-write memory memory.limit_in_bytes -1 /tmp
$PROBE ns_v2 ns-cgroup-write cgroup2 cgroup.procs 0 /tmp
$PROBE forks fork-count 100
touch $W/done
while [ ! -e $W/stop ]; do sleep 0.1; done
EOF
    bg_start "$T/all.plan" /bin/sh -c "$(<"$T/inside.sh")" "$sleeper"
    pids_dir=$(run_cgroup_dir pids "$BG_SUP")
    mem_dir=$(run_cgroup_dir memory "$BG_SUP")
    cpu_dir=$(run_cgroup_dir cpu "$BG_SUP")
    printf 'pids_dir=%s\nmem_dir=%s\nmem_parent=%s\n' "$pids_dir" "$mem_dir" "${mem_dir%/*}" >"$W/cg.tmp"
    give_to_user
    mv "$W/cg.tmp" "$W/cg"
    if wait_for_file "$W/done" 15; then
        check_content "pids.max = 8 + $HELPERS" "$pids_dir/pids.max" $((8 + HELPERS))
        check_content "memory.limit_in_bytes = 64 MiB" "$mem_dir/memory.limit_in_bytes" 67108864
        [ -e "$mem_dir/memory.memsw.limit_in_bytes" ] &&
            check_content "memory.memsw.limit_in_bytes = 64 MiB (swap is not extra)" "$mem_dir/memory.memsw.limit_in_bytes" 67108864
        check_content "cpu.cfs_quota_us = 25000" "$cpu_dir/cpu.cfs_quota_us" 25000
        check_content "cpu.cfs_period_us = 100000" "$cpu_dir/cpu.cfs_period_us" 100000
        check_eq "the supervisor stays in the caller's cgroups" "$(cat /proc/self/cgroup)" "$(cat "/proc/$BG_SUP/cgroup" 2>/dev/null)"
        cmd=$(command_pid "$sleeper")
        check_eq "the command is in the run's pids cgroup" "$(own_cgroup pids | sed 's,/$,,')/tartaros-$BG_SUP" \
            "$(awk -F: '$2 == "pids" { print $3 }' "/proc/$cmd/cgroup" 2>/dev/null)"
    else
        fail "the sandbox reached its end" "$W/done" "absent"
    fi
    touch "$W/stop"
    bg_wait 20
    expect_rc 0 "the run's exit status"
    expect cg_self.data "cpu=/ freezer=/ memory=/ pids=/" "its own cgroup namespace: / for every controller"
    expect cg_mkdir 'fail\(.*' "mkdir in cgroupfs"
    expect cg_leave 'fail\(.*' "move itself to the root pids cgroup"
    expect cg_leave_mem 'fail\(.*' "move itself to the caller's memory cgroup"
    expect cg_lift 'fail\(.*' "write pids.max of its own cgroup"
    expect cg_lift_mem 'fail\(.*' "write memory.limit_in_bytes of its own cgroup"
    expect ns_pids 'E[A-Z]+' "a nested user+cgroup namespace mounting the pids hierarchy to lift pids.max"
    expect ns_memory 'E[A-Z]+' "... the memory hierarchy to lift memory.limit_in_bytes"
    expect ns_v2 'E[A-Z]+' "... cgroup2 to move itself"
    expect forks.data 6 "afterwards the limit still holds: sh + the probe + 6 children = 8"
    check_eq "the caller's memory limit is unchanged" "$own_mem_limit" \
        "$(cat "/sys/fs/cgroup/memory$(own_cgroup memory)/memory.limit_in_bytes")"
    check_cgroups_gone "$BG_SUP" "after the run"
    sbx --strict "$T/all.plan" /bin/sh -c 'exit 7'
    expect_rc 7 "--strict with every limit enforceable: the command's own status"
    check_eq "and nothing on stderr" "" "$ERR"
else
    sbx "$T/all.plan" /bin/sh -c 'exit 7'
    expect_rc 7 "the command's own status"
    check_eq "every stderr line is a warning" "" "$(grep -v '^tartaros: warning: ' <<<"$ERR")"
    check_no_match "max_processes is not weakened (RLIMIT_NPROC is exact here)" 'max_processes' "$ERR"
    check_match "memory_max is not enforced" '^tartaros: warning: not enforced: .*memory_max' "$ERR"
    check_match "cpu_max is not enforced" '^tartaros: warning: not enforced: .*cpu_max' "$ERR"
fi

section "timeout: SIGTERM, the grace, SIGKILL"
start=$EPOCHREALTIME
sbx "$T/timeout.plan" /bin/sleep 100
expect_rc 137 "sleep 100 under timeout = 1"
check_elapsed "it ended after the timeout" "$start" 0.9 10
check_match "the line names the timeout" \
    '^tartaros: timeout 1 s \(policy line 5:[0-9]+\) reached: the command got SIGTERM and ended within the 5 s grace$' "$ERR"
start=$EPOCHREALTIME
sbx "$T/timeout10.plan" /bin/sh -c 'exit 3'
expect_rc 3 "a command that ends before timeout = 10s keeps its status"
check_elapsed "and is not held back until the deadline" "$start" 0 5
check_no_match "no timeout line" 'timeout' "$ERR"
sbx "$T/timeout.plan" /bin/sh -c 'trap "echo caught; exit 0" TERM; sleep 100 & wait'
expect_rc 137 "a command that handles TERM and exits 0 still reports the timeout"
check_eq "it saw the TERM" caught "$OUT"
start=$EPOCHREALTIME
sbx "$T/grace.plan" /bin/sh -c "trap '' TERM; sleep 100; echo not-killed"
expect_rc 137 "a command that ignores TERM"
check_elapsed "is killed after timeout + grace" "$start" 1.9 10
check_match "the line says SIGKILL after the grace" \
    '^tartaros: timeout 1 s \(policy line 5:[0-9]+\) reached: the command got SIGTERM, then SIGKILL after the 1 s grace$' "$ERR"
check_no_match "it never went on" not-killed "$OUT"

section "rlimits"
sbx_script "$T/rl.plan" <<EOF
$PROBE nofile rlimit nofile
$PROBE fsize rlimit fsize
$PROBE stack rlimit stack
$PROBE nproc rlimit nproc
$PROBE cpu rlimit cpu
$PROBE core rlimit core
t ulimit_n sh -c 'ulimit -n'
t ulimit_c sh -c 'ulimit -c'
t prlimit prlimit --pid \$\$ --nofile --output SOFT,HARD --noheadings
$PROBE efbig fsize-write $W/big 2000000
$PROBE small fsize-write $W/small 1000000
$PROBE raise_nofile raise-rlimit nofile
$PROBE raise_core raise-rlimit core
t ulimit_up sh -c 'ulimit -n 65'
EOF
expect_rc 0 "the sandbox ran"
expect nofile.data 64:64 "nofile = 64"
expect fsize.data 1048576:1048576 "fsize = 1M"
expect stack.data 8388608:8388608 "stack = 8M"
expect nproc.data 100:100 "nproc = 100"
expect cpu.data 5:5 "cpu = 5"
expect core.data '0:.*' "core defaults to 0"
expect ulimit_n.data 64 "ulimit -n"
expect ulimit_c.data 0 "ulimit -c"
expect prlimit.data '[[:space:]]*64[[:space:]]+64' "prlimit"
expect efbig EFBIG "writing past fsize fails with EFBIG"
expect efbig.data 1048576 "... after exactly 1 MiB"
expect small ok "a file under fsize is written"
expect raise_nofile EPERM "the command cannot raise nofile"
expect ulimit_up 'fail\(.*' "ulimit -n 65 fails"
result_of core.data
if [ "$RESULT" = 0:0 ]; then
    expect raise_core EPERM "the default core = 0 cannot be raised"
else
    pass "core's hard limit is ${RESULT#*:} (soft 0): raising it is the command's right"
fi
check_eq "host: the file under fsize landed whole" 1000000 "$(stat -c %s "$W/small" 2>/dev/null)"

start=$EPOCHREALTIME
sbx "$T/rl_cpu.plan" "$PROBE" burn spin 20 1
expect_rc 152 "cpu = { soft = 1, hard = 3 }: SIGXCPU after 1 s of CPU (128 + 24)"
check_elapsed "long before the spinner's 20 s" "$start" 0.9 10

capture_as prlimit --nofile=200:300 --stack=4194304:16777216 --core=0:0 \
    "$EXEC" "$T/rl_high.plan" -- /bin/sh -c "$PROBE nofile rlimit nofile; $PROBE stack rlimit stack; $PROBE core rlimit core"
expect_rc 0 "the sandbox ran under the launcher's lower hard limits"
expect nofile.data 300:300 "nofile = 100000 is lowered to the launcher's hard 300"
expect stack.data 8388608:16777216 "stack soft 8M stays, hard unlimited is lowered to 16M"
expect core.data 0:0 "core = unlimited is lowered to the launcher's 0"

it_finish
