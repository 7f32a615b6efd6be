# tests/integration/lib.sh — shared harness of the integration tests (sourced by bash).
#
# A test script calls `it_setup "$@"` (its argument is the variant: root or user), builds
# files under $T, compiles policies with `compile`, runs sandboxes with `sbx` / `sbx_script`
# and checks results with `expect*` / `check*`. Every check prints one line; a failing check
# also prints the sandbox command, its exit status and its output. `it_finish` exits
# non-zero when any check failed. The per-test directory $T is removed on exit, always.
#
# Inside sandbox scripts (sbx_script), results are lines `LABEL=RESULT` (and `LABEL.data=`,
# `LABEL.names=`), written by the probe helper ($PROBE LABEL OP ARGS) or by the shell
# function `t LABEL CMD...` (RESULT is ok or fail(STATUS); .data is the merged output).
# $SYSPROBE (it-syscalls, syscall_probe.c) does the same for one raw system call.

set -u
IT_PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin
IT_FAILURES=0
IT_CHECKS=0
IT_RUNS=0
IT_BG_PIDS=()
IT_ENV=()

die() {
    echo "SETUP ERROR: $*" >&2
    exit 2
}

# --- fixture and per-test directory ---------------------------------------------------

it_setup() {
    IT_VARIANT=${1:-}
    IT_NAME=$(basename "$0" .sh)
    case $IT_VARIANT in root | user) ;; *) die "usage: $0 root|user" ;; esac
    if [ "$(id -u)" -ne 0 ]; then
        echo "SKIP: the integration tests create a user and must run as root"
        exit 77
    fi
    [ -n "${IT_STATE:-}" ] && [ -r "$IT_STATE" ] || die "no fixture state (IT_STATE=${IT_STATE:-}); run through ctest"
    # shellcheck source=/dev/null
    . "$IT_STATE"
    COMPILE=$IT_DIR/tartaros-compile
    EXEC=$IT_DIR/tartaros-exec
    PROBE=$IT_DIR/it-probe
    SYSPROBE=$IT_DIR/it-syscalls
    [ -x "$COMPILE" ] && [ -x "$EXEC" ] && [ -x "$PROBE" ] && [ -x "$SYSPROBE" ] || die "fixture binaries missing in $IT_DIR"

    T=$(mktemp -d "${IT_TMPDIR:-/var/tmp}/tartaros-it-$IT_NAME-$IT_VARIANT.XXXXXX") || die "mktemp failed"
    chmod 755 "$T"
    trap it_cleanup EXIT
    trap 'exit 130' INT TERM
    mkdir -p "$T/home" "$T/.runs"
    if [ "$IT_VARIANT" = user ]; then
        AS=(/usr/sbin/runuser -u "$IT_USER" --)
        RUN_USER=$IT_USER
    else
        AS=()
        RUN_USER=root
    fi
    cd "$T" || die "cd $T"
    echo "== $IT_NAME as $RUN_USER in $T"
}

# Host pids of every descendant of $1 (children of every thread), depth first.
descendants() {
    local child
    for child in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        echo "$child"
        descendants "$child"
    done
}

# The argv[0] of process $1, "" when it is gone.
argv0_of() {
    local arg0=""
    IFS= read -r -d '' arg0 2>/dev/null <"/proc/$1/cmdline"
    printf '%s' "$arg0"
}

# True while process $1 exists and is not a zombie.
running() {
    local state
    state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
    [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

# The first descendant of $1 whose argv[0] is $2, waiting up to 5 s for it to appear.
find_descendant() {
    local p
    for _ in $(seq 1 50); do
        for p in $(descendants "$1"); do
            [ "$(argv0_of "$p")" = "$2" ] && echo "$p" && return 0
        done
        sleep 0.1
    done
    return 1
}

# wait_ready FILE: waits up to 5 s for the line `ready` in FILE (net_helper.py serve writes
# it once its servers listen).
wait_ready() {
    for _ in $(seq 1 50); do
        grep -q '^ready$' "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# use_net_helper [DIR]: net_helper.py copied into DIR ($T by default: the sandbox may not see
# the source tree); HELPER is the command that runs it.
use_net_helper() {
    install -m 644 "$(dirname "${BASH_SOURCE[0]}")/net_helper.py" "${1:-$T}/net_helper.py"
    HELPER=(/usr/bin/python3 "${1:-$T}/net_helper.py")
}

# serve_on_host OUT NAME=SPEC...: net_helper.py's servers (use_net_helper first), test-owned,
# their ports and log in OUT; returns once they all listen, and dies if they do not.
serve_on_host() {
    spawn "${HELPER[@]}" serve "$@"
    wait_ready "$1" || die "the host services did not start: ${*:2}"
}

# service_port OUT NAME: the port server NAME of serve_on_host OUT got.
service_port() {
    sed -n "s/^$2=//p" "$1"
}

# spawn CMD ARGS: CMD in the background, as a test-owned process (killed with its
# descendants at exit). Sets SPAWNED to the pid of a wrapper whose stderr swallows bash's
# notice when CMD is killed; CMD itself is among the wrapper's descendants.
spawn() {
    ("$@" & wait) 2>/dev/null &
    SPAWNED=$!
    IT_BG_PIDS+=("$SPAWNED")
}

# True while process $1 is a child of this shell: once a child has ended and been reaped,
# its pid may be any process's (pid_max is 32768 here), another test's sandbox among them.
is_our_child() {
    local stat state ppid
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    # "PID (COMMAND) STATE PPID ...": the command name may hold spaces and parentheses
    read -r state ppid _ <<<"${stat##*) }"
    [ -n "$state" ] && [ "$ppid" = "$$" ]
}

# Background processes a test started, while still its own, are killed with all their
# descendants (by pid); one that has ended is not looked for again.
it_cleanup() {
    local pid tree
    for pid in "${IT_BG_PIDS[@]}"; do
        is_our_child "$pid" || continue
        tree=$(descendants "$pid")
        # shellcheck disable=SC2086
        kill -KILL "$pid" $tree 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    cd /
    [ -n "${T:-}" ] && [ -d "$T" ] && rm -rf --one-file-system "$T"
}

it_finish() {
    echo "== $IT_NAME ($IT_VARIANT): $IT_CHECKS checks, $IT_FAILURES failed, $IT_RUNS sandbox runs"
    [ "$IT_FAILURES" -eq 0 ] || exit 1
    exit 0
}

# Everything under $T belongs to the user who runs the sandbox, so that every denial seen
# in a test comes from the sandbox and not from file permissions.
give_to_user() {
    [ "$IT_VARIANT" = user ] && chown -hR "$IT_USER:" "$T"
    return 0
}

section() {
    echo "-- $*"
}

# --- running things as the test's user ---------------------------------------------------

# run_as CMD ARGS: host-side work as the variant's user with a clean environment and
# HOME=$T/home (set after runuser, which would reset it), plus the array IT_ENV.
run_as() {
    give_to_user
    env -i PATH="$IT_PATH" "${AS[@]}" env HOME="$T/home" PATH="$IT_PATH" LC_ALL=C \
        USER="$RUN_USER" LOGNAME="$RUN_USER" "${IT_ENV[@]}" "$@"
}

# capture_as CMD ARGS: runs CMD through run_as in $IN_DIR (default $T), under a timeout;
# stores RC, OUT, ERR and LAST_CMD.
capture_as() {
    IT_RUNS=$((IT_RUNS + 1))
    local base=$T/.runs/$IT_RUNS
    LAST_CMD="${IT_ENV[*]:+${IT_ENV[*]} }${AS[*]:+${AS[*]} }$*"
    LAST_SCRIPT=""
    IT_DUMPED=0
    (cd "${IN_DIR:-$T}" && run_as timeout -k 5 90 "$@") >"$base.out" 2>"$base.err"
    RC=$?
    IFS= read -r -d '' OUT <"$base.out"
    IFS= read -r -d '' ERR <"$base.err"
    OUT=${OUT%$'\n'} ERR=${ERR%$'\n'}
    OUT=${OUT//$'\r'/} ERR=${ERR//$'\r'/}  # a pseudo-terminal ends lines with CR LF
}

# compile POLICY PLAN: tartaros-compile as the variant's user (so `~` is its HOME), in
# $IN_DIR; must exit 0, else the check fails and compile returns 1.
compile() {
    capture_as "$COMPILE" "$1" -o "$2"
    if [ "$RC" -ne 0 ]; then
        fail "compile $1" "exit 0" "exit $RC"
        return 1
    fi
    pass "compile $(basename "$1")${IN_DIR:+ (from $IN_DIR)}"
}

# sbx [--strict] PLAN CMD ARGS: runs CMD in a sandbox made from PLAN.
sbx() {
    local strict=()
    [ "$1" = --strict ] && strict=(--strict) && shift
    local plan=$1
    shift
    capture_as "$EXEC" "${strict[@]}" "$plan" -- "$@"
}

# sbx_script [--strict] PLAN: the script on stdin runs as `/bin/sh -c SCRIPT` in the sandbox (an
# argument, not a file: the sandbox may not see $T). The caller's heredoc expands it, so
# host paths like $T and $PROBE can be used in it.
sbx_script() {
    local strict=()
    [ "$1" = --strict ] && strict=(--strict) && shift
    local plan=$1 script text
    script=$T/.runs/script.$((IT_RUNS + 1)).sh
    {
        cat <<'PRELUDE'
t() {
    __l=$1; shift
    if __o=$("$@" 2>&1); then echo "$__l=ok"; else echo "$__l=fail($?)"; fi
    printf '%s.data=%s\n' "$__l" "$(printf '%s' "$__o" | tr '\n' '|' | cut -c1-400)"
}
: PRELUDE_END
PRELUDE
        cat
    } >"$script"
    # The last probe's status means nothing; 78/125/126 from the launcher still show.
    echo "exit 0" >>"$script"
    text=$(<"$script")
    sbx "${strict[@]}" "$plan" /bin/sh -c "$text" it-script
    LAST_CMD="${LAST_CMD%%/bin/sh -c *}/bin/sh -c \"\$(cat SCRIPT)\" it-script"
    LAST_SCRIPT=$text
}

# --- assertions ------------------------------------------------------------------------------

pass() {
    IT_CHECKS=$((IT_CHECKS + 1))
    echo "  ok    $1"
}

# fail WHAT EXPECTED ACTUAL: one failed check, with the last command and its output.
fail() {
    IT_CHECKS=$((IT_CHECKS + 1))
    IT_FAILURES=$((IT_FAILURES + 1))
    echo "  FAIL  $1"
    echo "        expected: $2"
    echo "        actual:   $3"
    if [ "${IT_DUMPED:-1}" -eq 0 ]; then
        IT_DUMPED=1
        echo "        command:  $LAST_CMD"
        if [ -n "${LAST_SCRIPT:-}" ]; then
            echo "        SCRIPT:"
            printf '%s\n' "$LAST_SCRIPT" | sed -n '/^: PRELUDE_END/,$p' | sed '1d; s/^/          | /'
        fi
        echo "        exit:     $RC"
        echo "        stdout:"
        printf '%s\n' "$OUT" | sed 's/^/          | /'
        echo "        stderr:"
        printf '%s\n' "$ERR" | sed 's/^/          | /'
    fi
}

expect_rc() {
    local want=$1 what=${2:-exit status}
    if [ "$RC" -eq "$want" ]; then pass "$what = $want"; else fail "$what" "$want" "$RC"; fi
}

# Sets RESULT to the value of `KEY=` in the last run's stdout (last occurrence), or
# "<missing>". Pure bash: forks are slow on small machines, and there are many checks.
result_of() {
    local key="$1=" line
    RESULT="<missing>"
    while IFS= read -r line; do
        [[ $line == "$key"* ]] && RESULT=${line#"$key"}
    done <<<"$OUT"
}

# expect LABEL REGEX [WHY]: the result of LABEL matches ^(REGEX)$.
expect() {
    local label=$1 want=$2 why=${3:-}
    result_of "$label"
    if [[ $RESULT =~ ^($want)$ ]]; then
        pass "$label: $RESULT${why:+  ($why)}"
    else
        fail "$label${why:+ ($why)}" "$want" "$RESULT"
    fi
}

# expect_not LABEL REGEX [WHY]: the result of LABEL exists and does not match ^(REGEX)$.
expect_not() {
    local label=$1 bad=$2 why=${3:-}
    result_of "$label"
    if [ "$RESULT" != "<missing>" ] && ! [[ $RESULT =~ ^($bad)$ ]]; then
        pass "$label: $RESULT${why:+  ($why)}"
    else
        fail "$label${why:+ ($why)}" "not $bad" "$RESULT"
    fi
}

# Errno names that mean "the sandbox refused a write" (used by the test scripts).
# shellcheck disable=SC2034
DENIED_WRITE='EROFS|EACCES|EPERM'
# ... a rename (EXDEV: the source or the target is a mount of its own).
# shellcheck disable=SC2034
DENIED_RENAME='EROFS|EACCES|EPERM|EBUSY|EXDEV'
# ... a read.
# shellcheck disable=SC2034
DENIED_READ='EACCES|ENOENT|EPERM'

# flip_byte FILE OFFSET [MASK]: the byte at OFFSET of FILE xor MASK (0xff by default), in
# place (the same inode). A damage that writes a fixed byte changes nothing where that byte
# already stood (a random suffix of a mktemp path, say).
flip_byte() {
    local orig
    orig=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    [ -n "$orig" ] || die "flip_byte: $1 has no byte at offset $2"
    # shellcheck disable=SC2059
    printf "\\x$(printf %02x $((orig ^ ${3:-255})))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# check WHAT CMD ARGS: a host-side condition (run as root) that must hold.
check() {
    local what=$1
    shift
    if "$@" >/dev/null 2>&1; then pass "host: $what"; else fail "host: $what" "true: $*" "false"; fi
}

# check_not WHAT CMD ARGS: a host-side condition that must not hold.
check_not() {
    local what=$1
    shift
    if "$@" >/dev/null 2>&1; then fail "host: $what" "false: $*" "true"; else pass "host: $what"; fi
}

# check_eq WHAT EXPECTED ACTUAL
check_eq() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "$2" "$3"; fi
}

# check_content WHAT FILE TEXT: the file holds exactly TEXT (plus a final newline).
check_content() {
    local got=""
    [ -f "$2" ] && got=$(<"$2") || got="<no such file>"
    if [ "$got" = "$3" ]; then pass "host: $1"; else fail "host: $1" "$3" "$got"; fi
}

# True when a line of TEXT ($2) matches the extended REGEX ($1).
any_line_matches() {
    local line
    while IFS= read -r line; do
        [[ $line =~ $1 ]] && return 0
    done <<<"$2"
    return 1
}

# check_match WHAT REGEX TEXT: a line of TEXT matches the extended REGEX.
check_match() {
    if any_line_matches "$2" "$3"; then pass "$1"; else fail "$1" "a line matching /$2/" "$3"; fi
}

check_no_match() {
    if any_line_matches "$2" "$3"; then fail "$1" "no line matching /$2/" "$3"; else pass "$1"; fi
}

# The number of lines of TEXT (0 for an empty text).
line_count() {
    local line n=0
    [ -z "$1" ] && { echo 0; return; }
    while IFS= read -r line; do n=$((n + 1)); done <<<"$1"
    echo "$n"
}

# A checksum of a file or a tree (names, modes, link targets and contents).
tree_sum() {
    (cd "$1" 2>/dev/null && find . -printf '%p %y %m %l\n' | LC_ALL=C sort && \
        find . -type f -print0 | LC_ALL=C sort -z | xargs -0r cat) | sha256sum | cut -c1-16
}

# expect_proxy_confined WHY: from the host side's `proxy_*` results in $OUT (net_helper.py
# hostside), the run's tartaros-proxy was the caller's, confined, and is gone after the run.
expect_proxy_confined() {
    expect proxy_pid '[0-9]+' "$1"
    expect proxy_uid "$(id -u "$RUN_USER")" "... as the caller ($RUN_USER)"
    expect proxy_NoNewPrivs 1 "... with no_new_privs"
    expect proxy_Seccomp 2 "... under a seccomp filter"
    expect proxy_CapEff 0+ "... with no effective capability"
    expect proxy_CapPrm 0+ "... nor permitted"
    # An unprivileged process cannot shrink its bounding set (PR_CAPBSET_DROP needs
    # CAP_SETPCAP); with no_new_privs and execve killed by its filter, it grants nothing.
    [ "$RUN_USER" = root ] && expect proxy_CapBnd 0+ "... and an empty bounding set"
    result_of proxy_pid
    if [[ $RESULT =~ ^[0-9]+$ ]]; then
        for _ in $(seq 1 30); do running "$RESULT" || break; sleep 0.1; done
        check_not "tartaros-proxy ($RESULT) exited with the sandbox" running "$RESULT"
    fi
}
