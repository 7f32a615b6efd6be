#!/bin/sh
# bench/broker.sh BUILD_DIR — what the credential broker costs against talking HTTPS to the
# upstream directly, with the same client (curl) and the same upstream (the tests' Python
# HTTPS server, tests/proxy/https_upstream.py, on loopback):
#   - one request per curl process (a new connection each time: the broker's TLS handshake
#     to the upstream against curl's own), side by side in one hyperfine run;
#   - REQUESTS requests on one kept-alive connection (curl given the URL REQUESTS times);
#   - one download and one upload of BYTES (default 256 MiB), with the proxy's peak RSS.
# Prints the machine, then a markdown table. The Python upstream bounds the throughput of
# both paths, so the ratio, not the absolute number, is the broker's cost.
set -eu

die() { echo "broker.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: bench/broker.sh BUILD_DIR"
BUILD=$(cd "$1" && pwd) || die "no build directory $1"
SRC=$(cd "$(dirname "$0")/.." && pwd)
PROXY=$BUILD/bin/tartaros-proxy
[ -x "$PROXY" ] || die "tartaros-proxy missing in $BUILD; build first"
command -v hyperfine >/dev/null && command -v curl >/dev/null && command -v openssl >/dev/null ||
    "$SRC/scripts/install-deps"
BYTES=${BYTES:-268435456}
REQUESTS=${REQUESTS:-200}
RUNS=${RUNS:-200}

T=$(mktemp -d /var/tmp/tartaros-bench-broker.XXXXXX)
UP_PID="" PROXY_PID=""
cleanup() {
    [ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null && wait "$PROXY_PID" 2>/dev/null
    [ -n "$UP_PID" ] && kill "$UP_PID" 2>/dev/null && wait "$UP_PID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT INT TERM

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# The upstream, on a port it reports.
mkdir "$T/certs"
mkfifo "$T/up.out"
python3 "$SRC/tests/proxy/https_upstream.py" --dir "$T/certs" --log /dev/null >"$T/up.out" &
UP_PID=$!
read -r _ UPORT <"$T/up.out" || die "the upstream did not start"

# The secrets file (shared/broker_secrets_wire.h): the token, then the one capability's value.
TOKEN=bench-token-0123456789abcdef
python3 - "$T/secrets" "$TOKEN" bench-value-0123456789 <<'EOF'
import struct, sys
path, *records = sys.argv[1:]
with open(path, "wb") as f:
    f.write(struct.pack("<II", 0x31534254, len(records)))
    for r in records:
        b = r.encode()
        f.write(struct.pack("<I", len(b)) + b)
EOF
BPORT=$(free_port)
"$PROXY" --broker-listen "127.0.0.1:$BPORT" --broker-secrets 3 --broker-allow localhost \
    --broker-allow-internal --broker-ca-file "$T/certs/ca.pem" \
    --capability "up=localhost:$UPORT" --cap-format "Bearer {value}" 3<"$T/secrets" &
PROXY_PID=$!
printf 'X-Broker-Auth: %s\n' "$TOKEN" >"$T/auth"
DIRECT="https://localhost:$UPORT"
BROKER="http://127.0.0.1:$BPORT/up"
CURL="curl -sS --fail -o /dev/null"
for _ in $(seq 1 50); do $CURL -H @"$T/auth" "$BROKER/status/200" 2>/dev/null && break; sleep 0.1; done
$CURL -H @"$T/auth" "$BROKER/status/200" || die "the broker does not answer"
$CURL --cacert "$T/certs/ca.pem" "$DIRECT/status/200" || die "the upstream does not answer"

echo "machine: $(nproc) CPUs, $(uname -r), $(openssl version)"
echo
hyperfine -N --warmup 10 --runs "$RUNS" --export-json "$T/one.json" \
    -n direct "$CURL --cacert $T/certs/ca.pem $DIRECT/status/200" \
    -n broker "$CURL -H @$T/auth $BROKER/status/200" >/dev/null

# REQUESTS requests on one connection: curl reuses it for repeated URLs.
kept() {
    urls=""
    for _ in $(seq 1 "$REQUESTS"); do urls="$urls $1/status/200"; done
    shift
    # shellcheck disable=SC2086
    python3 -c 'import subprocess,sys,time; t=time.monotonic(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); print(time.monotonic()-t)' \
        curl -sS --fail "$@" $urls
}
kept_direct=$(kept "$DIRECT" --cacert "$T/certs/ca.pem")
kept_broker=$(kept "$BROKER" -H @"$T/auth")

speed() {  # bytes per second of one curl transfer
    curl -sS --fail -o /dev/null -w '%{speed_download} %{speed_upload}\n' "$@"
}
down_direct=$(speed --cacert "$T/certs/ca.pem" "$DIRECT/download?bytes=$BYTES" | cut -d' ' -f1)
down_broker=$(speed -H @"$T/auth" "$BROKER/download?bytes=$BYTES" | cut -d' ' -f1)
head -c "$BYTES" /dev/zero >"$T/blob"
up_direct=$(speed --cacert "$T/certs/ca.pem" -T "$T/blob" "$DIRECT/upload" | cut -d' ' -f2)
up_broker=$(speed -H @"$T/auth" -T "$T/blob" "$BROKER/upload" | cut -d' ' -f2)
hwm=$(sed -n 's/^VmHWM:[[:space:]]*//p' "/proc/$PROXY_PID/status")

python3 - "$T/one.json" "$REQUESTS" "$kept_direct" "$kept_broker" "$BYTES" \
    "$down_direct" "$down_broker" "$up_direct" "$up_broker" "$hwm" <<'EOF'
import json, sys
one, n, kd, kb, size, dd, db, ud, ub, hwm = sys.argv[1:]
r = {x["command"]: x for x in json.load(open(one))["results"]}
n = int(n); mib = int(size) / 2**20
def ms(x): return f"{x * 1000:.2f} ms"
print("| measure | direct HTTPS | through the broker | broker / direct |")
print("|---|---|---|---|")
d, b = r["direct"]["median"], r["broker"]["median"]
print(f"| one request per curl process (median of {len(r['direct']['times'])}) | {ms(d)} | {ms(b)} | {b / d:.2f} |")
kd, kb = float(kd) / n, float(kb) / n
print(f"| one request on a kept connection (mean of {n}) | {ms(kd)} | {ms(kb)} | {kb / kd:.2f} |")
for name, x, y in (("download", dd, db), ("upload", ud, ub)):
    x, y = float(x) / 2**20, float(y) / 2**20
    print(f"| {mib:.0f} MiB {name} | {x:.0f} MiB/s | {y:.0f} MiB/s | {y / x:.2f} |")
print(f"\nproxy peak RSS (VmHWM) after all of it: {hwm}")
EOF
