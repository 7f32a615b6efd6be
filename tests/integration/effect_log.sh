#!/bin/bash
# The effect log (--log FILE, docs/effect-log.md). Real runs, each with a fresh log, checked
# line by line (every line one JSON object with the same envelope and run id):
#  - a run with a denied read, a blocked domain (proxy, hosts pin to a local server), two
#    execs and exit status 3 logs exactly run_start, the execs, the proxy's deny and run_end
#    (the read deny is no event); run_start names the plan's checksum (as --explain does), its
#    policy, the argv and what is installed; run_end the status, wall time and peaks;
#  - exec lines keep argv exactly (quotes, newlines, invalid UTF-8 as U+FFFD), give the cwd
#    of a relative path and fexecve's file, record a failed exec (found: false) and a #!
#    script once;
#  - denied system calls (the seccomp battery's, made raw): each answers exactly what it
#    answers without the log, and is one denied line naming the call, its errno and its
#    arguments (high bits too), then one deny_summary line; a flood of 3,000 denials is
#    answered in full and recorded 16 times; the command cannot kill the mediator; a host
#    unix socket connect mediation refuses is a denied line with the address and the reason;
#  - memory_max (root: an OOM line, exit 137, the memory peak; user: the loss in run_start,
#    and under --strict the refusal as run_start + run_end 78), the timeout (a limit line);
#  - many writers at once (exec lines and proxy lines) leave every line whole;
#  - the sandbox can neither read, write, truncate, remove, rename nor replace the log, nor
#    rename its directory, whether it lies outside or inside a writable root, through a
#    symlink made beforehand or a hard link made during the run; /proc/PID/fd of TartarOS's
#    processes opens nothing (with a PID namespace, and without one, where the supervisor and
#    the proxy are visible); writing a fake line to every descriptor the command has puts
#    nothing in the log;
#  - refusals (78) before anything runs: a log that cannot be opened, a symlink (the log or a
#    directory on its path), a file with
#    a second hard link (the sandbox might see that one).
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W" "$T/logs" "$W/logs"
echo "secret text" >"$T/secret.txt"
use_net_helper

# Every run of this test goes through a wrapper that adds --log with the path in $LOG_PATH_FILE
# (set by use_log), so sbx and sbx_script work unchanged.
REAL_EXEC=$EXEC
LOG_PATH_FILE=$T/.runs/log-path
mkdir -p "$T/bin"
cat >"$T/bin/tartaros-exec" <<EOF
#!/bin/sh
exec "$REAL_EXEC" --log "\$(cat "$LOG_PATH_FILE")" "\$@"
EOF
chmod 755 "$T/bin/tartaros-exec"
EXEC=$T/bin/tartaros-exec
use_log() {
    LOG=$1
    echo "$LOG" >"$LOG_PATH_FILE"
}

# The log, one summary line per event, after checking that every line is a JSON object
# with the envelope (time, run, by, event) and the run id of the first line.
cat >"$T/summary.py" <<'EOF'
import json, sys

def text(items):
    return "|".join(json.dumps(a)[1:-1] for a in items)

def summary(e):
    ev = e["event"]
    if ev == "run_start":
        return "run_start %s strict=%s" % (e["by"], e["strict"])
    if ev == "exec":
        where = " cwd=%s" % e["cwd"] if "cwd" in e else " dir=%s" % e["dir"] if "dir" in e else ""
        where += " found=False" if e.get("found") is False else ""
        where += " tried=" + ",".join(e["tried"]) if "tried" in e else ""
        return "exec %s %s %s %s%s" % (e["by"], e["syscall"], e["path"], text(e["argv"]), where)
    if ev == "network":
        what = e.get("reason", e.get("via"))
        return "network %s %s %s %s %s %s %s" % (e["by"], e["decision"], e["route"], e.get("method", "-"),
                                                e["host"], e["port"], what)
    if ev == "limit":
        rest = " ".join("%s=%s" % (k, v) for k, v in e.items() if k not in ("time", "run", "by", "event", "limit"))
        return "limit %s %s %s" % (e["by"], e["limit"], rest)
    if ev == "run_end":
        return "run_end %s %s" % (e["by"], e["exit"])
    if ev == "warning":
        return "warning %s %s" % (e["by"], e["text"])
    if ev == "denied":
        return "denied %s %s %s" % (e["by"], e["syscall"], e.get("error", e["errno"]))
    if ev == "deny_summary":
        return "deny_summary %s denied=%s recorded=%s" % (e["by"], e["denied"], e["recorded"])
    return "UNKNOWN " + ev

def events(path):
    data = open(path, "rb").read()
    if data and not data.endswith(b"\n"):
        print("INVALID no final newline")
    out, run = [], None
    for raw in data.split(b"\n")[:-1]:
        try:
            e = json.loads(raw.decode("utf-8"))
        except ValueError:
            print("INVALID %r" % raw[:300])
            continue
        if list(e)[:4] != ["time", "run", "by", "event"] or not e["time"].endswith("Z"):
            print("INVALID envelope %r" % raw[:300])
        run = run or e["run"]
        if e["run"] != run:
            print("INVALID run id %s" % e["run"])
        out.append(e)
    return out

if sys.argv[1] == "summary":
    for e in events(sys.argv[2]):
        print(summary(e))
elif sys.argv[1] == "get":  # get LOG EXPR: EXPR over `ev`, the list of events
    print(eval(sys.argv[3], {"ev": events(sys.argv[2])}))
EOF
# summarize: sets SUMMARY (and checks that the log parses).
summarize() {
    SUMMARY=$(/usr/bin/python3 "$T/summary.py" summary "$LOG" 2>&1)
    check_no_match "every line of the log is one JSON object of this run" '^(INVALID|UNKNOWN|Traceback)' "$SUMMARY"
}
# log_get EXPR: a Python expression over `ev`, the log's events.
log_get() {
    /usr/bin/python3 "$T/summary.py" get "$LOG" "$1" 2>&1
}
check_log() {
    check_eq "log: $1" "$2" "$(log_get "$3")"
}

SERVICES=$T/.runs/services.out
serve_on_host "$SERVICES" upstream=tcp:127.0.0.1:0
port=$(service_port "$SERVICES" upstream)

cat >"$T/policy.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
read_denies = ["secret.txt"]
[network]
allow_domains = ["allowed.test"]
domain_ports = [$port]
hosts = { "allowed.test" = "127.0.0.1" }
EOF
compile "$T/policy.toml" "$T/plan" || it_finish
cat_path=$(PATH=$IT_PATH type -P cat)
curl_path=$(PATH=$IT_PATH type -P curl)
true_path=$(PATH=$IT_PATH type -P true)

section "a denied read, a blocked domain, three execs, exit 3: exactly these events"
use_log "$T/logs/a.jsonl"
script="cat $T/secret.txt; curl -s -o /dev/null http://blocked.test:$port/blocked; exit 3"
sbx "$T/plan" /bin/sh -c "$script"
expect_rc 3 "the command's status"
summarize
check_eq "log: the events, in order" "run_start supervisor strict=False
exec mediator execve /bin/sh /bin/sh|-c|$script
exec mediator execve $cat_path cat|$T/secret.txt
exec mediator execve $curl_path curl|-s|-o|/dev/null|http://blocked.test:$port/blocked
network proxy deny http GET blocked.test $port blocked-by-allowlist
run_end supervisor 3" "$SUMMARY"
checksum=$("$COMPILE" --explain "$T/plan" | sed -n '1s/.*checksum \(0x[0-9a-f]*\).*/\1/p')
check_log "run_start: the plan's checksum, as --explain gives it" "$checksum" "ev[0]['plan']['checksum']"
check_log "run_start: the plan file" "$T/plan" "ev[0]['plan']['file']"
check_log "run_start: the policy it came from" "$T/policy.toml" "ev[0]['plan']['policy']"
check_log "run_start: the log itself" "$LOG" "ev[0]['log']"
check_log "run_start: the caller's uid" "$(id -u "$RUN_USER")" "ev[0]['uid']"
check_log "run_start: the argv" "['/bin/sh', '-c', '$script']" "ev[0]['argv']"
check_log "run_start: installed" "True" "{'mount_tree', 'log_hidden', 'landlock', 'seccomp_filter', \
'exec_events', 'connect_mediation', 'egress_proxy', 'pid_namespace', 'network_namespace'} <= set(ev[0]['installed'])"
check_log "run_start: nothing degraded" "[]" "ev[0]['degraded']"
check_log "run_end: the proxy's detail names the field" "True" "'allow_domains' in ev[4]['detail'] and ev[4]['status'] == 403"
check_log "run_end: wall time, max RSS and CPU time" "True" \
    "0 < ev[-1]['wall_ms'] < 60000 and ev[-1]['max_rss_kib'] > 0 and ev[-1]['user_cpu_ms'] >= 0 and ev[-1]['system_cpu_ms'] >= 0"
check_log "run_end: no memory peak without a memory cgroup" "None" "ev[-1]['memory_peak_bytes']"
check_log "run_end: no error" "None" "ev[-1]['error']"

section "an allowed request is an allow line with the address it reached"
use_log "$T/logs/allow.jsonl"
sbx "$T/plan" "$curl_path" -s -o /dev/null http://allowed.test:$port/allowed
expect_rc 0
summarize
check_eq "log: the events" "run_start supervisor strict=False
exec mediator execve $curl_path $curl_path|-s|-o|/dev/null|http://allowed.test:$port/allowed
network proxy allow http GET allowed.test $port pin
run_end supervisor 0" "$SUMMARY"
check_log "the allow line's address" "127.0.0.1" "ev[2]['address']"
check "the server got the request" grep -q "^request upstream GET /allowed " "$SERVICES"

section "exec lines keep argv exactly; relative paths, fexecve, a failed exec, a #! script"
cat >"$W/execs.sh" <<EOF
#!/bin/sh
/bin/echo one "two words" 'q"uote' "\$(printf 'nl\\nx')" "\$(printf '\\377\\001')" >/dev/null
cd $W && ./rel.sh
/nonexistent/prog 2>/dev/null
/usr/bin/python3 -c 'import os; fd = os.open("$true_path", os.O_RDONLY); os.execve(fd, ["fexec", "arg"], {})'
EOF
printf '#!/bin/sh\n' >"$W/rel.sh"
chmod 755 "$W/execs.sh" "$W/rel.sh"
use_log "$T/logs/exec.jsonl"
sbx "$T/plan" "$W/execs.sh"
expect_rc 0
summarize
check_eq "log: one line per exec, a #! script once, a failed exec too" "run_start supervisor strict=False
exec mediator execve $W/execs.sh $W/execs.sh
exec mediator execve /bin/echo /bin/echo|one|two words|q\\\"uote|nl\\nx|\\ufffd\\u0001
exec mediator execve ./rel.sh ./rel.sh cwd=$W
exec mediator execve /nonexistent/prog /nonexistent/prog found=False
exec mediator execve /usr/bin/python3 /usr/bin/python3|-c|import os; fd = os.open(\\\"$true_path\\\", os.O_RDONLY); os.execve(fd, [\\\"fexec\\\", \\\"arg\\\"], {})
exec mediator execveat  fexec|arg dir=$true_path
run_end supervisor 0" "$SUMMARY"
check_log "execveat: AT_EMPTY_PATH and the descriptor" "True" "ev[6]['flags'] == 0x1000 and ev[6]['dirfd'] >= 0"
check_log "every exec but the failed one found its file" "[True, True, True, False, True, True]" \
    "[e.get('found') for e in ev[1:-1]]"

section "a PATH search is one exec line: where it ended, and the candidates tried before"
mkdir -p "$W/p1" "$W/p2" "$W/p3"
printf '#!/bin/sh\n' >"$W/p3/mytool"
chmod 755 "$W/p3/mytool"
cat >"$W/search.py" <<EOF
import os
env = {"PATH": "$W/p1:/usr/bin"}
try:
    os.execve("$W/p1/true", ["true"], env)
except OSError:
    pass
os.execve("$true_path", ["true", "another argv"], env)
EOF
cat >"$W/search.sh" <<EOF
#!/bin/sh
PATH=$W/p1:$W/p2:$W/p3:/usr/bin:/bin /usr/bin/env mytool
PATH=$W/p1:$W/p2:$W/p3:/usr/bin /usr/bin/env nosuchtool 2>/dev/null
/usr/bin/python3 $W/search.py
EOF
chmod 755 "$W/search.sh"
use_log "$T/logs/search.jsonl"
sbx "$T/plan" "$W/search.sh"
expect_rc 0
summarize
check_eq "log: a search that finds, one that does not, and a call after a search with another argv" "run_start supervisor strict=False
exec mediator execve $W/search.sh $W/search.sh
exec mediator execve /usr/bin/env /usr/bin/env|mytool
exec mediator execve $W/p3/mytool mytool tried=$W/p1/mytool,$W/p2/mytool
exec mediator execve /usr/bin/env /usr/bin/env|nosuchtool
exec mediator execve /usr/bin/nosuchtool nosuchtool found=False tried=$W/p1/nosuchtool,$W/p2/nosuchtool,$W/p3/nosuchtool
exec mediator execve /usr/bin/python3 /usr/bin/python3|$W/search.py
exec mediator execve $true_path true tried=$W/p1/true
exec mediator execve $true_path true|another argv
run_end supervisor 0" "$SUMMARY"

section "a direct connection past the proxy is a network event (no packet leaves: the namespace has no route)"
cat >"$W/direct.py" <<'EOF'
import errno, socket
for family, kind, address in ((socket.AF_INET, socket.SOCK_STREAM, ("192.0.2.1", 443)),
                              (socket.AF_INET6, socket.SOCK_STREAM, ("2001:db8::1", 80, 0, 0)),
                              (socket.AF_INET, socket.SOCK_DGRAM, ("192.0.2.1", 53))):
    s = socket.socket(family, kind)
    try:
        s.connect(address)
        print("connected")
    except OSError as e:
        print(errno.errorcode.get(e.errno, e.errno))
EOF
use_log "$T/logs/direct.jsonl"
sbx "$T/plan" /usr/bin/python3 "$W/direct.py"
expect_rc 0
check_eq "each connect fails: no route" "ENETUNREACH
ENETUNREACH
ENETUNREACH" "$OUT"
summarize
check_eq "log: one network line per direct connect" "network mediator deny direct - 192.0.2.1 443 no-route
network mediator deny direct - 2001:0db8:0000:0000:0000:0000:0000:0001 80 no-route
network mediator deny direct - 192.0.2.1 53 no-route" "$(grep '^network ' <<<"$SUMMARY")"

section "denied system calls: the same answers as without the log, one line each"
deny_battery() {
    cat <<EOF
cd $W || exit 99
for op in bpf keyctl mount unshare setns reboot; do $SYSPROBE \$op \$op; done
$SYSPROBE clone_newuser clone 0x10000011
$SYSPROBE clone3 clone3
$SYSPROBE pers_noaslr personality 0x40000
$SYSPROBE sti_null_hi ioctl /dev/null 0x100005412
$SYSPROBE nr470 nr 470
$SYSPROBE vsock socket 40 1 0
$SYSPROBE allowed nr 39
EOF
}
use_log "$T/logs/denied.jsonl"
sbx_script "$T/plan" < <(deny_battery)
expect_rc 0
logged_out=$OUT
EXEC=$REAL_EXEC
sbx_script "$T/plan" < <(deny_battery)
EXEC=$T/bin/tartaros-exec
check_eq "every call answers what it answers without the log" "$OUT" "$logged_out"
check_match "... and the battery was denied, not allowed" "bpf=EPERM" "$logged_out"
check_match "... getpid was allowed" "allowed=ok" "$logged_out"
summarize
check_eq "log: one denied line per denied call, with the plan's errno" "denied mediator bpf EPERM
denied mediator keyctl EPERM
denied mediator mount EPERM
denied mediator unshare EPERM
denied mediator setns EPERM
denied mediator reboot EPERM
denied mediator clone EPERM
denied mediator personality EPERM
denied mediator ioctl EPERM
denied mediator None ENOSYS
denied mediator socket EAFNOSUPPORT
deny_summary supervisor denied=12 recorded=11" "$(grep -E '^(denied|deny_summary) ' <<<"$SUMMARY")"
check_log "clone3's expected ENOSYS is counted, not a line of its own" "1" \
    "[e for e in ev if e['event'] == 'deny_summary'][0]['counts'].get('clone3')"
check_log "run_start: denied_syscall_events installed" "True" "'denied_syscall_events' in ev[0]['installed']"
check_log "the clone line's flags" "0x10000011" "[e for e in ev if e.get('syscall') == 'clone'][0]['args'][0]"
check_log "the ioctl line keeps the high bits the filter ignores" "0x100005412" \
    "[e for e in ev if e.get('syscall') == 'ioctl'][0]['args'][1]"
check_log "a number beyond the table is named by number" "470 38" \
    "' '.join(str(e[k]) for e in ev if e['event'] == 'denied' and e['syscall'] is None for k in ('nr', 'errno'))"
check_log "the summary counts by name" "[('bpf', 1), ('keyctl', 1)]" \
    "sorted((k, v) for k, v in [e for e in ev if e['event'] == 'deny_summary'][0]['counts'].items() if k in ('bpf', 'keyctl'))"

UNIX_OUT=$T/.runs/unix.out
serve_on_host "$UNIX_OUT" hostsvc=unix:$T/hostsvc.sock
chmod 666 "$T/hostsvc.sock"
use_log "$T/logs/connect.jsonl"
sbx "$T/plan" "$PROBE" hostsock unix-connect "$T/hostsvc.sock"
check_match "a host unix socket is refused" "^hostsock=EACCES" "$OUT"
check_log "... and is a denied line with the address and connect mediation's reason" \
    "connect EACCES $T/hostsvc.sock the socket is on a mount the sandbox cannot write: a host socket" \
    "' '.join(str(e.get(k)) for e in ev if e['event'] == 'denied' for k in ('syscall', 'error', 'address', 'reason'))"

use_log "$T/logs/flood.jsonl"
sbx "$T/plan" /usr/bin/python3 -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
denied = 0
for _ in range(3000):
    if libc.syscall(321, 0, 0, 0) == -1 and ctypes.get_errno() == 1:
        denied += 1
print("eperm", denied)'
expect_rc 0
check_eq "a flood of 3,000 denials: each answered EPERM" "eperm 3000" "$OUT"
check_log "... recorded 16 times" "16" "sum(1 for e in ev if e['event'] == 'denied' and e['syscall'] == 'bpf')"
check_log "... and counted in full" "3000" "[e for e in ev if e['event'] == 'deny_summary'][0]['counts']['bpf']"

use_log "$T/logs/signals.jsonl"
sbx_script "$T/plan" <<EOF
for pid in \$(ls /proc | grep -E '^[0-9]+\$'); do
    [ "\$(cat /proc/\$pid/comm 2>/dev/null)" = tartaros-exec ] && [ "\$pid" != 1 ] || continue
    kill -9 "\$pid" 2>/dev/null && echo "killed \$pid" || echo "refused \$pid"
done
$SYSPROBE bpf_after bpf
/bin/true && echo exec=ok || echo exec=refused
EOF
check_match "the command cannot kill the mediator (Landlock's signal scope)" "^refused [0-9]+$" "$OUT"
check_no_match "... no TartarOS process was killed" "^killed" "$OUT"
check_match "... which goes on answering denials" "^bpf_after=EPERM$" "$OUT"
check_match "... and execs" "^exec=ok$" "$OUT"
check_log "... and recording them" "1" "sum(1 for e in ev if e['event'] == 'denied' and e['syscall'] == 'bpf')"

section "many writers at once: every line whole"
use_log "$T/logs/many.jsonl"
sbx "$T/plan" /bin/sh -c "for i in \$(seq 1 30); do curl -s -o /dev/null http://blocked.test:$port/\$i & $true_path \$i; done; wait"
expect_rc 0
summarize
check_eq "log: 32 exec lines (sh, seq, 30 of true) and 30 of curl" 62 "$(grep -c '^exec ' <<<"$SUMMARY")"
check_eq "log: 30 proxy lines" 30 "$(grep -c '^network proxy deny http GET blocked.test' <<<"$SUMMARY")"
check_eq "log: run_end last" "run_end supervisor 0" "$(tail -n 1 <<<"$SUMMARY")"

section "limits: memory_max and the timeout"
cat >"$T/mem.toml" <<'EOF'
version = 1
[filesystem]
writable_roots = ["ws"]
[process]
memory_max = "64M"
EOF
cat >"$T/timeout.toml" <<'EOF'
version = 1
[filesystem]
writable_roots = ["ws"]
[process]
timeout = 1
EOF
compile "$T/mem.toml" "$T/mem.plan" || it_finish
compile "$T/timeout.toml" "$T/timeout.plan" || it_finish
use_log "$T/logs/oom.jsonl"
sbx "$T/mem.plan" "$PROBE" big hog 256
summarize
if [ "$RUN_USER" = root ]; then
    expect_rc 137 "the OOM kill's status"
    check_eq "log: an OOM line and the status" "run_start supervisor strict=False
exec mediator execve $PROBE $PROBE|big|hog|256
limit supervisor memory_max value=67108864 oom_kills=1 command_killed=True
run_end supervisor 137" "$SUMMARY"
    check_log "run_start: memory_max is installed" "True" "'memory_max' in ev[0]['installed']"
    check_log "run_end: the cgroup's memory peak, near the limit" "True" \
        "32 << 20 < ev[-1]['memory_peak_bytes'] <= 80 << 20"
else
    check_log "run_start: memory_max is degraded, with the reason" "memory_max True" \
        "ev[0]['degraded'][0]['guarantee'] + ' ' + str(len(ev[0]['degraded'][0]['reason']) > 0)"
    check_log "run_start: the warning line too" "True" "any('memory_max' in w for w in ev[0]['warnings'])"
    use_log "$T/logs/oom-strict.jsonl"
    sbx --strict "$T/mem.plan" "$PROBE" big hog 256
    expect_rc 78 "--strict refuses the unenforceable memory_max"
    summarize
    check_eq "log: the refusal is run_start and run_end" "run_start supervisor strict=True
run_end supervisor 78" "$SUMMARY"
    check_log "the refusal: nothing installed, the reason in run_end" "[] True" \
        "str(ev[0]['installed']) + ' ' + str('memory_max' in ev[1]['error'])"
fi
use_log "$T/logs/timeout.jsonl"
sbx "$T/timeout.plan" /bin/sleep 10
expect_rc 137 "the timeout's status"
summarize
check_eq "log: a timeout line and the status" "run_start supervisor strict=False
exec mediator execve /bin/sleep /bin/sleep|10
limit supervisor timeout value_ms=1000 grace_ms=5000 sigkill=False
run_end supervisor 137" "$SUMMARY"

section "the sandbox cannot reach the log: inside a writable root"
L=$W/logs/in.jsonl
use_log "$L"
: >"$L"
ln -s "$L" "$W/sym"
# The fake line a command would like to see in the log.
FAKE='{"time":"2000-01-01T00:00:00.000000Z","run":"0000000000000000","by":"supervisor","event":"run_end","exit":0,"FAKE":1}'
cat >"$W/fdwrite.py" <<EOF
import os, sys
fake = (sys.argv[1] + "\n").encode()
# Every descriptor this process has.
own = 0
for fd in range(0, 1024):
    try:
        os.write(fd, fake)
        own += 1
    except OSError:
        pass
print("own_fds_written=%d" % own)
# Every descriptor of TartarOS's processes: init, the mediator and, without a PID namespace,
# the supervisor, the proxy and the warden. Found from this process up, and then by parent:
# never another test's run.
def ppid(p):
    try:
        for line in open("/proc/%s/status" % p):
            if line.startswith("PPid:"):
                return int(line.split()[1])
    except OSError:
        pass
    return -1
def argv0(p):
    try:
        return open("/proc/%d/cmdline" % p, "rb").read().split(b"\0")[0].decode()
    except OSError:
        return ""
chain = [os.getpid()]
while chain[-1] > 0 and "tartaros-exec" not in argv0(chain[-1]):
    chain.append(ppid(chain[-1]))
init = chain[-1]
ours = {init}
if sys.argv[2] == "host":
    ours.add(ppid(init))
pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
ours |= {p for p in pids if ppid(p) in ours and p not in chain}
tried = opened = 0
for p in sorted(ours):
    for fd in range(0, 64):
        try:
            f = os.open("/proc/%d/fd/%d" % (p, fd), os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
        except OSError:
            tried += 1
            continue
        opened += 1
        os.write(f, fake)
        os.close(f)
print("tartaros_procs=%d" % len(ours))
print("procfd_tried=%d" % tried)
print("procfd_opened=%d" % opened)
EOF
sbx_script "$T/plan" <<EOF
$PROBE l_read read $L
$PROBE l_append append $L
$PROBE l_write write $L
$PROBE l_truncate truncate $L
$PROBE l_unlink unlink $L
$PROBE l_chmod chmod $L 666
$PROBE l_fd_reopen fd-reopen $L
$PROBE l_opath_reopen opath-reopen $L
$PROBE evil write $W/evil.jsonl
$PROBE l_replace rename $W/evil.jsonl $L
$PROBE l_exchange exchange $W/evil.jsonl $L
$PROBE l_move_away rename $L $W/moved.jsonl
$PROBE l_parent_rename rename $W/logs $W/logs.old
$PROBE l_parent_rmdir rmdir $W/logs
$PROBE l_sym_read read $W/sym
$PROBE l_sym_append append $W/sym
$PROBE l_link link $L $W/hard
$PROBE l_opath_link opath-link $L $W/hard2
$PROBE l_sibling write $W/logs/other.txt
$PROBE other write $W/other.txt
/usr/bin/python3 $W/fdwrite.py '$FAKE' sandbox
EOF
expect_rc 0
expect l_read "$DENIED_READ" "read the log"
expect l_append "$DENIED_WRITE" "append to it"
expect l_write "$DENIED_WRITE" "open it with O_TRUNC"
# truncate(2) of the /dev/null that covers the log: EINVAL (a device has no length).
expect l_truncate "$DENIED_WRITE|EINVAL" "truncate it"
expect l_unlink "$DENIED_WRITE|EBUSY" "remove it"
expect l_chmod "$DENIED_WRITE" "chmod it"
expect l_fd_reopen "$DENIED_WRITE|$DENIED_READ" "open it and reopen through /proc/self/fd"
expect l_opath_reopen "$DENIED_WRITE|$DENIED_READ" "O_PATH, then reopen for writing"
expect evil ok
expect l_replace "$DENIED_RENAME" "rename a file over it"
expect l_exchange "$DENIED_RENAME" "exchange a file with it"
expect l_move_away "$DENIED_RENAME" "rename it away"
expect l_parent_rename "$DENIED_RENAME" "rename its directory"
expect l_parent_rmdir "$DENIED_RENAME|ENOTEMPTY" "remove its directory"
expect l_sym_read "$DENIED_READ" "read it through a symlink made beforehand"
expect l_sym_append "$DENIED_WRITE" "append through the symlink"
expect l_link "$DENIED_WRITE|EXDEV" "hard-link it"
expect l_opath_link "$DENIED_WRITE|EXDEV|ENOENT" "hard-link it through an O_PATH descriptor"
expect l_sibling ok "its directory stays writable"
expect other ok "the writable root stays writable"
expect tartaros_procs 2 "init and the mediator are seen"
expect procfd_opened 0 "no descriptor of TartarOS's processes opens through /proc"
expect_not procfd_tried 0 "... though each was tried"
expect_not own_fds_written 0 "the command wrote its fake line to every descriptor it has"
summarize
check_eq "no fake line in the log" 0 "$(grep -cFx "$FAKE" "$L")"
check_eq "the log: run_start, the execs, run_end" "run_start run_end" \
    "$(grep -v '^exec ' <<<"$SUMMARY" | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')"
check "no hard link to the log was made" test "$(stat -c %h "$L")" = 1
check_not "... none at the names tried" test -e "$W/hard" -o -e "$W/hard2"

section "the sandbox cannot reach the log: outside the writable roots"
L=$T/logs/out.jsonl
use_log "$L"
sbx_script "$T/plan" <<EOF
$PROBE o_read read $L
$PROBE o_append append $L
$PROBE o_truncate truncate $L
$PROBE o_unlink unlink $L
$PROBE o_parent_rename rename $T/logs $T/logs.old
$PROBE o_opath_reopen opath-reopen $L
EOF
expect_rc 0
expect o_read "$DENIED_READ" "read the log"
expect o_append "$DENIED_WRITE"
expect o_truncate "$DENIED_WRITE|EINVAL"
expect o_unlink "$DENIED_WRITE|EBUSY"
expect o_parent_rename "$DENIED_RENAME"
expect o_opath_reopen "$DENIED_WRITE|$DENIED_READ"
summarize
check_eq "the log is whole: it ends with run_end" "run_end supervisor 0" "$(tail -n 1 <<<"$SUMMARY")"

section "without a PID namespace: the supervisor and the proxy are visible, their descriptors are not"
cat >"$T/nopid.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
[process]
isolate_pids = false
[network]
allow_domains = ["allowed.test"]
domain_ports = [$port]
hosts = { "allowed.test" = "127.0.0.1" }
EOF
compile "$T/nopid.toml" "$T/nopid.plan" || it_finish
L=$T/logs/nopid.jsonl
use_log "$L"
sbx "$T/nopid.plan" /usr/bin/python3 "$W/fdwrite.py" "$FAKE" host
expect_rc 0
expect tartaros_procs '[4-9]' "the supervisor, its proxy (and warden), init and the mediator"
expect procfd_opened 0 "no descriptor of theirs opens through /proc"
expect_not procfd_tried 0
summarize
check_eq "no fake line in the log" 0 "$(grep -cFx "$FAKE" "$L")"
check_eq "exec events on the late launch path too" "exec mediator execve /usr/bin/python3" \
    "$(grep '^exec ' <<<"$SUMMARY" | cut -d' ' -f1-4)"

section "refusals before anything runs"
capture_as "$REAL_EXEC" --log "$T/no/such/dir/log" "$T/plan" -- /bin/true
expect_rc 78 "a log that cannot be opened"
check_eq "... says so in the first line" \
    "tartaros: cannot open the effect log $T/no/such/dir/log: No such file or directory" "${ERR%%$'\n'*}"
ln -s "$T/logs/target" "$T/logs/link"
capture_as "$REAL_EXEC" --log "$T/logs/link" "$T/plan" -- /bin/true
expect_rc 78 "a symlink as the log"
check_not "... nothing was created through it" test -e "$T/logs/target"
# An earlier run's sandbox left a directory of the path a symlink (WS/logs -> elsewhere): a
# root launcher must not create the log wherever it points.
mkdir -p "$T/elsewhere" "$W/runlogs-real"
ln -s "$T/elsewhere" "$W/runlogs"
give_to_user
capture_as "$REAL_EXEC" --log "$W/runlogs/run.jsonl" "$T/plan" -- /bin/true
expect_rc 78 "a symlink among the log path's directories"
check_eq "... named in the first line" "tartaros: cannot open the effect log $W/runlogs/run.jsonl: a component of its path is a symlink (give the log's real path)" "${ERR%%$'\n'*}"
check_not "... nothing was created where it points" test -e "$T/elsewhere/run.jsonl"
capture_as "$REAL_EXEC" --log "$W/runlogs-real/run.jsonl" "$T/plan" -- /bin/true
expect_rc 0 "control: the same log in a real directory"
: >"$W/logs/linked.jsonl"
ln "$W/logs/linked.jsonl" "$W/second-name"
capture_as "$REAL_EXEC" --log "$W/logs/linked.jsonl" "$T/plan" -- /bin/true
expect_rc 78 "a log with a hard link the sandbox might see"
check_eq "... named in the first line" "tartaros: cannot open the effect log $W/logs/linked.jsonl: it has 2 hard links, and the sandbox might see another one" "${ERR%%$'\n'*}"
check_eq "... and nothing was written" "" "$(cat "$W/logs/linked.jsonl")"

it_finish
