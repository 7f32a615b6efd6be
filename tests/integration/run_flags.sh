#!/bin/bash
# `tartaros run`: every flag that builds a policy, for effect, through the one enforcer. A table holds a
# row per flag: the flags of the run, a benign case the flag's grant allows and an escape that
# stays blocked, both in one sandbox run; then a control run without the flag (for a flag on
# by default: a --config that turns its key off) shows that the flag is what made the
# difference: a grant's benign case fails without it, a deny's escape works without it. A
# conflicting --config is a refusal. Then what the table cannot say: --max-procs's stderr line
# (a cgroup as root, RLIMIT_NPROC in the sandbox's user namespace as a user), what
# --materialize, --private-tmp and --private-dir leave on the host, the plan's memfd not reaching the
# command, and the exit statuses (78 with the signature, 125, 127, the command's own).
. "$(dirname "$0")/lib.sh"
it_setup "$@"
. "$(dirname "$0")/limits_lib.sh"

TARTAROS=$IT_DIR/tartaros
[ -x "$TARTAROS" ] || die "fixture binary missing: $TARTAROS"
# lib.sh's sbx/sbx_script run "$EXEC [--strict] PLAN -- CMD"; here PLAN is the string of run
# flags (split on spaces, never globbed), and the wrapper records its pid (kept by both
# execs: the supervisor's) for limits_lib's cgroup checks and clean-up.
cat >"$T/bin/tartaros-run" <<EOF
#!/bin/sh
set -f
echo \$\$ >>"$SUPERVISORS"
strict=
[ "\$1" = --strict ] && strict=--strict && shift
flags=\$1
shift 2
exec "$TARTAROS" run \$strict \$flags -- "\$@"
EOF
chmod 755 "$T/bin/tartaros-run"
EXEC=$T/bin/tartaros-run

W=$T/ws
mkdir -p "$W/prot" "$W/.sockets" "$T/secret/ok" "$T/pub"
echo planted >"$W/.sockets/planted"
echo secret >"$T/secret/s"
echo allowed >"$T/secret/ok/f"
echo public >"$T/pub/p"
echo protected >"$W/prot/f"

hosttmp=/tmp/tartaros-it-run-flags-$$-$RANDOM
echo host-tmp >"$hosttmp"
chmod 644 "$hosttmp"
trap 'rm -f "$hosttmp"; limits_cleanup; it_cleanup' EXIT

use_net_helper
SERVICES=$T/.runs/services.out
serve_on_host "$SERVICES" upstream=tcp:127.0.0.1:0 other=tcp:127.0.0.1:0
P=$(service_port "$SERVICES" upstream)
Q=$(service_port "$SERVICES" other)
H=${HELPER[*]}

# --config files: the test domains pinned to the host server (the proxy resolves nothing else
# to loopback), and one per default-on switch turned off (the controls of those rows).
cat >"$T/pin.toml" <<EOF
version = 1
[network]
hosts = { "allowed.test" = "127.0.0.1", "other.test" = "127.0.0.1" }
domain_ports = [$P]
EOF
printf 'version = 1\n[process]\nisolate_pids = false\n' >"$T/pids_off.toml"
printf 'version = 1\n[process]\nisolate_proc = false\n' >"$T/proc_off.toml"
printf 'version = 1\n[process]\nharden_syscalls = false\n' >"$T/harden_off.toml"

# Whether this user can make a user namespace without a sandbox (the seccomp row's control).
capture_as unshare -U true
USERNS_BARE=$RC

# row NAME KIND FLAGS CONTROL_FLAGS BENIGN ESCAPE BLOCKED
#   FLAGS: the run's flags; CONTROL_FLAGS: the same without the flag under test ("-": no
#   control run, the caller says why).
#   BENIGN / ESCAPE: script lines printing benign=RESULT / escape=RESULT (it-probe, it-syscalls,
#   net_helper or lib.sh's `t`); BLOCKED: the regex of a blocked escape.
#   KIND grant: without the flag the benign case fails. deny: without it the escape works.
#   ROW_BEFORE, when set, is run (as root, on the host) before each of the two runs.
ROW_BEFORE=""
row() {
    local name=$1 kind=$2 flags=$3 control=$4 benign=$5 escape=$6 blocked=$7
    section "$name: $flags"
    [ -n "$ROW_BEFORE" ] && eval "$ROW_BEFORE"
    sbx_script "$flags" <<EOF
$benign
$escape
EOF
    expect_rc 0 "$name: exit status"
    expect benign ok "$name: the benign case works"
    expect escape "$blocked" "$name: the escape stays blocked"
    [ "$control" = - ] && return
    [ -n "$ROW_BEFORE" ] && eval "$ROW_BEFORE"
    sbx_script "$control" <<EOF
$benign
$escape
EOF
    if [ "$kind" = grant ]; then
        expect_not benign ok "$name: control without the flag: the benign case fails"
    else
        expect escape ok "$name: control without the flag: the escape works"
    fi
}


row --write grant "--write $W" "" \
    "$PROBE benign write $W/new" \
    "$PROBE escape write $T/pub/new" "$DENIED_WRITE"
row --read-deny deny "--write $W --read-deny $T/secret" "--write $W" \
    "$PROBE benign read $T/pub/p" \
    "$PROBE escape read $T/secret/s" "$DENIED_READ"
row "--read-deny (a file)" deny "--write $W --read-deny $T/secret/s" "--write $W" \
    "$PROBE benign read $T/secret/ok/f" \
    "$PROBE escape read $T/secret/s" EACCES
row --read-allow grant "--write $W --read-deny $T/secret --read-allow $T/secret/ok" "--write $W --read-deny $T/secret" \
    "$PROBE benign read $T/secret/ok/f" \
    "$PROBE escape read $T/secret/s" "$DENIED_READ"
SYSTEM_ALLOWS="--read-allow /usr --read-allow /lib --read-allow /lib64 --read-allow /bin --read-allow /sbin"
SYSTEM_ALLOWS="$SYSTEM_ALLOWS --read-allow /etc --read-allow /dev --read-allow /proc --read-allow $W"
SYSTEM_ALLOWS="$SYSTEM_ALLOWS --read-allow $IT_DIR"  # the probes
row "--read-deny / (read_scope granted)" deny "--write $W --read-deny / $SYSTEM_ALLOWS" \
    "--write $W $SYSTEM_ALLOWS" \
    "$PROBE benign read $W/prot/f" \
    "$PROBE escape read $T/pub/p" "$DENIED_READ"
row "--read-allow under --read-deny /" grant "--write $W --read-deny / $SYSTEM_ALLOWS --read-allow $T/pub" \
    "--write $W --read-deny / $SYSTEM_ALLOWS" \
    "$PROBE benign read $T/pub/p" \
    "$PROBE escape read $T/secret/ok/f" "$DENIED_READ"
row --write-deny deny "--write $W --write-deny $W/prot" "--write $W" \
    "$PROBE benign write $W/free" \
    "$PROBE escape write $W/prot/f" "$DENIED_WRITE"
mkdir -p "$T/mat"
ROW_BEFORE="rm -rf $T/mat/.git"
row --materialize grant "--write $T/mat --write-deny $T/mat/.git/hooks --materialize" \
    "--write $T/mat --write-deny $T/mat/.git/hooks" \
    "t benign test -d $T/mat/.git/hooks" \
    "$PROBE escape create $T/mat/.git/hooks/pre-commit" "$DENIED_WRITE|ENOENT|ENOTDIR"
ROW_BEFORE=""
check_not "control: without --materialize nothing is left behind" test -e "$T/mat/.git"
sbx "--write $T/mat --write-deny $T/mat/.git/hooks --materialize" /bin/true
check "--materialize: the materialized .git/hooks stays after the run" test -d "$T/mat/.git/hooks"
row --port grant "--write $W --port $P" "--write $W" \
    "$H client 'benign_reply tcp 127.0.0.1 $P' | grep -q '^benign_reply=upstream GET' && echo benign=ok || echo benign=no" \
    "$H client 'escape tcp 127.0.0.1 $Q'" "ECONNREFUSED|ENETUNREACH|EACCES|timeout"
row --allow-domain grant "--config $T/pin.toml --write $W --allow-domain allowed.test" "--config $T/pin.toml --write $W" \
    "$H client 'benign_reply get allowed.test:$P /benign' | grep -q '^benign_reply=200 upstream GET /benign' && echo benign=ok || echo benign=no" \
    "$H client 'escape get other.test:$P /escape'" "403 blocked-by-allowlist"
row --isolate-pids deny "--write $W --isolate-pids" "--config $T/pids_off.toml --write $W" \
    "t benign sh -c 'test \$(ps -e -o pid= | wc -l) -lt 20'" \
    "t escape test -e /proc/$$" 'fail\([0-9]+\)'
row --isolate-proc deny "--write $W --isolate-proc" "--config $T/proc_off.toml --write $W" \
    "t benign grep -q ^Pid: /proc/self/status" \
    "t escape test -e /proc/$$" 'fail\([0-9]+\)'
if [ "$USERNS_BARE" -eq 0 ]; then
    harden_control="--config $T/harden_off.toml --write $W"
else
    harden_control=-
    echo "  note  $RUN_USER cannot make a user namespace without a sandbox: no control run for --seccomp-strict"
fi
row --seccomp-strict deny "--write $W --seccomp-strict" "$harden_control" \
    "$SYSPROBE benign clone 0x11" \
    "t escape unshare -U true" 'fail\([0-9]+\)'
row --max-procs deny "--write $W --max-procs 8" "--write $W" \
    "$PROBE benign fork-count 4" \
    "$PROBE escape fork-count 100" EAGAIN
IT_ENV=(TARTAROS_IT_FOO=foo TARTAROS_IT_BAR=bar)
row --inherit-env grant "--write $W --inherit-env" "--write $W" \
    "t benign sh -c 'test \"\$TARTAROS_IT_BAR\" = bar'" \
    "t escape sh -c 'tr \"\\\\0\" \"\\\\n\" </proc/1/environ | grep TARTAROS_IT_'" 'fail\([0-9]+\)'
row --env grant "--write $W --env TARTAROS_IT_FOO" "--write $W" \
    "t benign sh -c 'test \"\$TARTAROS_IT_FOO\" = foo'" \
    "t escape sh -c 'test -n \"\$TARTAROS_IT_BAR\"'" 'fail\([0-9]+\)'
row "--env NAME=VALUE" grant "--write $W --env TARTAROS_IT_SET=a=b --env TARTAROS_IT_FOO" \
    "--write $W --env TARTAROS_IT_FOO" \
    "t benign sh -c 'test \"\$TARTAROS_IT_SET\" = a=b && test \"\$TARTAROS_IT_FOO\" = foo'" \
    "t escape sh -c 'test -n \"\$TARTAROS_IT_BAR\"'" 'fail\([0-9]+\)'
section "--env NAME=VALUE: the value whole, and it wins over the launcher's value"
capture_as "$TARTAROS" run --write "$W" --env "TARTAROS_IT_SET=two words=x" --env TARTAROS_IT_FOO=mine -- \
    /bin/sh -c 'printf "%s|%s|%s\n" "$TARTAROS_IT_SET" "$TARTAROS_IT_FOO" "${TARTAROS_IT_BAR-unset}"'
expect_rc 0 "exit status"
check_eq "spaces and '=' kept, the set value over the launcher's, an unnamed variable absent" \
    "two words=x|mine|unset" "$OUT"
IT_ENV=()
row --private-tmp grant "--write $W --private-tmp" "--write $W" \
    "t benign sh -c 'echo mine >/tmp/run-flags-tmp && grep -q mine /tmp/run-flags-tmp'" \
    "$PROBE escape read $hosttmp" "$DENIED_READ"
check_not "--private-tmp: the sandbox's /tmp file is not in the host's /tmp" test -e /tmp/run-flags-tmp
row --private-dir grant "--write $W --private-dir $W/.sockets" "--write $W" \
    "t benign /usr/bin/python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' $W/.sockets/s" \
    "$PROBE escape read $W/.sockets/planted" "$DENIED_READ"
check_not "--private-dir: the sandbox's socket is not in the host's directory" test -e "$W/.sockets/s"
row --deny-unix deny "--write $W --deny-unix" "--write $W" \
    "$SYSPROBE benign socket 2 1 0" \
    "$SYSPROBE escape socketpair 1 1 0" EPERM

section "a switch against the --config file's false is a refusal naming both"
for pair in "--isolate-pids:pids_off:isolate_pids" "--isolate-proc:proc_off:isolate_proc" \
    "--seccomp-strict:harden_off:harden_syscalls"; do
    IFS=: read -r flag file key <<<"$pair"
    sbx "--config $T/$file.toml --write $W $flag" /bin/sh -c 'echo RAN'
    expect_rc 78 "$flag with $key = false in the file"
    check_eq "$flag: the refusal names both" \
        "tartaros: $flag conflicts with $key = false at $T/$file.toml:3:$((${#key} + 4)); say it in one place" \
        "${ERR%%$'\n'*}"
    check_no_match "$flag: the command did not run" '^RAN$' "$OUT"
done

section "--max-procs: how the limit is enforced, and --strict"
sbx "--write $W --max-procs 8" "$PROBE" forks fork-count 100
expect forks.data 7 "the probe plus 7 children = --max-procs 8"
if [ "$RUN_USER" = root ]; then
    check_match "a line says the limit was hit" '^tartaros: max_processes 8 reached: the kernel refused 1 fork$' "$ERR"
    check_cgroups_gone "$(last_supervisor)" "after the run"
    sbx --strict "--write $W --max-procs 8" /bin/sh -c 'echo RAN'
    expect_rc 0 "--strict: the cgroup is there, the command runs"
else
    check_no_match "no warning: RLIMIT_NPROC in the sandbox's user namespace holds it" '^tartaros: warning' "$ERR"
    sbx --strict "--write $W --max-procs 8" "$PROBE" forks fork-count 100
    expect_rc 0 "--strict: RLIMIT_NPROC is exact, the command runs"
    expect forks.data 7 "--strict: the probe plus 7 children = --max-procs 8"
fi

section "the plan reaches tartaros-exec only"
sbx "--write $W" /bin/sh -c 'ls /proc/self/fd | tr "\n" " "; echo; readlink /proc/self/fd/* | grep -c tartaros-plan'
check_eq "the command holds only its standard descriptors (and ls's own)" "0 1 2 3 " "${OUT%%$'\n'*}"
check_match "no descriptor names the plan's memfd" '^0$' "$OUT"

section "exit statuses and the refusal signature"
sbx "--write $W" /bin/sh -c 'exit 7'
expect_rc 7 "the command's own status"
sbx "--write $W" /bin/sh -c 'kill -TERM $$'
expect_rc 143 "128 + SIGTERM"
sbx "--write $W" /nonexistent/command
expect_rc 127 "a missing command"
sbx --strict "--write $W" /bin/sh -c 'echo strict-ok'
expect_rc 0 "--strict with every guarantee available"
check_eq "... and the command ran" strict-ok "$OUT"
sbx "--write $T/no-such-dir" /bin/sh -c 'echo RAN'
expect_rc 78 "a --write root that does not exist"
check_match "the first line starts with tartaros:" '^tartaros: ' "${ERR%%$'\n'*}"
check_no_match "the command did not run" '^RAN$' "$OUT"
sbx "--write $W --read-deny $T/*" /bin/sh -c 'echo RAN'
expect_rc 78 "a glob"
check_match "the refusal names the flag" '^tartaros: --read-deny: .* globs are not supported on Linux' "${ERR%%$'\n'*}"
sbx "--write $W --bogus" /bin/sh -c 'echo RAN'
expect_rc 78 "an unknown flag"
check_match "a usage line" "^tartaros: usage: unknown option '--bogus'" "${ERR%%$'\n'*}"
check_no_match "the command did not run" '^RAN$' "$OUT"
mkdir -p "$T/alone"
cp "$IT_DIR/tartaros" "$T/alone/tartaros"
capture_as "$T/alone/tartaros" run -- /bin/true
expect_rc 125 "no tartaros-cli next to tartaros: a start-up failure, not a refusal"
check_match "it names where it looked" "^tartaros: cannot find tartaros-cli, the compiler: $T/alone/tartaros-cli: " "$ERR"
cp "$IT_DIR/tartaros-cli" "$T/alone/tartaros-cli"
capture_as "$T/alone/tartaros" run -- /bin/true
expect_rc 125 "no tartaros-exec next to them: a start-up failure, not a refusal"
check_match "it names where it looked" "^tartaros: cannot find tartaros-exec: $T/alone/tartaros-exec: " "$ERR"

it_finish
