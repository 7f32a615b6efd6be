#!/bin/bash
# Process lifecycle: nothing the command leaves running survives the run (setsid, double
# fork, TERM/HUP ignored, a process that keeps changing its pid, one holding the caller's
# stdout pipe), with and without a PID namespace (then the cgroup or init as subreaper does
# it, and the command cannot kill init); after SIGKILL of the supervisor no process, helper
# or cgroup of the run remains. INT TERM HUP QUIT USR1 USR2 WINCH sent to the supervisor reach
# the command exactly once, an untrapped one ends it with 128+N, and a HUP the caller ignores
# (nohup) stays ignored. Without a terminal the command is in its own session; on a terminal
# (a pseudo-terminal from python's pty) an interactive shell has job control, Ctrl-C reaches
# the command once, and TIOCSTI is refused in the foreground and in the background.
. "$(dirname "$0")/lib.sh"
it_setup "$@"
. "$(dirname "$0")/limits_lib.sh"

W=$T/ws
mkdir -p "$W"
policy base '' || it_finish
policy nopid 'isolate_pids = false
isolate_proc = false' || it_finish
policy capped 'max_processes = 64' || it_finish

section "leftovers of the command are killed at the end of the run"
for plan in base nopid; do
    m=$RANDOM$RANDOM
    start=$EPOCHREALTIME
    sbx_script "$T/$plan.plan" <<EOF
setsid sleep 1000.${m}1 </dev/null >/dev/null 2>&1 &
(sh -c 'sleep 1000.${m}2 </dev/null >/dev/null 2>&1 &' &)
nohup sh -c "trap '' TERM HUP INT; exec sleep 1000.${m}3" </dev/null >/dev/null 2>&1 &
$PROBE hop hopper 30 100 $m
echo started=yes
EOF
    expect_rc 0 "$plan: the command exits at once"
    expect started yes
    expect hop ok "$plan: a pid-hopping daemon started"
    check_elapsed "$plan: the run did not wait for its leftovers" "$start" 0 10
    check_none_with "$m" "$plan: setsid, double-forked, TERM-ignoring and pid-hopping leftovers are gone (5 s)" 5
    check_cgroups_gone "$(last_supervisor)" "($plan)"
done

m=$RANDOM$RANDOM
sbx_script "$T/nopid.plan" <<EOF
setsid sleep 1000.${m}1 </dev/null >/dev/null 2>&1 &
kill -KILL \$PPID
echo kill_init=\$?
EOF
expect kill_init '[1-9][0-9]*' "without a PID namespace the command cannot kill init (its parent)"
check_none_with "$m" "... and its leftover is gone after the run" 5

m=$RANDOM$RANDOM
start=$EPOCHREALTIME
capture_as timeout 30 /bin/sh -c '"$@" | cat' sh "$EXEC" "$T/base.plan" -- /bin/sh -c "sleep 1000.${m}1 & echo started"
expect_rc 0 "a leftover holding the caller's stdout pipe"
check_eq "the output arrived" started "$OUT"
check_elapsed "the pipe closed when the run ended (the reader did not hang)" "$start" 0 10
check_none_with "$m" "the leftover is gone" 5

section "SIGKILL of the supervisor: no process, helper or cgroup of the run remains"
for plan in capped nopid; do
    m=$RANDOM$RANDOM
    bg_start "$T/$plan.plan" /bin/sh -c "setsid sleep 1000.${m}1 </dev/null >/dev/null 2>&1 &
$PROBE hop hopper 30 100 $m >/dev/null
touch $W/up.$m
exec sleep 1000.${m}2"
    if ! wait_for_file "$W/up.$m" 10; then
        fail "$plan: the sandbox came up" "$W/up.$m" "absent"
        kill -KILL "$BG_SUP" 2>/dev/null
        continue
    fi
    before=$(processes_with "$m" | wc -l)
    check "$plan: the run's processes are there before ($before)" test "$before" -ge 3
    [ "$RUN_USER" = root ] && check "$plan: so are its cgroups" test -n "$(run_cgroups_left "$BG_SUP")"
    kill -KILL "$BG_SUP"
    check_none_with "$m" "$plan: none of the command's processes survives (10 s)" 10
    bg_wait 10
    check_none_with "$T/" "$plan: no helper of the run (init, mediator, warden) survives" 10
    check_cgroups_gone "$BG_SUP" "($plan) after SIGKILL of the supervisor" 10
done

section "signals sent to the supervisor reach the command exactly once"
SIGNALS="INT TERM HUP QUIT USR1 USR2 WINCH"
bg_start "$T/base.plan" /bin/sh -c '
for s in '"$SIGNALS"'; do trap "echo got=$s" "$s"; done
read -r _ _ _ _ _ sid _ </proc/self/stat
echo sid=$sid
touch "$1/up"
while [ ! -e "$1/stop" ]; do sleep 0.1; done
echo end' it-signals "$W"
if wait_for_file "$W/up" 10; then
    cmd=$(command_pid it-signals)
    cmd_sid=$(cut -d' ' -f6 "/proc/${cmd:-none}/stat" 2>/dev/null)
    sup_sid=$(cut -d' ' -f6 "/proc/$BG_SUP/stat")
    check "the command (${cmd:-not found}) is in session ${cmd_sid:-?}, not the supervisor's $sup_sid" \
        test -n "$cmd_sid" -a "$cmd_sid" != "$sup_sid"
    for sig in $SIGNALS; do
        kill -s "$sig" "$BG_SUP"
        for _ in $(seq 1 50); do
            grep -q "^got=$sig\$" "$BG_BASE.out" && break
            sleep 0.1
        done
    done
    sleep 0.3
else
    fail "the command came up" "$W/up" "absent"
fi
touch "$W/stop"
bg_wait 10
expect_rc 0 "the command trapped them all and exited 0"
expect sid '[1-9][0-9]*' "without a terminal the command is in a session of the sandbox"
for sig in $SIGNALS; do
    check_eq "SIG$sig arrived once" 1 "$(grep -c "^got=$sig\$" <<<"$OUT")"
done

for pair in TERM:143 HUP:129 INT:130 QUIT:131 USR1:138; do
    sig=${pair%:*}
    bg_start "$T/base.plan" /bin/sh -c 'touch "$1/up.$2"; exec sleep 100' it-sig "$W" "$sig"
    if wait_for_file "$W/up.$sig" 10; then
        kill -s "$sig" "$BG_SUP"
        bg_wait 10 && expect_rc "${pair#*:}" "SIG$sig without a trap: 128 + N"
    else
        fail "the command came up" "$W/up.$sig" "absent"
    fi
done

BG_WRAP=(nohup)
bg_start "$T/base.plan" /bin/sh -c 'touch "$1/up.nohup"; sleep 2; echo survived' it-nohup "$W"
if wait_for_file "$W/up.nohup" 10; then
    kill -HUP "$BG_SUP"
    bg_wait 10 && expect_rc 0 "nohup tartaros-exec: a HUP the caller ignores does not end the command"
    check_eq "it ran to the end" survived "$OUT"
else
    fail "the command came up" "$W/up.nohup" "absent"
fi
BG_WRAP=()

section "the terminal (python's pty): job control, Ctrl-C once, no TIOCSTI"
cat >"$T/pty_drive.py" <<'PYEOF'
import os, pty, re, select, sys, time
uid, gid = int(sys.argv[1]), int(sys.argv[2])
home, exe, plan, probe, mode = sys.argv[3:8]
env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TERM": "dumb", "LC_ALL": "C"}
commands = {
    "interactive": ["bash", "--norc", "--noprofile", "-i"],
    "ctrlc": ["/bin/sh", "-c", 'trap "echo GOT-$((40+2))" INT; echo R$((2*3)); sleep 5; echo A$((3*3)); '
              + probe + " sti tiocsti x; exit 0"],
    "background": ["/bin/sh", "-c", probe + " sti tiocsti x; exit 0"],
}
pid, fd = pty.fork()
if pid == 0:
    if mode == "background":
        # Not the terminal's foreground process group: the run gets a session of its own.
        child = os.fork()
        if child > 0:
            _, status = os.waitpid(child, 0)
            os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
        os.setpgid(0, 0)
    if uid != 0:
        os.fchown(0, uid, gid)  # the terminal is the user's, as after a login
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    os.chdir(home)
    os.execve(exe, [exe, plan, "--"] + commands[mode], env)
out = bytearray()

def pump(token=None, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline and (token is None or token.encode() not in out):
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:
                return
            if not data:
                return
            out.extend(data)

def say(line, sync):
    os.write(fd, line.encode() + b"\n")
    pump(sync)

if mode == "interactive":
    say("echo S$((1+1))", "S2")
    say("sleep 30 &", "[1]")
    say("jobs; echo S$((1+2))", "S3")
    say("kill %1; sleep 0.5; jobs; echo S$((2+2))", "S4")
    say(probe + " sti tiocsti x; echo S$((2+3))", "S5")
    mark = len(out)
    # Markers are computed ($((...))), so the echo of the typed line never holds them.
    say("sh -c 'trap \"echo GOT-$((40+2))\" INT; echo R$((2*3)); sleep 5; echo A$((3*3))'", "R6")
    time.sleep(0.3)
    os.write(fd, b"\x03")
    pump("A9")
    gotint = bytes(out[mark:]).count(b"GOT-42")
    say("exit 3", None)
elif mode == "ctrlc":
    pump("R6")
    time.sleep(0.3)
    os.write(fd, b"\x03")
    pump()
    gotint = out.count(b"GOT-42")
else:
    gotint = 0
pump(timeout=10)
_, status = os.waitpid(pid, 0)
text = out.replace(b"\r", b"").decode(errors="replace")
print("exit=%d" % (os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)))
print("nojobctl=%s" % ("yes" if "no job control" in text else "no"))
print("running=%s" % ("yes" if re.search(r"\[1\]\+\s+Running\s+sleep 30", text) else "no"))
print("terminated=%s" % ("yes" if re.search(r"\[1\]\+\s+Terminated\s+sleep 30", text) else "no"))
print("gotint=%d" % gotint)
print("after=%s" % ("yes" if "A9" in text else "no"))
sti = re.findall(r"^sti=(\S+)", text, re.M)
print("sti=%s" % (sti[-1] if sti else "<none>"))
for line in text.splitlines():
    print("| " + line)
PYEOF
uid=$(id -u "$RUN_USER")
gid=$(id -g "$RUN_USER")
give_to_user
# pty_run MODE: the driver as root (it switches to the variant's user in the pty's child).
pty_run() {
    IT_RUNS=$((IT_RUNS + 1))
    LAST_CMD="python3 $T/pty_drive.py ... $1" LAST_SCRIPT="" IT_DUMPED=0
    OUT=$(cd "$T" && timeout -k 5 60 /usr/bin/python3 "$T/pty_drive.py" "$uid" "$gid" "$T/home" "$EXEC" \
        "$T/base.plan" "$PROBE" "$1" 2>"$T/.runs/$IT_RUNS.err")
    RC=$?
    ERR=$(<"$T/.runs/$IT_RUNS.err")
}
pty_run interactive
expect exit 3 "bash -i on the terminal: the run's status is the shell's exit 3"
expect nojobctl no "no 'no job control' message"
expect running yes "jobs lists the background sleep"
expect terminated yes "kill %1 ends it"
expect sti EPERM "TIOCSTI from the interactive shell"
expect gotint 1 "Ctrl-C reaches the foreground job's trap exactly once"
expect after yes "and the job went on after the trap"
pty_run ctrlc
expect exit 0 "a foreground command on the terminal"
expect gotint 1 "Ctrl-C reaches its trap exactly once"
expect after yes "it went on after the trap"
expect sti EPERM "TIOCSTI in the foreground (into its own pty)"
pty_run background
expect exit 0 "a run outside the terminal's foreground group"
expect sti EPERM "TIOCSTI from a session of its own"

it_finish
