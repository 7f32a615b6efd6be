#!/usr/bin/env python3
"""tests/proxy/misbehaving_upstream.py — an HTTPS upstream that frames requests the way careless
servers do, for the credential broker's smuggling tests.

    misbehaving_upstream.py --dir DIR [--log FILE] [--san SANS]

The same interface as https_upstream.py (certificates in DIR, made by it; "PORT <n>" on stdout;
127.0.0.1 only; until SIGTERM), but the HTTP/1.1 side is a raw parser on the TLS socket, so
what it reads is exactly what the broker wrote, and it reads a body only when it means to:
  - GET, HEAD, OPTIONS, DELETE and TRACE: a body is never read (as http.server does): its
    bytes stay in the buffer and are parsed as the next request on the connection;
  - other methods: Content-Length or chunked bodies are read, except where said below.
Each request parsed is logged as one JSON line (default DIR/requests.jsonl):
    {"conn": K, "method": M, "path": P, "headers": [[name, value], ...], "body": "...",
     "early_body": N}
body is latin-1 text; early_body is how many body bytes had arrived before a 100 Continue
was due (only /continue and /reject set it). Responses are keep-alive unless said.
Paths (the query is ignored):
  /early      waits 0.2 s, then 401 without reading the body (an early answer)
  /cut        reads at most 16 body bytes, then closes without a response
  /continue   with Expect: 100-continue waits 0.3 s, counts body bytes already there, sends
              100 Continue, reads the body; then 200 {"bytes": N}
  /reject     with Expect: 100-continue waits 0.3 s, counts, answers 417 without 100 and
              without reading the body
  /reason     200 whose reason phrase is the request's Authorization
  /lower      200 with X-Seen: the request's Authorization, lower-cased
  /basic      200 with X-Seen: Basic base64("x-token:" + the Authorization's last word)
  /urlenc     302 with Location: /cb?auth=<the Authorization %-encoded byte by byte>
  anything    200 {"method", "path", "bytes"} (bytes: body bytes read)
"""
import argparse
import base64
import json
import os
import signal
import socket
import ssl
import sys
import threading
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from https_upstream import make_certs  # noqa: E402

NO_BODY = ("GET", "HEAD", "OPTIONS", "DELETE", "TRACE")


class Conn:
    def __init__(self, sock, cid, server):
        self.sock, self.cid, self.server, self.buf = sock, cid, server, b""

    def fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise EOFError
        self.buf += data

    def take(self, n):
        while len(self.buf) < n:
            self.fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def line(self):
        while b"\r\n" not in self.buf:
            self.fill()
        out, self.buf = self.buf.split(b"\r\n", 1)
        return out

    def pending(self):
        """Body bytes already here (buffered, or readable without waiting)."""
        self.sock.setblocking(False)
        try:
            while True:
                self.fill()
        except (ssl.SSLWantReadError, BlockingIOError, EOFError):
            pass
        finally:
            self.sock.setblocking(True)
        return len(self.buf)

    def body(self, headers, limit=None):
        if headers.get("transfer-encoding", "").lower() == "chunked":
            out = b""
            while True:
                size = int(self.line().split(b";")[0], 16)
                if size == 0:
                    while self.line():
                        pass
                    return out
                out += self.take(size)
                self.line()
        n = int(headers.get("content-length", "0"))
        return self.take(min(n, limit) if limit is not None else n)

    def send(self, status, reason, headers=(), body=b""):
        head = "HTTP/1.1 %d %s\r\n" % (status, reason)
        for k, v in list(headers) + [("Content-Length", str(len(body)))]:
            head += "%s: %s\r\n" % (k, v)
        self.sock.sendall(head.encode("latin-1") + b"\r\n" + body)

    def log(self, method, target, raw_headers, body=b"", early=0):
        line = {"conn": self.cid, "method": method, "path": target, "headers": raw_headers,
                "body": body.decode("latin-1"), "early_body": early}
        with self.server.lock:
            self.server.log.write(json.dumps(line) + "\n")
            self.server.log.flush()

    def serve(self):
        while True:
            while b"\r\n\r\n" not in self.buf:
                self.fill()
            head, self.buf = self.buf.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            method, target = (lines[0].split(" ") + ["", ""])[:2]
            raw = [[p.strip() for p in l.split(":", 1)] for l in lines[1:] if ":" in l]
            headers = {k.lower(): v for k, v in raw}
            if not self.respond(method, target, raw, headers):
                return

    def respond(self, method, target, raw, headers):
        path = urlsplit(target).path
        auth = headers.get("authorization", "")
        expect = headers.get("expect", "").lower() == "100-continue"
        if path == "/early":
            time.sleep(0.2)
            self.log(method, target, raw)
            self.send(401, "Unauthorized", body=b"no\n")
            return True
        if path == "/cut":
            self.log(method, target, raw, self.body(headers, 16))
            return False
        if path in ("/continue", "/reject") and expect:
            time.sleep(0.3)
            early = self.pending()
            if path == "/reject":
                self.log(method, target, raw, early=early)
                self.send(417, "Expectation Failed", body=b"no\n")
                return True
            self.sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            body = self.body(headers)
            self.log(method, target, raw, body, early)
            self.send(200, "OK", body=json.dumps({"bytes": len(body)}).encode())
            return True
        body = b"" if method in NO_BODY else self.body(headers)
        self.log(method, target, raw, body)
        if path == "/reason":
            self.send(200, auth)
        elif path == "/lower":
            self.send(200, "OK", [("X-Seen", auth.lower())])
        elif path == "/basic":
            word = auth.split(" ")[-1].encode("latin-1")
            self.send(200, "OK", [("X-Seen", "Basic " + base64.b64encode(b"x-token:" + word).decode())])
        elif path == "/urlenc":
            self.send(302, "Found", [("Location", "/cb?auth=" + "".join("%%%02X" % b for b in auth.encode()))])
        else:
            self.send(200, "OK", [("Content-Type", "application/json")],
                      json.dumps({"method": method, "path": target, "bytes": len(body)}).encode())
        return True


def handle(server, sock, cid):
    try:
        sock.do_handshake()
        Conn(sock, cid, server).serve()
    except (EOFError, OSError, ssl.SSLError, ValueError):
        pass
    finally:
        sock.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--log")
    ap.add_argument("--san", default="DNS:localhost,IP:127.0.0.1")
    a = ap.parse_args()
    make_certs(a.dir, a.san)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(a.dir, "server.pem"), os.path.join(a.dir, "server.key"))
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(64)
    server = argparse.Namespace(lock=threading.Lock(),
                                log=open(a.log or os.path.join(a.dir, "requests.jsonl"), "a"))
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    print("PORT %d" % lsock.getsockname()[1], flush=True)
    cid = 0
    while True:
        sock, _ = lsock.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        cid += 1
        tls = ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        threading.Thread(target=handle, args=(server, tls, cid), daemon=True).start()


if __name__ == "__main__":
    main()
