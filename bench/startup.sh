#!/bin/sh
# bench/startup.sh BUILD_DIR — start-up cost of `tartaros-exec plan -- /bin/true` against bare
# /bin/true and against bubblewrap confining the same policy, in three hyperfine runs and two
# interleaved runs:
#  1. without a shell (-N): bubblewrap as it is usually run, without a seccomp filter;
#  2. equivalent isolation: bubblewrap also loads our plan's seccomp program (`--seccomp 3`
#     with the program on fd 3). Passing an fd needs a shell, so this run goes through
#     hyperfine's shell (whose spawn time hyperfine subtracts; bare pays it too).
#  3. the first two runs' four commands in turn, each round running each once (bench_interleave):
#     a drifting machine then slows them alike, which two hyperfine blocks cannot promise; once
#     with the output on /dev/null, once on a pipe that is read to its end, as an agent's is;
#  4. the network modes, without a shell: the same policy as is (mode none), plus
#     `[network] allow_domains` (proxy: tartaros-proxy starts next to tartaros-exec and init
#     waits for its "ready"), plus `local_ports` (ports: the same proxy, relaying one port);
#     and the policy plus `[process]` limits (a cgroup made, joined, killed and removed per
#     run; as root only, since an unprivileged caller gets no cgroup on this machine kind).
#
# The policy is a typical agent's (bench/README.md): the work directory
# writable, everything else read-only, one directory unreadable, no network, private PID
# namespace and /proc. The project's target: our added time <= 1/4 of bubblewrap's.
# Environment: RUNS (default 100), WARMUP (default 5), OUT (directory for the exports;
# default: a temporary one, removed).
set -eu

die() { echo "startup.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: bench/startup.sh BUILD_DIR"
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd) || die "no build directory $1"
COMPILE=$BUILD/bin/tartaros-compile
EXEC=$BUILD/bin/tartaros-exec
INTERLEAVE=$BUILD/bench/bench_interleave
if [ ! -x "$COMPILE" ] || [ ! -x "$EXEC" ] || [ ! -x "$INTERLEAVE" ]; then
  die "tartaros-compile, tartaros-exec or bench_interleave missing in $BUILD; build first"
fi
if ! command -v hyperfine >/dev/null || ! command -v bwrap >/dev/null; then
  "$REPO/scripts/install-deps"
fi
RUNS=${RUNS:-100}
WARMUP=${WARMUP:-5}

# Not under /tmp, like a real project: /tmp is not where work directories live.
TMP=$(mktemp -d /var/tmp/tartaros-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
WS=$TMP/work
SECRET=$TMP/secret
mkdir -p "$WS" "$SECRET"
echo "bench secret" > "$SECRET/key"
OUT=${OUT:-$TMP}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

cat > "$TMP/bench.toml" <<EOF
version = 1
[filesystem]
read_scope = "all"
read_denies = ["secret"]
writable_roots = ["work"]
[process]
isolate_pids = true
isolate_proc = true
EOF
"$COMPILE" "$TMP/bench.toml" -o "$TMP/bench.plan"
# The network modes: the same policy plus one [network] grant each. The relayed port only has
# to be free when the plan is compiled; /bin/true never connects, so nothing listens on it.
FREE_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
{ cat "$TMP/bench.toml"; printf '[network]\nallow_domains = ["example.com"]\n'; } > "$TMP/proxy.toml"
{ cat "$TMP/bench.toml"; printf '[network]\nlocal_ports = [%s]\n' "$FREE_PORT"; } > "$TMP/ports.toml"
{ sed '/^\[process\]/,$d' "$TMP/bench.toml"
  printf '[process]\nmax_processes = 64\nmemory_max = "4G"\ncpu_max = 2\n'; } > "$TMP/limits.toml"
"$COMPILE" "$TMP/proxy.toml" -o "$TMP/proxy.plan"
"$COMPILE" "$TMP/ports.toml" -o "$TMP/ports.plan"
"$COMPILE" "$TMP/limits.toml" -o "$TMP/limits.plan"

# The plan's seccomp program (section TP_SEC_SECCOMP_BPF, ir/FORMAT.md), for bubblewrap.
python3 - "$TMP/bench.plan" "$TMP/filter.bpf" <<'EOF'
import struct, sys
plan = open(sys.argv[1], "rb").read()
count, table = struct.unpack_from("<II", plan, 20)
for i in range(count):
    kind, _flags, off, size, _n, _rsize = struct.unpack_from("<6I", plan, table + 24 * i)
    if kind == 10:
        open(sys.argv[2], "wb").write(plan[off:off + size])
        break
else:
    sys.exit("startup.sh: the plan has no seccomp program")
EOF

BWRAP_OPTS="--ro-bind / / --dev /dev --proc /proc --perms 000 --tmpfs $SECRET --remount-ro $SECRET \
--bind $WS $WS --unshare-all --die-with-parent --new-session --cap-drop ALL"
BWRAP="bwrap $BWRAP_OPTS --"
BWRAP_SECCOMP="bwrap $BWRAP_OPTS --seccomp 3 --"
OURS="$EXEC $TMP/bench.plan --"

# Measure only sandboxes that confine: each must write the work dir and fail to read the secret
# (and with the filter, fail to ptrace).
for name in tartaros bwrap; do
  [ $name = tartaros ] && wrap=$OURS || wrap=$BWRAP
  # shellcheck disable=SC2086
  $wrap /bin/sh -c "echo ok > $WS/$name && ! cat $SECRET/key 2>/dev/null" \
    || die "$name does not enforce the benchmark policy; not measuring it"
done
# shellcheck disable=SC2086
$BWRAP_SECCOMP /bin/sh -c "! cat $SECRET/key 2>/dev/null && ! unshare -U true 2>/dev/null" 3<"$TMP/filter.bpf" \
  || die "bwrap with the seccomp program does not enforce it; not measuring it"

# ... and each network mode must run what it grants: the proxy answers a name not allowed with
# 403, the relayed port accepts a connection inside (the proxy holds its listener).
"$EXEC" "$TMP/proxy.plan" -- python3 -c '
import os, socket, sys
proxy = os.environ["HTTP_PROXY"].rsplit(":", 1)
s = socket.create_connection((proxy[0].split("/")[-1], int(proxy[1])), 5)
s.sendall(b"GET http://not-allowed.invalid/ HTTP/1.1\r\nHost: not-allowed.invalid\r\n\r\n")
sys.exit(0 if s.recv(64).startswith(b"HTTP/1.1 403") else 1)' \
  || die "the proxy mode does not answer with a refusal; not measuring it"
# (the host's side of the relay listens for this check only: a relay to nothing is reset)
python3 -c "import socket; s = socket.create_server(('127.0.0.1', $FREE_PORT)); s.settimeout(20); s.accept()" &
HOST_SIDE=$!
sleep 0.5
"$EXEC" "$TMP/ports.plan" -- python3 -c "import socket; socket.create_connection(('127.0.0.1', $FREE_PORT), 5).recv(1)" \
  || die "the ports mode does not relay 127.0.0.1:$FREE_PORT inside to the host's; not measuring it"
wait "$HOST_SIDE" || die "the host's side of the relay was never reached; not measuring it"
# ... and the limits must be a cgroup's: 100 background sleeps stop at max_processes.
LIMITS=""
if [ "$(id -u)" = 0 ]; then
  "$EXEC" "$TMP/limits.plan" -- /bin/sh -c 'for i in $(seq 100); do sleep 1 & done 2>/dev/null; wait' 2>&1 \
    | grep -q "max_processes 64 .*reached" || die "the limits plan does not stop forks at 64; not measuring it"
  LIMITS=limits
fi

cd "$WS"
hyperfine -N --warmup "$WARMUP" --runs "$RUNS" \
  --export-json "$OUT/startup.json" --export-markdown "$OUT/startup.md" \
  -n bare "/bin/true" \
  -n tartaros-exec "$OURS /bin/true" \
  -n bwrap "$BWRAP /bin/true"
hyperfine --warmup "$WARMUP" --runs "$RUNS" \
  --export-json "$OUT/startup-seccomp.json" --export-markdown "$OUT/startup-seccomp.md" \
  -n bare "/bin/true" \
  -n tartaros-exec "$OURS /bin/true" \
  -n "bwrap --seccomp" "$BWRAP_SECCOMP /bin/true 3<$TMP/filter.bpf"

for run in startup startup-seccomp; do
python3 - "$OUT/$run.json" <<'EOF'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
res = {r["command"]: r for r in results}
names = [r["command"] for r in results]
theirs_name = names[2]
ms = lambda s: s * 1000.0
bare = res["bare"]
print()
print("| command | mean ms | median ms | min ms | added ms (median) | added ms (min) |")
print("|---|---:|---:|---:|---:|---:|")
for name in names:
    r = res[name]
    added = ("—", "—") if name == "bare" else (
        "%+.2f" % ms(r["median"] - bare["median"]), "%+.2f" % ms(r["min"] - bare["min"]))
    print("| %s | %.2f | %.2f | %.2f | %s | %s |" % (
        name, ms(r["mean"]), ms(r["median"]), ms(r["min"]), added[0], added[1]))
for stat in ("median", "min"):
    ours = res["tartaros-exec"][stat] - bare[stat]
    theirs = res[theirs_name][stat] - bare[stat]
    ratio = ours / theirs if theirs > 0 else float("inf")
    print("\nadded time ours/%s (%s): %.2f  (target <= 0.25: %s)"
          % (theirs_name, stat, ratio, "met" if ratio <= 1 / 4 else "NOT met"), end="")
print()
EOF
done
# 3. The same four commands in turn: each round runs bare, tartaros-exec, bwrap and bwrap with
# the filter once each (the order rotated), so a drifting machine slows them alike; a command's
# added time is the median over rounds of its time minus bare's in the same round. Once with
# the output on /dev/null, once on a pipe read to its end (OUTPUT=pipe), as an agent reads it.
report_interleaved() {
python3 - "$1" "$2" <<'EOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
res = {r["name"]: r for r in rows}
print()
print("interleaved, output %s (%d rounds):" % (sys.argv[2], rows[0]["runs"]))
print()
print("| command | median ms | min ms | added ms (median of rounds) | added ms (min) |")
print("|---|---:|---:|---:|---:|")
bare = res["bare"]
for r in rows:
    added = ("—", "—") if r is bare else ("%+.2f" % r["added_median"], "%+.2f" % (r["min"] - bare["min"]))
    print("| %s | %.2f | %.2f | %s | %s |" % (r["name"], r["median"], r["min"], added[0], added[1]))
ours = res["tartaros-exec"]
for theirs in ("bwrap", "bwrap --seccomp"):
    t = res[theirs]
    for stat, a, b in (("median of rounds", ours["added_median"], t["added_median"]),
                       ("min", ours["min"] - bare["min"], t["min"] - bare["min"])):
        ratio = a / b if b > 0 else float("inf")
        print("\nadded time ours/%s (%s): %.2f  (target <= 0.25: %s)"
              % (theirs, stat, ratio, "met" if ratio <= 1 / 4 else "NOT met"), end="")
print()
EOF
}
for output in null pipe; do
  jsonl=$OUT/startup-interleaved.jsonl
  [ $output = pipe ] && jsonl=$OUT/startup-interleaved-pipe.jsonl
  # shellcheck disable=SC2086
  OUTPUT=$output "$INTERLEAVE" "$RUNS" "$WARMUP" ::: bare /bin/true ::: tartaros-exec $OURS /bin/true \
    ::: bwrap $BWRAP /bin/true ::: "bwrap --seccomp@3=$TMP/filter.bpf" $BWRAP_SECCOMP /bin/true >"$jsonl"
  report_interleaved "$jsonl" "$([ $output = pipe ] && echo 'to a pipe' || echo 'on /dev/null')"
done
hyperfine -N --warmup "$WARMUP" --runs "$RUNS" \
  --export-json "$OUT/startup-network.json" --export-markdown "$OUT/startup-network.md" \
  -n bare "/bin/true" \
  -n none "$OURS /bin/true" \
  -n proxy "$EXEC $TMP/proxy.plan -- /bin/true" \
  -n ports "$EXEC $TMP/ports.plan -- /bin/true" \
  ${LIMITS:+-n limits "$EXEC $TMP/limits.plan -- /bin/true"}

python3 - "$OUT/startup-network.json" <<'EOF'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
res = {r["command"]: r for r in results}
ms = lambda s: s * 1000.0
bare, none = res["bare"], res["none"]
print()
print("| mode | median ms | min ms | added ms over bare (median) "
      "| added ms over none (median) | added ms over none (min) |")
print("|---|---:|---:|---:|---:|---:|")
for name in ("bare", "none", "proxy", "ports", "limits"):
    if name not in res:
        continue
    r = res[name]
    over_bare = "—" if name == "bare" else "%+.2f" % ms(r["median"] - bare["median"])
    over_none = ("—", "—") if name in ("bare", "none") else (
        "%+.2f" % ms(r["median"] - none["median"]), "%+.2f" % ms(r["min"] - none["min"]))
    print("| %s | %.2f | %.2f | %s | %s | %s |" % (
        name, ms(r["median"]), ms(r["min"]), over_bare, over_none[0], over_none[1]))
EOF
[ "$OUT" = "$TMP" ] || echo "exports: $OUT/startup*.json $OUT/startup*.md"
