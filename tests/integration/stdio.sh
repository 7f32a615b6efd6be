#!/bin/bash
# The command's fds 0-2 are never the caller's objects. An attacker inside tries, through
# /proc/self/fd/N and the fd itself, to chmod (setuid), chown, touch or set an xattr on the
# caller's output and input files, to chmod or touch the host's /dev/null, and to reopen the
# caller's pipe for reading to steal what another host writer sends through it. Next to each:
# the bytes still flow both ways (a large stdin intact, stdout and stderr, 2>&1 in order, exit
# status, a reader that stops early ends the writer with SIGPIPE, a full stdout pipe does not
# stall a command that never reads its stdin).
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W"
cat >"$T/policy.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["$W"]
EOF
compile "$T/policy.toml" "$T/plan" || it_finish
give_to_user
owner=$(id -u "$RUN_USER")

# run_redirected IN OUT SCRIPT: the sandbox with stdin from IN and stdout to OUT (host files).
run_redirected() {
    IT_RUNS=$((IT_RUNS + 1))
    LAST_CMD="$EXEC $T/plan -- /bin/sh -c '$3' <$1 >$2" LAST_SCRIPT="" IT_DUMPED=0
    run_as timeout -k 5 60 "$EXEC" "$T/plan" -- /bin/sh -c "$3" <"$1" >"$2" 2>"$T/.runs/$IT_RUNS.err"
    RC=$?
    OUT=""
    ERR=$(<"$T/.runs/$IT_RUNS.err")
}

section "the caller's output file: no mode, owner, times or xattr change through fd 1"
echo input >"$T/in.txt"
: >"$T/out.bin"
chown "$RUN_USER" "$T/in.txt" "$T/out.bin"
chmod 644 "$T/in.txt" "$T/out.bin"
run_redirected "$T/in.txt" "$T/out.bin" '
cat /usr/bin/id
chmod 4755 /proc/self/fd/1 2>/dev/null
chmod 4755 /proc/self/fd/0 2>/dev/null
chown 12345 /proc/self/fd/1 2>/dev/null
touch -d 2001-01-01 /proc/self/fd/1 /proc/self/fd/0 2>/dev/null
python3 -c "import os; os.setxattr(\"/proc/self/fd/1\", \"user.it\", b\"x\")" 2>/dev/null
python3 -c "import os; os.fchmod(1, 0o6777)" 2>/dev/null
echo tampered >/proc/self/fd/0 2>/dev/null
exit 0'
expect_rc 0 "the run"
check_eq "out.bin holds the program's bytes" "$(sha256sum </usr/bin/id)" "$(sha256sum <"$T/out.bin")"
check_eq "out.bin: mode 644, not setuid" 644 "$(stat -c %a "$T/out.bin")"
check_eq "in.txt: mode 644" 644 "$(stat -c %a "$T/in.txt")"
check_eq "out.bin: owner kept" "$owner" "$(stat -c %u "$T/out.bin")"
check_not "out.bin: no time from 2001" test "$(date -r "$T/out.bin" +%Y)" = 2001
check_not "in.txt: no time from 2001" test "$(date -r "$T/in.txt" +%Y)" = 2001
check_eq "out.bin: no xattr" "[]" "$(/usr/bin/python3 -c 'import os, sys; print(os.listxattr(sys.argv[1]))' "$T/out.bin")"
check_eq "in.txt: not written through a reopened stdin" input "$(cat "$T/in.txt")"

section "the host's /dev/null"
null_before=$(stat -c '%a %Y' /dev/null)
sbx "$T/plan" /bin/sh -c '
chmod 666 /proc/self/fd/0 2>/dev/null && echo null_chmod=ok || echo null_chmod=fail
touch -d 2001-01-01 /proc/self/fd/0 2>/dev/null && echo null_touch=ok || echo null_touch=fail
python3 -c "import os; os.fchmod(0, 0o666)" 2>/dev/null && echo null_fchmod=ok || echo null_fchmod=fail
echo x >/dev/null && echo null_write=ok || echo null_write=fail' </dev/null
expect null_chmod 'fail.*' "chmod of stdin /dev/null is refused (a read-only node of the sandbox)"
expect null_touch 'fail.*' "touch of it is refused"
expect null_fchmod 'fail.*' "fchmod of fd 0 is refused"
expect null_write ok "writing to /dev/null works"
check_eq "the host's /dev/null: mode and time kept" "$null_before" "$(stat -c '%a %Y' /dev/null)"

section "the caller's pipe: reopening fd 1 for reading steals nothing"
marker=STOLEN$RANDOM$RANDOM
IT_RUNS=$((IT_RUNS + 1))
( run_as timeout -k 5 20 "$EXEC" "$T/plan" -- /bin/sh -c "timeout 3 cat /proc/self/fd/1 >$W/stolen; echo done" &
  sleep 1; echo "$marker"; wait ) | cat >"$T/reader.out"
check_match "the reader got the host writer's line" "$marker" "$(cat "$T/reader.out")"
check_match "... and the sandbox's own" "done" "$(cat "$T/reader.out")"
check_no_match "the sandbox read none of it" "$marker" "$(cat "$W/stolen" 2>/dev/null)"

section "benign: the bytes flow"
head -c 5000000 /dev/urandom >"$T/big"
chown "$RUN_USER" "$T/big"
run_redirected "$T/big" "$T/big.out" 'cat; exit 3'
expect_rc 3 "the command's exit status"
check_eq "5 MB through stdin and stdout, intact" "$(sha256sum <"$T/big")" "$(sha256sum <"$T/big.out")"
capture_as /bin/sh -c '"$@" 2>&1' sh "$EXEC" "$T/plan" -- /bin/sh -c 'echo a; echo b >&2; echo c; echo d >&2; echo e'
check_eq "2>&1: one pipe, order kept" "a b c d e" "$(echo $OUT)"
capture_as "$EXEC" "$T/plan" -- /bin/sh -c 'echo to-out; echo to-err >&2'
check_eq "stdout alone" to-out "$OUT"
check_eq "stderr alone" to-err "$ERR"
capture_as /bin/sh -c '"$@" | head -c 10 | wc -c' sh "$EXEC" "$T/plan" -- /bin/sh -c 'yes; echo rc=$? >&2'
check_eq "a reader that stops early: the output it wanted" 10 "$OUT"
check_eq "the writer ended (SIGPIPE)" "" "$(echo "$ERR" | grep '^rc=0')"
capture_as /bin/sh -c 'yes | "$@" | wc -c' sh "$EXEC" "$T/plan" -- /bin/sh -c 'head -c 3000000 /dev/zero'
check_eq "stdin never read, 3 MB out: no stall" 3000000 "$OUT"
capture_as "$EXEC" "$T/plan" -- /bin/sh -c 'ls -l /proc/self/fd/0 /proc/self/fd/1 | grep -c pipe' </dev/null
check_eq "inside, stdout is a pipe; stdin the sandbox's /dev/null" 1 "$OUT"

it_finish
