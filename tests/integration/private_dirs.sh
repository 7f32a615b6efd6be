#!/bin/bash
# private_dirs: a directory in the workspace that the policy marks as the sandbox's own
# (docs/policy.md "Private directories"), used as a tool that keeps its sockets next to the
# project would use it, and as an attacker would to reach the host through it:
#  - bind() of a stream and a datagram socket in ws/.sockets works, and the sandbox's own
#    clients connect and send to them; bind() elsewhere in ws is still EACCES;
#  - a host file and host stream and datagram sockets planted in ws/.sockets before the run
#    are invisible inside, and the host services behind those sockets receive nothing;
#  - the mount point cannot be renamed away to expose the host's directory;
#  - after the run the host's ws/.sockets holds exactly what it held before;
#  - the same through `tartaros run --private-dir`; a control run without the key sees the
#    host's files and cannot bind there, so each check above can fail.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

TARTAROS=$IT_DIR/tartaros
[ -x "$TARTAROS" ] || die "fixture binary missing: $TARTAROS"
S=$T/ws/.sockets
mkdir -p "$S"
echo host-secret >"$S/host-file"

cat >"$T/hostsvc.py" <<'PYEOF'
# Host services whose sockets lie in the private directory's host path; they log what they get.
import os, socket, sys, threading
d, log_path = sys.argv[1:3]
log = open(log_path, "a", buffering=1)
def stream(sock):
    while True:
        conn = sock.accept()[0]
        log.write("accepted\n")
        while data := conn.recv(65536):
            log.write(f"stream-bytes {len(data)}\n")
s = socket.socket(socket.AF_UNIX)
s.bind(f"{d}/host.sock")
s.listen(16)
g = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
g.bind(f"{d}/host-dgram.sock")
for name in ("host.sock", "host-dgram.sock"):
    os.chmod(f"{d}/{name}", 0o666)
threading.Thread(target=stream, args=(s,), daemon=True).start()
def dgram():
    while True:
        log.write(f"datagram {len(g.recv(4096))}\n")
threading.Thread(target=dgram, daemon=True).start()
log.write("ready\n")
threading.Event().wait()
PYEOF
cat >"$T/agent.py" <<'PYEOF'
import errno, os, socket, sys
ws = sys.argv[1]
d = f"{ws}/.sockets"
def attempt(label, action):
    try:
        print(f"{label}={action()}")
    except OSError as e:
        print(f"{label}={errno.errorcode.get(e.errno, e.errno)}")
def listing():
    return ",".join(sorted(os.listdir(d))) or "empty"
def read(path):
    return open(path).read().strip()
def connect(path):
    c = socket.socket(socket.AF_UNIX)
    c.connect(path)
    c.sendall(b"from-the-sandbox")
    return "connected"
def sendto(path):
    return socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"from-the-sandbox", path)
def own_stream(path):
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)
    client = socket.socket(socket.AF_UNIX)
    client.connect(path)
    client.sendall(b"own")
    return server.accept()[0].recv(3).decode()
def own_dgram(path):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(path)
    client = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    client.sendto(b"to", path)
    client.connect(path)
    client.send(b"co")
    return (server.recv(2) + server.recv(2)).decode()
def bind(path):
    socket.socket(socket.AF_UNIX).bind(path)
    return "bound"
def write(path):
    with open(path, "w") as f:
        f.write("left by the sandbox\n")
    return "written"
def rename_away():
    os.rename(d, f"{ws}/moved")
    return "renamed"
attempt("listing", listing)
attempt("host_file", lambda: read(f"{d}/host-file"))
attempt("host_stream", lambda: connect(f"{d}/host.sock"))
attempt("host_dgram", lambda: sendto(f"{d}/host-dgram.sock"))
attempt("own_stream", lambda: own_stream(f"{d}/own-stream.sock"))
attempt("own_dgram", lambda: own_dgram(f"{d}/own-dgram.sock"))
attempt("bind_ws", lambda: bind(f"{ws}/elsewhere.sock"))
attempt("write", lambda: write(f"{d}/host-file"))
attempt("write_new", lambda: write(f"{d}/new-file"))
attempt("rename_away", rename_away)
attempt("after", listing)
PYEOF
chmod 644 "$T/hostsvc.py" "$T/agent.py"

spawn /usr/bin/python3 "$T/hostsvc.py" "$S" "$T/.runs/host.log"
for _ in $(seq 1 50); do grep -q ready "$T/.runs/host.log" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$T/.runs/host.log" || die "the host services did not start"
give_to_user

section "control: outside the sandbox the host services behind the planted sockets receive"
capture_as /usr/bin/python3 -c '
import socket, sys
c = socket.socket(socket.AF_UNIX)
c.connect(sys.argv[1] + "/host.sock")
c.sendall(b"control")
print("dgram=%d" % socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"control", sys.argv[1] + "/host-dgram.sock"))
' "$S"
expect dgram 7 "control: the test's user reaches both services"
sleep 0.3
check_match "control: the stream service logs the connection" '^accepted$' "$(<"$T/.runs/host.log")"
check_match "control: ... and the datagram service the datagram" '^datagram 7$' "$(<"$T/.runs/host.log")"
host_names=$(ls -A "$S")
host_sum=$(tree_sum "$S")
log_before=$(<"$T/.runs/host.log")

cat >"$T/control.toml" <<POLICY
version = 1
[filesystem]
writable_roots = ["ws"]
POLICY
cat >"$T/policy.toml" <<POLICY
version = 1
[filesystem]
writable_roots = ["ws"]
private_dirs = ["ws/.sockets"]
POLICY

section "control: without private_dirs the host's ws/.sockets shows, and no socket can be bound there"
compile "$T/control.toml" "$T/control.plan" || it_finish
IN_DIR=$T/ws sbx "$T/control.plan" /usr/bin/python3 -c '
import os, socket, sys
d = sys.argv[1] + "/.sockets"
print("host_file=" + open(d + "/host-file").read().strip())
try:
    socket.socket(socket.AF_UNIX).bind(d + "/own.sock")
    print("bind=bound")
except OSError as e:
    print("bind=%d" % e.errno)
' "$T/ws"
expect_rc 0 "control: exit status"
expect host_file host-secret "control: the host's file in ws/.sockets is readable"
expect bind 13 "control: bind() in ws/.sockets is refused (EACCES) without the key"

# check_agent_run WHAT: the checks of one run of agent.py ($OUT), then the host's side.
check_agent_run() {
    local what=$1 after_log
    expect_rc 0 "$what: exit status"
    expect listing empty "$what: the private ws/.sockets starts empty: the host's file and sockets are hidden"
    expect host_file ENOENT "$what: the host's file there cannot be read"
    expect host_stream ENOENT "$what: the host's stream socket there cannot be reached"
    expect host_dgram ENOENT "$what: ... nor its datagram socket"
    expect own_stream own "$what: bind() of a stream socket there works, and the sandbox's client connects"
    expect own_dgram toco "$what: bind() of a datagram socket there works: sendto() and a connected send()"
    expect bind_ws EACCES "$what: bind() elsewhere in the workspace is still refused"
    expect write written "$what: a file of the host's name is written there (in the tmpfs)"
    expect write_new written "$what: ... and a new one"
    expect rename_away "$DENIED_RENAME" "$what: the mount point cannot be renamed away to expose the host's directory"
    expect after "host-file,new-file,own-dgram.sock,own-stream.sock" "$what: the sandbox sees what it wrote there"
    sleep 0.3
    after_log=$(<"$T/.runs/host.log")
    check_eq "$what: the host services behind the planted sockets received nothing" "$log_before" "$after_log"
    check_eq "$what: the host's ws/.sockets holds the same names as before" "$host_names" "$(ls -A "$S")"
    check_eq "$what: ... with the same content (nothing the sandbox wrote)" "$host_sum" "$(tree_sum "$S")"
    check_content "$what: the host's file is unchanged" "$S/host-file" host-secret
    check_not "$what: no socket was made elsewhere in the workspace" test -e "$T/ws/elsewhere.sock"
    check_not "$what: the directory was not moved" test -e "$T/ws/moved"
}

section "private_dirs = [\"ws/.sockets\"]: the sandbox's own sockets, nothing of the host's"
compile "$T/policy.toml" "$T/plan" || it_finish
IN_DIR=$T/ws sbx "$T/plan" /usr/bin/python3 "$T/agent.py" "$T/ws"
check_agent_run "private_dirs"

section "tartaros run --private-dir does the same"
IN_DIR=$T/ws capture_as "$TARTAROS" run --write "$T/ws" --private-dir "$T/ws/.sockets" -- \
    /usr/bin/python3 "$T/agent.py" "$T/ws"
check_agent_run "--private-dir"

section "a private dir that would hide a rule of the policy is a refusal"
cat >"$T/bad.toml" <<POLICY
version = 1
[filesystem]
writable_roots = ["ws", "ws/.sockets/inner"]
private_dirs = ["ws/.sockets"]
POLICY
capture_as "$COMPILE" "$T/bad.toml" -o "$T/bad.plan"
expect_rc 78 "compile: a writable root inside a private dir"
check_match "... named, with the rule id" "writable_roots: '$T/ws/.sockets/inner' lies in the private directory.*\[private-dir\]" "$ERR"
check_not "... and no plan written" test -e "$T/bad.plan"

it_finish
