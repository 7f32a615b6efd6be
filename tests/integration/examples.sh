#!/bin/bash
# The shipped examples work as documented: examples/agent.toml and examples/strict.toml
# compile, and under each (with --strict) an agent's ordinary work succeeds in a git
# project while its credentials stay unreadable and its hooks unwritable. Network: agent.toml
# announces its proxy and the proxy refuses a name it does not allow; strict.toml grants no
# network at all; under neither does `curl --noproxy '*'` reach a server on the host's
# 127.0.0.1 that answers it outside. Nothing here needs the internet: no allowed name is ever
# expected to answer.
. "$(dirname "$0")/lib.sh"
it_setup "$@"
EXAMPLES=$(cd "$(dirname "$0")/../../examples" && pwd)

mkdir -p "$T/home/.ssh" "$T/plans"
echo "PRIVATE KEY" >"$T/home/.ssh/id_ed25519"
echo "[user]" >"$T/home/.gitconfig"

# A host service on 127.0.0.1, which the test's user reaches outside the sandbox.
install -m 644 "$(dirname "$0")/net_helper.py" "$T/net_helper.py"
spawn /usr/bin/python3 "$T/net_helper.py" serve "$T/.runs/services.out" host=tcp:127.0.0.1:0
for _ in $(seq 1 50); do grep -q '^ready$' "$T/.runs/services.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/^host=//p' "$T/.runs/services.out")
[ -n "$port" ] || die "the host service did not start"
capture_as curl -sS --max-time 10 --noproxy '*' "http://127.0.0.1:$port/control"
check_eq "control: the host's 127.0.0.1:$port answers outside the sandbox" "host GET /control host=127.0.0.1:$port" "$OUT"

for example in agent strict; do
    section "examples/$example.toml"
    proj=$T/$example
    mkdir -p "$proj"
    cp "$EXAMPLES/$example.toml" "$proj/policy.toml"
    printf '#include <stdio.h>\nint main(void) { puts("built"); return 0; }\n' >"$proj/main.c"
    IN_DIR=$proj run_as git init -q --template= "$proj" >/dev/null
    compile "$proj/policy.toml" "$T/plans/$example.plan" || continue
    IN_DIR=$proj sbx_script --strict "$T/plans/$example.plan" <<SCRIPT
cd "$proj"
t write sh -c 'echo work > notes.txt'
t commit sh -c 'git add notes.txt && git -c user.email=a@b -c user.name=n commit -qm first'
t cc sh -c 'cc -o main main.c && ./main'
t python /usr/bin/python3 -c 'print(6 * 7)'
t key cat "$T/home/.ssh/id_ed25519"
t hook sh -c 'echo "#!/bin/sh" > .git/hooks/pre-commit'
t config sh -c 'echo "[core] hooksPath = /x" >> .git/config'
t policy sh -c 'echo "# weakened" >> policy.toml'
t proxy_env sh -c 'echo "\$HTTPS_PROXY"'
t refused curl -sS --max-time 10 -o /dev/null -w '%{http_code} %header{x-proxy-error}' http://example.com/
t direct curl -sS --max-time 10 --noproxy '*' http://127.0.0.1:$port/direct
SCRIPT
    expect_rc 0 "$example: the sandbox ran"
    expect write ok "writing in the project"
    expect commit ok "git commit in the project"
    expect cc ok "compiling and running C (private /tmp)"
    expect cc.data built
    expect python ok "python3"
    expect python.data 42
    expect key 'fail\(.*' "the SSH key is unreadable"
    expect hook 'fail\(.*' ".git/hooks is read-only"
    expect config 'fail\(.*' ".git/config is read-only"
    expect policy 'fail\(.*' "the policy file is read-only"
    if [ "$example" = agent ]; then
        expect proxy_env.data 'http://127\.0\.0\.1:3128' "the proxy is announced"
        expect refused.data '403 blocked-by-allowlist' "a name not allowed: 403 and the reason"
    else
        expect proxy_env.data '' "no proxy without allow_domains"
        expect refused 'fail\(.*' "no network granted: curl reaches nothing"
    fi
    expect direct 'fail\(.*' "curl --noproxy '*' to the host's 127.0.0.1:$port reaches nothing"
    check "$example: the commit is in the host's repository" git -c safe.directory="*" -C "$proj" log --oneline -1
    check_not "$example: no hook was planted" test -e "$proj/.git/hooks/pre-commit"
    check_not "$example: the policy was not changed" grep -q weakened "$proj/policy.toml"
done

it_finish
