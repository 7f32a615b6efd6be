#!/bin/bash
# Git must not run code the sandbox wrote, around a write-denied .git/hooks. Attacked as an
# agent would: re-point .git/commondir at a directory of its own hooks, give .git/config a
# core.hooksPath, a core.fsmonitor, an include or a filter (by git config, by appending, by
# renaming a file over it), do the same through config.worktree and worktrees/<name>/, and
# rewrite the workspace file a symlinked hook runs. Each next to what must keep working: git
# status/add/commit/log/diff/checkout -b/stash inside the sandbox, git on the host during and
# after the run (the placeholders git reads as absent), and no placeholder left afterwards.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$(mktemp -d /tmp/tartaros-it-git.XXXXXX) || die "mktemp"
trap 'rm -rf --one-file-system "$W"; it_cleanup' EXIT
chmod 755 "$W"
MARK=$T/marker  # every attacker hook and program touches $MARK.NAME
GIT_ENV=(GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=it GIT_AUTHOR_EMAIL=it@example.com GIT_COMMITTER_NAME=it
         GIT_COMMITTER_EMAIL=it@example.com)

# host_git ARGS: git in the workspace on the host, as the variant's user.
host_git() {
    [ "$IT_VARIANT" = user ] && chown -hR "$IT_USER:" "$W"
    capture_as env "${GIT_ENV[@]}" git -c safe.directory='*' -C "$W" "$@"
}

run_as git init -q "$W" 2>/dev/null || [ "$IT_VARIANT" = user ] || die "git init"
[ -d "$W/.git" ] || { chown "$IT_USER:" "$W" && run_as git init -q "$W"; } || die "git init"
mkdir "$W/scripts"
printf '#!/bin/sh\nexit 0\n' >"$W/scripts/post-checkout"
printf '#!/bin/sh\nexit 0\n' >"$W/scripts/pre-push"
chmod +x "$W/scripts/post-checkout" "$W/scripts/pre-push"
ln -s ../../scripts/post-checkout "$W/.git/hooks/post-checkout"
echo a >"$W/a.txt"
host_git add a.txt && host_git commit -q -m init || die "first commit: $ERR"
cat >"$T/policy.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["$W"]
write_denies = ["$W/.git/hooks"]
EOF
give_to_user
config_before=$(sha256sum <"$W/.git/config")
hook_before=$(sha256sum <"$W/scripts/post-checkout")
compile "$T/policy.toml" "$T/plan" || it_finish

section "attacks inside the sandbox, and git at work in the same repository"
# After compiling: a hook linked into the workspace that the plan has not seen.
ln -s ../../scripts/pre-push "$W/.git/hooks/pre-push"
give_to_user
sbx_script "$T/plan" <<EOF
export HOME=$T/home ${GIT_ENV[*]}
cd $W
mkdir -p evil/hooks
for h in pre-commit post-commit post-checkout; do printf '#!/bin/sh\ntouch $MARK.%s\n' \$h >evil/hooks/\$h; done
printf '#!/bin/sh\ntouch $MARK.program\n' >evil/prog
chmod +x evil/hooks/* evil/prog
printf '[core]\n\thooksPath = $W/evil/hooks\n\tfsmonitor = $W/evil/prog\n' >evil/config
printf '%s\n' $W/evil >evil/commondir
$PROBE commondir_create create $W/.git/commondir
$PROBE commondir_write write $W/.git/commondir
t commondir_shell sh -c "printf '%s\n' $W/evil > .git/commondir"
$PROBE commondir_rename rename $W/evil/commondir $W/.git/commondir
$PROBE commondir_unlink unlink $W/.git/commondir
t cfg_hookspath git config core.hooksPath $W/evil/hooks
t cfg_fsmonitor git config core.fsmonitor $W/evil/prog
t cfg_include sh -c "printf '[include]\n\tpath = $W/evil/config\n' >> .git/config"
t cfg_filter sh -c "printf '[filter \"x\"]\n\tclean = $W/evil/prog\n' >> .git/config"
$PROBE cfg_rename rename $W/evil/config $W/.git/config
t cw_write sh -c "cat evil/config > .git/config.worktree"
cp evil/config evil/config.worktree
$PROBE cw_rename rename $W/evil/config.worktree $W/.git/config.worktree
$PROBE wt_mkdir mkdir $W/.git/worktrees/x
t wt_commondir sh -c "mkdir -p .git/worktrees/x && printf '%s\n' $W/evil > .git/worktrees/x/commondir"
mkdir -p evil/worktrees/x && cp evil/commondir evil/worktrees/x/commondir
$PROBE wt_rename rename $W/evil/worktrees $W/.git/worktrees
$PROBE wt_rmdir rmdir $W/.git/worktrees
$PROBE link_target_append append $W/scripts/post-checkout
$PROBE link_target_replace rename $W/evil/hooks/post-checkout $W/scripts/post-checkout
$PROBE link_dir_rename rename $W/scripts $W/scripts.old
$PROBE new_link_target_append append $W/scripts/pre-push
$PROBE hook_plant create $W/.git/hooks/pre-commit
t git_status git status --porcelain
t git_add sh -c "echo b > b.txt && git add b.txt"
t git_commit git commit -q -m sandboxed
t git_log sh -c "git log --oneline | wc -l"
t git_diff sh -c "echo c >> a.txt && git diff --stat"
t git_checkout git checkout -q -b topic
t git_stash sh -c "git stash -q && git stash pop -q"
t git_config_msg git config user.name agent
t git_worktree_msg git worktree add -q ../wt-x
t commondir_inside cat .git/commondir
EOF
expect_rc 0 "sandbox exit status"
expect commondir_create "EEXIST|$DENIED_WRITE" "create .git/commondir (absent before the run)"
expect commondir_write "$DENIED_WRITE" "point .git/commondir at the sandbox's own hooks"
expect commondir_shell 'fail\([0-9]+\)'
expect commondir_rename "$DENIED_RENAME" "rename a file over .git/commondir"
expect commondir_unlink "$DENIED_WRITE|EBUSY"
expect cfg_hookspath 'fail\([0-9]+\)' "git config core.hooksPath"
expect cfg_fsmonitor 'fail\([0-9]+\)' "git config core.fsmonitor"
expect cfg_include 'fail\([0-9]+\)' "append an include.path by echo >>"
expect cfg_filter 'fail\([0-9]+\)' "append a clean filter"
expect cfg_rename "$DENIED_RENAME" "rename a file over .git/config"
expect cw_write 'fail\([0-9]+\)' "write .git/config.worktree"
expect cw_rename "$DENIED_RENAME"
expect wt_mkdir "$DENIED_WRITE" "create .git/worktrees/x"
expect wt_commondir 'fail\([0-9]+\)' "write .git/worktrees/x/commondir"
expect wt_rename "$DENIED_RENAME" "rename a directory over .git/worktrees"
expect wt_rmdir "$DENIED_WRITE|EBUSY"
expect link_target_append "$DENIED_WRITE" "rewrite what the symlinked hook runs"
expect link_target_replace "$DENIED_RENAME"
expect link_dir_rename "$DENIED_RENAME" "rename its directory to swap it out"
expect new_link_target_append "$DENIED_WRITE" "... also for a hook linked after compiling"
expect hook_plant "$DENIED_WRITE"
expect git_status ok "git status"
expect git_add ok "git add"
expect git_commit ok "git commit"
expect git_log ok "git log"
expect git_log.data 2
expect git_diff ok "git diff"
expect git_checkout ok "git checkout -b"
expect git_stash ok "git stash / stash pop"
expect git_config_msg 'fail\([0-9]+\)' "git config fails..."
expect git_worktree_msg 'fail\([0-9]+\)' "git worktree add fails..."
result_of git_config_msg.data
check_match "... saying why git config failed" 'could not (write|lock) config file' "$RESULT"
check_match "the run names the git commands that fail" \
    '^tartaros: note: .*\.git: .*git config, git remote add, git branch -u and git worktree add fail' "$ERR"
check_match "the hook linked after compiling is protected with a note" \
    '^tartaros: note: .*pre-push leads to .*scripts/pre-push.*made read-only' "$ERR"
expect commondir_inside ok
expect commondir_inside.data '\.'

section "on the host after the run"
for f in commondir config.worktree worktrees; do
    check_not "no placeholder .git/$f left" test -e "$W/.git/$f"
done
check_eq ".git/config unchanged" "$config_before" "$(sha256sum <"$W/.git/config")"
check_eq "the symlinked hook's target unchanged" "$hook_before" "$(sha256sum <"$W/scripts/post-checkout")"
host_git commit -q --allow-empty -m host
check_eq "host: git commit works" 0 "$RC"
host_git checkout -q -b host-branch
check_eq "host: git checkout works" 0 "$RC"
host_git status --porcelain
check_eq "host: git status works" 0 "$RC"
check_no_match "host: git reads the repository's files" 'failed to read|fatal' "$ERR"
check_eq "host: no hook or program of the sandbox ran" "" "$(ls "$T" | grep '^marker' || true)"
host_git log --oneline
check_eq "host: the sandbox's commit is there" 3 "$(line_count "$OUT")"
host_git -c core.hooksPath="$W/evil/hooks" commit -q --allow-empty -m control
check "control: the sandbox's hooks do run once git is pointed at them" test -e "$MARK.pre-commit"

section "git on the host while the run lasts"
rm -f "$W/.git/hooks/pre-push"
spawn "${AS[@]}" "$EXEC" "$T/plan" -- /bin/sh -c "while [ ! -e $T/go ]; do sleep 0.1; done"
for _ in $(seq 1 100); do [ -e "$W/.git/commondir" ] && break; sleep 0.1; done
check_content "the commondir placeholder holds '.'" "$W/.git/commondir" "."
host_git status --porcelain
check_eq "host: git status works during the run" 0 "$RC"
check_no_match "host: ... without 'failed to read .git/commondir'" 'failed to read' "$ERR"
host_git worktree list
check_eq "host: git worktree list works during the run" 0 "$RC"
touch "$T/go"
wait "$SPAWNED" 2>/dev/null
check_not "no commondir placeholder after the run" test -e "$W/.git/commondir"
check_not "no worktrees placeholder after the run" test -e "$W/.git/worktrees"

section "a placeholder the host changed during the run stays"
rm -f "$T/go"
spawn "${AS[@]}" "$EXEC" "$T/plan" -- /bin/sh -c "while [ ! -e $T/go ]; do sleep 0.1; done"
for _ in $(seq 1 100); do [ -e "$W/.git/config.worktree" ] && break; sleep 0.1; done
echo "[user]" >>"$W/.git/config.worktree"
touch "$T/go"
wait "$SPAWNED" 2>/dev/null
check_content "config.worktree edited on the host is kept" "$W/.git/config.worktree" "[user]"
rm -f "$W/.git/config.worktree"

section "a hook linked after compiling that dangles: refused under --strict"
ln -s ../../nowhere/hook "$W/.git/hooks/pre-rebase"
give_to_user
sbx --strict "$T/plan" /bin/true
expect_rc 78 "--strict refuses"
check_match "... naming the symlink" '^tartaros: write_denies .*pre-rebase leads where the sandbox can write' "$ERR"
sbx "$T/plan" /bin/true
expect_rc 0 "without --strict: the run goes on"
check_match "... with a warning" '^tartaros: warning: write_denies .*pre-rebase' "$ERR"
check_not "no placeholder left after a refused run" test -e "$W/.git/commondir"

it_finish
