#!/bin/bash
# A policy that grants no network: the sandbox has its own network namespace with only `lo`.
# Host services listening on 127.0.0.1 and ::1 (TCP and UDP) answer the test's user without a
# sandbox; inside one, TCP to either address fails, a UDP datagram (a DNS query, say) never
# reaches the host, a raw socket is refused, name resolution fails, and `curl --noproxy '*'`
# gets nowhere. In the same run a server on the sandbox's own loopback works.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

cat >"$T/host_services.py" <<'PYEOF'
import socket, sys, threading
out = open(sys.argv[1], "w", buffering=1)
def serve_tcp(family, addr):
    s = socket.socket(family)
    s.bind((addr, 0))
    s.listen(16)
    out.write(f"tcp{'6' if family == socket.AF_INET6 else '4'}={s.getsockname()[1]}\n")
    def loop():
        while True:
            c = s.accept()[0]
            c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 4\r\n\r\nhost")
            c.close()
    threading.Thread(target=loop, daemon=True).start()
serve_tcp(socket.AF_INET, "127.0.0.1")
serve_tcp(socket.AF_INET6, "::1")
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", 0))
out.write(f"udp={u.getsockname()[1]}\n")
while True:
    data, peer = u.recvfrom(512)
    out.write(f"datagram={data.decode(errors='replace')}\n")
PYEOF
chmod 644 "$T/host_services.py"
spawn /usr/bin/python3 "$T/host_services.py" "$T/.runs/services.out"
for _ in $(seq 1 50); do grep -q '^udp=' "$T/.runs/services.out" 2>/dev/null && break; sleep 0.1; done
tcp4=$(sed -n 's/^tcp4=//p' "$T/.runs/services.out")
tcp6=$(sed -n 's/^tcp6=//p' "$T/.runs/services.out")
udp=$(sed -n 's/^udp=//p' "$T/.runs/services.out")
[ -n "$tcp4" ] && [ -n "$tcp6" ] && [ -n "$udp" ] || die "the host services did not start"

cat >"$T/client.py" <<'PYEOF'
import errno, socket, sys, threading
tcp4, tcp6, udp = (int(p) for p in sys.argv[1:4])
def attempt(label, action):
    try:
        print(f"{label}={action()}")
    except socket.gaierror:
        print(f"{label}=gaierror")
    except OSError as e:
        print(f"{label}={errno.errorcode.get(e.errno, e.errno)}")
def tcp(family, addr, port):
    s = socket.socket(family)
    s.settimeout(3)
    s.connect((addr, port))
    data = s.recv(64)
    s.close()
    return "reached" if data else "empty"
def datagram():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"query-from-sandbox", ("127.0.0.1", udp))
    return "sent"
def raw():
    socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    return "opened"
def resolve():
    return socket.getaddrinfo("example.com", 80)[0][4][0]
def own_loopback():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    def serve():
        c = server.accept()[0]
        c.sendall(b"own")
        c.close()
    threading.Thread(target=serve).start()
    c = socket.create_connection(server.getsockname(), timeout=3)
    return c.recv(8).decode()
attempt("tcp4", lambda: tcp(socket.AF_INET, "127.0.0.1", tcp4))
attempt("tcp6", lambda: tcp(socket.AF_INET6, "::1", tcp6))
attempt("udp", datagram)
attempt("raw", raw)
attempt("dns", resolve)
attempt("own", own_loopback)
PYEOF
chmod 644 "$T/client.py"

section "control: the host's services answer the test's user"
capture_as /usr/bin/python3 "$T/client.py" "$tcp4" "$tcp6" "$udp"
expect tcp4 reached "control: TCP 127.0.0.1:$tcp4"
expect tcp6 reached "control: TCP [::1]:$tcp6"
for _ in $(seq 1 20); do grep -q '^datagram=query-from-sandbox' "$T/.runs/services.out" && break; sleep 0.1; done
check "control: the UDP datagram arrives on the host" grep -q '^datagram=query-from-sandbox' "$T/.runs/services.out"
# The server keeps its log open, so the log is only read: the count of datagrams so far.
datagrams_before=$(grep -c '^datagram=' "$T/.runs/services.out")

section "no network granted: nothing leaves the sandbox, its own loopback works"
cat >"$T/policy.toml" <<'EOF'
version = 1
[filesystem]
writable_roots = ["."]
EOF
compile "$T/policy.toml" "$T/plan" || it_finish
sbx "$T/plan" /usr/bin/python3 "$T/client.py" "$tcp4" "$tcp6" "$udp"
expect_rc 0 "sandbox exit status"
expect tcp4 "ECONNREFUSED|ENETUNREACH" "TCP to the host's 127.0.0.1:$tcp4 fails"
expect tcp6 "ECONNREFUSED|ENETUNREACH|EADDRNOTAVAIL" "TCP to the host's [::1]:$tcp6 fails"
expect raw "EPERM" "a raw socket is refused"
# (This machine has no DNS at all, so this shows only that nothing answers; the UDP check
# above, with its control, is what shows a query cannot leave.)
expect dns gaierror "name resolution fails"
expect own own "a server on the sandbox's own loopback answers"
sleep 0.5
check_eq "the UDP datagram never reached the host" "$datagrams_before" "$(grep -c '^datagram=' "$T/.runs/services.out")"
sbx "$T/plan" curl -sS --max-time 5 --noproxy '*' "http://127.0.0.1:$tcp4/"
check_eq "curl --noproxy '*' to the host fails" yes "$([ "$RC" -ne 0 ] && echo yes || echo no)"
check_no_match "... and got nothing from it" 'host' "$OUT"

it_finish
