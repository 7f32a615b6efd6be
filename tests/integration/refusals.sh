#!/bin/bash
# Refusals: a bad policy is exit 78 with a first stderr line `tartaros:` and a diagnostic
# `file:line:col: error: ... [rule-id]`, and no plan is written; a damaged plan (truncated,
# flipped, empty, a directory, missing) and bad usage are exit 78 with one `tartaros:` line,
# and the command never runs.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

mkdir -p "$T/bad" "$T/ws"

# bad_policy NAME LINE (LINE "" = any) with the policy text on stdin.
bad_policy() {
    local name=$1 line=$2 file=$T/bad/$1.toml first
    cat >"$file"
    capture_as "$COMPILE" "$file" -o "$T/bad/$name.plan"
    expect_rc 78 "compile $name.toml"
    first=${ERR%%$'\n'*}
    check_match "$name: first stderr line starts with tartaros:" '^tartaros:' "$first"
    check_match "$name: diagnostic file:line:col: error: ... [rule-id]" \
        "$name\\.toml:${line:-[0-9]+}:[0-9]+: error: .*\\[[A-Za-z0-9_.-]+\\]" "$ERR"
    check_not "$name: no plan written" test -e "$T/bad/$name.plan"
}

section "bad policies"
bad_policy unknown_key 3 <<'EOF'
version = 1
[filesystem]
writable_root = ["."]
EOF
check_match "unknown_key: did you mean writable_roots" 'writable_roots' "$ERR"
bad_policy glob 4 <<'EOF'
version = 1
[filesystem]
writable_roots = ["."]
read_denies = ["/etc/*.conf"]
EOF
check_match "glob: the field is named" 'read_denies' "$ERR"
bad_policy missing_version "" <<'EOF'
[filesystem]
writable_roots = ["."]
EOF
bad_policy syntax 2 <<'EOF'
version = 1
[filesystem
writable_roots = ["."]
EOF
bad_policy wrong_type 3 <<'EOF'
version = 1
[filesystem]
materialize = "yes"
EOF
bad_policy bad_scope 3 <<'EOF'
version = 1
[filesystem]
read_scope = "some"
EOF

section "compiler usage"
capture_as "$COMPILE"
expect_rc 78 "tartaros-compile without arguments"
check_match "first stderr line starts with tartaros:" '^tartaros:' "${ERR%%$'\n'*}"
capture_as "$COMPILE" "$T/bad/does-not-exist.toml" -o "$T/bad/x.plan"
expect_rc 78 "tartaros-compile of a missing policy file"
check_match "first stderr line starts with tartaros:" '^tartaros:' "${ERR%%$'\n'*}"

section "a good plan runs (control)"
cat >"$T/good.toml" <<'EOF'
version = 1
[filesystem]
writable_roots = ["ws"]
write_denies = ["ws/.git/hooks"]
read_denies = ["/root"]
materialize = true
[env]
set = { A = "1" }
EOF
compile "$T/good.toml" "$T/good.plan" || it_finish
MARK=$T/ws/ran
sbx "$T/good.plan" /bin/sh -c "echo RAN; touch $MARK"
expect_rc 0 "the undamaged plan runs"
check_match "it printed RAN" '^RAN$' "$OUT"
check "it created the marker" test -e "$MARK"
rm -f "$MARK"
size=$(stat -c %s "$T/good.plan")
echo "   plan size: $size bytes"

# refused PLAN WHAT: the plan is refused: 78, exactly one stderr line `tartaros:`, no run.
refused() {
    local plan=$1 what=$2 lines
    sbx "$plan" /bin/sh -c "echo RAN; touch $MARK"
    expect_rc 78 "$what"
    lines=$(line_count "$ERR")
    check_eq "$what: exactly one stderr line" 1 "$lines"
    check_match "$what: it starts with tartaros:" '^tartaros:' "$ERR"
    check_no_match "$what: the command did not run" '^RAN$' "$OUT"
    check_not "$what: no marker" test -e "$MARK"
    rm -f "$MARK"
}

section "damaged plans"
: >"$T/empty.plan"
refused "$T/empty.plan" "empty file"
mkdir "$T/dir.plan"
refused "$T/dir.plan" "a directory"
refused "$T/missing.plan" "a missing file"
echo "this is not a plan" >"$T/text.plan"
refused "$T/text.plan" "a text file"
for cut in 1 4 8 12 16 24 32 48 64 96 $((size / 2)) $((size - 8)) $((size - 1)); do
    [ "$cut" -gt 0 ] && [ "$cut" -lt "$size" ] || continue
    head -c "$cut" "$T/good.plan" >"$T/cut.plan"
    refused "$T/cut.plan" "truncated to $cut bytes"
done
cat "$T/good.plan" >"$T/long.plan"
printf 'X' >>"$T/long.plan"
refused "$T/long.plan" "one byte appended"

# flip OFFSET MASK: a copy of the good plan with the byte at OFFSET xor MASK.
flip() {
    cp "$T/good.plan" "$T/flip.plan"
    flip_byte "$T/flip.plan" "$1" "$2"
}
mask=1
for off in 0 3 4 8 12 16 20 24 28 32 40 48 64 $((size / 4)) $((size / 2)) $((size * 3 / 4)) $((size - 1)); do
    [ "$off" -lt "$size" ] || continue
    flip "$off" "$mask"
    refused "$T/flip.plan" "byte $off xor $mask"
    mask=$((mask == 128 ? 1 : mask * 2))
done

section "explain refuses a damaged plan too"
head -c $((size / 2)) "$T/good.plan" >"$T/cut.plan"
capture_as "$COMPILE" --explain "$T/cut.plan"
expect_rc 78 "tartaros-compile --explain of a truncated plan"
check_match "first stderr line starts with tartaros:" '^tartaros:' "${ERR%%$'\n'*}"

section "bad usage of tartaros-exec"
# usage WHAT ARGS...: exit 78, first stderr line tartaros:, RAN never printed.
usage() {
    local what=$1
    shift
    capture_as "$EXEC" "$@"
    expect_rc 78 "$what"
    check_match "$what: first stderr line starts with tartaros:" '^tartaros:' \
        "${ERR%%$'\n'*}"
    check_no_match "$what: nothing ran" '^RAN$' "$OUT"
}
usage "no arguments"
usage "no --" "$T/good.plan" /bin/echo RAN
usage "only a plan" "$T/good.plan"
usage "no command after --" "$T/good.plan" --
usage "no plan" -- /bin/echo RAN
usage "unknown option" --no-such-option "$T/good.plan" -- /bin/echo RAN

it_finish
