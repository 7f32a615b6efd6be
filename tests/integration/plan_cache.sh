#!/bin/bash
# `tartaros run`'s plan cache (docs/tartaros-run.md, "The plan cache"), as its user sees it and as
# an attacker would go at it. A hit is told from a miss by the entry's inode: a hit reads the
# entry, a miss writes a new file and renames it over the old one (both exist at that moment,
# so the new inode differs).
#  - a first run stores, the next one with the same key uses the entry and replays its warnings;
#    that hit is the launcher's own: tartaros starts tartaros-exec, never tartaros-cli (strace),
#    while a miss goes through tartaros-cli;
#  - the entry goes stale with what the compile read: the policy file, a .tart it includes, the
#    host (a git directory appearing beside a write-denied hooks/), and every flag is in the key;
#    each time the new rule is enforced, and a control shows the old plan would not have;
#  - a sandbox whose writable root holds the cache (`~` writable) can neither write, replace,
#    remove nor rename away the cache or an entry, also when the cache did not exist before;
#  - an entry forged with a weaker plan is used when it has the owner and modes only the user
#    can give it (the control: the forgery works), and ignored when it is group-writable, a
#    symlink, hardlinked, another user's, in a group-writable directory, or damaged;
#  - --no-cache compiles and stores nothing.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

TARTAROS=$IT_DIR/tartaros
[ -x "$TARTAROS" ] || die "fixture binary missing: $TARTAROS"
CACHE=$T/home/.cache/tartaros
P=$T/proj
mkdir -p "$P/secret" "$T/home/other"
echo secret >"$P/secret/s"
printf 'version = 1\n[filesystem]\nwritable_roots = [".", "."]\n' >"$P/policy.toml"  # "." twice: one warning

# run ARGS...: `tartaros run ARGS` as the variant's user in $P.
run() {
    IN_DIR=$P capture_as "$TARTAROS" run "$@"
}

# The inodes of the entries, sorted ("" when there is none).
entries() {
    find "$CACHE" -maxdepth 1 -name '*.plan' -printf '%i\n' 2>/dev/null | sort -n | tr '\n' ' '
}

# expect_hit WHAT BEFORE: the entries are still BEFORE (the run used its entry).
expect_hit() {
    check_eq "$1: the entry was used (same inode)" "$2" "$(entries)"
}

expect_miss() {
    local now
    now=$(entries)
    if [ -n "$now" ] && [ "$now" != "$2" ]; then pass "$1: compiled again, entry replaced"; else
        fail "$1: compiled again, entry replaced" "entries other than '$2'" "'$now'"
    fi
}

# The inode of the entry of the run in $P with `--config policy.toml` alone.
ENTRY=""

section "a first run compiles and stores, the next one uses the entry"
run --config policy.toml -- /bin/sh -c 'echo written >out1 && cat secret/s'
expect_rc 0 "first run"
check_content "the first run wrote into its writable root" "$P/out1" written
check_eq "the first run read secret/s (no deny yet)" secret "$OUT"
check_match "the first run printed the warning" '^tartaros: policy.toml: 1 warning$' "$ERR"
check_eq "one entry" 1 "$(find "$CACHE" -maxdepth 1 -name '*.plan' | wc -l)"
check_eq "the entry: a regular file, 0600, the user's" "-rw------- $RUN_USER" \
    "$(stat -c '%A %U' "$CACHE"/*.plan)"
check_eq "the cache directory: 0700, the user's" "drwx------ $RUN_USER" "$(stat -c '%A %U' "$CACHE")"
ENTRY=$(entries)
run --config policy.toml -- /bin/sh -c 'echo again >out2'
expect_rc 0 "second run"
expect_hit "same policy, same flags" "$ENTRY"
check_content "the second run wrote into its writable root" "$P/out2" again
check_match "a hit replays the warning" '^tartaros: policy.toml: 1 warning$' "$ERR"

section "a hit is the launcher's: tartaros-exec starts without tartaros-cli"
# execs: TartarOS's programs the last traced run started, in order (the sandbox's own processes
# are not traced: tartaros-exec makes them non-dumpable).
execs() {
    sed -n 's/^[0-9]* *execve("\([^"]*\)".*/\1/p' "$T/execs" | xargs -r -n1 basename | grep -E '^tartaros' |
        grep -v tartaros-proxy | tr '\n' ' '
}
run_traced() { IN_DIR=$P capture_as strace -f -qq -e trace=execve -e signal=none -o "$T/execs" "$TARTAROS" run "$@"; }
run_traced --config policy.toml -- /bin/sh -c 'echo traced >out3'
expect_rc 0 "a traced hit"
expect_hit "the traced run" "$ENTRY"
check_content "the traced hit wrote into its writable root" "$P/out3" traced
check_eq "a hit starts tartaros, then tartaros-exec, not tartaros-cli" "tartaros tartaros-exec " "$(execs)"
run_traced --no-cache --config policy.toml -- /bin/true
expect_rc 0 "a traced --no-cache run"
check_eq "--no-cache goes through tartaros-cli" "tartaros tartaros-cli tartaros-exec " "$(execs)"

section "the policy file changed: the new rule holds"
printf 'read_denies = ["secret"]\n' >>"$P/policy.toml"
run --config policy.toml -- /bin/cat secret/s
expect_miss "policy edited" "$ENTRY"
[ "$RC" -ne 0 ] && [ "$OUT" != secret ] && pass "secret/s unreadable after the edit" ||
    fail "secret/s unreadable after the edit" "a failed read" "rc $RC: $OUT"
ENTRY=$(entries)

section "an included .tart changed"
printf 'version = 1\ninclude = ["extra.tart"]\n[filesystem]\nwritable_roots = ["."]\n' >"$P/inc.toml"
printf 'version 1;\n' >"$P/extra.tart"
run --config inc.toml -- /bin/cat secret/s
expect_rc 0 "the included file denies nothing yet"
BEFORE=$(entries)
printf 'version 1;\nfilesystem { read_denies "secret"; }\n' >"$P/extra.tart"
run --config inc.toml -- /bin/cat secret/s
[ "$RC" -ne 0 ] && [ "$OUT" != secret ] && pass "secret/s unreadable after extra.tart changed" ||
    fail "secret/s unreadable after extra.tart changed" "a failed read" "rc $RC: $OUT"
[ "$(entries)" != "$BEFORE" ] && pass "the include's entry was replaced" ||
    fail "the include's entry was replaced" "new entries" "$(entries)"

section "the host changed: a git directory appears beside a write-denied hooks/"
mkdir -p "$T/repo"
printf 'version = 1\n[filesystem]\nwritable_roots = ["."]\nwrite_denies = [".git/hooks"]\n' >"$T/repo/git.toml"
IN_DIR=$T/repo capture_as "$TARTAROS" run --config git.toml -- /bin/true
expect_rc 0 "a run before git init"
IN_DIR=$T/repo capture_as "$COMPILE" git.toml -o "$T/stale.plan"
expect_rc 0 "the plan of that moment, kept as the control"
IN_DIR=$T/repo capture_as git init -q .
expect_rc 0 "git init on the host"
IN_DIR=$T/repo capture_as "$EXEC" "$T/stale.plan" -- /bin/sh -c 'echo "[x]" >>.git/config'
expect_rc 0 "control: the plan compiled before git init leaves .git/config writable"
IN_DIR=$T/repo capture_as "$TARTAROS" run --config git.toml -- /bin/sh -c 'echo "[y]" >>.git/config'
[ "$RC" -ne 0 ] && pass "after git init, tartaros run write-denies .git/config (exit $RC)" ||
    fail "after git init, tartaros run write-denies .git/config" "a failed write" "exit 0"
check_no_match "host: .git/config has no [y]" '^\[y\]$' "$(cat "$T/repo/.git/config")"

section "every flag is part of the key"
BEFORE=$(entries)
run --write . -- /bin/cat secret/s
expect_rc 0 "--write . reads secret/s"
run --write . --read-deny secret -- /bin/cat secret/s
[ "$RC" -ne 0 ] && [ "$OUT" != secret ] && pass "--write . --read-deny secret: unreadable" ||
    fail "--write . --read-deny secret: unreadable" "a failed read" "rc $RC: $OUT"
run --read-deny secret --write . -- /bin/cat secret/s
[ "$RC" -ne 0 ] && pass "the same flags in another order: unreadable too" ||
    fail "the same flags in another order: unreadable too" "a failed read" "rc $RC: $OUT"
check_eq "three more entries" $(($(echo "$BEFORE" | wc -w) + 3)) "$(entries | wc -w)"

section "a sandbox with ~ writable cannot touch the cache"
SUM=$(tree_sum "$CACHE")
IN_DIR=$P capture_as "$TARTAROS" run --no-cache --write "$T/home" --write . -- /bin/sh -c "
    for e in '$CACHE'/*.plan; do
        echo forged >\"\$e\" && echo overwrite=ok || echo overwrite=fail
        rm -f \"\$e\" && echo remove=ok || echo remove=fail
        ln -sf /etc/passwd \"\$e\" && echo symlink=ok || echo symlink=fail
        break
    done
    echo x >'$CACHE/new.plan' && echo create=ok || echo create=fail
    mv '$CACHE' '$T/home/moved' && echo rename=ok || echo rename=fail
    mv '$T/home/.cache' '$T/home/moved2' && echo rename_parent=ok || echo rename_parent=fail
    chmod 777 '$CACHE' && echo chmod=ok || echo chmod=fail
    echo fine >'$T/home/other/f' && echo control=ok || echo control=fail"
expect_rc 0 "the sandbox ran"
for what in overwrite remove symlink create rename rename_parent chmod; do
    expect "$what" fail "an entry or the cache itself"
done
expect control ok "the rest of ~ is writable"
check_eq "host: the cache is unchanged" "$SUM" "$(tree_sum "$CACHE")"

section "... also when the cache did not exist before the run"
rm -rf "$T/home/.cache"
IN_DIR=$P capture_as "$TARTAROS" run --no-cache --write "$T/home" -- /bin/sh -c "
    echo x >'$CACHE/planted.plan' && echo create=ok || echo create=fail
    mkdir -p '$T/home/.cache/x' && echo sibling=ok || echo sibling=fail"
expect_rc 0 "the sandbox ran"
expect create fail "the cache was made for the run, read-only"
expect sibling ok "~/.cache itself stays writable"
check "the cache directory exists after the run" test -d "$CACHE"
check_eq "and holds nothing" "" "$(ls -A "$CACHE")"
rm -rf "$T/home/.cache/x"

section "--no-cache stores nothing"
run --no-cache --config policy.toml -- /bin/true
expect_rc 0 "--no-cache run"
check_eq "no entry" "" "$(entries)"

# forge KEY_RUN_ARGS...: the entry of `run --config policy.toml` is made to hold the plan of
# weak.toml (no read deny), its checksum recomputed: a valid entry with a weaker plan.
printf 'version = 1\n[filesystem]\nwritable_roots = ["."]\n' >"$P/weak.toml"
IN_DIR=$P capture_as "$COMPILE" weak.toml -o "$T/weak.plan"
expect_rc 0 "compile the weak plan"
forge() {
    python3 - "$1" "$T/weak.plan" <<'EOF'
import struct, sys
path, plan = sys.argv[1], open(sys.argv[2], 'rb').read()
b = bytearray(open(path, 'rb').read())
at = 24
def field():
    global at
    n = struct.unpack_from('<I', b, at)[0]
    at += 4 + n
field(); field()  # key, warnings
count = struct.unpack_from('<I', b, at)[0]; at += 4
for _ in range(count):
    at += 4; field(); field()
b = b[:at] + struct.pack('<I', len(plan)) + plan
b[16:24] = bytes(8)
h = 0xcbf29ce484222325
for x in b:
    h = ((h ^ x) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
b[16:24] = struct.pack('<Q', h)
open(path, 'wb').write(b)
EOF
}

# attempt WHAT [SETUP...]: stores a fresh entry, forges it, runs SETUP (host side, as root),
# then checks that the run still denies secret/s (the forgery was not used).
attempt() {
    local what=$1
    shift
    rm -rf "$CACHE"
    run --config policy.toml -- /bin/true
    local entry
    entry=$(ls "$CACHE"/*.plan)
    forge "$entry"
    "$@" "$entry"
    run --config policy.toml -- /bin/cat secret/s
    if [ "$RC" -ne 0 ] && [ "$OUT" != secret ]; then pass "forged entry, $what: ignored, secret/s denied"; else
        fail "forged entry, $what: ignored" "a failed read" "rc $RC: $OUT"
    fi
}

section "forged entries: used only with the owner and modes only the user can give"
# A cache outside $T (through XDG_CACHE_HOME), where the harness's chown of $T before each
# run as the user does not undo the owners set here.
FC=$(mktemp -d /var/tmp/tartaros-it-plan-cache.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$FC"; it_cleanup' EXIT
[ "$IT_VARIANT" = user ] && chown "$IT_USER:" "$FC"
IT_ENV=(XDG_CACHE_HOME="$FC")
CACHE=$FC/tartaros
rm -rf "$CACHE"
run --config policy.toml -- /bin/true
forge "$(ls "$CACHE"/*.plan)"
run --config policy.toml -- /bin/cat secret/s
check_eq "control: a forged entry with the user's owner and modes is used (secret/s read)" secret "$OUT"
group_writable() { chmod 0660 "$1"; }
attempt "group-writable" group_writable
as_symlink() { mv "$1" "$1.real" && ln -s "$1.real" "$1"; }
attempt "a symlink to it" as_symlink
hardlinked() { ln "$1" "$FC/hardlink"; }
attempt "with a second link" hardlinked
rm -f "$FC/hardlink"
foreign() { chown 65534 "$1"; }
attempt "owned by another user" foreign
loose_dir() { chmod 0770 "$CACHE"; }
attempt "in a group-writable cache directory" loose_dir
damaged() { flip_byte "$1" 100; }
attempt "with one byte changed after forging" damaged
chmod 0700 "$CACHE"

section "a damaged entry is a miss, replaced by the next compile"
rm -rf "$CACHE"
run --config policy.toml -- /bin/true
ENTRY=$(entries)
flip_byte "$(ls "$CACHE"/*.plan)" 200
run --config policy.toml -- /bin/cat secret/s
[ "$RC" -ne 0 ] && pass "the run still enforces the policy" || fail "the run still enforces the policy" "a failed read" "rc 0"
expect_miss "damaged entry" "$ENTRY"

it_finish
