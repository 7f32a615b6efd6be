"""Host upstream and sandbox agent of egress_limits.sh.

  egress_helper.py upstream PORTFILE      HTTP server on 127.0.0.1:0: /bytes/N sends N bytes,
                                          /hold sends forever, anything else `small-ok`
  egress_helper.py hog PORT COUNT HELD GO the agent: one well-behaved download, COUNT
                                          connections that never read (half CONNECT, half
                                          plain GET), reports, touches HELD, waits for GO
  egress_helper.py reset PORT             connect + recv on a relayed port: the errno or EOF
"""
import errno
import os
import socket
import sys
import threading
import time

PROXY = ("127.0.0.1", 3128)


def serve(conn):
    try:
        head = b""
        while b"\r\n\r\n" not in head:
            data = conn.recv(4096)
            if not data:
                return
            head += data
        path = head.split(b" ")[1].rsplit(b"/", 2)
        if path[-1] == b"hold":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1099511627776\r\n\r\n")
            chunk = b"h" * 65536
            while True:
                conn.sendall(chunk)
        size = int(path[-1]) if path[-2] == b"bytes" else 8
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % size)
        if size == 8:
            conn.sendall(b"small-ok")
            return
        chunk = b"d" * 65536
        for off in range(0, size, len(chunk)):
            conn.sendall(chunk[: size - off])
    except OSError:
        pass
    finally:
        conn.close()


def cmd_upstream(portfile):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1024)
    with open(portfile + ".tmp", "w") as f:
        f.write(f"{srv.getsockname()[1]}\n")
    os.rename(portfile + ".tmp", portfile)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


def read_head(sock):
    head = b""
    while b"\r\n\r\n" not in head:
        data = sock.recv(1)
        if not data:
            break
        head += data
    return head


def status_of(head):
    lines = head.decode(errors="replace").split("\r\n")
    if not lines[0].startswith("HTTP/"):
        return "none"
    code = lines[0].split(" ")[1]
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.lower() == "x-proxy-error":
            return f"{code}-{value.strip()}"
    return code


def request(port, path, connect):
    """A request through the proxy; the socket and the proxy's status (CONNECT: of the
    tunnel, then the request is sent; plain: of the response)."""
    sock = socket.create_connection(PROXY, timeout=20)
    target = f"allowed.test:{port}"
    if connect:
        sock.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        status = status_of(read_head(sock))
        if status == "200":
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        return sock, status
    sock.sendall(f"GET http://{target}{path} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
    if path.endswith("/hold"):
        # Held unread: only a refusal ends quickly, so look for one briefly.
        sock.settimeout(0.3)
        try:
            head = read_head(sock)
        except socket.timeout:
            head = b""
        sock.settimeout(20)
        return sock, status_of(head) if head else "200"
    return sock, status_of(read_head(sock))


def read_body(sock, size):
    got = 0
    while got < size:
        data = sock.recv(1 << 20)
        if not data:
            break
        got += len(data)
    return got


def cmd_hog(port, count, held, go):
    size = 8 << 20
    good, status = request(port, f"/bytes/{size}", True)
    print(f"good_status={status}")
    statuses = {}
    hogs = []
    for i in range(int(count)):
        sock, status = request(port, "/hold", i % 2 == 0)
        statuses[status] = statuses.get(status, 0) + 1
        hogs.append(sock)
    time.sleep(0.5)  # the held tunnels fill every buffer they can
    print("hogs=" + ",".join(f"{k}:{v}" for k, v in sorted(statuses.items())))
    head = read_head(good)
    print(f"good_download={status_of(head)}:{read_body(good, size)}")
    sock, status = request(port, "/small", False)
    print(f"during={status}")
    sys.stdout.flush()
    open(held, "w").close()
    for _ in range(300):
        if os.path.exists(go):
            break
        time.sleep(0.1)
    for sock in hogs:
        sock.close()
    time.sleep(0.5)
    sock, status = request(port, "/small", False)
    print(f"after={status}")


def cmd_reset(port):
    """On loopback the reset may already be there when connect() returns: either call
    reports it."""
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=5) as sock:
            print("EOF" if not sock.recv(16) else "data")
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)))


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    {"upstream": cmd_upstream, "hog": cmd_hog, "reset": cmd_reset}[command](*rest)
