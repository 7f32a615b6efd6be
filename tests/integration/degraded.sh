#!/bin/bash
# A host without user namespaces: bubblewrap runs tartaros-exec as an unprivileged uid with
# user namespaces disabled (--disable-userns), so no namespace can be made. Without --strict
# the run degrades to Landlock, no_new_privs and no capabilities, says so in one warning line,
# and Landlock still keeps denied files unreadable and the tree outside the roots read-only.
# With --strict the same run is a refusal: exit 78, one line, the command never starts.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

mkdir -p "$T/ws" "$T/secret"
echo "PRIVATE" >"$T/secret/key"
cat >"$T/policy.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
read_denies = ["secret"]
EOF
compile "$T/policy.toml" "$T/plan" || it_finish

# no_userns [--strict] CMD...: tartaros-exec on the plan, as uid 65534, user namespaces off.
no_userns() {
    local strict=()
    [ "$1" = --strict ] && strict=(--strict) && shift
    capture_as bwrap --ro-bind / / --dev /dev --proc /proc --bind "$T" "$T" \
        --unshare-user --uid 65534 --gid 65534 --disable-userns -- \
        "$EXEC" "${strict[@]}" "$T/plan" -- "$@"
}

section "control: bubblewrap really takes user namespaces away"
capture_as bwrap --ro-bind / / --dev /dev --proc /proc --unshare-user --uid 65534 --disable-userns -- \
    unshare -U true
check_eq "unshare -U fails under the control" yes "$([ "$RC" -ne 0 ] && echo yes || echo no)"

section "without --strict: degraded, said once, Landlock still holds"
no_userns /bin/sh -c "
t() { __l=\$1; shift; if \"\$@\" >/dev/null 2>&1; then echo \"\$__l=ok\"; else echo \"\$__l=fail\"; fi; }
t secret cat $T/secret/key
t root_write sh -c 'echo x > $T/outside'
t ws_write sh -c 'echo x > $T/ws/file'
"
expect_rc 0 "the command ran"
check_eq "stderr is one line" 1 "$(line_count "$ERR")"
check_match "it is a warning naming what was lost" '^tartaros: warning: not enforced: .*read_denies.*clone\(CLONE_NEWUSER\) failed' "$ERR"
expect secret fail "the denied file stays unreadable (Landlock)"
expect root_write fail "outside the writable root stays read-only (Landlock)"
expect ws_write ok "the writable root is writable"
check_not "nothing was written outside the root" test -e "$T/outside"
check_content "the write in the root landed" "$T/ws/file" x

section "with --strict: a refusal, and nothing ran"
no_userns --strict /bin/sh -c "echo RAN; touch $T/ws/ran"
expect_rc 78 "--strict refuses"
check_eq "stderr is one line" 1 "$(line_count "$ERR")"
check_match "it names the guarantee, the reason and the way out" '^tartaros: .*cannot be enforced without a mount namespace.*run without --strict to degrade' "$ERR"
check_no_match "the command did not run" '^RAN$' "$OUT"
check_not "no marker" test -e "$T/ws/ran"

it_finish
