"""tests/integration/net_helper.py — servers and clients of the network integration tests.

Copied into the test's directory by network_proxy.sh and network_ports.sh (the sandbox may not
see the source tree). Commands:

  serve OUT SPEC...     host-side servers. SPEC is NAME=tcp:ADDR:PORT, NAME=udp:ADDR:PORT or
                        NAME=unix:PATH; PORT is a number, 0 (a free one) or @OTHER (the port
                        OTHER got: the same port on another address). Writes NAME=PORT per
                        inet server, then `ready`, to OUT; then logs every TCP request as
                        `request NAME METHOD TARGET host=HOST`, every datagram as
                        `datagram NAME DATA`. A TCP server answers one HTTP/1.0 response
                        whose body is `NAME METHOD TARGET host=HOST`; a unix one sends NAME.
  client OP...          runs the operations in order, one `LABEL=RESULT` line each (plus
                        `LABEL.data=` for a proxy refusal's body). OP is one argument,
                        `LABEL KIND ARGS...` split on spaces; KINDs are the op_* functions.
  free N                N distinct TCP ports free on 127.0.0.1 now, one a line (for servers
                        the sandbox starts: nothing on the host listens there).
  hostside ROOT READY GO OUT OP...
                        waits for the file READY (the sandbox is up), describes the
                        tartaros-proxy found among ROOT's descendants, runs the client OPs
                        (from the host), writes it all to OUT, then creates GO.

A failed operation's RESULT is the errno name (ECONNREFUSED, EACCES...), `gaierror` or
`timeout`: never `reached`-like text, so a test can tell "got through" from "refused".
"""
import errno
import os
import socket
import sys
import threading
import time

PROXY = ("127.0.0.1", 3128)
HEAD_LIMIT = 65536


# --- servers ----------------------------------------------------------------------------

def read_head(conn, timeout=5.0):
    conn.settimeout(timeout)
    data = b""
    try:
        while b"\r\n\r\n" not in data and len(data) < HEAD_LIMIT:
            chunk = conn.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    return data


def parse_head(data):
    """(method, target, host) of a request head; empty strings for what is missing."""
    lines = data.split(b"\r\n")
    parts = lines[0].decode(errors="replace").split(" ")
    method, target = (parts + ["", ""])[:2]
    host = ""
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"host":
            host = value.strip().decode(errors="replace")
    return method, target, host


class Log:
    def __init__(self, path):
        self.file = open(path, "w", buffering=1)
        self.lock = threading.Lock()

    def write(self, line):
        with self.lock:
            self.file.write(line + "\n")


def serve_tcp(log, name, sock):
    def answer(conn):
        with conn:
            method, target, host = parse_head(read_head(conn))
            log.write(f"request {name} {method} {target} host={host}")
            body = f"{name} {method} {target} host={host}".encode()
            conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                         % len(body) + body)
    def loop():
        while True:
            conn = sock.accept()[0]
            threading.Thread(target=answer, args=(conn,), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()


def serve_udp(log, name, sock):
    def loop():
        while True:
            data = sock.recvfrom(512)[0]
            log.write(f"datagram {name} {data.decode(errors='replace')}")
    threading.Thread(target=loop, daemon=True).start()


def serve_unix(name, sock):
    def loop():
        while True:
            conn = sock.accept()[0]
            conn.sendall(name.encode())
            conn.close()
    threading.Thread(target=loop, daemon=True).start()


def bind_all(specs):
    """Binds every spec; None when a same-port bind collided (the caller retries)."""
    ports, bound = {}, []
    try:
        for name, kind, addr, port in specs:
            family = socket.AF_INET6 if ":" in addr else socket.AF_INET
            sock = socket.socket(family, socket.SOCK_DGRAM if kind == "udp" else socket.SOCK_STREAM)
            bound.append((name, kind, sock))
            sock.bind((addr, ports[port[1:]] if port.startswith("@") else int(port)))
            ports[name] = sock.getsockname()[1]
        return ports, bound
    except OSError as e:
        for _, _, sock in bound:
            sock.close()
        if e.errno == errno.EADDRINUSE:
            return None
        raise


def cmd_serve(out_path, spec_args):
    log = Log(out_path)
    inet, unix = [], []
    for spec in spec_args:
        name, _, rest = spec.partition("=")
        kind, _, where = rest.partition(":")
        if kind == "unix":
            unix.append((name, where))
        else:
            addr, _, port = where.rpartition(":")
            inet.append((name, kind, addr, port))
    for _ in range(50):
        result = bind_all(inet)
        if result:
            break
    else:
        sys.exit("serve: no free port set after 50 tries")
    ports, bound = result
    for name, kind, sock in bound:
        if kind == "udp":
            serve_udp(log, name, sock)
        else:
            sock.listen(64)
            serve_tcp(log, name, sock)
        log.write(f"{name}={ports[name]}")
    for name, path in unix:
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(path)
        os.chmod(path, 0o666)
        sock.listen(16)
        serve_unix(name, sock)
    log.write("ready")
    threading.Event().wait()


def cmd_free(count):
    socks = [socket.socket() for _ in range(int(count))]
    for sock in socks:
        sock.bind(("127.0.0.1", 0))
        print(sock.getsockname()[1])
    for sock in socks:
        sock.close()


# --- client operations ------------------------------------------------------------------

def recv_all(sock, timeout=5.0):
    sock.settimeout(timeout)
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def http_result(data):
    """A proxy's or server's response as (result, body): `200 BODY` or `STATUS ERROR`."""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    status = (lines[0].split(" ") + [""])[1] if lines[0].startswith("HTTP/") else "no-http"
    error = ""
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "x-proxy-error":
            error = value.strip()
    text = body.decode(errors="replace").strip()
    return (f"{status} {error}" if error else f"{status} {text}"), text


def proxy_exchange(request, timeout=5.0):
    with socket.create_connection(PROXY, timeout=timeout) as sock:
        sock.sendall(request)
        return http_result(recv_all(sock, timeout))


def op_tcp(label, addr, port):
    """TCP connect and one HTTP request; the response body (which server answered)."""
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    with socket.socket(family) as sock:
        sock.settimeout(3)
        sock.connect((addr, int(port)))
        sock.sendall(f"GET /{label} HTTP/1.0\r\nHost: {addr}\r\n\r\n".encode())
        data = recv_all(sock, 3)
    return http_result(data)[1] if data else "empty"


def op_udp(label, addr, port):
    """A DNS-shaped datagram; whether it arrived is checked on the host."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(f"query-{label}".encode(), (addr, int(port)))
    return "sent"


def op_raw(label):
    socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).close()
    return "opened"


def op_resolve(label, name):
    return socket.getaddrinfo(name, 80)[0][4][0]


def op_get(label, target, path, host=None):
    """An absolute-form GET through the proxy; Host is the target unless given."""
    request = f"GET http://{target}{path} HTTP/1.1\r\nHost: {host or target}\r\nUser-Agent: it\r\n\r\n"
    return proxy_exchange(request.encode())


def op_connect(label, target, path):
    """CONNECT through the proxy, then an HTTP request over the tunnel: `200 BODY`, or the
    refusal as `STATUS ERROR`."""
    with socket.create_connection(PROXY, timeout=5) as sock:
        sock.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        head = read_head(sock)
        status = http_result(head)[0].split(" ")[0]
        if status != "200":
            return http_result(head + recv_all(sock))
        sock.sendall(f"GET {path} HTTP/1.0\r\nHost: {target}\r\n\r\n".encode())
        return f"200 {http_result(recv_all(sock))[1]}"


def op_bigheader(label, target, size):
    filler = "a" * int(size)
    request = f"GET http://{target}/{label} HTTP/1.1\r\nHost: {target}\r\nX-Filler: {filler}\r\n\r\n"
    return proxy_exchange(request.encode())


def malformed_requests(target):
    t = target.encode()
    return [
        b"\x00\x01\x02 not http at all\r\n\r\n",
        b"GET http://" + t + b"/malformed HTTP/1.1\nHost: " + t + b"\n\n",
        b"GET http://" + t + b"/malformed HTTP/9.9\r\nHost: " + t + b"\r\n\r\n",
        b"GET /malformed HTTP/1.1\r\nHost: " + t + b"\r\n\r\n",
        b"POST http://" + t + b"/malformed HTTP/1.1\r\nHost: " + t
        + b"\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
        b"GET http://" + t + b"/malformed HTTP/1.1\r\nHost: " + t + b"\r\nHost: " + t + b"\r\n\r\n",
        b"GET http://" + t + b"/malformed HTTP/1.1\r\nHost : " + t + b"\r\n\r\n",
        b"GET http://" + t + b"/malformed HTTP/1.1\r\nHost: " + t + b"\r\n X-Fold: a\r\n\r\n",
        b"GET http://" + t + b"/malformed HTTP/1.1\r\nHost: " + t + b"\r\nX-Bad: a\rb\r\n\r\n",
        b"GET http://u@" + t + b"/malformed HTTP/1.1\r\nHost: " + t + b"\r\n\r\n",
    ]


def op_malformed(label, target, count):
    """COUNT malformed heads, each on its own connection: every one must get a 4xx/5xx
    refusal with an X-Proxy-Error; the first that does not is the result."""
    shapes = malformed_requests(target)
    for i in range(int(count)):
        result, _ = proxy_exchange(shapes[i % len(shapes)])
        status, _, error = result.partition(" ")
        if not (status[:1] in ("4", "5") and error and " " not in error):
            return f"request {i} (shape {i % len(shapes)}) got: {result}"
    return f"{count} refused"


SLOW = []


def op_slow(label, target, count):
    """Opens COUNT connections that send half a request head and then nothing."""
    for _ in range(int(count)):
        sock = socket.create_connection(PROXY, timeout=5)
        sock.sendall(f"GET http://{target}/slow HTTP/1.1\r\nHo".encode())
        SLOW.append(sock)
    return f"{count} held"


def op_slow_close(label):
    for sock in SLOW:
        sock.close()
    SLOW.clear()
    return "closed"


def op_listen(label, addr, port):
    """A server inside the sandbox; it answers `inside LABEL` to every connection."""
    sock = socket.socket()
    sock.bind((addr, int(port)))
    sock.listen(16)
    def loop():
        while True:
            conn = sock.accept()[0]
            read_head(conn, 2)
            body = f"inside {label}".encode()
            conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            conn.close()
    threading.Thread(target=loop, daemon=True).start()
    return "listening"


def op_unix(label, path):
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(3)
        sock.connect(path)
        return sock.recv(64).decode() or "empty"


def op_unix_own(label, path):
    """A unix socket made by the caller at PATH: bind, listen, connect to it."""
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)
    serve_unix("own-service", server)
    return op_unix(label, path)


def op_pair(label):
    a, b = socket.socketpair()
    a.sendall(b"pair")
    return b.recv(4).decode()


def op_touch(label, path):
    open(path, "w").close()
    return "ok"


def op_wait(label, path, seconds):
    deadline = time.monotonic() + float(seconds)
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            return "timeout"
        time.sleep(0.05)
    return "ok"


def run_op(text, out):
    label, kind, *args = text.split(" ")
    data = None
    try:
        result = globals()["op_" + kind](label, *args)
        if isinstance(result, tuple):
            result, data = result
    except socket.gaierror:
        result = "gaierror"
    except socket.timeout:
        result = "timeout"
    except OSError as e:
        result = errno.errorcode.get(e.errno, str(e.errno))
    out.write(f"{label}={result}\n")
    if data is not None:
        out.write(f"{label}.data={data[:400]}\n")
    out.flush()


def cmd_client(ops, out=sys.stdout):
    for text in ops:
        run_op(text, out)


# --- host side, while a sandbox runs ------------------------------------------------------

def descendants(pid):
    found = []
    for task in os.listdir(f"/proc/{pid}/task") if os.path.isdir(f"/proc/{pid}/task") else []:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                children = [int(c) for c in f.read().split()]
        except OSError:
            continue
        for child in children:
            found.append(child)
            found += descendants(child)
    return found


def describe_proxy(root, out):
    """proxy_pid, and the proxy's uid and confinement from /proc/PID/status."""
    for pid in descendants(root):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv0 = f.read().split(b"\0")[0].decode(errors="replace")
            with open(f"/proc/{pid}/status") as f:
                status = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
        except OSError:
            continue
        if os.path.basename(argv0) == "tartaros-proxy":
            out.write(f"proxy_pid={pid}\n")
            out.write(f"proxy_uid={status['Uid'].split()[0]}\n")
            for key in ("NoNewPrivs", "Seccomp", "CapEff", "CapPrm", "CapBnd"):
                out.write(f"proxy_{key}={status.get(key, '<missing>').strip()}\n")
            return
    out.write("proxy_pid=<none>\n")


def cmd_hostside(root, ready, go, out_path, ops):
    try:
        with open(out_path, "w") as out:
            out.write(f"hostside_ready={op_wait('ready', ready, 30)}\n")
            out.flush()
            describe_proxy(int(root), out)
            cmd_client(ops, out)
    finally:
        open(go, "w").close()


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    if command == "serve":
        cmd_serve(rest[0], rest[1:])
    elif command == "client":
        cmd_client(rest)
    elif command == "free":
        cmd_free(rest[0])
    elif command == "hostside":
        cmd_hostside(rest[0], rest[1], rest[2], rest[3], rest[4:])
    else:
        sys.exit(f"unknown command {command}")
