# tests/integration/limits_lib.sh — helpers of limits.sh and lifecycle.sh (sourced after lib.sh
# and it_setup): runs in the background, the supervisor's pid, the run's cgroups, and finding a
# run's processes on the host by a marker.
#
# Every tartaros-exec started through $EXEC (sbx, sbx_script, bg_start) goes through a wrapper
# that appends its pid (exec keeps it: the supervisor's) to $SUPERVISORS, so every cgroup
# tartaros-<pid> a run of this test leaves behind can be attributed to it, checked and, at
# exit, removed. Nothing else is touched: other runs on the host have other pids.

REAL_EXEC=$EXEC
SUPERVISORS=$T/.runs/supervisors
mkdir -p "$T/bin"
: >"$SUPERVISORS"
cat >"$T/bin/tartaros-exec" <<EOF
#!/bin/sh
echo \$\$ >>"$SUPERVISORS"
exec "$REAL_EXEC" "\$@"
EOF
chmod 755 "$T/bin/tartaros-exec"
EXEC=$T/bin/tartaros-exec
# The hierarchies a run's cgroup may be in: v1 controllers, and "unified" for cgroup v2 (a
# cgroup that is only a kill switch needs no controller, and v2 has cgroup.kill).
CG_HIERARCHIES="pids memory cpu freezer unified"

# The caller's own cgroup path in hierarchy $1 ("" when none).
own_cgroup() {
    awk -F: -v c="$1" '{ if (c == "unified") { if ($1 == "0" && $2 == "") print $3; next }
        n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' /proc/self/cgroup
}

# Where hierarchy $1 is mounted.
hierarchy_root() {
    if [ "$1" = unified ]; then
        awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") { print $5; exit } break } }' /proc/self/mountinfo
    else
        echo "/sys/fs/cgroup/$1"
    fi
}

# The directory the run of supervisor $2 gets in hierarchy $1.
run_cgroup_dir() {
    local own
    own=$(own_cgroup "$1")
    echo "$(hierarchy_root "$1")${own%/}/tartaros-$2"
}

# The run cgroup directories of supervisor $1 that exist (tartaros-PID and, for the v2 leaf
# move, tartaros-PID.*), space-separated.
run_cgroups_left() {
    local h dir left=""
    for h in $CG_HIERARCHIES; do
        for dir in "$(run_cgroup_dir "$h" "$1")" "$(run_cgroup_dir "$h" "$1")".*; do
            [ -d "$dir" ] && left="$left $dir"
        done
    done
    echo "${left# }"
}

# check_cgroups_gone SUPERVISOR WHY [SECONDS]: as root, no cgroup of that run remains (within
# SECONDS, default 0: at once).
check_cgroups_gone() {
    [ "$RUN_USER" = root ] || return 0
    local left tries=$((${3:-0} * 10))
    left=$(run_cgroups_left "$1")
    while [ -n "$left" ] && [ "$tries" -gt 0 ]; do
        sleep 0.1
        tries=$((tries - 1))
        left=$(run_cgroups_left "$1")
    done
    check_eq "no cgroup of the run (tartaros-$1) remains $2" "" "$left"
}

# The supervisor pid of the last run started through $EXEC.
last_supervisor() {
    tail -n 1 "$SUPERVISORS"
}

# Host pids of running processes whose command line contains $1 (bash builtins only: it
# scans every process, and a fork per process is slow on a busy host).
processes_with() {
    local p args
    for p in /proc/[0-9]*; do
        p=${p#/proc/}
        args=()
        mapfile -d '' args 2>/dev/null <"/proc/$p/cmdline" || continue
        [[ "${args[*]}" == *"$1"* ]] && [ "$p" != "$BASHPID" ] && running "$p" && echo "$p"
    done
}

# The pid of the sandboxed /bin/sh whose command line holds $1 (not the supervisor's, whose
# command line holds it too), "" when there is none.
command_pid() {
    local p
    for p in $(processes_with "$1"); do
        [ "$(argv0_of "$p")" = /bin/sh ] && echo "$p" && return 0
    done
}

# check_none_with MARKER WHY SECONDS: within SECONDS no process's command line holds MARKER
# (in three scans in a row: a process that keeps changing its pid can slip through one);
# survivors are killed afterwards (by pid), so a failure leaves nothing behind.
check_none_with() {
    local left="" seen="" clean=0 deadline=$((SECONDS + $3))
    while [ "$clean" -lt 3 ] && [ "$SECONDS" -lt "$deadline" ]; do
        left=$(processes_with "$1")
        if [ -z "$left" ]; then clean=$((clean + 1)); else clean=0 seen=$left; fi
        sleep 0.1
    done
    [ "$clean" -ge 3 ] && seen=""
    check_eq "$2" "" "${seen//$'\n'/ }"
    [ -n "$seen" ] && kill_all_with "$1"
    return 0
}

# kill_all_with MARKER: SIGKILL (by pid) to every process whose command line holds MARKER,
# again and again until three scans in a row find none (a pid-hopper slips through one).
kill_all_with() {
    local left clean=0 deadline=$((SECONDS + 10))
    while [ "$clean" -lt 3 ] && [ "$SECONDS" -lt "$deadline" ]; do
        left=$(processes_with "$1")
        if [ -z "$left" ]; then
            clean=$((clean + 1))
        else
            clean=0
            # shellcheck disable=SC2086
            kill -KILL $left 2>/dev/null
        fi
    done
}

# Seconds since $1 (an $EPOCHREALTIME), with one decimal.
elapsed_since() {
    awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

# check_elapsed WHAT START MIN MAX: MIN <= seconds since START < MAX (loose bounds).
check_elapsed() {
    local took
    took=$(elapsed_since "$2")
    if awk -v t="$took" -v lo="$3" -v hi="$4" 'BEGIN { exit !(t >= lo && t < hi) }'; then
        pass "$1: ${took} s (in [$3, $4))"
    else
        fail "$1" "between $3 and $4 s" "$took s"
    fi
}

# bg_body BASE PLAN CMD...: a run in the background (through spawn), its outputs and exit
# status in files BASE.*. Signals start at their defaults (an asynchronous command of a script
# starts with SIGINT and SIGQUIT ignored), then the array BG_WRAP (e.g. nohup) runs it.
BG_WRAP=()
bg_body() {
    local base=$1
    shift
    (cd "$T" && run_as env --default-signal "${BG_WRAP[@]}" "$EXEC" "$@") >"$base.out" 2>"$base.err" </dev/null
    # Written whole, then renamed: bg_wait reads it as soon as the name exists.
    echo $? >"$base.rc.part" && mv "$base.rc.part" "$base.rc"
}

# bg_start PLAN CMD...: starts a sandbox in the background; sets BG_BASE, BG_SUP (the
# supervisor's pid) and BG_START. Dies when the supervisor does not appear within 10 s.
bg_start() {
    local plan=$1 before
    shift
    IT_RUNS=$((IT_RUNS + 1))
    BG_BASE=$T/.runs/$IT_RUNS
    LAST_CMD="${AS[*]:+${AS[*]} }$REAL_EXEC $plan -- $* (in the background)"
    LAST_SCRIPT="" RC=- OUT="" ERR="" IT_DUMPED=0
    before=$(wc -l <"$SUPERVISORS")
    BG_START=$EPOCHREALTIME
    spawn bg_body "$BG_BASE" "$plan" -- "$@"
    BG_SUP=""
    for _ in $(seq 1 100); do
        if [ "$(wc -l <"$SUPERVISORS")" -gt "$before" ]; then
            BG_SUP=$(last_supervisor)
            break
        fi
        sleep 0.1
    done
    [ -n "$BG_SUP" ] || die "the background run did not start: $(cat "$BG_BASE.err" 2>/dev/null)"
}

# wait_for_file PATH SECONDS: true once PATH exists.
wait_for_file() {
    for _ in $(seq 1 $(($2 * 10))); do
        [ -e "$1" ] && return 0
        sleep 0.1
    done
    return 1
}

# bg_wait SECONDS: waits for the background run to end; sets RC, OUT, ERR like capture_as.
# A run still going after SECONDS is a failed check (and is killed).
bg_wait() {
    IT_DUMPED=0
    if ! wait_for_file "$BG_BASE.rc" "$1"; then
        RC=-1 OUT=$(cat "$BG_BASE.out" 2>/dev/null) ERR=$(cat "$BG_BASE.err" 2>/dev/null)
        fail "the background run ends within $1 s" "ended" "still running"
        kill -KILL "$BG_SUP" 2>/dev/null
        wait_for_file "$BG_BASE.rc" 10
        return 1
    fi
    RC=$(<"$BG_BASE.rc")
    IFS= read -r -d '' OUT <"$BG_BASE.out"
    IFS= read -r -d '' ERR <"$BG_BASE.err"
    OUT=${OUT%$'\n'} ERR=${ERR%$'\n'}
    return 0
}

# policy NAME BODY: writes $T/NAME.toml (the [process] lines of BODY start at line 5) and
# compiles it to $T/NAME.plan.
policy() {
    printf 'version = 1\n[filesystem]\nwritable_roots = ["ws"]\n[process]\n%s\n' "$2" >"$T/$1.toml"
    compile "$T/$1.toml" "$T/$1.plan"
}

# At exit (before lib.sh's clean-up): every cgroup a run of this test left behind is emptied
# (thawed, its processes killed by pid) and removed.
limits_cleanup() {
    local sup dir p
    [ "$(id -u)" -eq 0 ] && [ -r "$SUPERVISORS" ] || return 0
    for sup in $(sort -u "$SUPERVISORS"); do
        for dir in $(run_cgroups_left "$sup"); do
            [ -w "$dir/freezer.state" ] && echo THAWED >"$dir/freezer.state" 2>/dev/null
            [ -w "$dir/cgroup.freeze" ] && echo 0 >"$dir/cgroup.freeze" 2>/dev/null
            for p in $(cat "$dir"/cgroup.procs 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
            for _ in $(seq 1 20); do
                find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null
                [ -d "$dir" ] || break
                sleep 0.1
            done
        done
    done
}
trap 'limits_cleanup; it_cleanup' EXIT
