#!/bin/bash
# Benign work under the hardening profile (harden_syscalls = true, private /tmp): a shell
# pipeline, git init/add/commit/log in the writable root, a C compiler in /tmp that builds
# and runs a program with threads and a child process, and a Python script with subprocess,
# threads, an AF_UNIX socketpair and os.walk — all run unharmed although clone3 answers ENOSYS
# (libc and CPython fall back to clone) and namespaces, ptrace and io_uring are refused.
# In the same run, the refused calls still fail.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W/tree/a/b" "$W/tree/c"
touch "$W/tree/1" "$W/tree/a/2" "$W/tree/a/b/3" "$W/tree/c/4"
cat >"$W/policy.toml" <<'EOF'
version = 1
[filesystem]
writable_roots = ["."]
private_tmp = true
[process]
harden_syscalls = true
EOF
cat >"$W/work.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void *square(void *arg) { long n = (long)arg; return (void *)(n * n); }
int main(void) {
    pthread_t threads[4];
    long sum = 0;
    for (long i = 0; i < 4; i++) pthread_create(&threads[i], NULL, square, (void *)(i + 1));
    for (int i = 0; i < 4; i++) { void *r; pthread_join(threads[i], &r); sum += (long)r; }
    pid_t pid = fork();
    if (pid == 0) _exit(7);
    int status = 0;
    waitpid(pid, &status, 0);
    if (system("echo from-system > /tmp/system.out") != 0) return 1;
    printf("threads=%ld child=%d\n", sum, WEXITSTATUS(status));
    return 0;
}
EOF
cat >"$W/work.py" <<'EOF'
import os, socket, subprocess, sys, threading

out = subprocess.run(["sh", "-c", "echo sub; exit 3"], capture_output=True, text=True)
print(f"subprocess={out.stdout.strip()}:{out.returncode}")

results = []
lock = threading.Lock()
def work(n):
    with lock:
        results.append(sum(range(n)))
threads = [threading.Thread(target=work, args=(n,)) for n in (10, 100, 1000)]
for t in threads: t.start()
for t in threads: t.join()
print(f"threads={sorted(results)}")

a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
a.sendall(b"ping")
print(f"socketpair={b.recv(4).decode()}")

files = sorted(os.path.relpath(os.path.join(d, f), sys.argv[1])
               for d, _, names in os.walk(sys.argv[1]) for f in names)
print(f"walk={','.join(files)}")
EOF

compile "$W/policy.toml" "$T/plan" || it_finish
sbx_script "$T/plan" <<EOF
cd $W || exit 99
t pipeline sh -c "printf 'b\\na\\nc\\n' | sort | head -n 1"
t awk sh -c "seq 1 1000 | awk '{ s += \\\$1 } END { print s }' | cat"
t git_init git init -q .
t git_add sh -c "echo content > tracked.txt && git add tracked.txt work.c"
t git_commit git -c user.email=a@b -c user.name=n commit -q -m x
t git_log sh -c "git log --oneline | wc -l"
t git_status git status --porcelain tracked.txt
t git_gc git gc -q
t cc sh -c "cp work.c /tmp/ && cd /tmp && cc -pthread -o work work.c && ./work && cat /tmp/system.out"
t python /usr/bin/python3 work.py $W/tree
$SYSPROBE ptrace_child ptrace_child
$SYSPROBE clone3 clone3
$SYSPROBE clone_newuser clone 0x10000011
$SYSPROBE vsock socket 40 1 0
$SYSPROBE uring io_uring_openat $W/work.c
EOF
expect_rc 0 "sandbox exit status"
expect pipeline.data a "a shell pipeline"
expect awk.data 500500 "awk in a pipeline"
expect git_init ok "git init (default template, hooks copied)"
expect git_add ok "git add"
expect git_commit ok "git commit"
expect git_log.data 1 "git log sees the commit"
expect git_status.data "" "git status: clean"
expect git_gc ok "git gc (pack-objects runs threads)"
expect cc ok "cc in /tmp builds a program with threads, fork and system()"
expect cc.data "threads=30 child=7\|from-system" "... and it runs"
expect python ok "python3"
expect python.data "subprocess=sub:3\|threads=\[45, 4950, 499500\]\|socketpair=ping\|walk=1,a/2,a/b/3,c/4" \
    "python3: subprocess, threads, AF_UNIX socketpair, os.walk"
expect ptrace_child EPERM "the same run: ptrace still refused"
expect clone3 ENOSYS "the same run: clone3 answers ENOSYS"
expect clone_newuser EPERM "the same run: clone(CLONE_NEWUSER) refused"
expect vsock EAFNOSUPPORT "the same run: AF_VSOCK refused"
expect uring ENOSYS "the same run: io_uring refused"
check "the commit is in the repository" \
    sh -c "git -c safe.directory='*' -C '$W' log --oneline | grep -q ' x$'"
check_not "the program was built in the private /tmp, not in the workspace" test -e "$W/work"

it_finish
