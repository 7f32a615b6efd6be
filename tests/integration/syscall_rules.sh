#!/bin/bash
# A .tart policy's own syscall rules in a real sandbox, each call made raw by it-syscalls
# ($SYSPROBE) with full 64-bit arguments. The policy (agent.tart) includes rules.tart, which
# lies in the writable root:
#  - a denied call fails with the rule's errno (EXDEV, ESOCKTNOSUPPORT, EINVAL: answers the
#    kernel itself never gives these calls), the rule in the included file as much as the
#    policy's; the same call with other arguments reaches the kernel (it succeeds, or the kernel
#    answers as without the rule), controls without a sandbox show the kernel's own answers;
#  - a condition reads the low 32 bits: a high word set on the tested argument (ioctl's request
#    0x1_0000_541b, socket's family 0x1_0000_0002) does not slip past it, and a high word on
#    an argument the rule does not test changes nothing;
#  - `kill` ends the process with SIGSYS (status 159), and an i386 call (int $0x80) is killed by
#    the filter's prologue as before; the built-in hardening still answers first (TIOCSTI:
#    EPERM);
#  - the included file is write-protected like the policy file; the rest of the root is not;
#  - with the effect log, the denied line names the call and the rule's errno;
#  - the compiler refuses a rule that would break the sandbox's start (deny execve), and warns
#    about a rule the hardening shadows, naming the included file it is in.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W" "$T/logs"
cat >"$W/rules.tart" <<'EOF'
version 1;
syscalls {
    deny ioctl when arg1 == FIONREAD errno EXDEV;
}
EOF
cat >"$W/agent.tart" <<'EOF'
version 1;
include "rules.tart";
filesystem { writable_roots "."; }
syscalls {
    deny socket when arg0 == AF_INET and arg1 == SOCK_RAW errno ESOCKTNOSUPPORT;
    deny socket when arg0 == AF_INET6 and arg1 == SOCK_DGRAM kill;
    deny personality when arg0 == 0xffffffff errno EINVAL;
}
EOF
EXDEV=18 ESOCKTNOSUPPORT=94 SOCK_STREAM=1 SOCK_DGRAM=2 SOCK_RAW=3 IPPROTO_ICMP=1
FIONREAD=0x541b TCGETS=0x5401 HI=0x100000000

section "compiling: the rules, their files, and the checks of the rules"
IN_DIR=$W compile agent.tart "$T/plan" || it_finish
check_eq "the compile has nothing to say about these rules" "" "$ERR"
capture_as "$COMPILE" --explain "$T/plan"
check_match "--explain names the included file" "^  includes: $W/rules.tart$" "$OUT"
check_match "--explain lists the included file's rule at its origin" \
    '^     rules\.tart:3:5  deny ioctl when arg1 == 0x541b: ERRNO\(EXDEV\)$' "$OUT"
check_match "... and the policy's own, after it" '^     agent\.tart:6:5  deny socket when arg0 == 0xa and arg1 == 0x2: KILL_PROCESS$' "$OUT"
check_match "the action table holds the rule below the hardening's TIOCSTI case" \
    '^         ERRNO\(EXDEV\) for arg1 == 0x541b \(policy rule at rules\.tart:3:5\)$' "$OUT"
check_match "the included file is write-protected" "write_deny $W/rules.tart " "$OUT"

cp "$W/agent.tart" "$W/start.tart"
printf 'syscalls {\n    deny execve;\n}\n' >>"$W/start.tart"
IN_DIR=$W capture_as "$COMPILE" start.tart -o "$T/start.plan"
expect_rc 78 "a rule on execve is refused"
check_match "... as syscall-rule-breaks-start, at the syscall's name" \
    'start\.tart:10:10: error: deny execve would refuse the sandbox.s own start.*\[syscall-rule-breaks-start\]' "$ERR"
check_not "... and no plan is written" test -e "$T/start.plan"

printf 'version 1;\nsyscalls {\n    deny ioctl when arg1 == TIOCSTI errno EACCES;\n}\n' >"$W/shadow.tart"
printf 'version 1;\ninclude "shadow.tart";\n' >"$W/shadowed.tart"
IN_DIR=$W capture_as "$COMPILE" shadowed.tart -o "$T/shadowed.plan"
expect_rc 0 "a rule the hardening shadows compiles"
check_match "... with a warning at its line in the included file" \
    '^shadow\.tart:3:5: warning: this rule never applies: the hardening already answers every ioctl call it covers.*\[syscall-rule-shadowed\]$' \
    "$ERR"

section "controls without a sandbox"
capture_as /bin/sh -c "
$SYSPROBE fionread ioctl /dev/null $FIONREAD
$SYSPROBE raw socket 2 $SOCK_RAW $IPPROTO_ICMP
$SYSPROBE udp6 socket 10 $SOCK_DGRAM 0
$SYSPROBE query personality 0xffffffff
$SYSPROBE int80 int80 20; echo \"int80.status=\$?\""
expect_not fionread EXDEV "control: the kernel's own answer to FIONREAD on /dev/null"
expect_not raw ESOCKTNOSUPPORT "control: the kernel's own answer to a raw ICMP socket"
expect udp6 "ok|EAFNOSUPPORT" "control: an IPv6 UDP socket"
expect query ok "control: the personality query"
result_of int80.status
INT80_BARE=$RESULT

section "in the sandbox: the rules' answers, other arguments reach the kernel"
battery() {
    cat <<EOF
cd $W || exit 99
$SYSPROBE fionread ioctl /dev/null $FIONREAD
$SYSPROBE fionread_hi ioctl /dev/null $((HI + FIONREAD))
$SYSPROBE fionread_hi_all ioctl /dev/null 0xffffffff0000541b
$SYSPROBE tcgets ioctl /dev/null $TCGETS
$SYSPROBE sti ioctl /dev/null 0x5412
$SYSPROBE raw socket 2 $SOCK_RAW $IPPROTO_ICMP
$SYSPROBE raw_hi socket $((HI + 2)) $((HI + SOCK_RAW)) $IPPROTO_ICMP
$SYSPROBE raw_proto_hi socket 2 $SOCK_RAW $((HI + IPPROTO_ICMP))
$SYSPROBE tcp socket 2 $SOCK_STREAM 0
$SYSPROBE tcp6 socket 10 $SOCK_STREAM 0
$SYSPROBE query personality 0xffffffff
$SYSPROBE query_hi personality 0x1ffffffff
$SYSPROBE pers_default personality 0
$SYSPROBE udp6 socket 10 $SOCK_DGRAM 0; echo "udp6.status=\$?"
$SYSPROBE udp6_hi socket 0xffffffff0000000a $SOCK_DGRAM 0; echo "udp6_hi.status=\$?"
$SYSPROBE int80 int80 20; echo "int80.status=\$?"
t write_rules sh -c "echo 'syscalls { }' >> $W/rules.tart"
t write_policy sh -c "echo 'syscalls { }' >> $W/agent.tart"
t write_other sh -c "echo ok > $W/other.txt && cat $W/other.txt"
EOF
}
sbx_script "$T/plan" < <(battery)
expect_rc 0 "sandbox exit status"
expect fionread EXDEV "FIONREAD: the included file's rule, with its errno"
expect fionread_hi EXDEV "... the high word set does not slip past it (0x1_0000_541b)"
expect fionread_hi_all EXDEV "... nor a high word of all ones"
expect_not tcgets EXDEV "TCGETS, the same call with another request, reaches the kernel"
expect sti EPERM "TIOCSTI: the hardening answers first"
expect raw ESOCKTNOSUPPORT "a raw ICMP socket: the policy's rule, with its errno"
expect raw_hi ESOCKTNOSUPPORT "... the family and type with the high word set too"
expect raw_proto_hi ESOCKTNOSUPPORT "... a high word on the untested protocol changes nothing"
expect tcp ok "a TCP socket, the same call with other arguments, works"
expect tcp6 ok "an IPv6 TCP socket works"
expect query EINVAL "the personality query: the policy's rule"
expect query_hi EINVAL "... with a high word set"
expect pers_default ok "personality(PER_LINUX) works"
expect udp6.status 159 "an IPv6 UDP socket: kill ends the process with SIGSYS"
expect udp6_hi.status 159 "... also with the family's high word set"
if [ "$INT80_BARE" = 0 ]; then
    expect int80.status 159 "an i386 call (int \$0x80) is killed by the prologue"
else
    expect int80.status "159|$INT80_BARE" "this kernel has no 32-bit syscalls: int \$0x80 does not work either"
fi
expect write_rules "fail\\(.*" "the included rules.tart cannot be rewritten"
expect write_policy "fail\\(.*" "the policy file cannot be rewritten"
expect write_other ok "the rest of the writable root can"
check_no_match "host: rules.tart has nothing appended" '^syscalls \{ \}$' "$(cat "$W/rules.tart")"
check_no_match "host: agent.tart has nothing appended" '^syscalls \{ \}$' "$(cat "$W/agent.tart")"

section "the effect log names the call and the rule's errno"
LOG=$T/logs/rules.jsonl
sbx_log() {
    capture_as "$EXEC" --log "$LOG" "$T/plan" -- /bin/sh -c "
$SYSPROBE fionread ioctl /dev/null $FIONREAD
$SYSPROBE raw socket 2 $SOCK_RAW $IPPROTO_ICMP
$SYSPROBE tcp socket 2 $SOCK_STREAM 0"
}
sbx_log
expect_rc 0 "a run with the effect log"
expect fionread EXDEV "... answers what it answers without the log"
expect raw ESOCKTNOSUPPORT "... for every rule"
expect tcp ok "... and allows the rest"
denied=$(/usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event"] == "denied":
        print(e["syscall"], e["errno"], e["args"][1])
' "$LOG" 2>&1)
check_eq "log: one denied line per call, with the rule's errno" "ioctl $EXDEV 0x541b
socket $ESOCKTNOSUPPORT 0x3" "$denied"

it_finish
