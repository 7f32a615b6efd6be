#!/bin/bash
# bench/lint.sh BUILD_DIR — how long `tartaros lint` takes on 100 policies (target: well
# under a second), all in one invocation (as `pre-commit run --all-files` or CI does) and
# one invocation per file (the worst case: a hook that passes one file at a time).
#
# The 100 policies are generated from examples/agent.toml and examples/strict.toml, each
# varied (read denies, writable roots, write denies, domains, limits, environment), written
# to a temporary directory and checked to lint clean before anything is timed, so
# every file goes through the whole pipeline (front-end, lowering, verifier, lint rules).
# Then the cost of one policy, what a pre-commit hook or `tartaros run` pays per start:
# `tartaros-compile examples/agent.toml` (left out where the example's caches do not exist,
# the README's `mkdir -p ~/.npm ~/.cache/pip`) and `tartaros --version` against /bin/true.
# Prints the machine, then hyperfine's markdown tables. Environment: RUNS (default 10).
set -eu

die() { echo "lint.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: bench/lint.sh BUILD_DIR"
BUILD=$(cd "$1" && pwd) || die "no build directory $1"
TARTAROS=$BUILD/bin/tartaros
[ -x "$TARTAROS" ] || die "$TARTAROS missing; build first"
SOURCE=$(cd "$(dirname "$0")/.." && pwd)
command -v hyperfine >/dev/null || "$SOURCE/scripts/install-deps"
RUNS=${RUNS:-10}

# Not under /tmp: with private_tmp (the examples set it) a root there is a warning.
WORK=$(mktemp -d /var/tmp/tartaros-bench-lint-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

python3 - "$SOURCE/examples" "$WORK" <<'EOF'
# Writes p000.toml ... p099.toml: an example policy with its lists and limits varied by i.
import copy
import sys
import tomllib

examples, out = sys.argv[1], sys.argv[2]
bases = [tomllib.load(open(f"{examples}/{name}.toml", "rb")) for name in ("agent", "strict")]


def value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(value(x) for x in v) + "]"
    return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"


def vary(policy, i):
    fs = policy.setdefault("filesystem", {})
    fs["read_denies"] = fs.get("read_denies", []) + [f"~/.secrets/s{i}-{k}" for k in range(i % 9)]
    roots = [f"proj{i}-{k}" for k in range(1 + i % 4)]  # disjoint: a nested root is a warning
    fs["writable_roots"] = roots
    fs["write_denies"] = [f"{root}/.git/hooks" for root in roots] + [{"path": f"{roots[0]}/.git/config",
                                                                       "type": "file"}]
    proc = policy.setdefault("process", {})
    if i % 3 == 0:
        proc["max_processes"] = 64 + i
        proc["memory_max"] = f"{256 + 16 * i}M"
    if i % 5 == 0:
        proc["cpu_max"] = 1 + i % 4
    net = policy.setdefault("network", {})
    if i % 2 == 0:
        net["allow_domains"] = net.get("allow_domains", []) + [f"pkg{i}.example.com", f"*.mirror{i}.example.org"]
        net["deny_domains"] = [f"upload.pkg{i}.example.com"]
    policy.setdefault("env", {})["set"] = {"CI": "1", "BUILD_ID": str(i)}
    return policy


for i in range(100):
    policy = vary(copy.deepcopy(bases[i % 2]), i)
    with open(f"{out}/p{i:03d}.toml", "w") as f:
        for key, v in policy.items():
            if not isinstance(v, dict):
                f.write(f"{key} = {value(v)}\n")
        for table, v in policy.items():
            if isinstance(v, dict):
                f.write(f"\n[{table}]\n" + "".join(f"{k} = {value(x)}\n" for k, x in v.items()))
EOF

cd "$WORK"
ls p*.toml >list
[ "$(wc -l <list)" -eq 100 ] || die "expected 100 generated policies"
summary=$("$TARTAROS" lint p*.toml | tail -n 1) || die "the generated policies do not lint clean: $summary"
case $summary in
"100 files, 0 errors, 0 warnings") ;;
*) die "unexpected lint summary: $summary" ;;
esac

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), \
kernel $(uname -r), $(date -u '+%Y-%m-%d'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "policies: 100 generated from examples/ ($(cat p*.toml | wc -l) lines; lint: $summary)"
echo
hyperfine -N --warmup 2 --runs "$RUNS" --export-markdown "$WORK/table.md" --style basic \
    --command-name "one invocation, 100 files (text)" "$TARTAROS lint $(tr '\n' ' ' <list)" \
    --command-name "one invocation, 100 files (sarif)" "$TARTAROS lint --format sarif $(tr '\n' ' ' <list)" \
    --command-name "100 invocations, one file each" "xargs -a list -n 1 $TARTAROS lint" >/dev/null
cat "$WORK/table.md"

COMPILE="$BUILD/bin/tartaros-compile $SOURCE/examples/agent.toml -o $WORK/agent.plan"
one=(--command-name "/bin/true" /bin/true --command-name "tartaros --version" "$TARTAROS --version")
if $COMPILE 2>/dev/null; then
    one+=(--command-name "tartaros-compile examples/agent.toml" "$COMPILE")
else
    echo "examples/agent.toml does not compile here (mkdir -p ~/.npm ~/.cache/pip): its row is left out"
fi
echo
hyperfine -N --warmup 5 --runs $((RUNS * 10)) --export-markdown "$WORK/one.md" --style basic "${one[@]}" >/dev/null
cat "$WORK/one.md"
