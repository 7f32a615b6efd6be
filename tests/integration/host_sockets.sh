#!/bin/bash
# Host unix sockets are a network too: services listening on sockets under /run (where D-Bus,
# Docker and the user's agents live) and the host's /tmp (tmux, X11, forwarded ssh agents) are
# reachable by the test's user without a sandbox, and unreachable inside one, under
# read_scope = "all" where the rest of the tree stays readable.
# In the same run a socket the sandbox makes in its workspace is refused (bind: a host client
# could be lured to it), one in its private /dev/shm works, and so does a socketpair.
# A policy that names a path under /run shows exactly that path, and its host socket still
# refuses the connection. Anywhere else readable, connect() mediation refuses a host socket
# however it is named (absolute, relative, through a symlink, through /proc/self/fd), one a
# host service put in the workspace, and one named by an address another thread rewrites
# during the call; the sandbox's own sockets keep working.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

name="tartaros-it-$$-$RANDOM"
hostdir=/run/$name
tmpdir=/tmp/$name
mkdir -m 755 "$hostdir" "$tmpdir" || die "cannot create $hostdir and $tmpdir"
trap 'rm -rf "$hostdir" "$tmpdir"; it_cleanup' EXIT
# serve SOCKET: a host service answering "host-service" on a unix socket anyone may connect to.
serve() {
    spawn /usr/bin/python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
s.listen(16)
while True:
    c = s.accept()[0]
    c.sendall(b"host-service")
    c.close()
' "$1"
    for _ in $(seq 1 50); do [ -S "$1" ] && break; sleep 0.1; done
    [ -S "$1" ] || die "the host service on $1 did not start"
}
serve "$hostdir/service.sock"
serve "$tmpdir/service.sock"

mkdir -p "$T/ws"
cat >"$T/client.py" <<'PYEOF'
import errno, os, socket, sys, threading
def attempt(label, action):
    try:
        print(f"{label}={action()}")
    except OSError as e:
        print(f"{label}={errno.errorcode.get(e.errno, e.errno)}")
def connect(path):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    data = s.recv(64).decode()
    s.close()
    return data
def own_socket(path):
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)
    def serve():
        c = server.accept()[0]
        c.sendall(b"own-service")
        c.close()
    threading.Thread(target=serve).start()
    return connect(path)
def pair():
    a, b = socket.socketpair()
    a.sendall(b"pair")
    return b.recv(4).decode()
attempt("host", lambda: connect(sys.argv[1]))
attempt("host_tmp", lambda: connect(sys.argv[2]))
if len(sys.argv) > 3:
    attempt("own", lambda: own_socket(sys.argv[3]))
    attempt("pair", pair)
PYEOF
chmod 644 "$T/client.py"
give_to_user

section "control: the host service answers without a sandbox"
capture_as /usr/bin/python3 "$T/client.py" "$hostdir/service.sock" "$tmpdir/service.sock"
expect host host-service "control: the test's user reaches the host socket under /run"
expect host_tmp host-service "control: ... and the one under /tmp"

section "read_scope = all: /run is hidden, the host's /tmp refuses, the sandbox's own sockets work in /dev/shm"
cat >"$T/policy.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
EOF
compile "$T/policy.toml" "$T/plan" || it_finish
sbx "$T/plan" /usr/bin/python3 "$T/client.py" "$hostdir/service.sock" "$tmpdir/service.sock" "$T/ws/own.sock"
expect_rc 0 "sandbox exit status"
expect host ENOENT "the host service's socket under /run is not there"
expect host_tmp EACCES "the one under the host's /tmp shows (read-only), and refuses: connect mediation"
expect own EACCES "a socket made in the workspace is refused (bind mediation)"
sbx "$T/plan" /usr/bin/python3 "$T/client.py" "$hostdir/service.sock" "$tmpdir/service.sock" /dev/shm/own.sock
expect own own-service "a socket made in the private /dev/shm works"
expect pair pair "a socketpair works"

section "a policy that names the directory re-opens it"
cat >"$T/reopen.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
read_allows = ["$hostdir"]
private_tmp = true
EOF
compile "$T/reopen.toml" "$T/reopen.plan" || it_finish
sbx "$T/reopen.plan" /usr/bin/python3 "$T/client.py" "$hostdir/service.sock" "$tmpdir/service.sock"
expect host EACCES "read_allows shows the directory, but its host socket refuses (connect mediation)"
expect host_tmp ENOENT "private_tmp: the host's /tmp sockets are not in the private /tmp"
sbx "$T/reopen.plan" /bin/sh -c "ls -A /run"
check_eq "the rest of /run stays hidden" "$name" "$OUT"

section "anywhere readable: host sockets refuse, however named; the sandbox's own work"
# serve_logged SOCKET LOG: a host service that logs one line per connection it accepts.
serve_logged() {
    spawn /usr/bin/python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
s.listen(64)
log = open(sys.argv[2], "a", buffering=1)
while True:
    c = s.accept()[0]
    log.write("accepted\n")
    c.close()
' "$1" "$2"
    for _ in $(seq 1 50); do [ -S "$1" ] && break; sleep 0.1; done
    [ -S "$1" ] || die "the host service on $1 did not start"
}
# logged_connections LOG N [TENTHS]: waits (up to TENTHS tenths of a second, default 50) until a
# service has logged N connections, then prints its count. The service logs after it accepts:
# a count read right after the control's connect could miss that very connection and blame
# the sandbox for it, and one read right after the sandbox's run could miss the sandbox's.
logged_connections() {
    for _ in $(seq 1 "${3:-50}"); do [ "$(wc -l <"$1")" -ge "$2" ] && break; sleep 0.1; done
    wc -l <"$1"
}
mkdir -m 755 "$T/hostdir"
serve_logged "$T/hostdir/service.sock" "$T/.runs/host.log"
serve_logged "$T/ws/host-in-ws.sock" "$T/.runs/host-in-ws.log"
ln -s "$T/hostdir/service.sock" "$T/ws/link.sock"
give_to_user
capture_as "$PROBE" control unix-connect "$T/hostdir/service.sock"
expect control ok "control: the test's user reaches the host socket in $T/hostdir"
capture_as "$PROBE" control_ws unix-connect "$T/ws/host-in-ws.sock"
expect control_ws ok "control: ... and the host service's socket in the workspace"
host_before=$(logged_connections "$T/.runs/host.log" 1)
ws_before=$(logged_connections "$T/.runs/host-in-ws.log" 1)
cat >"$T/own_server.py" <<'PYEOF2'
import socket, sys, threading
server = socket.socket(socket.AF_UNIX)
server.bind(sys.argv[1])
server.listen(256)
def serve():
    while True:
        server.accept()[0].close()
threading.Thread(target=serve, daemon=True).start()
open(sys.argv[2], "w").close()
threading.Event().wait(60)
PYEOF2
chmod 644 "$T/own_server.py"
sbx_script "$T/plan" <<EOF
/usr/bin/python3 $T/own_server.py /dev/shm/own-race.sock $T/ws/own-ready &
for _ in \$(seq 1 50); do [ -e $T/ws/own-ready ] && break; sleep 0.1; done
$PROBE absolute unix-connect $T/hostdir/service.sock
cd $T/hostdir && $PROBE relative unix-connect service.sock; cd $T/ws
$PROBE symlink unix-connect $T/ws/link.sock
$PROBE opath unix-connect-opath $T/hostdir/service.sock
$PROBE hardlink link $T/hostdir/service.sock $T/ws/hard.sock
$PROBE host_in_ws unix-connect $T/ws/host-in-ws.sock
$PROBE own unix-connect /dev/shm/own-race.sock
$PROBE race unix-race /dev/shm/own-race.sock $T/hostdir/service.sock 3000
kill \$!
EOF
expect_rc 0 "sandbox exit status"
expect absolute EACCES "an absolute path to a host socket outside /run and /tmp is refused"
expect relative EACCES "... a relative one from the host directory too"
expect symlink EACCES "... a symlink in the workspace pointing at it too"
expect opath "ENOENT|ELOOP|EACCES" "... and /proc/self/fd/N of an O_PATH descriptor of it"
expect hardlink "EXDEV|EPERM|EACCES" "a hard link to it in the workspace cannot be made"
expect host_in_ws EACCES "a host service's socket inside the workspace is refused (not on a private filesystem)"
expect own ok "a socket the sandbox listens on in its private /dev/shm works"
expect race ok "the race ran"
result_of race.data
read -r race_connected race_refused <<<"$RESULT"
check "the race connected to the sandbox's own socket ($race_connected times)" test "${race_connected:-0}" -gt 0
check "... and was refused the host's ($race_refused times)" test "${race_refused:-0}" -gt 0
check_eq "the host service never saw a connection from the sandbox" "$host_before" \
    "$(logged_connections "$T/.runs/host.log" $((host_before + 1)) 10)"
check_eq "the workspace host service never saw a connection either" "$ws_before" \
    "$(logged_connections "$T/.runs/host-in-ws.log" $((ws_before + 1)) 10)"

section "without a PID namespace (the command starts late and hands its listener over)"
cat >"$T/nopid.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
[process]
isolate_pids = false
isolate_proc = false
EOF
compile "$T/nopid.toml" "$T/nopid.plan" || it_finish
rm -f "$T/ws/own-ready"
sbx_script "$T/nopid.plan" <<EOF
/usr/bin/python3 $T/own_server.py /dev/shm/own-late.sock $T/ws/own-ready &
for _ in \$(seq 1 50); do [ -e $T/ws/own-ready ] && break; sleep 0.1; done
$PROBE absolute unix-connect $T/hostdir/service.sock
cd $T/hostdir && $PROBE relative unix-connect service.sock; cd $T/ws
$PROBE symlink unix-connect $T/ws/link.sock
$PROBE own unix-connect /dev/shm/own-late.sock
$PROBE host_in_ws unix-connect $T/ws/host-in-ws.sock
kill \$!
EOF
expect_rc 0 "sandbox exit status"
expect absolute EACCES "a host socket outside /run and /tmp is refused"
expect relative EACCES "... by a relative name too"
expect symlink EACCES "... and through a symlink in the workspace"
expect host_in_ws EACCES "... and a host service's socket in the workspace, with no PID namespace to tell"
expect own ok "the sandbox's own socket works"
check_eq "the host service never saw a connection from the sandbox" "$host_before" \
    "$(logged_connections "$T/.runs/host.log" $((host_before + 1)) 10)"

it_finish
