#!/bin/bash
# Write denies inside a writable root, attacked: write/truncate/append .git/config, plant a
# hook, remove or rename .git/hooks, rename .git or an ancestor to swap the tree, rename a
# file over the protected one, hardlink it elsewhere, reopen a read-only or O_PATH fd for
# writing through /proc/self/fd, peel the mount off in a nested user namespace, and work
# relative to a working directory inherited from inside the protected tree. The rest of
# .git and of the root must stay writable: git can still commit.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W/sub/proj/.git"
echo file >"$W/file.txt"
echo nested-config >"$W/sub/proj/.git/config"
run_as git init -q "$W" || die "git init"
cat >"$T/policy.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
write_denies = ["ws/.git/hooks", "ws/.git/config", "ws/sub/proj/.git/config"]
EOF
give_to_user
config_before=$(sha256sum <"$W/.git/config")
nested_before=$(sha256sum <"$W/sub/proj/.git/config")
hooks_before=$(tree_sum "$W/.git/hooks")
[ -f "$W/.git/hooks/pre-commit.sample" ] || die "git init made no sample hooks"

compile "$T/policy.toml" "$T/plan" || it_finish
sbx_script "$T/plan" <<EOF
$PROBE cfg_write write $W/.git/config
$PROBE cfg_append append $W/.git/config
$PROBE cfg_truncate truncate $W/.git/config
t cfg_shell sh -c "echo '[core] hooksPath = /tmp' >> $W/.git/config"
$PROBE cfg_unlink unlink $W/.git/config
$PROBE cfg_chmod chmod $W/.git/config 666
$PROBE hooks_create create $W/.git/hooks/pre-commit
$PROBE hooks_sample_append append $W/.git/hooks/pre-commit.sample
$PROBE hooks_sample_unlink unlink $W/.git/hooks/pre-commit.sample
t hooks_rm_rf rm -rf $W/.git/hooks
$PROBE hooks_rename rename $W/.git/hooks $W/.git/hooks.old
$PROBE hooks_rmdir rmdir $W/.git/hooks
$PROBE evil_hooks mkdir $W/evilhooks
$PROBE hooks_replace rename $W/evilhooks $W/.git/hooks
$PROBE evil_cfg write $W/evilcfg
$PROBE cfg_replace rename $W/evilcfg $W/.git/config
$PROBE cfg_exchange exchange $W/evilcfg $W/.git/config
$PROBE git_rename rename $W/.git $W/git.old
$PROBE git_exchange exchange $W/.git $W/evilhooks
$PROBE sub_rename rename $W/sub $W/sub.old
$PROBE sub_proj_rename rename $W/sub/proj $W/sub/proj.old
$PROBE sub_git_rename rename $W/sub/proj/.git $W/sub/proj/git.old
$PROBE nested_cfg_append append $W/sub/proj/.git/config
$PROBE root_rename rename $W $T/ws.old
$PROBE cfg_link link $W/.git/config $W/cfg
$PROBE cfg_link_append append $W/cfg
$PROBE cfg_fd_reopen fd-reopen $W/.git/config
$PROBE cfg_opath_reopen opath-reopen $W/.git/config
$PROBE cfg_opath_link opath-link $W/.git/config $W/cfg2
$PROBE cfg_opath_link_append append $W/cfg2
$PROBE hooks_opath_create opath-create $W/.git/hooks pre-commit
$PROBE ns_unmount ns-unmount-create $W/.git/hooks pwn
$PROBE desc_append append $W/.git/description
$PROBE git_new_file write $W/.git/info/scratch
$PROBE file_write append $W/file.txt
$PROBE sub_write write $W/sub/proj/.git/HEAD
t git_commit sh -c "cd $W && git add file.txt && git -c user.email=a@b -c user.name=n commit -q -m x && git log --oneline | wc -l"
EOF
expect_rc 0 "sandbox exit status"
expect cfg_write "$DENIED_WRITE" "write .git/config"
expect cfg_append "$DENIED_WRITE"
expect cfg_truncate "$DENIED_WRITE"
expect cfg_shell 'fail\([0-9]+\)'
expect cfg_unlink "$DENIED_WRITE|EBUSY"
expect cfg_chmod "$DENIED_WRITE"
expect hooks_create "$DENIED_WRITE" "plant a hook"
expect hooks_sample_append "$DENIED_WRITE"
expect hooks_sample_unlink "$DENIED_WRITE|EBUSY"
expect hooks_rm_rf 'fail\([0-9]+\)' "rm -rf .git/hooks"
expect hooks_rename "$DENIED_RENAME" "rename .git/hooks away"
expect hooks_rmdir "$DENIED_WRITE|EBUSY|ENOTEMPTY"
expect evil_hooks ok
expect hooks_replace "E[A-Z]+" "rename a directory over .git/hooks"
expect evil_cfg ok
expect cfg_replace "$DENIED_RENAME" "rename a file over .git/config"
expect cfg_exchange "$DENIED_RENAME"
expect git_rename "$DENIED_RENAME" "rename .git (the parent of the protected paths)"
expect git_exchange "$DENIED_RENAME"
expect sub_rename "$DENIED_RENAME" "rename an ancestor within the root"
expect sub_proj_rename "$DENIED_RENAME"
expect sub_git_rename "$DENIED_RENAME"
expect nested_cfg_append "$DENIED_WRITE"
expect root_rename "$DENIED_RENAME" "rename the writable root itself"
expect cfg_link "EXDEV|$DENIED_WRITE" "hardlink .git/config into the root"
expect cfg_link_append "ENOENT|$DENIED_WRITE"
expect cfg_fd_reopen "$DENIED_WRITE" "reopen an O_RDONLY fd O_WRONLY via /proc/self/fd"
expect cfg_opath_reopen "$DENIED_WRITE" "reopen an O_PATH fd for writing"
expect cfg_opath_link "EXDEV|ENOENT|$DENIED_WRITE" "linkat of an O_PATH fd"
expect cfg_opath_link_append "ENOENT|$DENIED_WRITE"
expect hooks_opath_create "$DENIED_WRITE" "openat(O_CREAT) under an O_PATH dirfd"
expect ns_unmount "E[A-Z]+" "unmount/remount in a nested user namespace"
expect desc_append ok "the rest of .git stays writable"
expect git_new_file ok
expect file_write ok
expect sub_write ok
expect git_commit ok "git commit still works"
expect git_commit.data 1
check_eq ".git/config unchanged" "$config_before" "$(sha256sum <"$W/.git/config")"
check_eq "nested .git/config unchanged" "$nested_before" "$(sha256sum <"$W/sub/proj/.git/config")"
check_eq ".git/hooks unchanged" "$hooks_before" "$(tree_sum "$W/.git/hooks")"
check_not "no pre-commit hook" test -e "$W/.git/hooks/pre-commit"
check_not "no pwn file" test -e "$W/.git/hooks/pwn"
check ".git is still the real directory" test -d "$W/.git/objects"
check_not "no renamed .git" test -e "$W/git.old"
check "the commit is in the repository" \
    sh -c "git -c safe.directory='*' -C '$W' log --oneline | grep -q ' x$'"

section "launched from inside the protected directories (the inherited cwd)"
# A working directory taken before the mounts would point below them, at the writable host
# directory; the sandbox must not keep it.
mkdir -p "$W/secrets"
echo topsecret >"$W/secrets/key"
cat >"$T/cwd.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
write_denies = ["ws/.git/hooks"]
read_denies = ["ws/secrets"]
EOF
compile "$T/cwd.toml" "$T/cwd.plan" || it_finish
hooks_before=$(tree_sum "$W/.git/hooks")
IN_DIR=$W/.git/hooks sbx "$T/cwd.plan" /bin/sh -c \
    'echo x > pre-commit; echo x >> pre-commit.sample; mkdir sub; echo cwd=$(pwd)'
expect_rc 0 "sandbox exit status"
check_match "the command ran in the same directory" "^cwd=$W/.git/hooks\$" "$OUT"
check_eq ".git/hooks unchanged after writes relative to the inherited cwd" "$hooks_before" \
    "$(tree_sum "$W/.git/hooks")"
IN_DIR=$W/secrets sbx "$T/cwd.plan" /bin/sh -c 'cat key; ls -A; echo done'
expect_rc 0 "sandbox exit status"
check_no_match "the denied file is not readable relative to the inherited cwd" topsecret "$OUT"
check_no_match "... nor listed" '^key$' "$OUT"
check_match "the command ran" '^done$' "$OUT"

it_finish
