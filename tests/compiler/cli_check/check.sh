#!/bin/bash
# tests/compiler/cli_check/check.sh TARTAROS TARTAROS_COMPILE SHARE_DIR — the `tartaros` command line end to
# end, without running a sandbox:
#  - the run flags (listed here, independently of the option table) are exactly the rows
#    of `tartaros run --help`, each with its policy field, and each appears in --help, in the
#    bash and zsh completions and in the man page; the files the build installed under
#    SHARE_DIR are what the binary prints now;
#  - docs/tartaros-run.md's table has every flag but --help with the same field;
#  - the bash completion parses (bash -n) and completes subcommands, flags, variable names
#    and commands after --; zsh -n and groff -ww (every man page) when those are installed;
#  - every usage error and bad value is a refusal: exit 78, first stderr line "tartaros:";
#    conflicts with a --config file name both places;
#  - compile writes the plan tartaros-compile writes; tartaros-compile ARGS is tartaros compile
#    ARGS (the same help but for the program's name, the same refusals); explain, verify (a
#    good plan, a cut one, one with a byte flipped), lint (0/1/78) work;
#  - tartaros without tartaros-cli next to it, and run without tartaros-exec next to them, are
#    start-up failures (125) that name where they looked.
set -u
tartaros=$(realpath "$1")
compile=$(realpath "$2")
share=$(realpath "$3")
docs=$(cd "$(dirname "$0")/../../../docs" && pwd)/tartaros-run.md
work=$(mktemp -d /tmp/tartaros-cli-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export XDG_CACHE_HOME=$work/cache  # tartaros run's plan cache: this test's, not the caller's
failures=0
checks=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

ok() {
    checks=$((checks + 1))
}

# refused PREFIX ARGS...: tartaros ARGS exits 78 and its first stderr line starts with PREFIX.
refused() {
    local prefix=$1 first
    shift
    ok
    "$tartaros" "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    [ "$rc" -eq 78 ] || fail "tartaros $* exited $rc, not 78"
    first=$(head -n 1 "$work/err")
    case $first in
    "$prefix"*) ;;
    *) fail "tartaros $*: first stderr line is not '$prefix...': $first" ;;
    esac
}

# The flags that build a policy and the launcher's, with the field each sets.
declare -A FIELD=(
    [--write]="[filesystem] writable_roots" [--read-deny]="[filesystem] read_denies"
    [--read-allow]="[filesystem] read_allows" [--write-deny]="[filesystem] write_denies"
    [--port]="[network] local_ports" [--allow-domain]="[network] allow_domains"
    [--isolate-pids]="[process] isolate_pids" [--isolate-proc]="[process] isolate_proc"
    [--seccomp-strict]="[process] harden_syscalls" [--materialize]="[filesystem] materialize"
    [--max-procs]="[process] max_processes" [--inherit-env]="[env] inherit"
    [--env]="[env] passthrough, [env] set" [--private-tmp]="[filesystem] private_tmp"
    [--private-dir]="[filesystem] private_dirs"
    [--deny-unix]="[network] deny_unix" [--log]="(the launcher)" [--config]="(the launcher)"
    [--strict]="(the launcher)" [--no-cache]="(the launcher)" [--help]="(the launcher)"
)

echo "-- help, completions and the man page cover every flag"
"$tartaros" --help >help.txt 2>&1 || fail "--help exited non-zero"
"$tartaros" run --help >run-help.txt 2>&1 || fail "run --help exited non-zero"
"$tartaros" completion bash >bash.txt || fail "completion bash"
"$tartaros" completion zsh >zsh.txt || fail "completion zsh"
"$tartaros" man >man.txt || fail "man"
rows=$(sed -n 's/^  \(--[a-z-]*\).*/\1/p' run-help.txt | sort)
[ "$rows" = "$(printf '%s\n' "${!FIELD[@]}" | sort)" ] ||
    fail "run --help's flags differ from the expected ones: $(echo "$rows" | tr '\n' ' ')"
for flag in "${!FIELD[@]}"; do
    ok
    line=$(grep -E -- "^  $flag( [][A-Z=]+)? " run-help.txt)
    [[ $line == *" ${FIELD[$flag]}" ]] || fail "run --help: $flag without its field ${FIELD[$flag]}: $line"
    grep -Eq -- "^  $flag( |$)" help.txt || fail "--help does not list $flag"
    grep -Fq -- "$flag" bash.txt || fail "the bash completion lacks $flag"
    grep -Fq -- "'${flag}[" zsh.txt || grep -Fq -- "'*${flag}[" zsh.txt || fail "the zsh completion lacks $flag"
    grep -Fq -- "${flag//-/\\-}" man.txt || fail "the man page lacks $flag"
done
for flag in "${!FIELD[@]}"; do
    [ "$flag" = --help ] && continue
    ok
    field=${FIELD[$flag]}
    [ "$field" = "(the launcher)" ] || field="\`$field\`"
    grep -E -- "^\| \`$flag( [][A-Z=]+)?\` \|" "$docs" | grep -Fq -- "| $field |" ||
        fail "docs/tartaros-run.md: no row for $flag with $field"
done
for sub in run compile explain verify print-policy lint completion man; do
    ok
    grep -q "^  $sub " help.txt || fail "--help lacks the command $sub"
    grep -q "^\\.B tartaros $sub" man.txt || fail "the man page lacks the command $sub"
    grep -Fq "'$sub:" zsh.txt || fail "the zsh completion lacks the command $sub"
done
grep -q "^Merge rules" run-help.txt || fail "run --help has no merge rules"
grep -q "^\\.SH MERGE RULES" man.txt || fail "the man page has no merge rules"
for page in tartaros-compile tartaros-exec tartaros-policy; do
    "$tartaros" man "$page" >"$page.txt" || fail "man $page"
done
for pair in "bash-completion/completions/tartaros:bash.txt" "zsh/site-functions/_tartaros:zsh.txt" \
    "man/man1/tartaros.1:man.txt" "man/man1/tartaros-compile.1:tartaros-compile.txt" \
    "man/man1/tartaros-exec.1:tartaros-exec.txt" "man/man5/tartaros-policy.5:tartaros-policy.txt"; do
    ok
    cmp -s "$share/${pair%%:*}" "${pair#*:}" || fail "$share/${pair%%:*} is not what the binary prints"
done

echo "-- the completion scripts"
ok
bash -n bash.txt || fail "bash -n on the bash completion"
# complete_words WORDS...: what the bash completion offers for the last word.
complete_words() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tartaros; printf "%s\n" "${COMPREPLY[@]}"' \
        sh "$work/bash.txt" "$@"
}
TARTAROS_CLI_TEST_VAR=1 export TARTAROS_CLI_TEST_VAR
[ "$(complete_words tartaros ru)" = run ] || fail "bash: 'tartaros ru' does not complete to run"
[ "$(complete_words tartaros run --max)" = --max-procs ] || fail "bash: '--max' does not complete to --max-procs"
[ "$(complete_words tartaros run --env TARTAROS_CLI_TEST_)" = TARTAROS_CLI_TEST_VAR ] ||
    fail "bash: '--env' does not complete variable names"
mkdir -p dir.d && : >dir.d/file1
[ "$(complete_words tartaros run --write dir.d/)" = dir.d/file1 ] || fail "bash: '--write' does not complete paths"
complete_words tartaros run --strict -- bas | grep -qx bash || fail "bash: no command completion after --"
[ "$(complete_words tartaros completion z)" = zsh ] || fail "bash: 'completion z' does not complete to zsh"
[ "$(complete_words tartaros man tartaros-p)" = tartaros-policy ] || fail "bash: 'man tartaros-p' does not complete"
if command -v zsh >/dev/null; then
    ok
    zsh -n zsh.txt || fail "zsh -n on the zsh completion"
else
    echo "   (zsh is not installed: its completion is not syntax-checked)"
fi
if command -v groff >/dev/null; then
    for page in man tartaros-compile tartaros-exec tartaros-policy; do
        ok
        warnings=$(groff -man -ww -z $page.txt 2>&1)
        [ -z "$warnings" ] || fail "groff warns about the man page $page: $warnings"
    done
fi

echo "-- usage errors and bad values are refusals"
refused "tartaros: usage: missing a command"
refused "tartaros: usage: unknown command 'rn'; did you mean 'run'?" rn
refused "tartaros: usage: unexpected 'true' before --" run true
refused "tartaros: usage: missing -- CMD" run --strict
refused "tartaros: usage: missing the command after --" run --
refused "tartaros: usage: unknown option '--bogus'" run --bogus -- true
refused "tartaros: usage: --write needs a PATH" run --write
refused "tartaros: usage: --max-procs needs a N" run --max-procs -- true
refused "tartaros: usage: --strict takes no value" run --strict=1 -- true
refused "tartaros: usage: --config is given twice" run --config a --config b -- true
refused "tartaros: usage: expected exactly one POLICY" compile
refused "tartaros: usage: expected exactly one POLICY" print-policy
refused "tartaros: usage: unknown option '--json'" print-policy --json
refused "tartaros: cannot read missing.tart: No such file or directory" print-policy missing.tart
refused "tartaros: usage: missing -o PLAN.bin" compile x.toml
refused "tartaros: usage: expected exactly one PLAN.bin" explain
refused "tartaros: usage: expected exactly one PLAN.bin" verify
refused "tartaros: usage: unknown option '--json'" verify --json
refused "tartaros: cannot read missing.bin: No such file or directory" verify missing.bin
refused "tartaros: usage: unknown option '--bogus' (see tartaros compile --help)" compile --bogus
ok
"$compile" --bogus 2>err
[ $? -eq 78 ] || fail "tartaros-compile --bogus: not 78"
[ "$(cat err)" = "tartaros: usage: unknown option '--bogus' (see tartaros-compile --help)" ] ||
    fail "tartaros-compile --bogus: $(cat err)"
ok
"$tartaros" compile --help >compile-help.txt || fail "tartaros compile --help"
"$compile" --help | sed 's/tartaros-compile/tartaros compile/g' | cmp -s - compile-help.txt ||
    fail "tartaros compile --help and tartaros-compile --help differ beyond the program's name"
refused "tartaros: usage: expected at least one POLICY.toml" lint
refused "tartaros: usage: unknown shell 'fish'" completion fish
refused "tartaros: usage: no page 'x': expected one of tartaros, tartaros-compile, tartaros-exec, tartaros-policy" man x
refused "tartaros: usage: unexpected argument 'x'" man tartaros x
refused "tartaros: --read-deny: '/x/*.pem' contains the glob character '*'; globs are not supported on Linux" \
    run --read-deny '/x/*.pem' -- true
refused "tartaros: --write: 'a/[b]' contains the glob character '['" run --write 'a/[b]' -- true
refused "tartaros: --port: 'http' is not a port number" run --port http -- true
refused "tartaros: --max-procs: '0' is out of range" run --max-procs 0 -- true
refused "tartaros: --allow-domain: '*.com' is too broad" run --allow-domain '*.com' -- true
refused "tartaros: --env: 'A-B' is not a valid environment variable name" run --env A-B -- true
refused "tartaros: --env: 'A-B' is not a valid environment variable name" run --env A-B=value -- true
refused "tartaros: cannot read missing.toml: No such file or directory" run --config missing.toml -- true

printf 'version = 1\n[filesystem]\nread_scope = "all"\nprivate_tmp = false\n[process]\nmax_processes = 32\n' >p.toml
refused "tartaros: --max-procs 64 conflicts with max_processes = 32 at p.toml:6:17; say it in one place" \
    run --config p.toml --max-procs 64 -- true
refused "tartaros: --private-tmp conflicts with private_tmp = false at p.toml:4:15; say it in one place" \
    run --config p.toml --private-tmp -- true
refused "tartaros: --read-deny / conflicts with read_scope = \"all\" at p.toml:3:14; say it in one place" \
    run --config p.toml --read-deny / -- true
printf 'version = 1\n[env]\nset = { CI = "1" }\n' >env.toml
refused "tartaros: --env CI=... conflicts with another value of CI in [env] set at env.toml:3:14; say it in one place" \
    run --config env.toml --env CI=true -- true
refused "tartaros: --env CI=... conflicts with an earlier --env CI=... of another value; say it once" \
    run --env CI=1 --env CI=2 -- true
"$tartaros" run --config p.toml --max-procs 64 --private-tmp -- true 2>err >/dev/null
[ "$(wc -l <err)" -eq 2 ] || fail "both conflicts are reported: $(cat err)"
printf 'version = 1\n[network]\nallow_unix_socket_paths = ["/run/x.sock"]\n' >unix.toml
refused "tartaros: unix.toml: 1 error" run --config unix.toml -- true
grep -q "^unix.toml:3:1: error: .*'--deny-unix' \\[unsupported\\]$" err ||
    fail "allow_unix_socket_paths is refused pointing at --deny-unix: $(cat err)"
printf 'version = 1\n[filesystem]\nwritable_roots = ["w"]\nglob_denies = ["*.pem"]\n' >glob.toml
refused "tartaros: glob.toml: 1 error" run --config glob.toml -- true

echo "-- compile, explain, lint"
printf 'version = 1\n[filesystem]\nwritable_roots = ["ws"]\n' >good.toml
ok
"$tartaros" compile good.toml -o a.bin || fail "tartaros compile good.toml"
"$compile" good.toml -o b.bin || fail "tartaros-compile good.toml"
cmp -s a.bin b.bin || fail "tartaros compile and tartaros-compile write different plans"
[ "$(stat -c %a a.bin)" = 644 ] || fail "the plan's mode is not 644"
"$tartaros" explain a.bin | grep -q '^steps in execution order:' || fail "tartaros explain"
"$tartaros" explain a.bin --json | grep -q '^{' || fail "tartaros explain --json"
refused "tartaros: good.toml: invalid plan: " explain good.toml
ok
"$tartaros" verify a.bin >verify.out 2>&1 || fail "tartaros verify of a fresh plan: $(cat verify.out)"
[ "$(wc -l <verify.out)" -eq 1 ] && grep -q '^a.bin: ok: ' verify.out || fail "tartaros verify: $(cat verify.out)"
head -c 600 a.bin >cut.bin
refused "tartaros: cut.bin: the plan reader refuses it: " verify cut.bin
cp a.bin flipped.bin
printf '\xff' | dd of=flipped.bin bs=1 seek=$(($(stat -c %s a.bin) - 100)) conv=notrunc status=none
refused "tartaros: flipped.bin: the plan reader refuses it: " verify flipped.bin
"$compile" --explain a.bin >c-explain.txt && "$tartaros" compile --explain a.bin | cmp -s - c-explain.txt ||
    fail "tartaros compile --explain and tartaros-compile --explain differ"
printf 'version 1;\nfilesystem { writable_roots "ws"; }\n' >good.tart
"$tartaros" compile good.tart -o t.bin || fail "tartaros compile good.tart"
"$tartaros" print-policy good.toml >toml.printed || fail "tartaros print-policy good.toml"
"$compile" --print-policy good.tart >tart.printed || fail "tartaros-compile --print-policy good.tart"
cmp -s toml.printed tart.printed || fail "print-policy: good.toml and good.tart print differently"
grep -qx "    writable_roots \"$PWD/ws\";" toml.printed || fail "print-policy: $(cat toml.printed)"
refused "tartaros: unix.toml: 1 error" compile unix.toml -o c.bin
[ -e c.bin ] && fail "a refused compile wrote a plan"
ok
"$tartaros" lint good.toml >lint.out 2>&1 || fail "lint of a clean file: not 0: $(cat lint.out)"
grep -qx '1 file, 0 errors, 0 warnings' lint.out || fail "lint summary: $(cat lint.out)"
printf 'version = 1\n[filesystem]\nwritable_roots = ["/a/*"]\nread_denies = ["/x", "/x"]\n' >bad.toml
"$tartaros" lint good.toml bad.toml glob.toml >lint.out 2>&1
[ $? -eq 1 ] || fail "lint with errors: not 1"
grep -q "^bad.toml:3:19: error: writable_roots: '/a/\\*' contains the glob character" lint.out ||
    fail "lint prints file:line:col: $(cat lint.out)"
grep -q '^bad.toml:4:22: warning: ' lint.out || fail "lint prints warnings: $(cat lint.out)"
grep -qx '3 files, 2 errors, 1 warning' lint.out || fail "lint summary: $(tail -n 1 lint.out)"
refused "tartaros: cannot read nothere.toml: No such file or directory" lint good.toml nothere.toml

echo "-- tartaros needs tartaros-cli, and run tartaros-exec, next to itself"
mkdir alone && cp "$tartaros" alone/tartaros
ok
alone/tartaros run -- true 2>err
rc=$?
[ "$rc" -eq 125 ] || fail "tartaros without tartaros-cli exited $rc, not 125"
grep -q "^tartaros: cannot find tartaros-cli, the compiler: $work/alone/tartaros-cli: No such file or directory" err ||
    fail "tartaros without tartaros-cli: $(cat err)"
cp "$(dirname "$tartaros")/tartaros-cli" alone/tartaros-cli
ok
alone/tartaros run -- true 2>err
rc=$?
[ "$rc" -eq 125 ] || fail "run without tartaros-exec exited $rc, not 125"
grep -q "^tartaros: cannot find tartaros-exec: $work/alone/tartaros-exec: No such file or directory" err ||
    fail "run without tartaros-exec: $(cat err)"

echo "-- warnings before the enforcer keep the signature"
printf 'version = 1\n[filesystem]\nread_denies = ["/x", "/x"]\n' >warn.toml
alone/tartaros run --config warn.toml -- true 2>err
[ "$(head -n 1 err)" = "tartaros: warn.toml: 1 warning" ] || fail "the first line of a run with warnings: $(cat err)"
grep -q "^warn.toml:3:22: warning: '/x' is already listed" err || fail "the warning itself: $(cat err)"

echo "== tartaros cli: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
