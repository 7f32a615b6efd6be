#!/bin/bash
# Host unix sockets are a network too: services listening on sockets under /run (where D-Bus,
# Docker and the user's agents live) and the host's /tmp (tmux, X11, forwarded ssh agents) are
# reachable by the test's user without a sandbox, and unreachable inside one, under
# read_scope = "all" where the rest of the tree stays readable.
# In the same run a socket the sandbox makes in its workspace works, and so does a socketpair.
# A policy that names a path under /run re-opens exactly that path.
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

section "read_scope = all: /run and the host's /tmp are hidden, the workspace's own sockets work"
cat >"$T/policy.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
EOF
compile "$T/policy.toml" "$T/plan" || it_finish
sbx "$T/plan" /usr/bin/python3 "$T/client.py" "$hostdir/service.sock" "$tmpdir/service.sock" "$T/ws/own.sock"
expect_rc 0 "sandbox exit status"
expect host ENOENT "the host service's socket under /run is not there"
expect host_tmp ENOENT "nor the one under the host's /tmp"
expect own own-service "a socket made in the workspace works"
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
expect host host-service "read_allows re-opens exactly that directory"
expect host_tmp ENOENT "private_tmp: the host's /tmp sockets are not in the private /tmp"
sbx "$T/reopen.plan" /bin/sh -c "ls -A /run"
check_eq "the rest of /run stays hidden" "$name" "$OUT"

it_finish
