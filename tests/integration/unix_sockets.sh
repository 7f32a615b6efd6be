#!/bin/bash
# Unix sockets as an attacker inside the sandbox would use them against host services whose
# sockets lie in its workspace (git's fsmonitor daemon, a language server, a rootless
# docker.sock), each next to the benign use that must keep working:
#  - connect() to a host stream service: refused, and a second thread spinning on send() on
#    the same descriptor during the connect never delivers a byte (the mediator connects a
#    socket of its own and installs it only once its peer is the sandbox's);
#  - a host datagram service: connect() and sendto() refused, nothing arrives;
#  - bind() in the workspace: refused with EACCES (and a `denied` event with --log), so no host
#    client can be lured to the sandbox's listener; in the private /tmp and /dev/shm it works;
#  - the sandbox's own sockets there: stream, datagram (sendto and connected), a nonblocking
#    connect, socketpair, multiprocessing's manager, an abstract pair; a host abstract socket
#    is out of reach.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

mkdir -p "$T/ws"
cat >"$T/hostsvc.py" <<'PYEOF'
# Host services in the workspace that log everything they receive.
import array, os, socket, sys, threading
ws, log_path, abstract = sys.argv[1:4]
log = open(log_path, "a", buffering=1)
lock = threading.Lock()
def note(line):
    with lock:
        log.write(line + "\n")
def stream(sock):
    while True:
        conn = sock.accept()[0]
        note("accepted")
        def drain(c):
            while data := c.recv(65536):
                note(f"stream-bytes {len(data)}")
        threading.Thread(target=drain, args=(conn,), daemon=True).start()
def dgram(sock):
    while True:
        fds = array.array("i")
        data, anc, _, _ = sock.recvmsg(4096, socket.CMSG_SPACE(16 * fds.itemsize))
        note(f"datagram {len(data)}")
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                note("scm-rights")
s = socket.socket(socket.AF_UNIX)
s.bind(f"{ws}/host-stream.sock")
s.listen(512)
d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
d.bind(f"{ws}/host-dgram.sock")
a = socket.socket(socket.AF_UNIX)
a.bind("\0" + abstract)
a.listen(16)
for path in ("host-stream.sock", "host-dgram.sock"):
    os.chmod(f"{ws}/{path}", 0o666)
threading.Thread(target=stream, args=(s,), daemon=True).start()
threading.Thread(target=stream, args=(a,), daemon=True).start()
threading.Thread(target=dgram, args=(d,), daemon=True).start()
note("ready")
threading.Event().wait()
PYEOF
cat >"$T/attack.py" <<'PYEOF'
import array, errno, multiprocessing.managers, os, socket, sys, threading
ws, abstract = sys.argv[1:3]
def attempt(label, action):
    try:
        print(f"{label}={action()}")
    except OSError as e:
        print(f"{label}={errno.errorcode.get(e.errno, e.errno)}")
def connect(path, kind=socket.SOCK_STREAM):
    socket.socket(socket.AF_UNIX, kind).connect(path)
    return "connected"
def race(path, tries):
    """connect() while a second thread spins on send() on the same descriptor."""
    connected = 0
    for _ in range(tries):
        s = socket.socket(socket.AF_UNIX)
        stop = threading.Event()
        def spin(fd=s.fileno()):
            while not stop.is_set():
                try:
                    os.write(fd, b"x")
                except OSError:
                    pass
        t = threading.Thread(target=spin)
        t.start()
        try:
            s.connect(path)
            connected += 1
        except OSError:
            pass
        stop.set()
        t.join()
        s.close()
    return f"connected {connected}"
def race_own():
    server = socket.socket(socket.AF_UNIX)
    server.bind("/tmp/own-race.sock")
    server.listen(512)
    def serve():
        while True:
            server.accept()[0].close()
    threading.Thread(target=serve, daemon=True).start()
    return race("/tmp/own-race.sock", 100)
def sendto(path):
    return socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"sendto", path)
def sendto_rights(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        s.connect(path)
    except OSError:
        pass
    r, _ = os.pipe()
    return s.sendmsg([b"rights"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [r]).tobytes())])
def bind(path):
    socket.socket(socket.AF_UNIX).bind(path)
    return "bound"
def own_stream(path):
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)
    client = socket.socket(socket.AF_UNIX)
    client.connect(path)
    client.sendall(b"own")
    return server.accept()[0].recv(3).decode() + " " + client.getpeername()
def own_dgram(path):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(path)
    client = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    client.sendto(b"to", path)
    client.connect(path)
    client.send(b"co")
    return (server.recv(2) + server.recv(2)).decode()
def nonblocking(path):
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)
    client = socket.socket(socket.AF_UNIX)
    client.setblocking(False)
    client.connect(path)
    client.send(b"nb")
    return f"{server.accept()[0].recv(2).decode()} blocking={client.getblocking()}"
def pair():
    a, b = socket.socketpair()
    a.sendall(b"pair")
    return b.recv(4).decode()
def manager():
    m = multiprocessing.managers.SyncManager()
    m.start()
    d = m.dict()
    d["k"] = "manager"
    value = d["k"]
    m.shutdown()
    return value
def abstract_pair():
    server = socket.socket(socket.AF_UNIX)
    server.bind("\0tartaros-it-own-abstract")
    server.listen(1)
    return connect("\0tartaros-it-own-abstract")
attempt("stream_connect", lambda: connect(f"{ws}/host-stream.sock"))
attempt("stream_race", lambda: race(f"{ws}/host-stream.sock", 300))
attempt("own_race", lambda: race_own())
attempt("dgram_connect", lambda: connect(f"{ws}/host-dgram.sock", socket.SOCK_DGRAM))
attempt("dgram_sendto", lambda: sendto(f"{ws}/host-dgram.sock"))
attempt("dgram_rights", lambda: sendto_rights(f"{ws}/host-dgram.sock"))
attempt("bind_ws", lambda: bind(f"{ws}/own.sock"))
attempt("bind_tmp", lambda: bind("/tmp/bound.sock"))
attempt("own_stream", lambda: own_stream("/tmp/own-stream.sock"))
attempt("own_shm", lambda: own_stream("/dev/shm/own-stream.sock"))
attempt("own_dgram", lambda: own_dgram("/tmp/own-dgram.sock"))
attempt("nonblocking", lambda: nonblocking("/tmp/nonblocking.sock"))
attempt("pair", pair)
attempt("manager", manager)
attempt("abstract_host", lambda: connect("\0" + abstract))
attempt("abstract_own", abstract_pair)
PYEOF
chmod 644 "$T/hostsvc.py" "$T/attack.py"

abstract="tartaros-it-$$-$RANDOM"
spawn /usr/bin/python3 "$T/hostsvc.py" "$T/ws" "$T/.runs/host.log" "$abstract"
for _ in $(seq 1 50); do grep -q ready "$T/.runs/host.log" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$T/.runs/host.log" || die "the host services did not start"
give_to_user

section "control: without the sandbox the host services are reachable"
capture_as /usr/bin/python3 -c '
import socket, sys
socket.socket(socket.AF_UNIX).connect(sys.argv[1] + "/host-stream.sock")
print("stream=ok")
print("dgram=%d" % socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"control", sys.argv[1] + "/host-dgram.sock"))
' "$T/ws"
expect stream ok "control: the host stream service in the workspace accepts the test's user"
expect dgram 7 "control: ... and the datagram service receives"
sleep 0.3
before=$(<"$T/.runs/host.log")

section "the attacker in the sandbox, next to its own sockets"
cat >"$T/policy.toml" <<POLICY
version = 1
[filesystem]
writable_roots = ["ws"]
private_tmp = true
POLICY
compile "$T/policy.toml" "$T/plan" || it_finish
IN_DIR=$T/ws sbx "$T/plan" /usr/bin/python3 "$T/attack.py" "$T/ws" "$abstract"
expect_rc 0 "sandbox exit status"
expect stream_connect EACCES "connect() to a host stream service in the workspace is refused"
expect stream_race "connected 0" "... also with a thread spinning on send() on the descriptor (300 tries)"
expect own_race "connected 100" "... while the same race against the sandbox's own listener connects every time"
expect dgram_connect EACCES "connect() to a host datagram socket in the workspace is refused"
expect dgram_sendto EACCES "sendto() to it is refused"
expect dgram_rights ENOTCONN "... so SCM_RIGHTS has no way there (the connect was refused)"
expect bind_ws EACCES "bind() in the workspace is refused: no host client can be lured there"
expect bind_tmp bound "bind() in the private /tmp works"
expect own_stream "own /tmp/own-stream.sock" "the sandbox's own stream socket in the private /tmp works (its name kept)"
expect own_shm "own /dev/shm/own-stream.sock" "... and in the private /dev/shm"
expect own_dgram toco "its own datagram socket: sendto() and a connected send()"
expect nonblocking "nb blocking=False" "a nonblocking connect to its own listener works and stays nonblocking"
expect pair pair "a socketpair works"
expect manager manager "multiprocessing's manager (a unix socket in the private /tmp) works"
expect abstract_host ECONNREFUSED "a host abstract socket is out of reach (another network namespace)"
expect abstract_own connected "an abstract socket of the sandbox's own works"
sleep 0.3
after=$(<"$T/.runs/host.log")
check_eq "the host services received nothing from the sandbox: no connection, no byte, no datagram" \
    "$before" "$after"
check_no_match "no descriptor reached the host" "scm-rights" "$after"
check_not "no socket was made in the workspace" test -e "$T/ws/own.sock"

section "--log: the refused bind is a denied event"
capture_as "$EXEC" --log "$T/.runs/effects.jsonl" "$T/plan" -- /usr/bin/python3 -c '
import socket, sys
try:
    socket.socket(socket.AF_UNIX).bind(sys.argv[1])
except PermissionError:
    print("bind=EACCES")
' "$T/ws/logged.sock"
expect bind EACCES "bind() in the workspace is refused under --log too"
log=$(<"$T/.runs/effects.jsonl")
check_match "a denied event names bind, its errno, the reason and the address" \
    '"event":"denied".*"syscall":"bind".*"error":"EACCES","reason":"a unix socket outside the private /tmp, /dev/shm and private_dirs: the host can reach it there","address":"'"$T"'/ws/logged.sock"' "$log"

it_finish
