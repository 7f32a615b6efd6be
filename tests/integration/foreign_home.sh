#!/bin/bash
# A $HOME that is not the caller's (`sudo -u` and `setpriv` leave HOME=/root; a plan compiled
# by root runs as a user). As the user: read denies beneath a home it may not search are
# moot — one note for each directory that blocks them, no warning, no refusal under --strict —
# and what they name stays unreadable; under a 0711 home (searchable, not listable) the denies are installed, so a
# world-readable file in a denied directory is unreadable inside though the user reads it
# outside, and the home's other names are not granted (the cost: a note); a writable root
# beneath the foreign home is one refusal (78) naming the fix, and the command never runs;
# the same for a plan root compiled. As root nothing is moot: every deny is installed and the
# same policies run without a note. `~` without HOME is /etc/passwd's home; an
# empty HOME is refused.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

# The foreign homes lie next to $T, not in it: run_as gives everything under $T to the
# test's user before each run, and these must stay root's.
F=$(mktemp -d "$T.foreign.XXXXXX") || die "mktemp failed"
trap 'rm -rf --one-file-system "$F"; it_cleanup' EXIT
chmod 755 "$F"
UID_N=$(id -u "$RUN_USER")

# make_home DIR MODE: a root-owned home with credentials the user could read were the home
# searchable (world-readable files), a private ~/.config, a ~/.bashrc and a ~/proj.
make_home() {
    mkdir -p "$1/.ssh" "$1/.aws" "$1/.config/gh" "$1/proj"
    echo "ssh-secret-$2" >"$1/.ssh/id_ed25519"
    echo "aws-secret-$2" >"$1/.aws/credentials"
    echo "gh-secret-$2" >"$1/.config/gh/hosts.yml"
    echo "bashrc-$2" >"$1/.bashrc"
    chmod 755 "$1/.ssh" "$1/.aws" "$1/proj"
    chmod 644 "$1/.ssh/id_ed25519" "$1/.aws/credentials" "$1/.bashrc"
    chmod 700 "$1/.config"
    chmod "$2" "$1"
}
make_home "$F/h700" 700
make_home "$F/h711" 711

mkdir -p "$T/proj"
cat >"$T/proj/agent.toml" <<'EOF'
version = 1
[filesystem]
read_scope = "all"
read_denies = ["~/.ssh", "~/.aws", "~/.config/gh"]
writable_roots = ["."]
private_tmp = true
EOF
cat >"$T/proj/home_root.toml" <<'EOF'
version = 1
[filesystem]
writable_roots = ["~/proj"]
EOF

# compile_with_home HOME POLICY PLAN: compiled as the variant's user with that HOME.
compile_with_home() {
    IT_ENV=(HOME="$1")
    IN_DIR=$T/proj compile "$2" "$3"
    IT_ENV=()
}

# The sandbox's view of a home: the denied files, the home's other names, and the work.
home_script() {
    sbx_script --strict "$1" <<EOF
t ws_write sh -c 'echo work >$T/proj/out.txt'
t ws_read cat $T/proj/out.txt
t etc_read cat /etc/passwd
t ssh_read cat $2/.ssh/id_ed25519
t aws_read cat $2/.aws/credentials
t gh_read cat $2/.config/gh/hosts.yml
t bashrc_read cat $2/.bashrc
t ssh_names ls -A $2/.ssh
EOF
}

expect_work_done() {
    expect_rc 0 "$1: --strict run"
    expect ws_write ok "$1: the workspace is writable"
    expect ws_read ok "$1: ... and readable"
    expect etc_read ok "$1: other paths are readable"
    check_no_match "$1: no warning" '^tartaros: warning:' "$ERR"
}

expect_denied_files_unreadable() {
    expect ssh_read 'fail\(.*\)' "$1: ~/.ssh unreadable"
    expect aws_read 'fail\(.*\)' "$1: ~/.aws unreadable"
    expect gh_read 'fail\(.*\)' "$1: ~/.config/gh unreadable"
    check_no_match "$1: no secret in the output" 'secret' "$OUT"
}

# expect_moot_notes WHAT HOME: one note for the three denies, naming the first in plan order
# and the home as the directory that refuses search (the first on the way: for ~/.config/gh
# too).
expect_moot_notes() {
    check_match "$1: one note for ~/.aws, ~/.config/gh and ~/.ssh" "^tartaros: note: read_denies $2/\\.aws \\(policy line 4:[0-9]+\\) and 2 more denies beneath $2: uid $UID_N cannot reach them \\(Permission denied there, another user's directory\\); nothing to hide$" "$ERR"
    check_eq "$1: no other note names the home" 1 "$(grep -c "^tartaros: note: .*$2" <<<"$ERR")"
}

section "HOME is a mode-700 home of root's"
compile_with_home "$F/h700" agent.toml "$T/h700.plan"
sbx --strict "$T/h700.plan" /bin/sh -c 'exit 7'
expect_rc 7 "the command's exit status"
home_script "$T/h700.plan" "$F/h700"
expect_work_done h700
expect_denied_files_unreadable h700
if [ "$IT_VARIANT" = user ]; then
    expect_moot_notes h700 "$F/h700"
    check_eq "h700: only that note on stderr" 1 "$(line_count "$ERR")"
    expect bashrc_read 'fail\(.*\)' "h700: the home is the user's to reach not (outside too)"
else
    check_eq "h700: root: nothing on stderr (every deny installed)" "" "$ERR"
    expect bashrc_read ok "h700: root: the home's other files readable"
    expect ssh_names.data '' "h700: root: ~/.ssh's names hidden (its mask installed)"
fi

section "tartaros run with HOME at the foreign home (the lab's command)"
IT_ENV=(HOME="$F/h700")
IN_DIR=$T/proj capture_as "$IT_DIR/tartaros" run --strict --config agent.toml -- /bin/sh -c \
    "cat $F/h700/.ssh/id_ed25519 || exit 9"
IT_ENV=()
expect_rc 9 "tartaros run: the command ran and could not read ~/.ssh"
check_no_match "tartaros run: no warning" '^tartaros: warning:' "$ERR"
check_no_match "tartaros run: no refusal" '^tartaros: (Landlock|read_denies)' "$ERR"
[ "$IT_VARIANT" = user ] && expect_moot_notes "tartaros run" "$F/h700"

section "HOME is a mode-0711 home of root's: names beneath it reachable"
compile_with_home "$F/h711" agent.toml "$T/h711.plan"
capture_as cat "$F/h711/.ssh/id_ed25519"
check_match "control: outside the sandbox $RUN_USER reads ~/.ssh/id_ed25519" 'ssh-secret-711' "$OUT"
home_script "$T/h711.plan" "$F/h711"
expect_work_done h711
expect_denied_files_unreadable h711
if [ "$IT_VARIANT" = user ]; then
    check_match "h711: note for ~/.config/gh (beneath the 0700 ~/.config)" "^tartaros: note: read_denies $F/h711/.config/gh \\(policy line 4:[0-9]+\\): uid $UID_N cannot reach it \\(Permission denied at $F/h711/.config, another user's directory\\); nothing to hide$" "$ERR"
    check_match "h711: note for the home's expansion left out" "^tartaros: note: Landlock: $F/h711 \\(policy line [0-9]+:[0-9]+\\) cannot be listed by uid $UID_N \\(Permission denied\\): nothing beneath it is granted" "$ERR"
    check_eq "h711: exactly the two notes on stderr" 2 "$(line_count "$ERR")"
    expect bashrc_read 'fail\(.*\)' "h711: the cost: ~/.bashrc, readable outside, is not granted inside"
else
    check_eq "h711: root: nothing on stderr" "" "$ERR"
    expect bashrc_read ok "h711: root: the home's other files readable"
fi

# Landlock alone would keep the file's contents; the mask is what hides the names.
expect ssh_names ok "h711: ~/.ssh is listable (searchable home, Landlock's listing right)"
expect ssh_names.data '' "h711: ... and empty: the deny's mask is installed, not taken as moot"

section "a writable root beneath the foreign home"
compile_with_home "$F/h700" home_root.toml "$T/home_root.plan"
for strict in "" --strict; do
    sbx $strict "$T/home_root.plan" /bin/sh -c "echo ran >$F/h700/proj/ran"
    if [ "$IT_VARIANT" = user ]; then
        expect_rc 78 "writable root $F/h700/proj${strict:+ ($strict)}"
        check_match "... names the directory, the user and the fix" "^tartaros: writable_roots $F/h700/proj \\(policy line 3:[0-9]+\\) cannot be opened by uid $UID_N: Permission denied at $F/h700 \\(a directory of uid 0\\); .*compile it as the user who runs it, with that user's HOME$" "$ERR"
        check_eq "... in exactly one line" 1 "$(line_count "$ERR")"
        check_not "... and the command never ran" test -e "$F/h700/proj/ran"
    else
        expect_rc 0 "root: writable root $F/h700/proj${strict:+ ($strict)}"
        check_content "root: the sandbox wrote in it" "$F/h700/proj/ran" ran
        rm -f "$F/h700/proj/ran"
    fi
done

if [ "$IT_VARIANT" = user ]; then
    section "plans root compiled with HOME=$F/h700, run by $RUN_USER"
    (cd "$T/proj" && env -i PATH="$IT_PATH" HOME="$F/h700" "$COMPILE" agent.toml -o "$T/by_root.plan" &&
        env -i PATH="$IT_PATH" HOME="$F/h700" "$COMPILE" home_root.toml -o "$T/by_root_home.plan") ||
        die "compile as root"
    chmod 644 "$T/by_root.plan" "$T/by_root_home.plan"
    home_script "$T/by_root.plan" "$F/h700"
    expect_work_done "root's plan"
    expect_denied_files_unreadable "root's plan"
    expect_moot_notes "root's plan" "$F/h700"
    sbx --strict "$T/by_root_home.plan" /bin/true
    expect_rc 78 "root's plan with a writable root in root's home"
    check_match "... names the fix" "^tartaros: writable_roots $F/h700/proj .*cannot be opened by uid $UID_N: Permission denied at $F/h700 .*compile it as the user who runs it" "$ERR"
    check_eq "... in exactly one line" 1 "$(line_count "$ERR")"
fi

section "~ without HOME"
PASSWD_HOME=$(getent passwd "$RUN_USER" | cut -d: -f6)
IT_ENV=(env -u HOME)
IN_DIR=$T/proj capture_as "$COMPILE" agent.toml -o "$T/nohome.plan"
expect_rc 0 "compile with HOME unset"
IT_ENV=()
capture_as "$COMPILE" --explain "$T/nohome.plan"
check_match "~/.ssh is /etc/passwd's home of $RUN_USER ($PASSWD_HOME)" " mask $PASSWD_HOME/\\.ssh " "$OUT"
IT_ENV=(HOME=)
IN_DIR=$T/proj capture_as "$COMPILE" agent.toml -o "$T/emptyhome.plan"
IT_ENV=()
expect_rc 78 "compile with HOME empty"
check_match "... names the empty HOME" "cannot expand '~' in '~/\\.ssh': \\\$HOME is set but empty" "$ERR"
check_not "... and writes no plan" test -e "$T/emptyhome.plan"

it_finish
