#!/bin/bash
# The shipped examples work as documented: examples/agent.toml, examples/strict.toml and
# examples/broker.toml, their .tart twins and examples/syscalls.tart compile, and under each
# (with --strict) an agent's ordinary work succeeds in a git project while its credentials
# stay unreadable and its hooks unwritable; agent.* alone makes npm's and pip's caches (made
# first, as its header says) writable. A .tart twin prints (--print-policy) exactly what
# its .toml prints, in the same project; syscalls.tart's own rules answer as it says.
# Network: agent.toml and broker.toml announce their proxy and the proxy refuses a name they
# do not allow; strict.toml grants no network at all; under none does `curl --noproxy '*'`
# reach a server on the host's 127.0.0.1 that answers it outside. broker.toml runs with
# GITHUB_TOKEN and NPM_TOKEN in the launcher's environment (as its header says): the agent
# has its broker and token file but neither variable, and the broker refuses a method and a
# path its capabilities do not allow. Nothing here needs the internet: no allowed name is
# ever expected to answer.
. "$(dirname "$0")/lib.sh"
it_setup "$@"
EXAMPLES=$(cd "$(dirname "$0")/../../examples" && pwd)

mkdir -p "$T/home/.ssh" "$T/plans" "$T/home/.npm" "$T/home/.cache/pip"  # agent.*'s writable caches, made first as it says
echo "PRIVATE KEY" >"$T/home/.ssh/id_ed25519"
echo "[user]" >"$T/home/.gitconfig"

# A host service on 127.0.0.1, which the test's user reaches outside the sandbox.
use_net_helper
serve_on_host "$T/.runs/services.out" host=tcp:127.0.0.1:0
port=$(service_port "$T/.runs/services.out" host)
capture_as curl -sS --max-time 10 --noproxy '*' "http://127.0.0.1:$port/control"
check_eq "control: the host's 127.0.0.1:$port answers outside the sandbox" "host GET /control host=127.0.0.1:$port" "$OUT"

for file in agent.toml strict.toml broker.toml agent.tart strict.tart broker.tart syscalls.tart; do
    section "examples/$file"
    example=${file%.*}
    policy=policy.${file##*.}
    proj=$T/$example-${file##*.}
    mkdir -p "$proj"
    cp "$EXAMPLES/$file" "$proj/$policy"
    printf '#include <stdio.h>\nint main(void) { puts("built"); return 0; }\n' >"$proj/main.c"
    cp "$SYSPROBE" "$proj/it-syscalls"  # in the project: strict.* shows nothing of the fixture's directory
    IN_DIR=$proj run_as git init -q --template= "$proj" >/dev/null
    if [ "$policy" = policy.tart ] && [ -e "$EXAMPLES/$example.toml" ]; then
        cp "$EXAMPLES/$example.toml" "$proj/twin.toml"
        IN_DIR=$proj capture_as "$COMPILE" --print-policy twin.toml
        toml_text=$OUT
        IN_DIR=$proj capture_as "$COMPILE" --print-policy "$policy"
        expect_rc 0 "$file: --print-policy"
        check_eq "$file: --print-policy prints what $example.toml prints" "$toml_text" "$OUT"
        rm "$proj/twin.toml"
    fi
    compile "$proj/$policy" "$T/plans/$file.plan" || continue
    IT_ENV=()
    [ "$example" = broker ] && IT_ENV=(GITHUB_TOKEN=it-example-github-value NPM_TOKEN=it-example-npm-value)
    IN_DIR=$proj sbx_script --strict "$T/plans/$file.plan" <<SCRIPT
cd "$proj"
t write sh -c 'echo work > notes.txt'
t commit sh -c 'git add notes.txt && git -c user.email=a@b -c user.name=n commit -qm first'
t cc sh -c 'cc -o main main.c && ./main'
t python /usr/bin/python3 -c 'print(6 * 7)'
t key cat "$T/home/.ssh/id_ed25519"
t hook sh -c 'echo "#!/bin/sh" > .git/hooks/pre-commit'
t config sh -c 'echo "[core] hooksPath = /x" >> .git/config'
t policy sh -c 'echo "# weakened" >> $policy'
t npm_cache sh -c 'mkdir -p "\$HOME/.npm/_cacache" && echo entry > "\$HOME/.npm/_cacache/it-entry"'
t pip_cache sh -c 'echo entry > "\$HOME/.cache/pip/it-entry"'
t proxy_env sh -c 'echo "\$HTTPS_PROXY"'
t refused curl -sS --max-time 10 -o /dev/null -w '%{http_code} %header{x-proxy-error}' http://example.com/
t direct curl -sS --max-time 10 --noproxy '*' http://127.0.0.1:$port/direct
t broker_url sh -c 'echo "\$TARTAROS_BROKER_URL"'
t broker_token sh -c 'wc -c < "\$CREDENTIALS_DIRECTORY/broker-token"'
t broker_vars sh -c 'env | grep -c "^\(GITHUB\|NPM\)_TOKEN=\|it-example-"'
t broker_method sh -c 'curl -sS --max-time 10 -o /dev/null -w "%{http_code} %header{x-broker-error}" -X DELETE -H "X-Broker-Auth: \$(cat "\$CREDENTIALS_DIRECTORY/broker-token")" "\$TARTAROS_BROKER_URL/github/repos/myorg/project"'
t broker_path sh -c 'curl -sS --max-time 10 -o /dev/null -w "%{http_code} %header{x-broker-error}" -H "X-Broker-Auth: \$(cat "\$CREDENTIALS_DIRECTORY/broker-token")" "\$TARTAROS_BROKER_URL/github/repos/otherorg/project"'
./it-syscalls kcmp nr 312
./it-syscalls tiocsetd ioctl /dev/null 0x5423
./it-syscalls pidfd_getfd nr 438
./it-syscalls uselib nr 134; echo "uselib.status=\$?"
SCRIPT
    IT_ENV=()
    expect_rc 0 "$file: the sandbox ran"
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
        expect npm_cache ok "npm's cache ~/.npm is writable (npm install, npm pack)"
        expect pip_cache ok "pip's cache ~/.cache/pip is writable"
    else
        expect npm_cache 'fail\(.*' "~/.npm is not granted"
        expect pip_cache 'fail\(.*' "~/.cache/pip is not granted"
    fi
    if [ "$example" != strict ]; then
        expect proxy_env.data 'http://127\.0\.0\.1:3128' "the proxy is announced"
        expect refused.data '403 blocked-by-allowlist' "a name not allowed: 403 and the reason"
    else
        expect proxy_env.data '' "no proxy without allow_domains"
        expect refused 'fail\(.*' "no network granted: curl reaches nothing"
    fi
    expect direct 'fail\(.*' "curl --noproxy '*' to the host's 127.0.0.1:$port reaches nothing"
    if [ "$example" = broker ]; then
        expect broker_url.data 'http://127\.0\.0\.1:3129' "the broker is announced"
        expect broker_token.data 64 "the token file holds a 64-digit token"
        expect broker_vars.data 0 "neither GITHUB_TOKEN nor NPM_TOKEN reaches the agent"
        expect broker_method.data '405 method-not-allowed' "DELETE is not among github's methods"
        expect broker_path.data '403 path-not-allowed' "another organisation's repository is outside github's path_prefixes"
    else
        expect broker_url.data '' "no broker"
    fi
    if [ "$example" = syscalls ]; then
        expect kcmp ENOSYS "deny kcmp errno ENOSYS"
        expect tiocsetd EPERM "deny ioctl when arg1 in {TIOCSETD, ...}"
        expect pidfd_getfd EPERM "deny pidfd_getfd (EPERM by default)"
        expect uselib.status 159 "deny uselib kill: SIGSYS"
    else
        expect_not kcmp ENOSYS "kcmp reaches the kernel"
        expect tiocsetd ENOTTY "TIOCSETD on /dev/null reaches the kernel"
    fi
    check "$file: the commit is in the host's repository" git -c safe.directory="*" -C "$proj" log --oneline -1
    check_not "$file: no hook was planted" test -e "$proj/.git/hooks/pre-commit"
    check_not "$file: the policy was not changed" grep -q weakened "$proj/$policy"
done

it_finish
