#!/bin/bash
# Self-protection: a policy file and a plan inside the writable root cannot be modified,
# truncated, removed or replaced from inside the sandbox (nor their directory renamed),
# also a plan copied into the root after compiling, while every other file in the root
# stays writable.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W" "$T/ws2/conf"
echo other >"$W/other.txt"
cat >"$W/policy.toml" <<'EOF'
version = 1
[filesystem]
writable_roots = ["."]
EOF
cat >"$T/ws2/conf/policy.toml" <<'EOF'
version = 1
[filesystem]
writable_roots = [".."]
EOF

section "policy and plan at the top of the root"
compile "$W/policy.toml" "$W/plan.bin" || it_finish
policy_before=$(sha256sum <"$W/policy.toml")
plan_before=$(sha256sum <"$W/plan.bin")
sbx_script "$W/plan.bin" <<EOF
$PROBE pol_write write $W/policy.toml
$PROBE pol_append append $W/policy.toml
$PROBE pol_truncate truncate $W/policy.toml
$PROBE pol_unlink unlink $W/policy.toml
$PROBE pol_chmod chmod $W/policy.toml 666
$PROBE pol_fd_reopen fd-reopen $W/policy.toml
$PROBE evil_policy write $W/evil.toml
$PROBE pol_replace rename $W/evil.toml $W/policy.toml
$PROBE pol_exchange exchange $W/evil.toml $W/policy.toml
$PROBE pol_rename rename $W/policy.toml $W/policy.old
t pol_shell sh -c "echo '[env]' >> $W/policy.toml"
$PROBE plan_write write $W/plan.bin
$PROBE plan_append append $W/plan.bin
$PROBE plan_truncate truncate $W/plan.bin
$PROBE plan_unlink unlink $W/plan.bin
$PROBE plan_opath_reopen opath-reopen $W/plan.bin
$PROBE plan_replace rename $W/evil.toml $W/plan.bin
t plan_mv sh -c "echo x > $W/x.bin && mv -f $W/x.bin $W/plan.bin"
t plan_rm sh -c "rm -f $W/plan.bin"
$PROBE other_write append $W/other.txt
$PROBE other_rename rename $W/other.txt $W/other2.txt
$PROBE other_create write $W/new.txt
$PROBE policy_read read $W/policy.toml
EOF
expect_rc 0 "sandbox exit status"
expect pol_write "$DENIED_WRITE" "write the policy"
expect pol_append "$DENIED_WRITE"
expect pol_truncate "$DENIED_WRITE"
expect pol_unlink "$DENIED_WRITE|EBUSY"
expect pol_chmod "$DENIED_WRITE"
expect pol_fd_reopen "$DENIED_WRITE"
expect evil_policy ok
expect pol_replace "$DENIED_RENAME" "rename a file over the policy"
expect pol_exchange "$DENIED_RENAME"
expect pol_rename "$DENIED_RENAME"
expect pol_shell 'fail\([0-9]+\)'
expect plan_write "$DENIED_WRITE" "write the plan"
expect plan_append "$DENIED_WRITE"
expect plan_truncate "$DENIED_WRITE"
expect plan_unlink "$DENIED_WRITE|EBUSY"
expect plan_opath_reopen "$DENIED_WRITE"
expect plan_replace "$DENIED_RENAME"
expect plan_mv 'fail\([0-9]+\)' "mv over the plan"
expect plan_rm 'fail\([0-9]+\)'
expect other_write ok "other files stay writable"
expect other_rename ok
expect other_create ok
expect policy_read ok "the policy stays readable"
check_eq "policy unchanged" "$policy_before" "$(sha256sum <"$W/policy.toml")"
check_eq "plan unchanged" "$plan_before" "$(sha256sum <"$W/plan.bin")"
check "other files were changed" test -f "$W/other2.txt"

section "policy and plan in a subdirectory of the root (writable_roots = [\"..\"])"
C=$T/ws2/conf
compile "$C/policy.toml" "$C/plan.bin" || it_finish
policy_before=$(sha256sum <"$C/policy.toml")
sbx_script "$C/plan.bin" <<EOF
$PROBE conf_rename rename $C $T/ws2/conf.old
$PROBE pol_write append $C/policy.toml
$PROBE plan_unlink unlink $C/plan.bin
$PROBE conf_new write $C/notes.txt
$PROBE root_new write $T/ws2/new.txt
EOF
expect_rc 0 "sandbox exit status"
expect conf_rename "$DENIED_RENAME" "rename the policy's directory away"
expect pol_write "$DENIED_WRITE"
expect plan_unlink "$DENIED_WRITE|EBUSY"
expect conf_new ok "the policy's directory stays writable"
expect root_new ok
check_eq "policy unchanged" "$policy_before" "$(sha256sum <"$C/policy.toml")"
check "plan still there" test -s "$C/plan.bin"

section "a plan copied into the root after compiling"
# The compiler only knows the -o path; the plan the enforcer runs from is the one an agent
# would have to modify to weaken its next run.
compile "$W/policy.toml" "$T/outside.plan" || it_finish
cp "$T/outside.plan" "$W/copied.plan"
copied_before=$(sha256sum <"$W/copied.plan")
sbx_script "$W/copied.plan" <<EOF
$PROBE copied_append append $W/copied.plan
$PROBE copied_unlink unlink $W/copied.plan
$PROBE other_write write $W/new2.txt
EOF
expect_rc 0 "sandbox exit status"
expect copied_append "$DENIED_WRITE" "modify the plan the sandbox runs from"
expect copied_unlink "$DENIED_WRITE|EBUSY"
expect other_write ok
check_eq "the running plan unchanged" "$copied_before" "$(sha256sum <"$W/copied.plan" 2>&1)"

it_finish
