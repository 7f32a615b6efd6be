#!/bin/bash
# The agent policies (examples/claude-code, codex and aider, .toml and .tart) wrap a whole
# session of a stand-in agent (agent_standin.sh: what the agent does, with sh, git, python3 and
# curl) under --strict. Each twin prints (--print-policy) exactly what its .toml prints, and
# both lint clean with --werror. The real API names are pinned to a server on the host's
# 127.0.0.1:PORT by a test file the test copy includes (`hosts`, `domain_ports`); the shipped
# files are copied, never changed. In one run per policy the agent reads the project, writes
# and edits files, runs git status/add/commit in the repository the test made, spawns a shell,
# writes its state directory atomically (a temporary file renamed over, as the agents do), gets
# its API key and no other variable, and reaches each API name through the proxy, by a CONNECT
# tunnel and by an absolute-form GET. In the same run: ~/.ssh/id_rsa is unreadable (readable
# outside: the control), .git/hooks/pre-commit, `git remote add`, ~/.bashrc, the state written
# the same way in ~ and each policy's own write-denied settings fail, and a name the policy
# does not allow (pinned like the others) gets 403 blocked-by-allowlist. On the host: the
# commit, the edits and the state are there, no hook, no change to ~/.bashrc, and the server
# saw exactly the allowed requests. A state directory absent at start is a 78 naming it.
. "$(dirname "$0")/lib.sh"
it_setup "$@"
# A copy the variant's user can read (the checkout may lie under a home it cannot enter).
mkdir -p "$T/examples"
cp "$(dirname "$0")"/../../examples/* "$T/examples/"
EXAMPLES=$T/examples
TARTAROS=$IT_DIR/tartaros
install -m 755 "$(dirname "$0")/agent_standin.sh" "$T/agent_standin.sh"

mkdir -p "$T/home/.ssh" "$T/plans"
echo "PRIVATE KEY" >"$T/home/.ssh/id_rsa"
echo "# the user's shell startup file" >"$T/home/.bashrc"

use_net_helper
SERVICES=$T/.runs/services.out
serve_on_host "$SERVICES" api=tcp:127.0.0.1:0
port=$(service_port "$SERVICES" api)

section "controls, outside the sandbox"
capture_as cat "$T/home/.ssh/id_rsa"
check_eq "control: the test's user reads ~/.ssh/id_rsa outside" "PRIVATE KEY" "$OUT"
capture_as curl -sS --max-time 10 --noproxy '*' "http://127.0.0.1:$port/control"
check_eq "control: the API server answers on 127.0.0.1:$port" "api GET /control host=127.0.0.1:$port" "$OUT"

# Every name the tests use, allowed or not, resolves to the test's server: a 403 then comes
# from the allow-list, not from a lookup or the internal-address rule.
PINNED=(api.anthropic.com api.openai.com openrouter.ai chatgpt.com http-intake.logs.us5.datadoghq.com)
{
    echo "version 1;"
    echo "# the test's pins: every name to its server, on its port only"
    printf 'network { domain_ports %s; ' "$port"
    for name in "${PINNED[@]}"; do printf 'hosts "%s" = "127.0.0.1"; ' "$name"; done
    echo "}"
} >"$T/it-pins.tart"

# agent STATE ALLOWED DENIED NOWRITE KEY NOKEY: the state directory (under ~), the API names it
# must reach, names it must not, paths (relative to the project, or ~/...) it must not write,
# the variable it must get and one it must not.
for spec in \
    "claude-code|.claude|api.anthropic.com|api.openai.com http-intake.logs.us5.datadoghq.com|.claude/settings.json ~/.claude/settings.json|ANTHROPIC_API_KEY|OPENAI_API_KEY" \
    "codex|.codex|api.openai.com|api.anthropic.com chatgpt.com|~/.codex/config.toml|OPENAI_API_KEY|ANTHROPIC_API_KEY" \
    "aider|.aider|api.openai.com api.anthropic.com|openrouter.ai chatgpt.com||ANTHROPIC_API_KEY|GITHUB_TOKEN"; do
    IFS='|' read -r agent state allowed denied nowrite key nokey <<<"$spec"

    section "examples/$agent.toml and $agent.tart: the twins, lint"
    capture_as "$COMPILE" --print-policy "$EXAMPLES/$agent.toml"
    expect_rc 0 "$agent.toml: --print-policy"
    toml_text=$OUT
    capture_as "$COMPILE" --print-policy "$EXAMPLES/$agent.tart"
    expect_rc 0 "$agent.tart: --print-policy"
    check_eq "$agent.tart prints what $agent.toml prints" "$toml_text" "$OUT"
    capture_as "$TARTAROS" lint --werror "$EXAMPLES/$agent.toml" "$EXAMPLES/$agent.tart"
    expect_rc 0 "$agent: lint --werror of both"

    for ext in toml tart; do
        section "examples/$agent.$ext: a whole session of a stand-in agent"
        proj=$T/$agent-$ext
        mkdir -p "$proj/src" "$T/home/$state"
        printf 'version 1 of the project\n' >"$proj/README.md"
        IN_DIR=$proj run_as git init -q --template= "$proj" >/dev/null
        run_as git -C "$proj" add README.md && run_as git -C "$proj" -c user.email=a@b -c user.name=n commit -qm start
        # The test copy: the shipped file and one include line with the pins.
        cp "$T/it-pins.tart" "$proj/it-pins.tart"
        if [ "$ext" = toml ]; then
            sed '/^version = 1 /a include = ["it-pins.tart"]' "$EXAMPLES/$agent.toml" >"$proj/policy.toml"
        else
            { cat "$EXAMPLES/$agent.tart"; echo 'include "it-pins.tart";'; } >"$proj/policy.tart"
        fi
        check "the test copy of $agent.$ext includes the pins" grep -q 'it-pins.tart' "$proj/policy.$ext"
        compile "$proj/policy.$ext" "$T/plans/$agent.$ext.plan" || continue
        bashrc_before=$(tree_sum "$T/home/.bashrc")
        log_mark=$(wc -l <"$SERVICES")
        IT_ENV=(ANTHROPIC_API_KEY=it-anthropic-key OPENAI_API_KEY=it-openai-key GITHUB_TOKEN=it-github-token
                CLAUDE_CONFIG_DIR="$T/home/.claude")
        IN_DIR=$proj sbx --strict "$T/plans/$agent.$ext.plan" /bin/sh "$T/agent_standin.sh" \
            "$proj" "$port" "$T/home/$state" "$allowed" "$denied" "$nowrite" "$key" "$nokey"
        IT_ENV=()
        expect_rc 0 "$agent.$ext: the session ran"
        expect read ok "reading the project"
        expect read.data "version 1 of the project"
        expect write ok "writing a new file"
        expect edit ok "editing a file in place (sed -i: a temporary file renamed over)"
        expect git_status ok "git status"
        expect git_status.data '( M README\.md\|).*' "... sees the edit of a committed file"
        expect git_add ok "git add"
        expect git_commit ok "git commit"
        expect shell ok "spawning a shell"
        expect shell.data "spawned 42"
        expect state ok "writing ~/$state/ atomically (temporary file, rename)"
        expect key.data "it-.*-key" "\$$key is passed through"
        expect nokey.data "" "\$$nokey is not"
        log=$(tail -n +"$((log_mark + 1))" "$SERVICES")
        i=0
        for name in $allowed; do
            i=$((i + 1))
            expect "api_tunnel$i" ok "$name through the proxy, CONNECT"
            expect "api_tunnel$i.data" "api GET /v1/tunnel$i host=$name:$port" "... reaches the pinned server"
            expect "api_get$i.data" "api GET /v1/get$i host=$name:$port" "$name, absolute-form GET"
            check_match "host: the server got both" "^request api GET /v1/tunnel$i host=$name:$port$" "$log"
            check_match "host: ..." "^request api GET /v1/get$i host=$name:$port$" "$log"
        done
        i=0
        for name in $denied; do
            i=$((i + 1))
            expect "denied$i.data" "403 blocked-by-allowlist" "$name is not allowed: 403 and the reason"
            expect "denied_tunnel$i" 'fail\(.*' "... nor through a tunnel"
            expect "denied_tunnel$i.data" '.*403.*' "... 403 too"
        done
        expect ssh_key 'fail\(.*' "~/.ssh/id_rsa is unreadable"
        expect hook 'fail\(.*' ".git/hooks/pre-commit is not writable"
        expect hook.data '.*Read-only file system.*' "... EROFS"
        expect remote 'fail\(.*' "git remote add (it writes .git/config) fails"
        expect remote.data ".*could not write config file .*Device or resource busy.*" "... with git's message"
        expect bashrc 'fail\(.*' "~/.bashrc is not writable"
        expect bashrc.data ".*Read-only file system.*" "... EROFS"
        expect state_in_home 'fail\(.*' "the same state write in ~ fails"
        expect state_in_home.data EROFS "... EROFS"
        i=0
        for path in $nowrite; do
            i=$((i + 1))
            expect "nowrite$i" 'fail\(.*' "$path is write-denied"
            expect "nowrite$i.data" '.*(Read-only file system|Device or resource busy).*' "... by the sandbox"
        done

        check_eq "host: $agent.$ext: the agent's commit is in the host's repository" "the agent's edit" \
            "$(git -c safe.directory="*" -C "$proj" log --format=%s -1)"
        check_content "$agent.$ext: the edit is on the host" "$proj/README.md" "version 2 of the project"
        check_content "$agent.$ext: the agent's state is on the host" "$T/home/$state/it-state.json" '{"state": 1}'
        check_not "$agent.$ext: no hook was planted" test -e "$proj/.git/hooks/pre-commit"
        check_eq "host: ~/.bashrc is unchanged" "$bashrc_before" "$(tree_sum "$T/home/.bashrc")"
        check_not "$agent.$ext: no state file in ~" test -e "$T/home/.it-state.json"
        check_no_match "$agent.$ext: no refused request reached the server" "^request api .* /denied" "$log"
        rm -rf "${T:?}/home/$state"
    done
done

section "a state directory absent at start: refused, named"
IN_DIR=$T/codex-toml sbx --strict "$T/plans/codex.toml.plan" /bin/true
expect_rc 78 "codex.toml without ~/.codex"
check_match "... the refusal names ~/.codex" "writable_roots $T/home/\.codex .*No such file or directory" "$ERR"

it_finish
