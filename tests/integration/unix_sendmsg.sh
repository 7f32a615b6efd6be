#!/bin/bash
# sendmsg() and sendmmsg(), whose destination address lies in memory a seccomp filter cannot
# read, as an attacker uses them against a host datagram service whose socket lies in the
# workspace, each next to the benign use that must keep working:
#  - sendmsg() and sendmmsg() with the host socket's address, with SCM_RIGHTS attached: refused
#    with EACCES, nothing arrives; a sendmmsg() whose second message goes there sends the first
#    only; a `denied` event with --log;
#  - a thread rewriting the address in memory between the sandbox's own socket and the host's
#    while another sends in a loop, and a thread swapping the descriptor between a UDP and a
#    unix socket: nothing reaches the host (the mediator sends its own copy);
#  - the sandbox's own: datagrams to its socket in the private /tmp (sendmsg, sendmmsg with
#    msg_len), descriptors passed over a socketpair and used, multiprocessing's fd passing,
#    8 MiB each way at once over one socketpair (a held send must not hold the other), a
#    nonblocking send that fills the socket (EAGAIN, no hang), SO_SNDTIMEO, SIGPIPE and
#    MSG_NOSIGNAL, a 3 MiB gathered message, connect() and sendmsg() from a second thread.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

mkdir -p "$T/ws"
cat >"$T/hostsvc.py" <<'PYEOF'
# A host datagram service in the workspace that logs everything it receives.
import socket, sys
ws, log_path = sys.argv[1:3]
log = open(log_path, "a", buffering=1)
d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
d.bind(f"{ws}/host-dgram.sock")
import os
os.chmod(f"{ws}/host-dgram.sock", 0o666)
log.write("ready\n")
while True:
    data, anc, _, _ = d.recvmsg(65536, socket.CMSG_SPACE(64))
    log.write(f"datagram {data[:40]!r}\n")
    for level, kind, _ in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            log.write("scm-rights\n")
PYEOF
cat >"$T/attack.py" <<'PYEOF'
import array, ctypes, errno, hashlib, multiprocessing, multiprocessing.reduction, os, signal, socket
import struct, sys, threading, time
ws = sys.argv[1]
host = f"{ws}/host-dgram.sock"
libc = ctypes.CDLL(None, use_errno=True)

class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
class msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32), ("iov", ctypes.POINTER(iovec)),
                ("iovlen", ctypes.c_size_t), ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]
class mmsghdr(ctypes.Structure):
    _fields_ = [("hdr", msghdr), ("len", ctypes.c_uint32)]

def sockaddr(path):
    raw = struct.pack("H", socket.AF_UNIX) + path.encode() + b"\0"
    return ctypes.create_string_buffer(raw, len(raw)), len(raw)

def attempt(label, action):
    try:
        print(f"{label}={action()}")
    except OSError as e:
        print(f"{label}={errno.errorcode.get(e.errno, e.errno)}")

def own_receiver(path):
    r = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    r.bind(path)
    r.settimeout(2)
    return r

def sendmsg_host():
    return socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendmsg([b"sendmsg"], [], 0, host)

def sendmsg_rights():
    r, _ = os.pipe()
    rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [r]).tobytes())]
    return socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendmsg([b"rights"], rights, 0, host)

def sendmmsg(sock, paths):
    """sendmmsg() of one datagram per path: its result and the msg_len of each."""
    vec = (mmsghdr * len(paths))()
    keep = []
    for i, path in enumerate(paths):
        name, length = sockaddr(path)
        data = ctypes.create_string_buffer(f"mmsg{i}".encode())
        iov = iovec(ctypes.cast(data, ctypes.c_void_p), 5)
        keep += [name, data, iov]
        vec[i].hdr = msghdr(ctypes.cast(name, ctypes.c_void_p), length, ctypes.pointer(iov), 1, None, 0, 0)
    n = libc.sendmmsg(sock.fileno(), vec, len(paths), 0)
    if n < 0:
        raise OSError(ctypes.get_errno(), "sendmmsg")
    return f"{n} " + ",".join(str(vec[i].len) for i in range(len(paths)))

def sendmmsg_host():
    return sendmmsg(socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM), [host])

def sendmmsg_mixed():
    r = own_receiver("/tmp/own-mixed.sock")
    sent = sendmmsg(socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM), ["/tmp/own-mixed.sock", host, "/tmp/own-mixed.sock"])
    return f"{sent} got={r.recv(16).decode()}"

def sendmmsg_own():
    r = own_receiver("/tmp/own-mmsg.sock")
    sent = sendmmsg(socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM), ["/tmp/own-mmsg.sock"] * 3)
    return f"{sent} got={'+'.join(r.recv(16).decode() for _ in range(3))}"

def address_race(tries):
    """One thread sends in a loop while another rewrites the address in memory between the
    sandbox's own socket (same length) and the host's."""
    own = "/tmp/" + "r" * (len(host) - len("/tmp/"))
    r = own_receiver(own)
    r.setblocking(False)
    name, length = sockaddr(own)
    own_raw, host_raw = name.raw, sockaddr(host)[0].raw
    data = ctypes.create_string_buffer(b"race")
    iov = iovec(ctypes.cast(data, ctypes.c_void_p), 4)
    msg = msghdr(ctypes.cast(name, ctypes.c_void_p), length, ctypes.pointer(iov), 1, None, 0, 0)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    stop = threading.Event()
    def flip():
        while not stop.is_set():
            ctypes.memmove(name, host_raw, len(host_raw))
            ctypes.memmove(name, own_raw, len(own_raw))
    t = threading.Thread(target=flip)
    t.start()
    refused = delivered = 0
    for _ in range(tries):
        if libc.sendmsg(s.fileno(), ctypes.byref(msg), 0) < 0:
            refused += 1
        try:
            while r.recv(16):
                delivered += 1
        except BlockingIOError:
            pass
    stop.set()
    t.join()
    return f"refused={refused > 0} delivered={delivered > 0}"

def descriptor_race(tries):
    """sendmsg() with the host's address while another thread swaps the descriptor between a
    UDP socket and a unix datagram socket."""
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    target = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    fd = target.fileno()
    stop = threading.Event()
    def swap():
        while not stop.is_set():
            os.dup2(unix.fileno(), fd)
            os.dup2(udp.fileno(), fd)
    t = threading.Thread(target=swap)
    t.start()
    name, length = sockaddr(host)
    data = ctypes.create_string_buffer(b"swap")
    iov = iovec(ctypes.cast(data, ctypes.c_void_p), 4)
    msg = msghdr(ctypes.cast(name, ctypes.c_void_p), length, ctypes.pointer(iov), 1, None, 0, 0)
    outcomes = set()
    for _ in range(tries):
        if libc.sendmsg(fd, ctypes.byref(msg), 0) < 0:
            outcomes.add(errno.errorcode.get(ctypes.get_errno(), "?"))
        else:
            outcomes.add("sent")
    stop.set()
    t.join()
    return "+".join(sorted(outcomes))

def own_sendmsg():
    r = own_receiver("/tmp/own-dgram.sock")
    n = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendmsg([b"own", b"-dgram"], [], 0, "/tmp/own-dgram.sock")
    return f"{n} {r.recv(16).decode()}"

def rights_pair(kind):
    a, b = socket.socketpair(socket.AF_UNIX, kind)
    pr, pw = os.pipe()
    a.sendmsg([b"fd"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [pr, pw]).tobytes())])
    data, fds, _, _ = socket.recv_fds(b, 16, 4)
    os.write(fds[1], b"through")
    return f"{data.decode()} {len(fds)} {os.read(pr, 16).decode()}"

def mp_child(conn):
    fd = multiprocessing.reduction.recv_handle(conn)
    os.write(fd, b"multiprocessing")

def mp_fd_passing():
    parent, child = multiprocessing.Pipe()
    p = multiprocessing.Process(target=mp_child, args=(child,))
    p.start()
    r, w = os.pipe()
    multiprocessing.reduction.send_handle(parent, w, p.pid)
    p.join(10)
    return os.read(r, 32).decode()

def both_ways():
    """8 MiB each way at once over one socketpair, with sendmsg(): each side sends all before it
    reads, so each send waits for the other side to read, which it does only from a thread."""
    a, b = socket.socketpair()
    blob = os.urandom(8 << 20)
    digests = {}
    def side(s, name):
        got = bytearray()
        def reader():
            while len(got) < len(blob):
                got.extend(s.recv(1 << 20))
        t = threading.Thread(target=reader)
        t.start()
        for at in range(0, len(blob), 1 << 20):
            view = memoryview(blob)[at:at + (1 << 20)]
            while view:
                view = view[s.sendmsg([view]):]
        t.join()
        digests[name] = hashlib.sha256(got).hexdigest() == hashlib.sha256(blob).hexdigest()
    ts = [threading.Thread(target=side, args=(a, "a")), threading.Thread(target=side, args=(b, "b"))]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    return "intact" if digests == {"a": True, "b": True} else f"broken {digests}"

def gathered():
    a, b = socket.socketpair()
    parts = [os.urandom(1 << 20) for _ in range(3)]
    got = bytearray()
    def reader():
        while len(got) < 3 << 20:
            got.extend(b.recv(1 << 20))
    t = threading.Thread(target=reader)
    t.start()
    n = a.sendmsg(parts)
    t.join(30)
    return f"{n} {'intact' if bytes(got) == b''.join(parts) else 'broken'}"

def fill_nonblocking():
    a, b = socket.socketpair()
    a.setblocking(False)
    sent = 0
    try:
        while True:
            sent += a.sendmsg([b"x" * 65536])
    except BlockingIOError:
        return f"EAGAIN after {'some' if sent > 0 else 'none'}"

def send_timeout():
    a, b = socket.socketpair()
    a.setblocking(False)
    try:
        while True:
            a.sendmsg([b"x" * 65536])
    except BlockingIOError:
        pass
    a.setblocking(True)
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 0, 300000))
    start = time.monotonic()
    try:
        a.sendmsg([b"y" * 65536])
        return "sent"
    except BlockingIOError:
        waited = time.monotonic() - start
        return f"EAGAIN {'after the timeout' if 0.25 <= waited < 5 else waited}"

def sigpipe():
    a, b = socket.socketpair()
    b.close()
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        try:
            a.sendmsg([b"x"])
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    try:
        a.sendmsg([b"x"], [], socket.MSG_NOSIGNAL)
        nosignal = "sent"
    except BrokenPipeError:
        nosignal = "EPIPE"
    return f"{os.WTERMSIG(status) if os.WIFSIGNALED(status) else 'exited'} {nosignal}"

def from_thread():
    """connect() and sendmsg() from a thread that is not its process's first (the mediator is
    told the thread's id)."""
    server = socket.socket(socket.AF_UNIX)
    server.bind("/tmp/own-thread.sock")
    server.listen(1)
    out = []
    def client():
        c = socket.socket(socket.AF_UNIX)
        c.connect("/tmp/own-thread.sock")
        c.sendmsg([b"thread"])
        out.append(c)
    t = threading.Thread(target=client)
    t.start()
    t.join(10)
    return server.accept()[0].recv(16).decode()

attempt("sendmsg_host", sendmsg_host)
attempt("sendmsg_rights", sendmsg_rights)
attempt("sendmmsg_host", sendmmsg_host)
attempt("sendmmsg_mixed", sendmmsg_mixed)
attempt("address_race", lambda: address_race(3000))
attempt("descriptor_race", lambda: descriptor_race(3000))
attempt("own_sendmsg", own_sendmsg)
attempt("sendmmsg_own", sendmmsg_own)
attempt("rights_stream", lambda: rights_pair(socket.SOCK_STREAM))
attempt("rights_seqpacket", lambda: rights_pair(socket.SOCK_SEQPACKET))
attempt("rights_dgram", lambda: rights_pair(socket.SOCK_DGRAM))
attempt("mp_fd_passing", mp_fd_passing)
attempt("both_ways", both_ways)
attempt("gathered", gathered)
attempt("fill_nonblocking", fill_nonblocking)
attempt("send_timeout", send_timeout)
attempt("sigpipe", sigpipe)
attempt("from_thread", from_thread)
PYEOF
chmod 644 "$T/hostsvc.py" "$T/attack.py"

spawn /usr/bin/python3 "$T/hostsvc.py" "$T/ws" "$T/.runs/host.log"
for _ in $(seq 1 50); do grep -q ready "$T/.runs/host.log" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$T/.runs/host.log" || die "the host service did not start"
give_to_user

section "control: without the sandbox the host service receives sendmsg()"
capture_as /usr/bin/python3 -c '
import socket, sys
print("sendmsg=%d" % socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendmsg([b"control"], [], 0, sys.argv[1]))
' "$T/ws/host-dgram.sock"
expect sendmsg 7 "control: the host datagram service in the workspace receives a sendmsg() from the test's user"
sleep 0.3
before=$(<"$T/.runs/host.log")
check_match "control: the datagram arrived" "datagram b'control'" "$before"

section "the attacker in the sandbox, next to its own sockets"
cat >"$T/policy.toml" <<POLICY
version = 1
[filesystem]
writable_roots = ["ws"]
private_tmp = true
POLICY
compile "$T/policy.toml" "$T/plan" || it_finish
IN_DIR=$T/ws sbx "$T/plan" /usr/bin/python3 "$T/attack.py" "$T/ws"
expect_rc 0 "sandbox exit status"
expect sendmsg_host EACCES "sendmsg() with the host socket's address is refused"
expect sendmsg_rights EACCES "... also carrying a descriptor (SCM_RIGHTS)"
expect sendmmsg_host EACCES "sendmmsg() with the host socket's address is refused"
expect sendmmsg_mixed "1 5,0,0 got=mmsg0" "sendmmsg(): the message before the host's goes, and none after it"
expect address_race "refused=True delivered=True" \
    "an address rewritten in memory during 3000 sendmsg(): each went where it was checked, none to the host"
expect descriptor_race "EACCES\+EAFNOSUPPORT" "a descriptor swapped between UDP and unix during 3000 sendmsg(): never sent"
expect own_sendmsg "9 own-dgram" "sendmsg() with an address to its own socket in the private /tmp works (two buffers gathered)"
expect sendmmsg_own "3 5,5,5 got=mmsg0\+mmsg1\+mmsg2" "sendmmsg() to its own socket sends all three and sets msg_len"
expect rights_stream "fd 2 through" "descriptors passed over a stream socketpair work on the other side"
expect rights_seqpacket "fd 2 through" "... over a seqpacket socketpair"
expect rights_dgram "fd 2 through" "... over a datagram socketpair"
expect mp_fd_passing multiprocessing "multiprocessing passes a descriptor to its child"
expect both_ways intact "8 MiB each way at once over one socketpair with sendmsg(): no deadlock, intact"
expect gathered "3145728 intact" "a 3 MiB message gathered from three buffers goes whole"
expect fill_nonblocking "EAGAIN after some" "a nonblocking sendmsg() fills the socket and then answers EAGAIN"
expect send_timeout "EAGAIN after the timeout" "a blocking sendmsg() on a full socket keeps SO_SNDTIMEO"
expect sigpipe "13 EPIPE" "sendmsg() to a closed peer raises SIGPIPE, and EPIPE with MSG_NOSIGNAL"
expect from_thread thread "connect() and sendmsg() from a second thread of the process work"
sleep 0.3
after=$(<"$T/.runs/host.log")
check_eq "the host service received nothing from the sandbox" "$before" "$after"

section "--log: the refused sendmsg() is a denied event"
capture_as "$EXEC" --log "$T/.runs/effects.jsonl" "$T/plan" -- /usr/bin/python3 -c '
import socket, sys
try:
    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendmsg([b"logged"], [], 0, sys.argv[1])
except PermissionError:
    print("sendmsg=EACCES")
' "$T/ws/host-dgram.sock"
expect sendmsg EACCES "sendmsg() to the host socket is refused under --log too"
log=$(<"$T/.runs/effects.jsonl")
check_match "a denied event names sendmsg, its errno, the reason and the address" \
    '"event":"denied".*"syscall":"sendmsg".*"error":"EACCES","reason":"a unix socket outside the private /tmp, /dev/shm and private_dirs: the host can reach it there","address":"'"$T"'/ws/host-dgram.sock"' "$log"

it_finish
