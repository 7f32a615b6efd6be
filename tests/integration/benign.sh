#!/bin/bash
# Benign work under an agent-like policy (write-denied, materialized .git/hooks; private
# /tmp): a shell pipeline, git init/add/commit, compiling and running a C file, python3,
# relative paths from the workspace, --strict — and, in the same run, the forbidden things
# still fail.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W" "$T/outside"
cat >"$W/hello.c" <<'EOF'
#include <stdio.h>
int main(void) { puts("hello from cc"); return 0; }
EOF
cat >"$W/policy.toml" <<'EOF'
version = 1
[filesystem]
writable_roots = ["."]
write_denies = [".git/hooks"]
materialize = true
private_tmp = true
EOF

compile "$W/policy.toml" "$T/plan" || it_finish
# `git init` copies its sample hooks into .git/hooks; with .git/hooks materialized read-only
# that copy is fatal, so the repository is initialised without the template (--template=).
sbx_script "$T/plan" <<EOF
cd $W || exit 99
t pipeline sh -c "printf 'b\\na\\nc\\n' | sort | head -n 1"
t awk sh -c "seq 1 1000 | awk '{ s += \\\$1 } END { print s }'"
t git_init git init -q --template= .
t git_add sh -c "echo content > tracked.txt && git add tracked.txt"
t git_commit git -c user.email=a@b -c user.name=n commit -q -m x
t git_log sh -c "git log --oneline | wc -l"
t git_status git status --porcelain tracked.txt
t git_init_sub sh -c "mkdir sub && cd sub && git init -q && echo s > s && git add s && git -c user.email=a@b -c user.name=n commit -q -m s && git log --oneline | wc -l"
t tmp_empty sh -c "ls -A /tmp | wc -l"
t tmp_write sh -c "echo t > /tmp/scratch && cat /tmp/scratch"
t cc sh -c "cc -o hello hello.c && ./hello"
t python /usr/bin/python3 -c "print(sum(range(10)))"
t loopback /usr/bin/python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); c = socket.create_connection(s.getsockname()); a, _ = s.accept(); c.sendall(b'ping'); print(a.recv(4).decode())"
$PROBE hooks_create create $W/.git/hooks/pre-commit
$PROBE outside_create create $T/outside/x
EOF
expect_rc 0 "sandbox exit status"
expect pipeline ok "a shell pipeline"
expect pipeline.data a
expect awk.data 500500
expect git_init ok "git init (no template: hooks are read-only)"
expect git_add ok
expect git_commit ok "git commit"
expect git_log.data 1
expect git_status.data ""
expect git_init_sub ok "plain git init + commit in an unprotected subdirectory"
expect git_init_sub.data 1
expect tmp_empty.data 0 "/tmp is private (starts empty)"
expect tmp_write.data t "/tmp is writable"
expect cc ok "cc compiles and the binary runs"
expect cc.data "hello from cc"
expect python ok "python3"
expect python.data 45
expect loopback ok "a local server on the sandbox's own loopback"
expect loopback.data ping
expect hooks_create "$DENIED_WRITE" "the forbidden thing still fails in the same run"
expect outside_create "$DENIED_WRITE"
IN_DIR=$W sbx "$T/plan" /bin/sh -c 'echo relative > rel.txt && cat rel.txt'
expect_rc 0 "launched from the workspace: a relative write works"
check_content "rel.txt written" "$W/rel.txt" relative
# Every guarantee of this plan can be installed here, so --strict changes nothing.
sbx_script --strict "$T/plan" <<EOF
t strict_pipeline sh -c "seq 1 10 | tail -n 1"
$PROBE strict_hooks create $W/.git/hooks/strict
EOF
expect_rc 0 "--strict: sandbox exit status"
expect strict_pipeline.data 10 "--strict: benign work runs"
expect strict_hooks "$DENIED_WRITE" "--strict: the forbidden thing fails"
check "the commit is in the repository" \
    sh -c "git -c safe.directory='*' -C '$W' log --oneline | grep -q ' x$'"
check "the compiled binary is in the workspace" test -x "$W/hello"
check_eq ".git/hooks is still empty" "" "$(ls -A "$W/.git/hooks" 2>&1)"
check_not "nothing written outside" test -e "$T/outside/x"

it_finish
