#!/bin/bash
# The process side: a private PID namespace with a fresh /proc (init cannot be traced,
# global sysctls cannot be written), exit statuses passed through (own status, 128+N for a
# signal, 126/127), a clean environment by default with passthrough/set/inherit, inherited
# fds closed, kill -1 and daemons stay inside, no way to the host's loopback or abstract
# sockets, no keystrokes pushed into the caller's terminal, and the whole sandbox dies with
# the supervisor (SIGKILL).
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W"
printf '#!/bin/sh\necho should-not-run\n' >"$W/noexec.sh"
chmod 644 "$W/noexec.sh"
echo fd-secret >"$T/fdsecret"
cat >"$T/policy.toml" <<'EOF'
version = 1
[filesystem]
writable_roots = ["ws"]
EOF
compile "$T/policy.toml" "$T/plan" || it_finish

section "PID namespace and /proc"
sbx_script "$T/plan" <<EOF
t pid sh -c 'echo \$\$'
t procs sh -c 'ls /proc | grep -cE "^[0-9]+\$"'
t ps sh -c 'ps -e -o pid= | wc -l'
t host_pid test -e /proc/$$
t self_status sh -c 'grep -c ^Pid: /proc/self/status'
$PROBE ptrace_init ptrace 1
$PROBE mem_init mem-open 1
$PROBE init_fds ls /proc/1/fd
$PROBE core_pattern rewrite /proc/sys/kernel/core_pattern
$PROBE aslr rewrite /proc/sys/kernel/randomize_va_space
EOF
expect_rc 0 "sandbox exit status"
expect pid.data '[1-9]' "\$\$ inside is small"
expect procs.data '[1-9]|1[0-9]' "/proc lists only the sandbox's processes"
expect ps.data '[1-9]|1[0-9]' "ps sees only the sandbox's processes"
expect host_pid 'fail\([0-9]+\)' "the host's processes are invisible (host pid $$)"
expect self_status.data 1 "/proc works for the sandbox's own processes"
expect ptrace_init "EPERM|EACCES" "ptrace the sandbox's init (it holds the mount namespace)"
expect mem_init "EPERM|EACCES" "open /proc/1/mem for writing"
expect core_pattern "EACCES|EPERM|EROFS" "write a global sysctl (kernel.core_pattern, same value)"
expect aslr "EACCES|EPERM|EROFS" "write kernel.randomize_va_space (same value)"
expect init_fds.names "<missing>|(0)?(,1)?(,2)?" "init holds no descriptor the command can reach"

section "the command runs on the caller's CPUs"
# Until init joins it, the early command is kept off init's CPU; it must get back exactly
# the CPUs the caller allowed, a narrowed set included.
cpus_of() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$@"; }
sbx "$T/plan" /bin/sh -c 'sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status'
check_eq "all of the caller's CPUs" "$(cpus_of /proc/self/status)" "$OUT"
last_cpu=$(cpus_of /proc/self/status | tr ',-' '\n\n' | tail -n 1)
capture_as taskset -c "$last_cpu" "$EXEC" "$T/plan" -- /bin/sh -c 'sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status'
check_eq "a caller on CPU $last_cpu only: the command too" "$last_cpu" "$OUT"
capture_as taskset -c "0,$last_cpu" "$EXEC" "$T/plan" -- /bin/sh -c 'sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status'
check_eq "a caller on CPUs 0 and $last_cpu: the command too" "$(taskset -c "0,$last_cpu" sh -c 'sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status')" "$OUT"

section "exit statuses"
sbx "$T/plan" /bin/true
expect_rc 0 "/bin/true"
sbx "$T/plan" /bin/sh -c 'echo out; exit 7'
expect_rc 7 "exit 7"
check_eq "stdout passes through" out "$OUT"
sbx "$T/plan" /bin/sh -c 'kill -TERM $$'
expect_rc 143 "kill -TERM self"
sbx "$T/plan" /bin/sh -c 'kill -KILL $$'
expect_rc 137 "kill -KILL self"
sbx "$T/plan" /nonexistent/command
expect_rc 127 "missing command (path)"
sbx "$T/plan" tartaros-it-no-such-command
expect_rc 127 "missing command (PATH lookup)"
sbx "$T/plan" "$W/noexec.sh"
expect_rc 126 "file without execute permission"
check_no_match "the non-executable file did not run" should-not-run "$OUT"

section "environment"
IT_ENV=(SECRET_TOKEN=hunter2 FOO=foo-value)
sbx "$T/plan" /usr/bin/env
expect_rc 0 "env runs"
check_no_match "SECRET_TOKEN is not passed by default" '^SECRET_TOKEN=' "$OUT"
check_no_match "FOO is not passed by default" '^FOO=' "$OUT"
check_match "PATH is passed by default" '^PATH=' "$OUT"
check_match "HOME is passed by default" "^HOME=$T/home\$" "$OUT"
# init (PID 1) shares the supervisor's memory, which holds the launcher's whole environment:
# it must not be readable from inside, by name or through memory.
sbx_script "$T/plan" <<EOF
t environ1 sh -c 'tr "\\0" "\\n" < /proc/1/environ'
t mem1 dd if=/proc/1/mem of=/dev/null bs=1 count=1 skip=4096 status=none
t control_self sh -c 'tr "\\0" "\\n" < /proc/self/environ'
EOF
expect environ1 'fail\(.*' "/proc/1/environ is unreadable"
check_no_match "the launcher's SECRET_TOKEN does not appear" 'hunter2' "$OUT"
expect mem1 'fail\(.*' "/proc/1/mem is unreadable"
expect control_self ok "control: the command reads its own environ"

cat >"$T/env.toml" <<'EOF'
version = 1
[filesystem]
writable_roots = ["ws"]
[env]
passthrough = ["FOO"]
set = { BAR = "baz" }
EOF
compile "$T/env.toml" "$T/env.plan" || it_finish
sbx "$T/env.plan" /usr/bin/env
expect_rc 0 "env runs"
check_match "passthrough FOO" '^FOO=foo-value$' "$OUT"
check_match "set BAR" '^BAR=baz$' "$OUT"
check_no_match "SECRET_TOKEN is absent" '^SECRET_TOKEN=' "$OUT"
check_no_match "PATH is absent when passthrough lists only FOO" '^PATH=' "$OUT"

cat >"$T/inherit.toml" <<'EOF'
version = 1
[filesystem]
writable_roots = ["ws"]
[env]
inherit = true
EOF
compile "$T/inherit.toml" "$T/inherit.plan" || it_finish
sbx "$T/inherit.plan" /usr/bin/env
expect_rc 0 "env runs"
check_match "inherit = true passes everything" '^SECRET_TOKEN=hunter2$' "$OUT"
IT_ENV=()

section "inherited file descriptors"
fd_probe='if [ -e /proc/self/fd/5 ]; then echo fd5=open; cat <&5; else echo fd5=closed; fi'
capture_as /bin/sh -c 'exec 5<"$1" || exit 99; shift; exec "$@"' sh "$T/fdsecret" /bin/sh -c "$fd_probe"
check_match "control: without the sandbox fd 5 reaches the command" '^fd5=open$' "$OUT"
capture_as /bin/sh -c 'exec 5<"$1" || exit 99; shift; exec "$@"' sh "$T/fdsecret" \
    "$EXEC" "$T/plan" -- /bin/sh -c "$fd_probe; ls /proc/self/fd | tr '\n' ' '; echo"
expect_rc 0 "sandbox exit status"
check_match "fd 5 of the launcher is closed inside" '^fd5=closed$' "$OUT"
check_no_match "the secret behind fd 5 is not readable" fd-secret "$OUT"
check_match "only 0, 1, 2 (and ls's own) are open" '^0 1 2 3 $' "$OUT"

section "kill -KILL -1 inside reaches only the sandbox"
victim=tartaros-it-victim-$$-$RANDOM
ln -s /bin/sleep "$W/$victim"
give_to_user
spawn "${AS[@]}" "$W/$victim" 60
victim_pid=$(find_descendant "$SPAWNED" "$W/$victim") || die "the victim process did not start"
sbx "$T/plan" /bin/sh -c 'kill -KILL -1; echo survived'
expect_rc 0 "sandbox exit status"
check_eq "the shell that sent kill -1 survives (POSIX)" survived "$OUT"
check "the caller's process $victim_pid outside the sandbox survives kill -1" running "$victim_pid"

section "nothing outlives the sandbox (a daemon started with setsid)"
daemon=tartaros-it-daemon-$$-$RANDOM
ln -s /bin/sleep "$W/$daemon"
sbx "$T/plan" /bin/sh -c "setsid $W/$daemon 300 </dev/null >/dev/null 2>&1 & echo started"
expect_rc 0 "the command exits at once"
check_eq "it printed started" started "$OUT"
# Host pids of running processes whose argv[0] is the daemon's path.
live_daemons() {
    local p
    for p in /proc/[0-9]*; do
        p=${p#/proc/}
        [ "$(argv0_of "$p")" = "$W/$daemon" ] && running "$p" && echo "$p"
    done
}
survivors=""
for _ in $(seq 1 50); do
    survivors=$(live_daemons)
    [ -z "$survivors" ] && break
    sleep 0.1
done
check_eq "no process of the sandbox survives it (5 s after exit)" "" "$survivors"
# shellcheck disable=SC2086
[ -n "$survivors" ] && kill -KILL $survivors

section "network: the host's loopback and abstract sockets are out of reach"
abstract=tartaros-it-$$-$RANDOM
spawn sh -c 'exec "$0" tcp listen tcp 60 >"$1" 2>&1' "$PROBE" "$T/.runs/listen-tcp.out"
spawn sh -c 'exec "$0" unix listen "$1" 60 >"$2" 2>&1' "$PROBE" "$abstract" "$T/.runs/listen-unix.out"
port=""
for _ in $(seq 1 50); do
    port=$(sed -n 's/^tcp\.data=//p' "$T/.runs/listen-tcp.out" 2>/dev/null)
    grep -q '^unix=ok' "$T/.runs/listen-unix.out" 2>/dev/null && [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || die "the host listener did not start: $(cat "$T/.runs/listen-tcp.out")"
check "control: the host reaches its own listener 127.0.0.1:$port" "$PROBE" c connect "$port"
check "control: the host reaches @$abstract" "$PROBE" c connect "@$abstract"
sbx_script "$T/plan" <<EOF
$PROBE tcp connect $port
$PROBE unix connect @$abstract
$PROBE readable read /etc/hostname
EOF
expect_rc 0 "sandbox exit status"
expect tcp "ECONNREFUSED|ENETUNREACH|EACCES|EPERM" "connect to the host's 127.0.0.1:$port"
expect unix "ECONNREFUSED|ENOENT|EACCES|EPERM" "connect to the host's abstract socket"
expect readable ok

section "the terminal: no keystrokes pushed into the caller's shell (TIOCSTI)"
# Under a pseudo-terminal (script), a shell runs the sandbox and then reads one line, as an
# interactive shell would after the command: whatever the sandbox pushed into the terminal
# would run there, outside the sandbox. script's stdin is a FIFO held open here: at EOF on
# its stdin, script would send the terminal an end-of-file ahead of the pushed line.
mkfifo "$T/.runs/tty-in"
exec 7<>"$T/.runs/tty-in"
cat >"$T/term.sh" <<EOF
#!/bin/bash
"\$@"
read -t 2 -r line && eval "\$line"
exit 0
EOF
capture_as script -q -e -c "/bin/bash $T/term.sh $PROBE ctl tiocsti 'touch $T/home/control
'" /dev/null <&7
if [ -e "$T/home/control" ]; then
    pass "control: without the sandbox, TIOCSTI runs a command in the caller's shell"
    capture_as script -q -e -c "/bin/bash $T/term.sh $EXEC $T/plan -- $PROBE sti tiocsti 'touch $T/home/pwned
'" /dev/null <&7
    expect sti "EPERM|EIO|ENOTTY|EBADF|EACCES" "TIOCSTI on the inherited terminal"
    check_not "no command injected into the caller's shell" test -e "$T/home/pwned"
else
    pass "this kernel refuses TIOCSTI itself (dev.tty.legacy_tiocsti = 0): nothing to test"
fi
exec 7>&-

section "SIGKILL of the supervisor kills the sandbox"
marker=tartaros-it-sleep-$$-$RANDOM
ln -s /bin/sleep "$W/$marker"
give_to_user
LAST_CMD="${AS[*]} $EXEC $T/plan -- $W/$marker 300 (in the background)"
RC=- OUT="" ERR="" IT_DUMPED=1
spawn env -i PATH="$IT_PATH" "${AS[@]}" env HOME="$T/home" PATH="$IT_PATH" \
    "$EXEC" "$T/plan" -- "$W/$marker" 300
sleeper=$(find_descendant "$SPAWNED" "$W/$marker")
supervisor=""
for p in $(descendants "$SPAWNED"); do
    [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$EXEC" ] && supervisor=$p && break
done
if [ -z "$supervisor" ] || [ -z "$sleeper" ]; then
    fail "found the supervisor and the sandboxed sleep" "both pids" \
        "supervisor=${supervisor:-none} sleep=${sleeper:-none}"
else
    tree=$(descendants "$supervisor")
    pass "supervisor $supervisor runs the sandboxed sleep $sleeper (its tree: ${tree//$'\n'/ })"
    kill -KILL "$supervisor"
    alive=""
    for _ in $(seq 1 100); do
        alive=""
        for p in $tree; do
            running "$p" && alive="$alive $p"
        done
        [ -z "$alive" ] && break
        sleep 0.1
    done
    check_eq "every process of the sandbox is gone 10 s after SIGKILL of the supervisor" "" "$alive"
fi

it_finish
