#!/bin/bash
# Absent write-deny targets. With materialize, an absent .git/hooks is created as an empty
# directory before the mounts, is read-only inside, and stays afterwards. Without it, the
# first missing component is masked: .git/hooks (or .git itself) cannot be created inside,
# and the host keeps no synthetic leftover after the run.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

A=$T/with-git
B=$T/no-git
mkdir -p "$A/.git" "$B"
echo 'ref: refs/heads/main' >"$A/.git/HEAD"
echo file >"$B/file.txt"

section "materialize = true: .git/hooks absent (in a .git, and with no .git at all)"
cat >"$T/materialize.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["$A", "$B"]
write_denies = ["$A/.git/hooks", "$B/.git/hooks"]
materialize = true
EOF
compile "$T/materialize.toml" "$T/mat.plan" || it_finish
sbx_script "$T/mat.plan" <<EOF
$PROBE a_stat stat $A/.git/hooks
$PROBE a_ls ls $A/.git/hooks
$PROBE a_create create $A/.git/hooks/pre-commit
$PROBE a_mkdir mkdir $A/.git/hooks/sub
$PROBE a_rmdir rmdir $A/.git/hooks
$PROBE a_rename rename $A/.git/hooks $A/hooks.old
$PROBE a_git_rename rename $A/.git $A/git.old
$PROBE a_head append $A/.git/HEAD
$PROBE b_stat stat $B/.git/hooks
$PROBE b_create create $B/.git/hooks/pre-commit
$PROBE b_git_file write $B/.git/description
$PROBE b_file append $B/file.txt
EOF
expect_rc 0 "sandbox exit status"
expect a_stat ok "materialized"
expect a_stat.data 'dir:.*' "as a directory"
expect a_ls.names "" "empty"
expect a_create "$DENIED_WRITE" "not writable inside"
expect a_mkdir "$DENIED_WRITE"
expect a_rmdir "$DENIED_WRITE|EBUSY"
expect a_rename "$DENIED_RENAME"
expect a_git_rename "$DENIED_RENAME"
expect a_head ok "the rest of .git stays writable"
expect b_stat.data 'dir:.*' "materialized with its missing parent"
expect b_create "$DENIED_WRITE"
expect b_git_file ok "the materialized parent is an ordinary directory"
expect b_file ok
check "materialized hooks stays after the run" test -d "$A/.git/hooks"
check_eq "... and is empty" "" "$(ls -A "$A/.git/hooks" 2>&1)"
check "$B/.git/hooks stays too" test -d "$B/.git/hooks"
check_eq "materialized dirs belong to the caller" "$RUN_USER $RUN_USER" \
    "$(stat -c %U "$A/.git/hooks") $(stat -c %U "$B/.git")"

section "materialize = false: the absent target cannot be created, nothing is left behind"
C=$T/with-git2
D=$T/no-git2
mkdir -p "$C/.git" "$D"
echo 'ref: refs/heads/main' >"$C/.git/HEAD"
echo file >"$D/file.txt"
cat >"$T/plain.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["$C", "$D"]
write_denies = ["$C/.git/hooks", "$D/.git/hooks"]
EOF
compile "$T/plain.toml" "$T/plain.plan" || it_finish
sbx_script "$T/plain.plan" <<EOF
$PROBE c_mkdir mkdir $C/.git/hooks
t c_touch touch $C/.git/hooks/pre-commit
$PROBE c_create_file create $C/.git/hooks
$PROBE c_unlink unlink $C/.git/hooks
$PROBE c_evil mkdir $C/evil
$PROBE c_replace rename $C/evil $C/.git/hooks
$PROBE c_git_rename rename $C/.git $C/git.old
$PROBE c_head append $C/.git/HEAD
$PROBE d_mkdir mkdir $D/.git
t d_git_init sh -c "cd $D && git init -q"
$PROBE d_mkdir_p mkdir $D/.git/hooks
$PROBE d_file append $D/file.txt
$PROBE d_new write $D/new.txt
EOF
expect_rc 0 "sandbox exit status"
expect c_mkdir "E[A-Z]+" "mkdir .git/hooks"
expect c_touch 'fail\([0-9]+\)' "touch .git/hooks/pre-commit"
expect c_create_file "E[A-Z]+" "create .git/hooks as a file"
expect c_unlink "E[A-Z]+" "remove the mask"
expect c_evil ok
expect c_replace "E[A-Z]+" "rename a directory onto .git/hooks"
expect c_git_rename "$DENIED_RENAME"
expect c_head ok "the rest of .git stays writable"
expect d_mkdir "E[A-Z]+" "the first missing component (.git) is masked"
expect d_git_init 'fail\([0-9]+\)' "so git init cannot make .git"
expect d_mkdir_p "E[A-Z]+"
expect d_file ok
expect d_new ok
check_not "no .git/hooks leftover" test -e "$C/.git/hooks"
check_eq ".git holds only what it held" "HEAD" "$(ls -A "$C/.git" 2>&1 | tr '\n' ' ' | sed 's/ $//')"
check_not "no .git leftover in the root without one" test -e "$D/.git"
check "the rest of the work is there" test -f "$D/new.txt"

it_finish
