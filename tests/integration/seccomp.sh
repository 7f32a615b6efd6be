#!/bin/bash
# The seccomp filter in a real sandbox, each call made raw by it-syscalls ($SYSPROBE):
# under harden_syscalls every call of the hardening list fails with the profile's errno
# (EPERM; ENOSYS for clone3 and numbers beyond the table), a new user namespace cannot be
# made for a mount, no sibling or child can be traced, TIOCSTI/TIOCLINUX fail even on the
# caller's terminal; always (baseline) socket families are allow-listed (AF_VSOCK, AF_PACKET,
# AF_ALG, AF_KEY, AF_XDP, MPTCP and netlink other than route refused), io_uring answers ENOSYS,
# and an i386 (int $0x80) or x32 call kills the process (SIGSYS, status 159). deny_unix refuses
# AF_UNIX, also when the family hides in the high word (socket(0x100000001, ...)). Arguments
# are judged on their low 32 bits, as the kernel reads them. In the same runs, allowed work
# succeeds; a control run with harden_syscalls = false shows that the hardening list is what
# refused (there the kernel answers otherwise wherever harmless arguments let it tell: not for
# all of the list, as capability checks come first in mount, acct, reboot...), and controls
# without a sandbox show what the kernel does on its own. No call that sets a mode can give a
# file S_ISUID or S_ISGID (openat2, whose mode is in memory, is ENOSYS), and the host finds
# none in the writable root afterwards; a file capability needs CAP_SETFCAP.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W"
echo uring-secret >"$W/readme"
policy() {  # policy FILE [PROCESS-KEY] [NETWORK-KEY]
    {
        printf 'version = 1\n[filesystem]\nwritable_roots = ["ws"]\n'
        [ -n "${2:-}" ] && printf '[process]\n%s\n' "$2"
        [ -n "${3:-}" ] && printf '[network]\n%s\n' "$3"
    } >"$1"
}
policy "$T/harden.toml" "harden_syscalls = true" ""
policy "$T/default.toml" "" ""
policy "$T/unix.toml" "harden_syscalls = true" "deny_unix = true"
policy "$T/soft.toml" "harden_syscalls = false" ""
for p in harden default unix soft; do
    compile "$T/$p.toml" "$T/$p.plan" || it_finish
done

SOCK_STREAM=1 SOCK_DGRAM=2 SOCK_RAW=3 SOCK_SEQPACKET=5
HI=0x100000000  # a high word the kernel ignores for int arguments

# What the kernel does without any sandbox (as the test's user).
section "controls without a sandbox"
# shellcheck disable=SC2016  # the script's $0 and $? are its own
capture_as /bin/sh -c '
"$0" int80 int80 20; echo "int80.status=$?"
"$0" x32 x32 39; echo "x32.status=$?"
"$0" vsock socket 40 1 0
"$0" newuser clone 0x10000011' "$SYSPROBE"
result_of int80.status
INT80_BARE=$RESULT
if [ "$INT80_BARE" = 0 ]; then
    pass "control: an i386 getpid through int \$0x80 works without the sandbox"
    INT80_WANT=159
else
    # No IA32 emulation (ia32_emulation=off): int $0x80 faults (SIGSEGV) before any syscall
    # entry, so no filter can see it. The sandbox must not make it work, that is all.
    pass "this kernel has no 32-bit syscalls (int \$0x80 → status $INT80_BARE): the SIGSYS kill cannot be observed"
    INT80_WANT="159|$INT80_BARE"
fi
expect x32.status "0|1" "control: an x32 number returns (ENOSYS without the x32 ABI)"
result_of vsock
echo "  note  AF_VSOCK without a sandbox: $RESULT"
result_of newuser
USERNS_BARE=$RESULT
echo "  note  a new user namespace without a sandbox: $USERNS_BARE"

# The battery of calls, run under each profile.
battery() {
    sbx_script "$1" <<EOF
cd $W || exit 99
for op in process_vm_readv process_vm_writev bpf perf_event_open userfaultfd keyctl add_key \
    request_key kexec_load kexec_file_load init_module finit_module delete_module mount umount2 \
    pivot_root open_tree move_mount fsopen fsconfig fsmount fspick mount_setattr open_tree_attr \
    unshare setns open_by_handle_at name_to_handle_at acct swapon swapoff reboot syslog iopl \
    ioperm quotactl quotactl_fd io_uring_enter io_uring_register userns_mount ptrace_child clone3; do
    $SYSPROBE \$op \$op
done
sleep 30 & sibling=\$!
$SYSPROBE ptrace_sibling ptrace \$sibling
kill \$sibling
$SYSPROBE clone3_newuser clone3 0x10000000
$SYSPROBE clone_newuser clone 0x10000011
$SYSPROBE clone_newuser_hi clone 0x110000011
$SYSPROBE clone_newns clone 0x20011
$SYSPROBE clone_newpid clone 0x20000011
$SYSPROBE clone_newnet clone 0x40000011
$SYSPROBE clone_newuts clone 0x4000011
$SYSPROBE clone_newipc clone 0x8000011
$SYSPROBE clone_newcgroup clone 0x2000011
$SYSPROBE pers_noaslr personality 0x40000
$SYSPROBE pers_noaslr_hi personality 0x100040000
$SYSPROBE pers_linux32 personality 0x8
$SYSPROBE sti_null ioctl /dev/null 0x5412
$SYSPROBE sti_null_hi ioctl /dev/null 0x100005412
$SYSPROBE linux_null ioctl /dev/null 0x541C
$SYSPROBE nr470 nr 470
$SYSPROBE nr511 nr 511
$SYSPROBE uring io_uring_openat $W/readme
$SYSPROBE vsock socket 40 $SOCK_STREAM 0
$SYSPROBE vsock_hi socket 0x100000028 $SOCK_STREAM 0
$SYSPROBE vsock_pair socketpair 40 $SOCK_STREAM 0
$SYSPROBE packet socket 17 $SOCK_RAW 0
$SYSPROBE alg socket 38 $SOCK_SEQPACKET 0
$SYSPROBE key socket 15 $SOCK_RAW 2
$SYSPROBE xdp socket 44 $SOCK_RAW 0
$SYSPROBE bluetooth socket 31 $SOCK_STREAM 0
$SYSPROBE can socket 29 $SOCK_RAW 1
$SYSPROBE tipc socket 30 $SOCK_STREAM 0
$SYSPROBE mptcp socket 2 $SOCK_STREAM 262
$SYSPROBE mptcp6 socket 10 $SOCK_STREAM 262
$SYSPROBE mptcp_hi socket 2 $SOCK_STREAM $((HI + 262))
$SYSPROBE nl_audit socket 16 $SOCK_RAW 9
$SYSPROBE nl_audit_hi socket 16 $SOCK_RAW $((HI + 9))
$SYSPROBE nl_generic socket 16 $SOCK_RAW 16
$SYSPROBE int80 int80 20; echo "int80.status=\$?"
$SYSPROBE x32 x32 39; echo "x32.status=\$?"
$SYSPROBE unix socket 1 $SOCK_STREAM 0
$SYSPROBE unix_hi socket 0x100000001 $SOCK_STREAM 0
$SYSPROBE unix_pair socketpair 1 $SOCK_STREAM 0
$SYSPROBE inet socket 2 $SOCK_STREAM 0
$SYSPROBE inet_udp socket 2 $SOCK_DGRAM 0
$SYSPROBE inet_hi socket 0xffffffff00000002 $SOCK_STREAM 0
$SYSPROBE inet6 socket 10 $SOCK_STREAM 0
$SYSPROBE nl_route socket 16 $SOCK_RAW 0
$SYSPROBE nl_route_hi socket 16 $SOCK_RAW $HI
$SYSPROBE pers_query personality 0xffffffff
$SYSPROBE pers_default personality 0
$SYSPROBE pers_default_hi personality $HI
$SYSPROBE fork clone 0x11
$SYSPROBE fork_hi clone 0x100000011
$SYSPROBE tcgets_null ioctl /dev/null 0x5401
t pipeline sh -c "seq 1 100 | sort -n | tail -n 1"
t write sh -c "echo w > $W/written && cat $W/written"
EOF
}

# Every check of the battery: $1 names the run in the messages.
check_hardened() {
    local run=$1 op
    expect_rc 0 "$run: sandbox exit status"
    for op in process_vm_readv process_vm_writev bpf perf_event_open userfaultfd keyctl add_key \
        request_key kexec_load kexec_file_load init_module finit_module delete_module mount umount2 \
        pivot_root open_tree move_mount fsopen fsconfig fsmount fspick mount_setattr open_tree_attr \
        unshare setns open_by_handle_at name_to_handle_at acct swapon swapoff reboot syslog iopl \
        ioperm quotactl quotactl_fd; do
        expect "$op" EPERM "$run: hardening list"
    done
    expect io_uring_enter ENOSYS "$run: io_uring (baseline)"
    expect io_uring_register ENOSYS "$run: io_uring (baseline)"
    expect uring ENOSYS "$run: io_uring openat of a file"
    expect uring.step setup "$run: the ring is never set up"
    expect userns_mount EPERM "$run: a new user namespace for a mount"
    expect userns_mount.step unshare-user "$run: refused at the first step"
    expect ptrace_child EPERM "$run: ptrace of an own child"
    expect ptrace_sibling EPERM "$run: ptrace of a sibling (the shell's background sleep)"
    expect clone3 ENOSYS "$run: clone3 (libc falls back to clone)"
    expect clone3_newuser ENOSYS "$run: clone3 with CLONE_NEWUSER"
    for op in clone_newuser clone_newuser_hi clone_newns clone_newpid clone_newnet clone_newuts \
        clone_newipc clone_newcgroup; do
        expect "$op" EPERM "$run: clone with a namespace flag"
    done
    expect pers_noaslr EPERM "$run: personality(ADDR_NO_RANDOMIZE)"
    expect pers_noaslr_hi EPERM "$run: personality(ADDR_NO_RANDOMIZE + high word)"
    expect pers_linux32 EPERM "$run: personality(PER_LINUX32)"
    expect sti_null EPERM "$run: TIOCSTI, on any descriptor"
    expect sti_null_hi EPERM "$run: TIOCSTI + high word (the kernel reads 32 bits)"
    expect linux_null EPERM "$run: TIOCLINUX"
    expect nr470 ENOSYS "$run: number 470, beyond the table"
    expect nr511 ENOSYS "$run: number 511"
    check_baseline "$run"
    expect unix ok "$run: allowed: AF_UNIX socket"
    expect unix_hi ok "$run: allowed: AF_UNIX in the low word (0x100000001)"
    expect unix_pair ok "$run: allowed: AF_UNIX socketpair"
    expect pers_default ok "$run: allowed: personality(0)"
    expect pers_default_hi ok "$run: allowed: personality(0 + high word)"
    expect fork ok "$run: allowed: clone(SIGCHLD), a fork"
    expect fork_hi ok "$run: allowed: clone(SIGCHLD + high word)"
}

# The baseline, in every profile; allowed sockets and work in the same run.
check_baseline() {
    local run=$1 family
    for family in vsock vsock_hi vsock_pair packet alg key xdp bluetooth can tipc; do
        expect "$family" EAFNOSUPPORT "$run: socket family outside the allow-list"
    done
    for proto in mptcp mptcp6 mptcp_hi nl_audit nl_audit_hi nl_generic; do
        expect "$proto" EPROTONOSUPPORT "$run: protocol outside the allow-list"
    done
    expect int80.status "$INT80_WANT" "$run: an i386 call (int \$0x80) kills the process"
    expect int80 "<missing>" "$run: ... before it returns"
    expect x32.status 159 "$run: an x32 number kills the process (SIGSYS)"
    expect x32 "<missing>" "$run: ... before it returns"
    expect inet ok "$run: allowed: AF_INET stream"
    expect inet_udp ok "$run: allowed: AF_INET datagram"
    expect inet_hi ok "$run: allowed: AF_INET with garbage in the high word"
    expect inet6 ok "$run: allowed: AF_INET6"
    expect nl_route ok "$run: allowed: AF_NETLINK route"
    expect nl_route_hi ok "$run: allowed: AF_NETLINK route + high word"
    expect pers_query ok "$run: allowed: personality(0xffffffff), the query"
    expect tcgets_null ENOTTY "$run: allowed: other ioctls reach the kernel (TCGETS on /dev/null)"
    expect pipeline.data 100 "$run: allowed: a shell pipeline"
    expect write.data w "$run: allowed: a write in the writable root"
}

section "harden_syscalls = true: every call of the list refused, allowed work in the same run"
battery "$T/harden.plan"
check_hardened hardened

section "harden_syscalls absent: the default is the hardening profile"
battery "$T/default.plan"
check_hardened default

section "control: harden_syscalls = false, the same calls reach the kernel"
battery "$T/soft.plan"
expect_rc 0 "soft: sandbox exit status"
# These answers are the kernel's own wherever the call reaches it (EINVAL for invalid flags,
# EBADF for fd -1, EFAULT for NULL, ENOSYS when not built in, success): never EPERM.
for op in process_vm_readv process_vm_writev perf_event_open userfaultfd keyctl add_key request_key \
    umount2 open_tree fsconfig mount_setattr open_tree_attr unshare setns name_to_handle_at iopl \
    ioperm quotactl quotactl_fd; do
    expect_not "$op" EPERM "soft: not refused (harmless arguments)"
done
expect ptrace_child ok "soft: ptrace of an own child works"
if [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" = 0 ]; then
    expect ptrace_sibling ok "soft: ptrace of a sibling works (Yama off or scope 0)"
fi
expect clone3 ok "soft: clone3 works"
expect pers_noaslr ok "soft: personality(ADDR_NO_RANDOMIZE) works"
expect pers_linux32 ok "soft: personality(PER_LINUX32) works"
expect sti_null ENOTTY "soft: TIOCSTI on /dev/null is the kernel's ENOTTY"
expect sti_null_hi ENOTTY "soft: ... also with the high word"
expect linux_null ENOTTY "soft: TIOCLINUX on /dev/null is the kernel's ENOTTY"
expect fork ok "soft: fork"
check_baseline soft
expect io_uring_enter ENOSYS "soft: io_uring stays refused (baseline)"
expect io_uring_register ENOSYS "soft: io_uring stays refused (baseline)"
expect uring ENOSYS "soft: io_uring openat stays refused (baseline)"
if [ "$USERNS_BARE" = ok ]; then
    expect clone_newuser ok "soft: clone(CLONE_NEWUSER) works as it does without a sandbox"
    expect_not userns_mount.step unshare-user "soft: unshare(CLONE_NEWUSER) works (a later step may fail)"
fi

# set_id_battery PLAN: every way to give a file S_ISUID or S_ISGID, as an attacker would (each
# creating call, each chmod, through /proc/self/fd, the bit behind a high word, openat2 whose
# mode is in memory, a set-group-ID directory), then harmless modes, in a directory of the
# writable root emptied first. Sets SETID_FILES: what the host then finds with either bit.
set_id_battery() {
    local d=$W/setid
    rm -rf "$d" && mkdir -p "$d/dir" && touch "$d/plain" && give_to_user
    sbx_script "$1" <<EOF
for call in open openat creat; do
    $SYSPROBE "suid_\$call" mode \$call $d/new-\$call 04755
    $SYSPROBE "sgid_\$call" mode \$call $d/newg-\$call 02755
done
for call in mknod mknodat; do
    $SYSPROBE "suid_\$call" mode \$call $d/node-\$call 0104755
done
for call in chmod fchmod fchmodat fchmodat2 proc-chmod; do
    $SYSPROBE "suid_\$call" mode \$call $d/plain 04755
    $SYSPROBE "sgid_\$call" mode \$call $d/plain 02711
done
$SYSPROBE suid_hi mode chmod $d/plain $((HI | 04755))
$SYSPROBE sgid_dir mode chmod $d/dir 02775
$SYSPROBE openat2 openat2 $d/new-openat2 04755
$SYSPROBE plain_open mode openat $d/ok-open 0755
$SYSPROBE plain_chmod mode chmod $d/plain 0750
$SYSPROBE plain_hi mode chmod $d/plain $((HI | 0750))
$SYSPROBE sticky_dir mode chmod $d/dir 01777
$SYSPROBE plain_mknod mode mknod $d/fifo 010644
EOF
    SETID_FILES=$(find "$d" -perm /6000 -printf '%P ' 2>/dev/null)
}

section "set-user-ID and set-group-ID files: refused by every call that sets a mode"
set_id_battery "$T/harden.plan"
expect_rc 0 "setid: sandbox exit status"
for call in open openat creat mknod mknodat chmod fchmod fchmodat fchmodat2 proc-chmod; do
    expect "suid_$call" EPERM "$call with S_ISUID"
done
for call in open openat creat chmod fchmod fchmodat fchmodat2 proc-chmod; do
    expect "sgid_$call" EPERM "$call with S_ISGID"
done
expect suid_hi EPERM "chmod with S_ISUID behind a high word (the kernel reads the low 32 bits)"
expect sgid_dir EPERM "chmod g+s of a directory too (the cost: a filter cannot tell a directory)"
expect openat2 ENOSYS "openat2: its mode is in memory, so it does not exist"
expect plain_open ok "allowed: openat creating a file 0755"
expect plain_chmod ok "allowed: chmod 0750"
expect plain_hi ok "allowed: chmod 0750 behind a high word"
expect sticky_dir ok "allowed: a sticky directory"
expect plain_mknod ok "allowed: mknod of a FIFO"
check_eq "host: no file with S_ISUID or S_ISGID in the writable root" "" "$SETID_FILES"
check "host: the plain file is 0750" test "$(stat -c %a "$W/setid/plain")" = 750
sbx "$T/harden.plan" /usr/bin/python3 -c '
import errno, os, sys
try:
    os.setxattr(sys.argv[1], "security.capability", b"\x01\x00\x00\x02" + b"\xff" * 16)
    print("fcaps=ok")
except OSError as e:
    print("fcaps=" + errno.errorcode[e.errno])' "$W/setid/plain"
expect fcaps 'EPERM|EACCES' "a file capability (security.capability) needs CAP_SETFCAP, which the command lacks"
set_id_battery "$T/soft.plan"
expect suid_chmod ok "control: harden_syscalls = false, chmod 04755 reaches the kernel"
check_match "control: the host then holds set-user-ID files, openat2's among them" \
    'new-open .*new-openat2|new-openat2 .*new-open ' "$SETID_FILES "
rm -rf "$W/setid"

section "deny_unix: AF_UNIX refused, also in the low word of a 64-bit family"
sbx_script "$T/unix.plan" <<EOF
$SYSPROBE unix socket 1 $SOCK_STREAM 0
$SYSPROBE unix_dgram socket 1 $SOCK_DGRAM 0
$SYSPROBE unix_hi socket 0x100000001 $SOCK_STREAM 0
$SYSPROBE unix_pair socketpair 1 $SOCK_STREAM 0
$SYSPROBE unix_pair_hi socketpair 0xffffffff00000001 $SOCK_DGRAM 0
$SYSPROBE vsock socket 40 $SOCK_STREAM 0
$SYSPROBE ptrace_child ptrace_child
$SYSPROBE inet socket 2 $SOCK_STREAM 0
$SYSPROBE inet6 socket 10 $SOCK_DGRAM 0
$SYSPROBE nl_route socket 16 $SOCK_RAW 0
t pipe sh -c "echo through-a-pipe | cat"
EOF
expect_rc 0 "deny_unix: sandbox exit status"
expect unix EPERM "deny_unix: socket(AF_UNIX, SOCK_STREAM)"
expect unix_dgram EPERM "deny_unix: socket(AF_UNIX, SOCK_DGRAM)"
expect unix_hi EPERM "deny_unix: socket(0x100000001, ...) is AF_UNIX to the kernel"
expect unix_pair EPERM "deny_unix: socketpair(AF_UNIX)"
expect unix_pair_hi EPERM "deny_unix: socketpair(0xffffffff00000001, ...)"
expect vsock EAFNOSUPPORT "deny_unix: the baseline still holds"
expect ptrace_child EPERM "deny_unix: the hardening still holds"
expect inet ok "deny_unix: allowed: AF_INET"
expect inet6 ok "deny_unix: allowed: AF_INET6"
expect nl_route ok "deny_unix: allowed: AF_NETLINK route"
expect pipe.data through-a-pipe "deny_unix: allowed: a pipe"

section "the terminal: TIOCSTI and TIOCLINUX on the caller's terminal (under script)"
# script's stdin is a FIFO held open here: at EOF on its stdin, script would end the session.
mkfifo "$T/.runs/tty-in"
exec 7<>"$T/.runs/tty-in"
cat >"$T/tty.sh" <<EOF
if [ -t 0 ]; then echo stdin_tty=yes; else echo stdin_tty=no; fi
$SYSPROBE winsz ioctl 0 0x5413
$SYSPROBE tcgets ioctl 0 0x5401
$SYSPROBE tioclinux ioctl 0 0x541C
$SYSPROBE sti ioctl 0 0x5412
$SYSPROBE sti_hi ioctl 0 0x100005412
exit 0
EOF
capture_as script -q -e -c "/bin/sh $T/tty.sh" /dev/null <&7
expect stdin_tty yes "control: stdin is a terminal under script"
expect sti "ok|EIO" "control: without the sandbox TIOCSTI on the terminal reaches the kernel"
expect tioclinux ENOTTY "control: TIOCLINUX on a pseudo-terminal is the kernel's ENOTTY"
capture_as script -q -e -c "$EXEC $T/harden.plan -- /bin/sh $T/tty.sh" /dev/null <&7
expect_rc 0 "hardened under script: exit status"
expect stdin_tty yes "hardened: stdin is the caller's terminal"
expect winsz ok "hardened: allowed: TIOCGWINSZ on the terminal"
expect tcgets ok "hardened: allowed: TCGETS on the terminal"
expect sti EPERM "hardened: TIOCSTI on the caller's terminal"
expect sti_hi EPERM "hardened: TIOCSTI + high word on the caller's terminal"
expect tioclinux EPERM "hardened: TIOCLINUX on the caller's terminal"
capture_as script -q -e -c "$EXEC $T/soft.plan -- /bin/sh $T/tty.sh" /dev/null <&7
expect_rc 0 "soft under script: exit status"
expect winsz ok "soft: TIOCGWINSZ on the terminal"
expect tioclinux ENOTTY "soft: TIOCLINUX reaches the kernel (so EPERM above is the filter's)"
result_of sti
# The kernel itself refuses TIOCSTI on a terminal that is not the caller's controlling one, and
# the sandbox's new session has none: EPERM either way here. TIOCSTI on /dev/null (ENOTTY
# without the hardening, EPERM with it, above) shows the filter refuses the command itself.
echo "  note  soft: TIOCSTI on the inherited terminal: $RESULT (the kernel's answer)"
exec 7>&-

section "a terminal of the sandbox's own: TIOCSTI on its controlling pseudo-terminal"
# pty.fork() gives the child a new session whose controlling terminal is a pty of the sandbox's
# private devpts, so the kernel's own check (the caller's controlling terminal) passes: what
# refuses TIOCSTI there is the filter, and without the hardening the kernel lets it through
# (or answers EIO where dev.tty.legacy_tiocsti = 0).
cat >"$W/own_terminal.py" <<'PYEOF2'
import errno, fcntl, os, pty, termios
pid, fd = pty.fork()
if pid == 0:
    try:
        fcntl.ioctl(0, termios.TIOCSTI, b"x")
        print("own_sti=ok", flush=True)
    except OSError as e:
        print(f"own_sti={errno.errorcode[e.errno]}", flush=True)
    os._exit(0)
out = b""
while True:
    try:
        chunk = os.read(fd, 100)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
# A TIOCSTI that works echoes its "x" on the terminal, just before the child's line.
for line in out.decode().replace("\r", "").split("\n"):
    if "own_sti=" in line:
        at = line.index("own_sti=")
        print(line[at:])
        print(f"own_sti.echo={line[:at]}")
PYEOF2
for run in harden soft; do
    sbx "$T/$run.plan" /usr/bin/python3 "$W/own_terminal.py"
    expect_rc 0 "$run: a pseudo-terminal of the private devpts opens"
    if [ "$run" = harden ]; then
        expect own_sti EPERM "hardened: TIOCSTI on the sandbox's own controlling terminal"
    else
        expect own_sti "ok|EIO" "soft: the same TIOCSTI reaches the kernel (so EPERM above is the filter's)"
        result_of own_sti
        [ "$RESULT" = ok ] && expect own_sti.echo x "soft: ... and the injected key arrives on the terminal"
    fi
done

it_finish
