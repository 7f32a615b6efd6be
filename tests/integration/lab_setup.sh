#!/bin/bash
# The independent escape lab's setup: `tartaros run --strict` with its full flag set
#   --write WS --read-deny SECRET --write-deny WS/.git/hooks --port P --max-procs 64
#   --isolate-pids --isolate-proc --seccomp-strict --materialize [--private-tmp]
# and `/bin/sh -c CMD`, with the fixtures made by `mktemp -d` under /tmp, as root and as an
# unprivileged user (no cgroup can be made here: max_processes is RLIMIT_NPROC in the
# sandbox's own user namespace). Without --private-tmp the host's /tmp is readable like the
# rest and writable only in the workspace; with it /tmp is the sandbox's own, the workspace
# bound in, and the deny beneath /tmp has nothing left to hide. In both: the benign controls
# work (a public file, the workspace, 64 tasks, the allowed port, a socketpair, the cwd) and
# nothing else does (the secret, the hooks, the 65th task, another port, writes elsewhere).
# Then what makes max_processes exact without a cgroup: threads count, setsid daemons count,
# the caller's own processes outside neither count nor are held back, the limit cannot be
# raised from inside.
IT_TMPDIR=/tmp
. "$(dirname "$0")/lib.sh"
it_setup "$@"

TARTAROS=$IT_DIR/tartaros
[ -x "$TARTAROS" ] || die "fixture binary missing: $TARTAROS"

# The lab's fixture: a workspace, a secret and a public file side by side under /tmp.
W=$T/ws
mkdir -p "$W" "$T/pub"
echo secret >"$T/secret"
echo public >"$T/pub/p"
chmod 644 "$T/pub/p"
SECRET_SUM=$(tree_sum "$T/secret")

# The helper lives outside /tmp, so that a run with --private-tmp finds it too.
TOOLS=$(mktemp -d /var/tmp/tartaros-it-lab-tools.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$TOOLS"; it_cleanup' EXIT
chmod 755 "$TOOLS"
use_net_helper "$TOOLS"
H=${HELPER[*]}
SERVICES=$T/.runs/services.out
serve_on_host "$SERVICES" allowed=tcp:127.0.0.1:0 other=tcp:127.0.0.1:0
P=$(service_port "$SERVICES" allowed)
Q=$(service_port "$SERVICES" other)

LAB_FLAGS=(--write "$W" --read-deny "$T/secret" --write-deny "$W/.git/hooks" --port "$P" --max-procs 64
    --isolate-pids --isolate-proc --seccomp-strict --materialize)

# lab [FLAGS...] -- CMD...: one run the lab's way, in the workspace.
lab() {
    local flags=()
    while [ "$1" != -- ]; do flags+=("$1"); shift; done
    shift
    IN_DIR=$W capture_as "$TARTAROS" run --strict "${LAB_FLAGS[@]}" "${flags[@]}" -- "$@"
}

# The benign controls and the escapes of one run: $1 is "host" or "private" (/tmp).
lab_controls() {
    local tmp=$1 flags=()
    [ "$tmp" = private ] && flags=(--private-tmp)
    lab "${flags[@]}" -- /bin/sh -c "
        t() { __l=\$1; shift; if \"\$@\" >/dev/null 2>&1; then echo \"\$__l=ok\"; else echo \"\$__l=fail\"; fi; }
        echo cwd=\$(pwd)
        t public cat $T/pub/p
        t ws_write sh -c 'echo work >$W/out && cat $W/out'
        t ws_mkdir mkdir -p $W/src/deep
        $H client 'port tcp 127.0.0.1 $P' 'other_port tcp 127.0.0.1 $Q' 'pair pair'
        $PROBE secret read $T/secret
        $PROBE hook write $W/.git/hooks/pre-commit
        $PROBE hooks_swap rename $W/.git/hooks $W/.git/old-hooks
        $PROBE beside write $T/beside
        $PROBE tmp_write write /tmp/lab-\$\$
        $PROBE etc write /etc/lab
        $PROBE tasks fork-count 100
        exit 0"
    expect_rc 0 "the lab's run ($tmp /tmp)"
    expect cwd "$W" "the command starts in the workspace"
    expect ws_write ok "the workspace is writable"
    expect ws_mkdir ok "... directories too"
    expect port "allowed GET /port host=127.0.0.1" "the allowed port reaches the host's 127.0.0.1:$P"
    expect other_port 'ECONNREFUSED|ENETUNREACH|EACCES|timeout' "another host port does not"
    expect pair pair "a unix socketpair works"
    expect tasks EAGAIN "the 65th task cannot be made"
    expect tasks.data 62 "sh, the probe and 62 children: 64 tasks"
    expect secret "$DENIED_READ" "the secret stays unreadable"
    expect hook "$DENIED_WRITE" "the protected hooks stay read-only"
    expect hooks_swap "$DENIED_RENAME" "... and cannot be renamed away"
    expect etc "$DENIED_WRITE" "/etc is read-only"
    if [ "$tmp" = host ]; then
        expect public ok "a public file under the host's /tmp is readable"
        expect tmp_write "$DENIED_WRITE" "the host's /tmp is read-only outside the workspace"
        expect beside "$DENIED_WRITE" "... also beside the workspace"
    else
        expect public fail "the host's /tmp is not in the private /tmp"
        expect tmp_write ok "the private /tmp is writable"
        expect beside ok "... also on the way to the workspace, and none of it reaches the host"
    fi
    check_content "the workspace file reached the host" "$W/out" work
    check "the materialized hooks directory is on the host" test -d "$W/.git/hooks"
    check_eq "host: the hooks directory is empty" "" "$(ls -A "$W/.git/hooks")"
    check_eq "host: the secret is unchanged" "$SECRET_SUM" "$(tree_sum "$T/secret")"
    check_not "no file beside the workspace" test -e "$T/beside"
    check_eq "host: nothing new in /tmp from the sandbox" "" "$(find /tmp -maxdepth 1 -name 'lab-*' -newer "$T/secret")"
}

section "the lab's flags, the host's /tmp"
lab_controls host
section "the lab's flags with --private-tmp"
lab_controls private
lab --private-tmp --read-allow "$T/pub" -- /bin/cat "$T/pub/p"
expect_rc 0 "--read-allow under /tmp with --private-tmp"
check_eq "... binds the host's directory in" public "$OUT"
lab --private-tmp --read-allow "$T/pub" -- /bin/sh -c "echo x >$T/pub/new"
expect_rc 2 "... read-only"
check_not "host: no file written through the read allow" test -e "$T/pub/new"

section "max_processes: what the limit counts"
# Threads: python and 63 threads are the 64 tasks.
lab -- /usr/bin/python3 -c '
import threading
stop = threading.Event()
n = 0
try:
    while n < 200:
        threading.Thread(target=stop.wait).start()
        n += 1
except RuntimeError:
    pass
stop.set()
print("threads=%d" % n)'
expect_rc 0 "a thread bomb"
expect threads 63 "threads count: the interpreter and 63 threads"
# Daemons in sessions of their own count as well: sh, 10 of them and the probe leave 52 forks.
lab -- /bin/sh -c "i=0; while [ \$i -lt 10 ]; do setsid sleep 30 </dev/null >/dev/null 2>&1 & i=\$((i+1)); done
    $PROBE tasks fork-count 100; kill \$(jobs -p) 2>/dev/null; exit 0"
expect tasks.data 52 "setsid daemons count: 64 - sh - 10 - the probe"
# The limit cannot be raised from inside, soft or hard.
lab -- /usr/bin/python3 -c '
import resource
soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
try:
    resource.setrlimit(resource.RLIMIT_NPROC, (hard + 1, hard + 1))
    print("raise=ok")
except (ValueError, OSError):
    print("raise=refused")'
expect raise refused "RLIMIT_NPROC cannot be raised"
# The caller's own processes outside: 80 of them neither take the sandbox's slots nor are
# held back while the sandbox is full.
OUTSIDE=()
for _ in $(seq 1 80); do
    spawn "${AS[@]}" /bin/sleep 60
    OUTSIDE+=("$SPAWNED")
done
lab -- "$PROBE" tasks fork-count 100
expect tasks.data 63 "80 processes of the caller outside leave the sandbox its 64 tasks"
# While the sandbox holds its 64 tasks, the caller forks outside as before.
rm -f "$W/full" "$W/go"
(
    for _ in $(seq 1 300); do [ -e "$W/full" ] && break; sleep 0.1; done
    run_as /bin/sh -c 'for i in 1 2 3 4 5; do /bin/true & done; wait && echo forked' >"$T/outside.out" 2>&1
    touch "$W/go"
) &
IT_BG_PIDS+=("$!")
lab -- /usr/bin/python3 -c "
import os, threading, time
stop = threading.Event()
for _ in range(63):
    threading.Thread(target=stop.wait).start()
open('$W/full', 'w').close()
while not os.path.exists('$W/go'):
    time.sleep(0.05)
try:
    threading.Thread(target=stop.wait).start()
    print('more=ok')
except RuntimeError:
    print('more=refused')
stop.set()"
expect more refused "the sandbox held 64 tasks, and a 65th was refused"
check_content "the caller forks outside while the sandbox is full" "$T/outside.out" forked
for pid in "${OUTSIDE[@]}"; do
    # shellcheck disable=SC2046
    kill $(descendants "$pid") "$pid" 2>/dev/null
done
if [ "$RUN_USER" = root ]; then
    check_no_match "no warning" '^tartaros: warning' "$ERR"
else
    check_no_match "no warning: RLIMIT_NPROC in the sandbox's user namespace is exact" '^tartaros: warning' "$ERR"
    lab --log "$T/run.jsonl" -- /bin/true
    check_match "the effect log names the mechanism" '"max_processes_rlimit"' "$(cat "$T/run.jsonl")"
fi

it_finish
