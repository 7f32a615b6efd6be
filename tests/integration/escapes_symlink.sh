#!/bin/bash
# Escapes through names, as an attacker would try them: symlinks in the workspace to denied
# files, a pre-planted .git symlink that points outside the workspace (so that
# ".git/hooks" would be created out there), /proc/self/root, open_by_handle_at with the
# denied file's handle, stat/chdir/chmod/utime on denied or read-only paths, listing the
# names inside a read-denied directory, and a .git/hooks that is a symlink into the
# workspace (the directory git really runs hooks from must be protected).
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$T/secret/sub" "$T/outside/gitdir" "$W"
echo key-material >"$T/secret/key.txt"
echo secretfile-content >"$T/secretfile.txt"   # 19 bytes
echo public >"$T/public.txt"
echo readonly >"$T/rofile.txt"
chmod 644 "$T/rofile.txt"
echo outside-config >"$T/outside/gitdir/config"
echo normal >"$W/normal.txt"
ln -s "$T/secret/key.txt" "$W/link-secret"
ln -s ../secretfile.txt "$W/link-secretfile"
ln -s "$T/secret" "$W/link-secretdir"
ln -s "$T/public.txt" "$W/link-public"
ln -s "$T/outside/gitdir" "$W/.git"

cat >"$W/policy.toml" <<EOF
version = 1
[filesystem]
read_denies = ["$T/secret", "$T/secretfile.txt"]
writable_roots = ["."]
write_denies = [".git/hooks"]
EOF
give_to_user
outside_before=$(tree_sum "$T/outside")
# File handles of the secrets, as an attacker who guessed them would hold them (ext4
# handles are inode + generation), taken on the host; 0:00 when the filesystem has none.
handle_of() {
    local line
    line=$("$PROBE" h handle "$1" | sed -n 's/^h\.data=//p')
    echo "${line:-0:00}"
}
key_handle=$(handle_of "$T/secret/key.txt")
file_handle=$(handle_of "$T/secretfile.txt")

section "symlinks, /proc/self/root, stat/chdir/chmod on denied and read-only paths"
compile "$W/policy.toml" "$T/plan" || it_finish
sbx_script "$T/plan" <<EOF
$PROBE link_file read $W/link-secret
$PROBE link_file_rel read $W/link-secretfile
$PROBE link_dir_ls ls $W/link-secretdir
$PROBE link_public read $W/link-public
$PROBE new_link symlink $T/secret/key.txt $W/newlink
$PROBE new_link_read read $W/newlink
$PROBE proc_root read /proc/self/root$T/secret/key.txt
$PROBE proc_root_file read /proc/self/root$T/secretfile.txt
$PROBE proc_root_ls ls /proc/self/root$T/secret
$PROBE proc1_root read /proc/1/root$T/secret/key.txt
$PROBE stat_secret stat $T/secret/key.txt
$PROBE stat_secret_sub stat $T/secret/sub
$PROBE stat_secretfile stat $T/secretfile.txt
$PROBE chdir_secret chdir $T/secret
$PROBE chdir_secret_sub chdir $T/secret/sub
$PROBE ls_secret ls $T/secret
t shell_ls_secret ls -A $T/secret
t shell_cat_link cat $W/link-secret
$PROBE handle_root open-handle / $key_handle
$PROBE handle_ws open-handle $W $key_handle
$PROBE handle_file open-handle / $file_handle
$PROBE handle_ns_root ns-open-handle / $key_handle
$PROBE handle_ns_ws ns-open-handle $W $file_handle
$PROBE chmod_ro chmod $T/rofile.txt 777
$PROBE chmod_secretfile chmod $T/secretfile.txt 777
$PROBE chmod_secretdir chmod $T/secret 777
$PROBE chmod_outside chmod $T/outside 777
$PROBE utime_ro utime $T/rofile.txt
$PROBE chmod_ws chmod $W/normal.txt 600
$PROBE ws_write write $W/new.txt
$PROBE hooks_mkdir mkdir $W/.git/hooks
$PROBE hooks_create create $W/.git/hooks/pre-commit
$PROBE hooks_opath opath-create $W/.git hooks
$PROBE git_unlink unlink $W/.git
$PROBE git_rename rename $W/.git $W/git.old
$PROBE git_mkdir mkdir $W/.git
$PROBE git_mkdir_hooks mkdir $W/.git/hooks
$PROBE outside_direct create $T/outside/gitdir/hooks
EOF
expect_rc 0 "sandbox exit status"
expect link_file "$DENIED_READ" "symlink in the workspace to a denied file"
expect link_file_rel "$DENIED_READ" "relative symlink to a denied file"
expect link_dir_ls.names "|<missing>" "symlink to a denied directory shows no names"
expect link_public ok "symlink to an allowed file still works"
expect link_public.data public
expect new_link ok "creating a symlink in the workspace is allowed"
expect new_link_read "$DENIED_READ" "... but it does not open the denied file"
expect proc_root "$DENIED_READ" "/proc/self/root/<denied path>"
expect proc_root_file "$DENIED_READ"
expect proc_root_ls.names "|<missing>"
expect proc1_root "$DENIED_READ" "/proc/1/root/<denied path>"
expect stat_secret "$DENIED_READ" "stat inside a denied directory"
expect stat_secret_sub "$DENIED_READ"
expect stat_secretfile.data "<missing>|(dir|chr|lnk|other):.*|reg:0:.*" "stat does not show the real file"
expect chdir_secret.names "|<missing>" "chdir into a denied directory shows nothing"
expect chdir_secret_sub "$DENIED_READ" "chdir below a denied directory"
expect ls_secret.names "|<missing>" "names inside a read-denied directory"
expect shell_ls_secret.data "|.*(Permission denied|No such file).*"
expect shell_cat_link 'fail\([0-9]+\)'
expect_not shell_cat_link.data '.*key-material.*' "the secret never reaches stdout"
expect handle_root "E[A-Z]+" "open_by_handle_at of the denied file"
expect handle_ws "E[A-Z]+"
expect handle_file "E[A-Z]+"
expect handle_ns_root "E[A-Z]+" "... from a nested user namespace"
expect handle_ns_ws "E[A-Z]+"
expect chmod_ro "EROFS|EPERM" "chmod of a read-only file outside the roots"
expect chmod_secretfile "EROFS|EPERM|EACCES|ENOENT"
expect chmod_secretdir "EROFS|EPERM|EACCES"
expect chmod_outside "EROFS|EPERM"
expect utime_ro "EROFS|EPERM|EACCES"
expect chmod_ws ok "chmod inside the writable root works"
expect ws_write ok
expect hooks_mkdir "E[A-Z]+" "create .git/hooks through the planted .git symlink"
expect hooks_create "E[A-Z]+"
expect hooks_opath "E[A-Z]+"
expect git_unlink "E[A-Z]+" "remove the planted .git symlink"
expect git_rename "E[A-Z]+"
expect git_mkdir "E[A-Z]+"
expect git_mkdir_hooks "E[A-Z]+"
expect outside_direct "$DENIED_WRITE"
check_eq "outside dir untouched" "$outside_before" "$(tree_sum "$T/outside")"
check_not "no hooks created outside" test -e "$T/outside/gitdir/hooks"
check_eq ".git is still the planted symlink" "$T/outside/gitdir" "$(readlink "$W/.git")"
check_eq "rofile.txt mode unchanged" 644 "$(stat -c %a "$T/rofile.txt")"
check_eq "secret dir mode unchanged" 755 "$(stat -c %a "$T/secret")"
check "ws/new.txt written" test -f "$W/new.txt"

section "the same planted .git symlink with materialize = true"
cat >"$W/materialize.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["."]
write_denies = [".git/hooks"]
materialize = true
EOF
compile "$W/materialize.toml" "$T/mat.plan" || it_finish
sbx_script "$T/mat.plan" <<EOF
echo RAN
$PROBE hooks_mkdir mkdir $W/.git/hooks
$PROBE hooks_create create $W/.git/hooks/pre-commit
$PROBE hooks_create_outside create $T/outside/gitdir/hooks/pre-commit
$PROBE ws_write write $W/new2.txt
EOF
if [ "$RC" -eq 78 ]; then
    # Refusing the symlinked target is acceptable; running the command is not, then.
    check_match "refused with a tartaros: line" '^tartaros:' "$ERR"
    check_no_match "the command did not run" '^RAN$' "$OUT"
else
    expect_rc 0 "sandbox exit status (no refusal)"
    expect hooks_mkdir "E[A-Z]+" "materialize must not follow .git out of the workspace"
    expect hooks_create "E[A-Z]+"
    expect hooks_create_outside "E[A-Z]+"
    expect ws_write ok
fi
check_eq "outside dir untouched" "$outside_before" "$(tree_sum "$T/outside")"
check_not "materialize did not create hooks outside" test -e "$T/outside/gitdir/hooks"
check_eq ".git is still the planted symlink" "$T/outside/gitdir" "$(readlink "$W/.git")"

section "hooks symlinked into the workspace (ln -s ../scripts/hooks .git/hooks, a common setup)"
# The host's git follows .git/hooks to scripts/hooks: if the agent can write there, its
# hook runs unsandboxed at the user's next commit. Refusing the run is acceptable too.
R=$T/repo
mkdir -p "$R/scripts/hooks"
run_as git init -q "$R" || die "git init"
rm -rf "${R:?}/.git/hooks"
ln -s ../scripts/hooks "$R/.git/hooks"
echo '#!/bin/sh' >"$R/scripts/hooks/pre-push"
cat >"$R/policy.toml" <<'EOF'
version = 1
[filesystem]
writable_roots = ["."]
write_denies = [".git/hooks"]
EOF
hooks_before=$(tree_sum "$R/scripts/hooks")
compile "$R/policy.toml" "$T/hooks.plan" || it_finish
sbx_script "$T/hooks.plan" <<EOF
echo RAN
$PROBE via_link create $R/.git/hooks/pre-commit
$PROBE via_target create $R/scripts/hooks/pre-commit
$PROBE target_append append $R/scripts/hooks/pre-push
$PROBE other_write write $R/scripts/build.sh
$PROBE target_rename rename $R/scripts $R/scripts.old
EOF
if [ "$RC" -eq 78 ]; then
    check_match "refused with a tartaros: line" '^tartaros:' "$ERR"
    check_no_match "the command did not run" '^RAN$' "$OUT"
else
    expect_rc 0 "sandbox exit status (no refusal)"
    expect via_link "E[A-Z]+" "create a hook through the .git/hooks symlink"
    expect via_target "E[A-Z]+" "create a hook where git will run hooks from"
    expect target_append "E[A-Z]+"
    expect target_rename "E[A-Z]+"
    expect other_write ok
fi
check_eq "the effective hooks directory is unchanged" "$hooks_before" "$(tree_sum "$R/scripts/hooks")"

it_finish
