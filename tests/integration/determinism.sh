#!/bin/bash
# Determinism: the same policy gives byte-identical plans, whatever the working directory,
# the time, the output file's name or the spelling of the policy's path.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

mkdir -p "$T/proj/ws/.git" "$T/proj/deny/inner" "$T/other" "$T/plans" "$T/home/.ssh"
echo "[core]" >"$T/proj/ws/.git/config"
cat >"$T/proj/policy.toml" <<EOF
version = 1
[filesystem]
read_scope = "all"
read_denies = ["deny", "~/.ssh", "/root"]
read_allows = ["deny/inner"]
writable_roots = ["ws", "$T/other"]
write_denies = ["ws/.git/hooks", "ws/.git/config"]
materialize = true
private_tmp = true
[process]
isolate_pids = true
isolate_proc = true
[env]
passthrough = ["PATH", "HOME", "ZED", "ALPHA"]
set = { Z = "1", A = "2", M = "3" }
EOF

IN_DIR=$T compile "$T/proj/policy.toml" "$T/plans/1.plan" || it_finish
IN_DIR=$T compile "$T/proj/policy.toml" "$T/plans/1b.plan"
IN_DIR=/ compile "$T/proj/policy.toml" "$T/plans/2.plan"
IN_DIR=$T/other compile "$T/proj/policy.toml" "$T/plans/3.plan"
sleep 1.1
IN_DIR=$T/proj compile "$T/proj/policy.toml" "$T/plans/later.plan"
IN_DIR=$T/proj compile policy.toml "$T/plans/relative.plan"
IN_DIR=$T compile proj/./policy.toml "$T/plans/dotted.plan"

check "twice from the same directory: identical bytes" cmp "$T/plans/1.plan" "$T/plans/1b.plan"
check "from / and from \$T: identical bytes" cmp "$T/plans/1.plan" "$T/plans/2.plan"
check "from another directory: identical bytes" cmp "$T/plans/1.plan" "$T/plans/3.plan"
check "a second later, another output name: identical bytes" cmp "$T/plans/1.plan" "$T/plans/later.plan"
check "policy path given relative: identical bytes" cmp "$T/plans/1.plan" "$T/plans/relative.plan"
check "policy path spelled proj/./policy.toml: identical bytes" cmp "$T/plans/1.plan" "$T/plans/dotted.plan"
echo "   plan: $(stat -c %s "$T/plans/1.plan") bytes, sha256 $(sha256sum <"$T/plans/1.plan" | cut -c1-16)"

capture_as "$COMPILE" --explain "$T/plans/1.plan"
expect_rc 0 "--explain of the plan"
explain1=$OUT
capture_as "$COMPILE" --explain "$T/plans/3.plan"
check_eq "--explain gives the same text" "$explain1" "$OUT"
capture_as "$COMPILE" --explain "$T/plans/1.plan" --json
expect_rc 0 "--explain --json of the plan"
printf '%s\n' "$OUT" >"$T/explain.json"
check "--explain --json is valid JSON" /usr/bin/python3 -m json.tool "$T/explain.json"

it_finish
