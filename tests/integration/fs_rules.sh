#!/bin/bash
# Every filesystem rule, for effect: read allowed/denied (names hidden too), write allowed
# inside a writable root and denied outside, deny inside allow, allow inside deny, "~",
# a writable root inside a read deny, read_scope = "granted", a relative writable root
# resolved against the policy's directory (the compiler runs from / to prove it is not the
# working directory), and a minimal /dev where no device node can be made.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

mkdir -p "$T/home/.ssh" "$T/data/secretdir/allowed" "$T/data/hidden" "$T/outside" \
    "$T/proj/ws/ro/sub"
echo ssh-secret >"$T/home/.ssh/id_rsa"
echo notes >"$T/home/notes.txt"
echo public >"$T/data/pub.txt"
echo ungranted >"$T/data/other.txt"
echo topsecret-file >"$T/data/secret.txt"
echo topsecret-dir >"$T/data/secretdir/s.txt"
echo allowed-inside-deny >"$T/data/secretdir/allowed/ok.txt"
echo hidden >"$T/data/hidden/h.txt"
echo outside >"$T/outside/o.txt"
echo existing >"$T/proj/ws/existing.txt"
echo keep >"$T/proj/ws/ro/keep.txt"
echo keep >"$T/proj/ws/ro/sub/keep.txt"
mkdir -p "$T/home2/proj"
echo home2-secret >"$T/home2/secret.txt"
echo work >"$T/home2/proj/work.txt"

cat >"$T/proj/all.toml" <<EOF
version = 1
[filesystem]
read_scope = "all"
read_denies = ["$T/data/secret.txt", "$T/data/secretdir", "$T/data/hidden", "~/.ssh", "$T/home2"]
read_allows = ["$T/data/secretdir/allowed"]
writable_roots = ["ws", "$T/home2/proj"]
write_denies = ["ws/ro"]
EOF

section "read_scope = all: allows and denies in one run"
IN_DIR=/ compile "$T/proj/all.toml" "$T/all.plan" || it_finish
sbx_script "$T/all.plan" <<EOF
$PROBE pub read $T/data/pub.txt
$PROBE sys read /etc/passwd
$PROBE secret_file read $T/data/secret.txt
$PROBE secret_file_stat stat $T/data/secret.txt
$PROBE secretdir_ls ls $T/data/secretdir
$PROBE secretdir_file read $T/data/secretdir/s.txt
$PROBE allow_in_deny read $T/data/secretdir/allowed/ok.txt
$PROBE hidden_mkdir mkdir $T/data/hidden/planted
$PROBE hidden_ls ls $T/data/hidden
$PROBE hidden_file read $T/data/hidden/h.txt
$PROBE tilde_deny read $T/home/.ssh/id_rsa
$PROBE tilde_ls ls $T/home/.ssh
$PROBE home_other read $T/home/notes.txt
$PROBE home2_secret read $T/home2/secret.txt
$PROBE home2_ls ls $T/home2
$PROBE home2_work read $T/home2/proj/work.txt
$PROBE home2_write write $T/home2/proj/new.txt
$PROBE ws_read read $T/proj/ws/existing.txt
$PROBE ws_write write $T/proj/ws/new.txt
$PROBE ws_mkdir mkdir $T/proj/ws/newdir
$PROBE ws_nested write $T/proj/ws/newdir/f
$PROBE ws_append append $T/proj/ws/existing.txt
$PROBE ro_read read $T/proj/ws/ro/keep.txt
$PROBE ro_append append $T/proj/ws/ro/keep.txt
$PROBE ro_create create $T/proj/ws/ro/new.txt
$PROBE ro_sub_append append $T/proj/ws/ro/sub/keep.txt
$PROBE ro_unlink unlink $T/proj/ws/ro/keep.txt
$PROBE out_append append $T/outside/o.txt
$PROBE out_create create $T/outside/new.txt
$PROBE out_mkdir mkdir $T/outside/newdir
$PROBE policy_dir_create create $T/proj/new.txt
$PROBE data_truncate truncate $T/data/pub.txt
t shell_write sh -c 'echo hi > $T/proj/ws/shell.txt && cat $T/proj/ws/shell.txt'
$PROBE dev_ls ls /dev
$PROBE dev_null write /dev/null
$PROBE mknod_ws mknod $T/proj/ws/null
t shell_denied sh -c 'echo hi > $T/outside/shell.txt'
EOF
expect_rc 0 "sandbox exit status"
expect pub ok
expect pub.data public
expect sys ok "system files stay readable"
expect secret_file "$DENIED_READ"
expect secret_file_stat.data "<missing>|(dir|chr|lnk|other):.*|reg:0:.*" "stat must not show the real file"
expect secretdir_ls "ok|$DENIED_READ"
expect secretdir_ls.names "(allowed)?|<missing>" "names inside a read deny are hidden"
expect secretdir_file "$DENIED_READ"
expect allow_in_deny ok "read_allows under a read_deny"
expect allow_in_deny.data allowed-inside-deny
expect hidden_ls "ok|$DENIED_READ"
expect hidden_ls.names "|<missing>" "a masked directory shows no names, not another mask's mountpoint"
expect hidden_file "$DENIED_READ"
expect tilde_deny "$DENIED_READ" "~ is the compiling user's HOME"
expect tilde_ls.names "|<missing>" "nor a name planted in another mask (masks may share one tmpfs)"
expect hidden_mkdir "EROFS|EACCES|EPERM" "nothing can be made in a masked directory"
expect home_other ok
expect home2_secret "$DENIED_READ" "a read-denied directory that holds a writable root"
expect home2_ls.names "(proj)?|<missing>"
expect home2_work ok "the writable root inside it is readable"
expect home2_write ok "... and writable"
expect ws_read ok
expect ws_write ok
expect ws_mkdir ok
expect ws_nested ok
expect ws_append ok
expect ro_read ok "a write deny keeps read"
expect ro_append "$DENIED_WRITE" "write deny inside a writable root"
expect ro_create "$DENIED_WRITE"
expect ro_sub_append "$DENIED_WRITE"
expect ro_unlink "$DENIED_WRITE|EBUSY"
expect out_append "$DENIED_WRITE" "outside the writable roots"
expect out_create "$DENIED_WRITE"
expect out_mkdir "$DENIED_WRITE"
expect policy_dir_create "$DENIED_WRITE" "only ws is writable, not the policy's directory"
expect data_truncate "$DENIED_WRITE"
expect shell_write ok
expect shell_write.data hi
expect shell_denied 'fail\([0-9]+\)'
expect_not dev_ls.names '(.*,)?([shv]d[a-z][0-9]*|nvme.*|loop[0-9]*|mem|kmem|port|kmsg|dm-[0-9]+|sg[0-9]+)(,.*)?' \
    "/dev holds no block devices, no memory devices"
expect dev_null ok "/dev/null is writable"
expect mknod_ws "EPERM|EACCES|EROFS" "no device node can be made, even in a writable root"
check_content "ws/new.txt written through the relative root" "$T/proj/ws/new.txt" probe
check "ws/newdir/f exists" test -f "$T/proj/ws/newdir/f"
check_content "ws/ro/keep.txt unchanged" "$T/proj/ws/ro/keep.txt" keep
check_not "ws/ro/new.txt absent" test -e "$T/proj/ws/ro/new.txt"
check_content "outside/o.txt unchanged" "$T/outside/o.txt" outside
check_not "outside/new.txt absent" test -e "$T/outside/new.txt"
check_content "data/pub.txt unchanged" "$T/data/pub.txt" public

section "read_scope = granted: system tools run, everything else is unreadable"
cat >"$T/proj/granted.toml" <<EOF
version = 1
[filesystem]
read_scope = "granted"
read_allows = ["$IT_DIR", "$T/data/pub.txt"]
writable_roots = ["ws"]
EOF
IN_DIR=/ compile "$T/proj/granted.toml" "$T/granted.plan" || it_finish
sbx_script "$T/granted.plan" <<EOF
t tools sh -c 'ls /usr/bin | grep -c . >/dev/null && head -n 1 /etc/passwd | cut -d: -f1'
$PROBE sys read /etc/passwd
$PROBE pub read $T/data/pub.txt
$PROBE other read $T/data/other.txt
$PROBE data_ls ls $T/data
$PROBE home_notes read $T/home/notes.txt
$PROBE root_ls ls /
$PROBE slash_root ls /root
$PROBE slash_home ls /home
$PROBE ws_read read $T/proj/ws/existing.txt
$PROBE ws_write write $T/proj/ws/granted.txt
$PROBE policy_read read $T/proj/granted.toml
EOF
expect_rc 0 "sandbox exit status"
expect tools ok "system tools run"
expect tools.data root
expect sys ok
expect pub ok "read_allows of a file"
expect pub.data public
expect other "$DENIED_READ" "a path that is not granted"
expect data_ls.names "(pub\.txt)?|<missing>" "only the granted name is visible"
expect home_notes "$DENIED_READ"
expect_not root_ls.names '(.*,)?(root|home|opt|srv|mnt|boot)(,.*)?' "no ungranted top-level names"
expect slash_root "$DENIED_READ"
expect slash_home "$DENIED_READ|ok"
expect slash_home.names "|<missing>"
expect ws_read ok "writable roots are granted"
expect ws_write ok
expect policy_read "$DENIED_READ" "the policy's directory is not granted"
check_content "ws/granted.txt written" "$T/proj/ws/granted.txt" probe

it_finish
