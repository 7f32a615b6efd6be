#!/bin/bash
# When the command loads the plan's seccomp filter (enforcer/setup_calls.h): while it waits
# for init when the filter lets every set-up call left through, else as its last step.
#  - default policy: strace sees the plan's filter loaded before the command's own set-up (its
#    chdir, once init lets it go), and every call the command makes after it, up to execve, is one of the list
#    (enforcer/setup_calls.cpp), without and with a terminal (whose calls are the only extra);
#  - a policy rule on a set-up call (deny chdir) moves the load to the last step: nothing
#    between it and execve; the command still starts in its working directory, and the rule
#    holds for what it runs (cd answers the rule's errno);
#  - the same confinement either way: no_new_privs, both filters (the connect filter and the
#    plan's), no capability in any set (the bounding set included), the securebits locked so
#    that nothing regains one (an attempt to unlock them is refused), the loopback up, and
#    the hardening answers (unshare: EPERM).
. "$(dirname "$0")/lib.sh"
it_setup "$@"

command -v strace >/dev/null || die "strace missing (scripts/install-deps installs it)"
SETUP_CALLS=$(dirname "$0")/../../enforcer/setup_calls.cpp
LISTED=$(grep -o '{SYS_[a-z0-9_]*' "$SETUP_CALLS" | sed 's/{SYS_//' | sort -u | tr '\n' ' ')
[ -n "$LISTED" ] || die "no calls listed in $SETUP_CALLS"
echo "   listed: $LISTED"

W=$T/ws
mkdir -p "$W"
cat >"$T/default.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["$W"]
[process]
isolate_pids = true
EOF
cat >"$T/late.tart" <<EOF
version 1;
filesystem { writable_roots "$W"; }
process { isolate_pids true; }
syscalls { deny chdir errno EXDEV; }
EOF
compile "$T/default.toml" "$T/default.plan" || it_finish
compile "$T/late.tart" "$T/late.plan" || it_finish
# command_calls LOG: the calls (names) the process that loaded the plan's filter made from
# that load up to its execve, one per line; LOADED_EARLY=1 when they include the command's
# chdir to its working directory (its first step once init lets it go), else 0. The plan's
# filter is the one loaded with flags 0 (the connect filter asks for a listener); strace
# shows its program only while the command is dumpable, so the flags are what is matched.
command_calls() {
    local log=$1 pid
    pid=$(sed -n 's/^\([0-9]*\) *seccomp(SECCOMP_SET_MODE_FILTER, 0, .*/\1/p' "$log" | head -1)
    CALLS=""
    LOADED_EARLY=0
    [ -n "$pid" ] || return 1
    CALLS=$(awk -v pid="$pid" '
        $1 != pid { next }
        index($0, "seccomp(SECCOMP_SET_MODE_FILTER, 0, ") { on = 1; next }
        !on || $2 ~ /^<\.\.\./ { next }
        { name = $2; sub(/\(.*/, "", name); if (name == "execve") exit; print name }' "$log")
    [[ $'\n'$CALLS$'\n' == *$'\nchdir\n'* ]] && LOADED_EARLY=1
    return 0
}

# unlisted CALLS: the calls that are not in the list, space-separated (empty when none).
unlisted() {
    local c out=""
    for c in $1; do
        [[ " $LISTED " == *" $c "* ]] || out="$out $c"
    done
    echo "${out# }"
}

section "default policy: loaded while the command waits, then only listed calls"
capture_as strace -f -qq -o "$T/default.log" "$EXEC" "$T/default.plan" -- /bin/true
expect_rc 0 "the sandboxed /bin/true under strace"
command_calls "$T/default.log"
check_eq "strace saw the command load the plan's filter" 0 "$?"
check_eq "the plan's filter is loaded before the command's own set-up (its chdir)" 1 "$LOADED_EARLY"
check_eq "every call after it up to execve is listed" "" "$(unlisted "$CALLS")"
check_match "... among them the working directory and the capabilities" "chdir.*capset" "$(echo $CALLS)"

section "with a terminal: its calls are listed too"
capture_as script -qec "strace -f -qq -o $T/tty.log $EXEC $T/default.plan -- /bin/true" /dev/null
expect_rc 0 "the same under a pseudo-terminal (script)"
command_calls "$T/tty.log"
check_eq "strace saw the command load the plan's filter" 0 "$?"
check_eq "loaded early under a terminal too" 1 "$LOADED_EARLY"
check_eq "every call after it up to execve is listed" "" "$(unlisted "$CALLS")"
check_match "... among them the terminal's foreground (setpgid, TIOCSPGRP)" "setpgid.*ioctl" "$(echo $CALLS)"

section "a rule on a set-up call: loaded last, and the rule still holds for the command"
capture_as strace -f -qq -o "$T/late.log" "$EXEC" "$T/late.plan" -- /bin/true
expect_rc 0 "the sandboxed /bin/true under strace"
command_calls "$T/late.log"
check_eq "strace saw the command load the plan's filter" 0 "$?"
check_eq "the plan's filter is loaded after the command's set-up" 0 "$LOADED_EARLY"
check_eq "nothing between the load and execve" "" "$CALLS"
IN_DIR=$W capture_as "$EXEC" "$T/late.plan" -- python3 -c '
import errno, os
print(os.getcwd())
try:
    os.chdir("/")
    print("moved")
except OSError as e:
    print(errno.errorcode[e.errno])'
expect_rc 0 "the command starts"
check_match "... in its working directory (the command's own chdir was not refused)" "^$W$" "$OUT"
check_match "... and its chdir answers the rule's errno" "^EXDEV$" "$OUT"

confinement_probe() {
    sbx_script "$1" <<EOF
t nnp grep -q '^NoNewPrivs:[[:space:]]*1$' /proc/self/status
t seccomp grep -q '^Seccomp:[[:space:]]*2$' /proc/self/status
t filters grep -q '^Seccomp_filters:[[:space:]]*2$' /proc/self/status
t no_caps sh -c "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status | grep -vq '0000000000000000\$' && exit 1 || exit 0"
t securebits python3 -c '
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
PR_GET_SECUREBITS, PR_SET_SECUREBITS = 27, 28
print(hex(libc.prctl(PR_GET_SECUREBITS, 0, 0, 0, 0)))
print("unlock", libc.prctl(PR_SET_SECUREBITS, 0, 0, 0, 0), errno.errorcode.get(ctypes.get_errno()))'
t loopback python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname(), timeout=5); a, _ = s.accept()
c.sendall(b"ping"); print(a.recv(4).decode())'
$SYSPROBE unshare unshare
t work sh -c 'echo ok > $W/written && cat $W/written'
EOF
}
for plan in default late; do
    section "the command's confinement ($plan)"
    confinement_probe "$T/$plan.plan"
    expect_rc 0 "the probe runs"
    expect nnp ok "no_new_privs"
    expect seccomp ok "seccomp filter mode"
    expect filters ok "the connect filter and the plan's"
    expect no_caps ok "no capability in any set"
    expect securebits.data '0xef[|]unlock -1 EPERM' \
        "securebits NOROOT, NO_SETUID_FIXUP, KEEP_CAPS_LOCKED, NO_CAP_AMBIENT_RAISE set and locked; unlocking refused"
    expect loopback.data ping "the sandbox's loopback is up: a connection over it carries data"
    expect unshare "EPERM" "the hardening refuses a new user namespace"
    expect work ok "the allowed work: a write in the writable root"
done

it_finish
