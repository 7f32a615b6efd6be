#!/bin/bash
# tests/compiler/lint_cli/check.sh cli|pre-commit TARTAROS TARTAROS_COMPILE — the lint command end to end.
#
# cli: `tartaros lint` and `tartaros-compile --lint` are one pipeline: byte-identical output
#   and exit codes in every format; 0 clean, 1 on errors or (with --werror) warnings, 78 with
#   a first stderr line "tartaros:" for unreadable files (every one named, nothing on stdout)
#   and bad usage; several files in one run; notes never printed; the text, JSON and SARIF
#   reports agree finding by finding and have the right shape (check_reports.py).
# pre-commit: the hook of this checkout's .pre-commit-hooks.yaml, used by path from a
#   temporary hook repository, in a temporary project: `git commit` of a bad policy is blocked
#   with the diagnostic shown, the fixed policy commits, a TOML that is not a policy is left
#   alone, and `files:` can be overridden. pre-commit comes from scripts/install-deps; when it
#   is absent the test is skipped (exit 77). The commits run without a network when this host
#   can make a network namespace: language: system needs none.
set -u
mode=$1
tartaros=$(realpath "$2")
compile=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../../.." && pwd)
work=$(mktemp -d /tmp/tartaros-lint-cli-XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
failures=0
checks=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

ok() {
    checks=$((checks + 1))
}

finish() {
    echo "== lint $mode: $checks checks, $failures failed"
    [ "$failures" -eq 0 ]
    exit
}

# --- cli -----------------------------------------------------------------------------------

# both NAME ARGS...: runs `tartaros lint ARGS` and `tartaros-compile --lint ARGS`; their stdout
# must be identical and so must the exit code, kept in $rc; the output is left in NAME.out.
both() {
    local name=$1 rc2
    shift
    ok
    "$tartaros" lint "$@" >"$name.out" 2>"$name.err"
    rc=$?
    "$compile" --lint "$@" >"$name.out2" 2>"$name.err2"
    rc2=$?
    [ "$rc" -eq "$rc2" ] || fail "$name: tartaros lint exited $rc, tartaros-compile --lint $rc2"
    cmp -s "$name.out" "$name.out2" || fail "$name: the two commands print different reports"
}

# expect_rc NAME WANTED: the last both() exited WANTED.
expect_rc() {
    ok
    [ "$rc" -eq "$2" ] || fail "$1: exit $rc, not $2: $(head -c 2000 "$1.out" "$1.err")"
}

# refused PREFIX ARGS...: both commands exit 78, the first stderr line starts with
# PREFIX (tartaros-compile's usage lines say "--lint: " after "usage: "), stdout empty.
refused() {
    local prefix=$1 first out
    shift
    for command in "$tartaros lint" "$compile --lint"; do
        ok
        # shellcheck disable=SC2086
        $command "$@" >refused.out 2>refused.err
        out=$?
        [ "$out" -eq 78 ] || fail "$command $*: exit $out, not 78"
        [ -s refused.out ] && fail "$command $*: printed on stdout: $(cat refused.out)"
        first=$(head -n 1 refused.err)
        [[ $command == "$compile"* ]] && prefix=${prefix/tartaros: usage: /tartaros: usage: --lint: }
        [[ $first == "$prefix"* ]] || fail "$command $*: first stderr line is not '$prefix...': $first"
    done
}

# reports NAME ARGS...: the three formats of one run agree and have their shapes, and every
# rule's help link names a section of docs/lint-rules.md.
reports() {
    local name=$1
    shift
    both "$name-text" "$@"
    both "$name-json" --format json "$@"
    both "$name-sarif" --format=sarif "$@"
    ok
    python3 "$here/check_reports.py" "$name-text.out" "$name-json.out" "$name-sarif.out" \
        "$source_dir/docs/lint-rules.md" ||
        fail "$name: the reports disagree or are malformed (above)"
}

cli() {
    cd "$work" || exit 1
    printf 'version = 1\n[filesystem]\nwritable_roots = ["ws"]\n' >good.tartaros.toml
    printf 'version = 1\n[filesystem]\nwritable_roots = ["/a/*"]\nread_denies = ["/x", "/x"]\n' >bad.tartaros.toml
    printf 'version = 1\n[filesystem]\nread_denies = ["/x", "/x"]\n' >warn.tartaros.toml
    printf 'version = 1\n[filesystem\n' >syntax.tartaros.toml
    # A name that JSON must escape and a URI must percent-encode.
    weird=$(printf 'we"ird dir #1/caf\xc3\xa9 ?.toml')
    mkdir -p "$(dirname "$weird")"
    printf 'version = 1\n[filesystem]\nread_denies = ["/y/*"]\n' >"$weird"

    echo "-- exit codes, and the same output from both commands"
    both clean good.tartaros.toml
    expect_rc clean 0
    [ "$(cat clean.out)" = "1 file, 0 errors, 0 warnings" ] || fail "clean: $(cat clean.out)"
    both warn warn.tartaros.toml
    expect_rc warn 0
    grep -q '^warn.tartaros.toml:3:22: warning: .* \[[a-z0-9-]*\]$' warn.out || fail "warn: $(cat warn.out)"
    both werror --werror warn.tartaros.toml
    expect_rc werror 1
    cmp -s warn.out werror.out || fail "--werror changes the report, not only the exit code"
    both werror-clean good.tartaros.toml --werror
    expect_rc werror-clean 0
    both several good.tartaros.toml bad.tartaros.toml warn.tartaros.toml
    expect_rc several 1
    grep -q "^bad.tartaros.toml:3:19: error: writable_roots: '/a/\\*' contains the glob character '\\*'.* \\[[a-z0-9-]*\\]$" \
        several.out || fail "several: bad.tartaros.toml's error: $(cat several.out)"
    [ "$(grep -c '^[a-z.]*toml:[0-9]*:[0-9]*: warning: ' several.out)" -eq 2 ] || fail "several: the two warnings"
    grep -qx 'writable_roots = \["/a/\*"\]' several.out || fail "several: no source line: $(cat several.out)"
    grep -qx '                  ^' several.out || fail "several: no caret under column 19: $(cat several.out)"
    grep -qx '3 files, 1 error, 2 warnings' several.out || fail "several: summary: $(tail -n 1 several.out)"
    grep -q ': note: ' several.out && fail "several: notes are printed"
    both syntax syntax.tartaros.toml
    expect_rc syntax 1
    grep -q '^syntax.tartaros.toml:2:[0-9]*: error: ' syntax.out || fail "syntax: $(cat syntax.out)"
    cp good.tartaros.toml ./-dash.toml
    both dash -- -dash.toml
    expect_rc dash 0

    echo "-- the text, JSON and SARIF reports agree"
    reports clean good.tartaros.toml
    reports mixed good.tartaros.toml bad.tartaros.toml warn.tartaros.toml syntax.tartaros.toml "$weird"
    reports examples "$source_dir/examples/agent.toml" "$source_dir/examples/strict.toml"
    expect_rc examples-sarif 0
    ok
    python3 - mixed-json.out mixed-sarif.out "$weird" <<'EOF' || fail "the escaped name: see above"
import json, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
sarif = json.load(open(sys.argv[2], encoding="utf-8"))
name = sys.argv[3]
assert any(d["file"] == name for d in report["diagnostics"]), f"no diagnostic names {name!r}"
uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]]
assert "we%22ird%20dir%20%231/caf%C3%A9%20%3F.toml" in uris, uris
assert report["files"] == 5 and report["errors"] >= 3 and report["warnings"] >= 2, report
EOF
    both sarif-werror --format sarif --werror warn.tartaros.toml
    expect_rc sarif-werror 1

    echo "-- refusals: unreadable files and bad usage"
    refused "tartaros: cannot read nothere.toml: No such file or directory" good.tartaros.toml nothere.toml
    mkdir -p adir.toml
    for command in "$tartaros lint" "$compile --lint"; do
        ok
        # shellcheck disable=SC2086
        $command --format json nothere.toml good.tartaros.toml adir.toml >refused.out 2>refused.err
        [ $? -eq 78 ] || fail "$command: two unreadable files: not 78"
        [ "$(grep -c '^tartaros: cannot read ' refused.err)" -eq 2 ] || fail "$command: each unreadable file: $(cat refused.err)"
        grep -q '^tartaros: cannot read adir.toml: ' refused.err || fail "$command: the directory: $(cat refused.err)"
        [ -s refused.out ] && fail "$command: a report despite an unreadable file: $(cat refused.out)"
    done
    refused "tartaros: usage: expected at least one POLICY.toml"
    refused "tartaros: usage: expected at least one POLICY.toml" --werror
    refused "tartaros: usage: --format needs text, json or sarif" good.tartaros.toml --format
    refused "tartaros: usage: unknown format 'xml': expected text, json or sarif" --format xml good.tartaros.toml
    refused "tartaros: usage: unknown format '': expected" --format= good.tartaros.toml
    refused "tartaros: usage: unknown option '--bogus'" --bogus good.tartaros.toml
    refused "tartaros: usage: unknown option '-o'" good.tartaros.toml -o plan.bin
    [ -e plan.bin ] && fail "lint wrote a plan"

    echo "-- help"
    ok
    "$tartaros" lint --help >help.out 2>&1 || fail "tartaros lint --help: not 0"
    grep -q '^usage: tartaros lint .*--format.*--werror' help.out || fail "tartaros lint --help: $(cat help.out)"
    "$compile" --lint --help >help.out 2>&1 || fail "tartaros-compile --lint --help: not 0"
    grep -q -- '--lint \[--format text|json|sarif\] \[--werror\] POLICY.toml' help.out ||
        fail "tartaros-compile --help lacks --lint: $(cat help.out)"
    "$tartaros" completion bash | grep -q -- '--format' || fail "the bash completion lacks lint's --format"
    "$tartaros" completion zsh | grep -q -- "--format" || fail "the zsh completion lacks lint's --format"
    finish
}

# --- pre-commit ------------------------------------------------------------------------------

# commit NAME MESSAGE: `git commit` in the project (the hook runs), offline when possible;
# its exit code in $rc, its output in NAME.log.
commit() {
    ok
    (cd project && $offline git commit -q -m "$2") >"$work/$1.log" 2>&1
    rc=$?
}

pre_commit() {
    if ! command -v pre-commit >/dev/null; then
        echo "SKIP: pre-commit is not installed (scripts/install-deps installs Debian's pre-commit)"
        exit 77
    fi
    cd "$work" || exit 1
    # Everything pre-commit and git write stays here: no user config, cache or identity.
    export HOME=$work/home PRE_COMMIT_HOME=$work/pre-commit-cache XDG_CACHE_HOME=$work/cache
    export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Lint GIT_AUTHOR_EMAIL=lint@example.invalid
    export GIT_COMMITTER_NAME=Lint GIT_COMMITTER_EMAIL=lint@example.invalid
    PATH=$(dirname "$tartaros"):/usr/bin:/bin
    export PATH
    unset PRE_COMMIT_ALLOW_NO_CONFIG SKIP
    mkdir -p "$HOME"
    offline=""
    if unshare --net true 2>/dev/null; then offline="unshare --net"
    elif unshare --user --map-root-user --net true 2>/dev/null; then offline="unshare --user --map-root-user --net"
    fi
    if [ -n "$offline" ]; then echo "   (the commits run without a network: $offline)"
    else echo "   (no network namespace here: the commits run with the host's network)"
    fi

    echo "-- a hook repository holding this checkout's .pre-commit-hooks.yaml"
    git init -q -b main hooks && cp "$source_dir/.pre-commit-hooks.yaml" hooks/ &&
        git -C hooks add .pre-commit-hooks.yaml && git -C hooks commit -q -m hooks || exit 1
    rev=$(git -C hooks rev-parse HEAD)

    echo "-- a project using it by path and rev"
    git init -q -b main project || exit 1
    printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: tartaros-lint\n' "$work/hooks" "$rev" \
        >project/.pre-commit-config.yaml
    (cd project && pre-commit install) >install.log 2>&1 || { fail "pre-commit install: $(cat install.log)"; finish; }
    git -C project add .pre-commit-config.yaml
    commit config "the pre-commit configuration"
    [ "$rc" -eq 0 ] || fail "committing the configuration: $(cat config.log)"

    echo "-- a bad policy is blocked, the fixed one commits"
    printf 'version = 1\n[filesystem]\nwritable_roots = ["/a/*"]\n' >project/agent.tartaros.toml
    git -C project add agent.tartaros.toml
    commit bad "a bad policy"
    [ "$rc" -ne 0 ] || fail "the commit of a bad policy was not blocked: $(cat bad.log)"
    grep -q "^agent.tartaros.toml:3:19: error: writable_roots: '/a/\\*' contains the glob character" bad.log ||
        fail "the hook's diagnostic is not shown: $(cat bad.log)"
    grep -q '^tartaros lint.*Failed' bad.log || fail "pre-commit does not report the hook failed: $(cat bad.log)"
    [ "$(git -C project rev-list --count HEAD)" -eq 1 ] || fail "a commit was made despite the failed hook"
    printf 'version = 1\n[filesystem]\nwritable_roots = ["ws"]\n' >project/agent.tartaros.toml
    git -C project add agent.tartaros.toml
    commit fixed "the fixed policy"
    [ "$rc" -eq 0 ] || fail "the fixed policy did not commit: $(cat fixed.log)"
    grep -q '^tartaros lint.*Passed' fixed.log || fail "the hook did not run on the fixed policy: $(cat fixed.log)"
    git -C project show --stat HEAD | grep -q 'agent.tartaros.toml' || fail "the fixed policy is not in the commit"

    echo "-- the naming convention: .tartaros/*.toml is linted, other TOML is not"
    mkdir -p project/.tartaros
    printf 'version = 1\n[filesystem]\nread_denies = ["/b/*"]\n' >project/.tartaros/ci.toml
    git -C project add .tartaros/ci.toml
    commit dotdir "a policy under .tartaros/"
    [ "$rc" -ne 0 ] || fail ".tartaros/ci.toml was not linted: $(cat dotdir.log)"
    grep -q '^.tartaros/ci.toml:3:16: error: ' dotdir.log || fail ".tartaros/ci.toml's diagnostic: $(cat dotdir.log)"
    git -C project rm -q --cached .tartaros/ci.toml
    rm -r project/.tartaros
    printf '[tool.black]\nline-length = 100\n' >project/pyproject.toml
    git -C project add pyproject.toml
    commit other "a TOML that is no policy"
    [ "$rc" -eq 0 ] || fail "a TOML that is no policy was linted: $(cat other.log)"
    grep -q '^tartaros lint.*(no files to check)Skipped' other.log || fail "pyproject.toml was passed: $(cat other.log)"

    echo "-- files: overridden in the project's configuration"
    printf '        files: ^policies/.*\\.toml$\n' >>project/.pre-commit-config.yaml
    mkdir -p project/policies
    printf 'version = 1\n[filesystem]\nwritable_roots = ["/c/*"]\n' >project/policies/dev.toml
    git -C project add .pre-commit-config.yaml policies/dev.toml
    commit override "a policy under policies/"
    [ "$rc" -ne 0 ] || fail "with files: ^policies/, policies/dev.toml was not linted: $(cat override.log)"
    grep -q '^policies/dev.toml:3:19: error: ' override.log || fail "policies/dev.toml's diagnostic: $(cat override.log)"
    finish
}

case $mode in
cli) cli ;;
pre-commit) pre_commit ;;
*) echo "usage: $0 cli|pre-commit TARTAROS TARTAROS_COMPILE" >&2; exit 2 ;;
esac
