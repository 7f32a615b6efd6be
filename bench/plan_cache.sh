#!/bin/bash
# bench/plan_cache.sh BUILD_DIR — what `tartaros run --config examples/agent.toml` costs per
# command with its plan cache, against the same plan precompiled and run by tartaros-exec, and
# against a compile on every run (--no-cache), with bare /bin/true and bubblewrap (the
# startup.sh command line) for scale, side by side in one hyperfine run; then the precompiled
# plan and the hit in turn (bench_interleave: each round runs each once, so the machine's
# drift slows both alike). The target: a cache hit within 1.3x of the precompiled plan.
#
# Runs in a throwaway HOME and XDG_CACHE_HOME under /var/tmp, so the cache starts empty and
# the user's is untouched; ~/.npm and ~/.cache/pip (writable roots of agent.toml) are made
# there. Before timing it checks that the second run is a hit (the entry's inode unchanged).
# Environment: RUNS (default 100).
set -eu

die() { echo "plan_cache.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: bench/plan_cache.sh BUILD_DIR"
BUILD=$(cd "$1" && pwd) || die "no build directory $1"
BIN=$BUILD/bin
INTERLEAVE=$BUILD/bench/bench_interleave
[ -x "$BIN/tartaros" ] && [ -x "$BIN/tartaros-exec" ] && [ -x "$INTERLEAVE" ] || die "build first"
SOURCE=$(cd "$(dirname "$0")/.." && pwd)
command -v hyperfine >/dev/null && command -v bwrap >/dev/null || "$SOURCE/scripts/install-deps"
RUNS=${RUNS:-100}

WORK=$(mktemp -d /var/tmp/tartaros-bench-cache-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
export HOME=$WORK/home XDG_CACHE_HOME=$WORK/cache
mkdir -p "$HOME/.npm" "$HOME/.cache/pip"
cd "$SOURCE"
"$BIN/tartaros-compile" examples/agent.toml -o "$WORK/agent.plan" 2>/dev/null

run=("$BIN/tartaros" run --config examples/agent.toml -- /bin/true)
"${run[@]}" 2>/dev/null || die "tartaros run failed"
entry() { find "$XDG_CACHE_HOME/tartaros" -name '*.plan' -printf '%i\n'; }
first=$(entry)
"${run[@]}" 2>/dev/null
[ -n "$first" ] && [ "$(entry)" = "$first" ] || die "the second run was not a cache hit"

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r)"
hyperfine -N --warmup 5 --runs "$RUNS" --style basic --export-json "$WORK/cache.json" \
    -n bare "/bin/true" \
    -n "tartaros-exec (precompiled)" "$BIN/tartaros-exec $WORK/agent.plan -- /bin/true" \
    -n "tartaros run (cache hit)" "$BIN/tartaros run --config examples/agent.toml -- /bin/true" \
    -n "tartaros run --no-cache" "$BIN/tartaros run --no-cache --config examples/agent.toml -- /bin/true" \
    -n bwrap "bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent --new-session --cap-drop ALL -- /bin/true" \
    2>/dev/null
python3 - "$WORK/cache.json" <<'PY'
import json, sys
rows = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
print("| command | median ms | min ms |")
print("|---|---:|---:|")
for name, r in rows.items():
    print(f"| {name} | {r['median'] * 1000:.2f} | {r['min'] * 1000:.2f} |")
exe, hit, nocache = (rows[n] for n in ("tartaros-exec (precompiled)", "tartaros run (cache hit)", "tartaros run --no-cache"))
for what in ("median", "min"):
    print(f"{what}: cache hit / precompiled {hit[what] / exe[what]:.2f} (target <= 1.3), "
          f"--no-cache / precompiled {nocache[what] / exe[what]:.2f}")
PY
"$INTERLEAVE" "$RUNS" 5 ::: precompiled "$BIN/tartaros-exec" "$WORK/agent.plan" -- /bin/true \
    ::: hit "$BIN/tartaros" run --config examples/agent.toml -- /bin/true >"$WORK/interleaved.jsonl"
python3 - "$WORK/interleaved.jsonl" <<'PY'
import json, sys
exe, hit = (json.loads(line) for line in open(sys.argv[1]))
print(f"interleaved ({exe['runs']} rounds): precompiled {exe['median']:.2f} ms (min {exe['min']:.2f}), "
      f"hit {hit['median']:.2f} ms (min {hit['min']:.2f}), the hit's cost per round {hit['added_median']:+.2f} ms")
for what in ("median", "min"):
    print(f"{what}: cache hit / precompiled {hit[what] / exe[what]:.2f} (target <= 1.3)")
PY
