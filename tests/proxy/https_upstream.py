#!/usr/bin/env python3
"""tests/proxy/https_upstream.py — a small HTTPS server for tests of the credential broker.

Standard library only (ssl, http.server); the certificates are made with the `openssl` CLI.

    https_upstream.py --dir DIR [--port N] [--log FILE] [--san SANS]

  --dir DIR    where the certificates are (made when missing):
                 DIR/ca.pem      the test CA (give it to tartaros-proxy --broker-ca-file)
                 DIR/server.pem  the server certificate, signed by that CA, and server.key
  --port N     listen on 127.0.0.1:N (default 0: the kernel chooses)
  --log FILE   one JSON line per request (default DIR/requests.jsonl)
  --san SANS   subjectAltName of a new server certificate (default
               "DNS:localhost,IP:127.0.0.1"); only used when DIR has no server.pem yet

Once it listens it prints "PORT <n>" and a newline on stdout (and nothing else); it serves
until SIGTERM or SIGINT. Only 127.0.0.1 is ever bound. HTTP/1.1 with keep-alive; a connection
that fails its TLS handshake is dropped silently (the client saw why).

Each request is logged, after its body was read and before the response, as
    {"conn": K, "method": "GET", "path": "/x?y", "version": "HTTP/1.1",
     "headers": [["Host", "localhost"], ...], "body_bytes": N, "body_sha256": "hex"}
K numbers the TLS connections from 1, so two requests with the same K came on one connection.
Headers are in the order received, names as sent.

Endpoints (any method unless said; the query is parsed, the rest ignored). With hangup=1 in
the query of any of them the server closes the connection right after the response, which
announced nothing of it (a kept connection the server drops); with drop=1 it logs the request
and closes the connection without any response.
  /download?bytes=N[&chunked=1][&close=1]
        N bytes where byte i is i % 251, streamed in 64 KiB writes (never held whole):
        Content-Length, or chunked, or (close=1) delimited by closing the connection
  /upload        reads the body (Content-Length or chunked, streamed) and answers 200 with
                 {"bytes": N, "sha256": "hex"}
  /status/NNN    answers status NNN with a short text body (none for 1xx/204/304)
  /hints         a 103 Early Hints interim response, then 200 "ok"
  /reflect?header=NAME
                 200 "ok" with response header X-Reflected: <the request's NAME header>
  anything else  200 with {"method", "path", "headers"} as JSON
"""
import argparse
import hashlib
import json
import os
import signal
import ssl
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PATTERN = bytes(i % 251 for i in range(251 * 261))  # 65511 bytes: the pattern repeats exactly
CHUNK = 65536


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_certs(d, san):
    """The CA (once) and the server certificate (when missing), EC P-256, valid for 2 days."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    if not os.path.exists(os.path.join(d, "ca.pem")):
        openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=tartaros test CA",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
    if os.path.exists(os.path.join(d, "server.pem")):
        return
    with open(os.path.join(d, "server.ext"), "w") as f:
        f.write("subjectAltName=%s\nbasicConstraints=critical,CA:FALSE\n"
                "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n" % san)
    openssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=test server",
            cwd=d)
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-set_serial", str(int.from_bytes(os.urandom(8), "big")), "-days", "2",
            "-extfile", "server.ext", "-out", "server.pem", cwd=d)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: without this, Nagle's algorithm and the
    # client's delayed ACK add ~40 ms to every kept-alive response.
    disable_nagle_algorithm = True

    def setup(self):
        super().setup()
        with self.server.lock:
            self.server.conns += 1
            self.conn_id = self.server.conns

    def log_message(self, *args):
        pass

    def read_body(self, sink):
        """Feeds the request body to sink(bytes) as it arrives; returns its length."""
        n = 0
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:  # the last chunk: trailer lines up to an empty one
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return n
                left = size
                while left:
                    piece = self.rfile.read(min(left, CHUNK))
                    if not piece:
                        raise ConnectionError("truncated chunk")
                    sink(piece)
                    left -= len(piece)
                n += size
                self.rfile.readline()
        left = int(self.headers.get("Content-Length", "0"))
        while left:
            piece = self.rfile.read(min(left, CHUNK))
            if not piece:
                raise ConnectionError("truncated body")
            sink(piece)
            n += len(piece)
            left -= len(piece)
        return n

    def record(self):
        digest = hashlib.sha256()
        n = self.read_body(digest.update)
        line = {"conn": self.conn_id, "method": self.command, "path": self.path,
                "version": self.request_version, "headers": list(self.headers.raw_items()),
                "body_bytes": n, "body_sha256": digest.hexdigest()}
        with self.server.lock:
            self.server.log.write(json.dumps(line) + "\n")
            self.server.log.flush()
        return n, digest.hexdigest()

    def send_body(self, status, body, ctype="text/plain", extra=()):
        self.send_response(status)
        for k, v in extra:
            self.send_header(k, v)
        if status in (204, 304) or status < 200:
            self.end_headers()
            return
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def download(self, q):
        total = int(q.get("bytes", ["0"])[0])
        chunked = q.get("chunked", ["0"])[0] == "1"
        close = q.get("close", ["0"])[0] == "1"
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        elif close:
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(total))
        self.end_headers()
        off = 0
        while off < total:
            start = off % len(PATTERN)
            piece = PATTERN[start:start + min(CHUNK, total - off, len(PATTERN) - start)]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            off += len(piece)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    def dispatch(self):
        n, sha = self.record()
        url = urlsplit(self.path)
        q = parse_qs(url.query)
        if q.get("drop", ["0"])[0] == "1":
            self.close_connection = True
            return
        self.respond(url, q, n, sha)
        if q.get("hangup", ["0"])[0] == "1":
            self.close_connection = True

    def respond(self, url, q, n, sha):
        if url.path == "/download":
            return self.download(q)
        if url.path == "/upload":
            return self.send_body(200, json.dumps({"bytes": n, "sha256": sha}).encode(),
                                  "application/json")
        if url.path.startswith("/status/"):
            status = int(url.path[len("/status/"):])
            return self.send_body(status, b"status %d\n" % status)
        if url.path == "/hints":
            self.wfile.write(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n")
            return self.send_body(200, b"ok")
        if url.path == "/reflect":
            name = q.get("header", [""])[0]
            return self.send_body(200, b"ok", extra=[("X-Reflected", self.headers.get(name, ""))])
        echo = {"method": self.command, "path": self.path, "headers": list(self.headers.raw_items())}
        self.send_body(200, json.dumps(echo).encode(), "application/json")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = dispatch


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a refused handshake or a client that left: the test looks at the client side

    def finish_request(self, request, client_address):
        try:
            request.do_handshake()
        except (ssl.SSLError, OSError):
            return
        super().finish_request(request, client_address)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log")
    ap.add_argument("--san", default="DNS:localhost,IP:127.0.0.1")
    a = ap.parse_args()
    make_certs(a.dir, a.san)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(a.dir, "server.pem"), os.path.join(a.dir, "server.key"))
    srv = Server(("127.0.0.1", a.port), Handler, bind_and_activate=True)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True, do_handshake_on_connect=False)
    srv.lock = threading.Lock()
    srv.conns = 0
    srv.log = open(a.log or os.path.join(a.dir, "requests.jsonl"), "a")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("PORT %d" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass


if __name__ == "__main__":
    main()
