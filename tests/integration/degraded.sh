#!/bin/bash
# A host without user namespaces: bubblewrap runs tartaros-exec as an unprivileged uid with
# user namespaces disabled (--disable-userns), so no namespace can be made. Without --strict
# the run degrades to Landlock, no_new_privs and no capabilities, says so in one warning line,
# and Landlock still keeps denied files unreadable and the tree outside the roots read-only.
# Without a network namespace, Landlock denies TCP connect and bind instead.
# With --strict the same run is a refusal: exit 78, one line, the command never starts.
# max_processes, which RLIMIT_NPROC holds exactly only in the sandbox's own user namespace,
# is reported weakened.
# The credential broker, which needs the network namespace and the mount layer, is then not
# started: a warning names it, the agent finds neither its listener nor a token.
# A caller that holds every capability (uid 0 in bubblewrap's user namespace) and may make no
# namespace still hands the command none: empty sets, no bounding set, securebits locked.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

mkdir -p "$T/ws" "$T/secret"
echo "PRIVATE" >"$T/secret/key"
cat >"$T/policy.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
read_denies = ["secret"]
EOF
compile "$T/policy.toml" "$T/plan" || it_finish

# no_userns [--strict] CMD...: tartaros-exec on the plan ($NO_USERNS_PLAN, default $T/plan),
# as uid 65534, user namespaces off.
no_userns() {
    local strict=()
    [ "$1" = --strict ] && strict=(--strict) && shift
    capture_as bwrap --ro-bind / / --dev /dev --proc /proc --bind "$T" "$T" \
        --unshare-user --uid 65534 --gid 65534 --disable-userns -- \
        "$EXEC" "${strict[@]}" "${NO_USERNS_PLAN:-$T/plan}" -- "$@"
}

section "control: bubblewrap really takes user namespaces away"
capture_as bwrap --ro-bind / / --dev /dev --proc /proc --unshare-user --uid 65534 --disable-userns -- \
    unshare -U true
check_eq "unshare -U fails under the control" yes "$([ "$RC" -ne 0 ] && echo yes || echo no)"

section "without --strict: degraded, said once, Landlock still holds"
no_userns /bin/sh -c "
t() { __l=\$1; shift; if \"\$@\" >/dev/null 2>&1; then echo \"\$__l=ok\"; else echo \"\$__l=fail\"; fi; }
t secret cat $T/secret/key
t root_write sh -c 'echo x > $T/outside'
t ws_write sh -c 'echo x > $T/ws/file'
"
expect_rc 0 "the command ran"
check_eq "stderr is one line" 1 "$(line_count "$ERR")"
check_match "it is a warning naming what was lost" '^tartaros: warning: not enforced: .*read_denies.*clone\(CLONE_NEWUSER\) failed' "$ERR"
expect secret fail "the denied file stays unreadable (Landlock)"
expect root_write fail "outside the writable root stays read-only (Landlock)"
expect ws_write ok "the writable root is writable"
check_not "nothing was written outside the root" test -e "$T/outside"
check_content "the write in the root landed" "$T/ws/file" x

section "without namespaces, Landlock's scopes still cut the host's abstract sockets and signals"
# Here no network or PID namespace separates the sandbox from the host: a host abstract unix
# socket and a host process of the caller's own uid (bubblewrap's uid 65534 is the caller's
# uid outside its user namespace) are both in reach, as the controls show without
# tartaros-exec. Landlock's scopes (ABI 6) are what refuses them.
abstract="tartaros-it-$$-$RANDOM"
spawn /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind("\0" + sys.argv[1])
s.listen(16)
while True:
    s.accept()[0].close()
' "$abstract"
spawn "${AS[@]}" sleep 300
victim=$(find_descendant "$SPAWNED" sleep) || die "the host process did not start"
cat >"$T/ipc.py" <<'PYEOF2'
import errno, os, socket, sys, time
def attempt(label, action):
    try:
        action()
        print(f"{label}=ok")
    except OSError as e:
        print(f"{label}={errno.errorcode.get(e.errno, e.errno)}")
def connect():
    for _ in range(50):
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect("\0" + sys.argv[1])
            return
        except ConnectionRefusedError:
            time.sleep(0.1)
        finally:
            s.close()
    raise ConnectionRefusedError(errno.ECONNREFUSED, "no listener")
attempt("abstract", connect)
attempt("signal", lambda: os.kill(int(sys.argv[2]), 0))
PYEOF2
chmod 644 "$T/ipc.py"
capture_as bwrap --ro-bind / / --dev /dev --proc /proc --bind "$T" "$T" \
    --unshare-user --uid 65534 --gid 65534 --disable-userns -- /usr/bin/python3 "$T/ipc.py" "$abstract" "$victim"
expect abstract ok "control: without tartaros-exec the host's abstract socket is reachable"
expect signal ok "control: ... and the host process of the same uid can be signalled"
no_userns /usr/bin/python3 "$T/ipc.py" "$abstract" "$victim"
expect_rc 0 "the degraded run ran"
expect abstract EPERM "degraded: the host's abstract socket is refused (Landlock abstract-socket scope)"
expect signal EPERM "degraded: the host process cannot be signalled (Landlock signal scope)"
check "the host process is still alive" running "$victim"

section "without a network namespace, Landlock denies every TCP connect and bind instead"
# The host's network is in reach here (no namespace), as the control shows: a TCP server on
# the host's 127.0.0.1 answers. The degraded sandbox gets a second Landlock layer that handles
# TCP bind and connect and grants neither (ABI 4).
spawn /usr/bin/python3 -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    s.accept()[0].close()
' "$T/.runs/tcp_port"
for _ in $(seq 1 50); do [ -s "$T/.runs/tcp_port" ] && break; sleep 0.1; done
tcp_port=$(cat "$T/.runs/tcp_port")
cat >"$T/tcp.py" <<'PYEOF3'
import errno, socket, sys
def attempt(label, action):
    try:
        action()
        print(f"{label}=ok")
    except OSError as e:
        print(f"{label}={errno.errorcode.get(e.errno, e.errno)}")
def connect():
    s = socket.socket()
    s.settimeout(5)
    s.connect(("127.0.0.1", int(sys.argv[1])))
    s.close()
def bind():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.close()
attempt("connect", connect)
attempt("bind", bind)
PYEOF3
chmod 644 "$T/tcp.py"
capture_as bwrap --ro-bind / / --dev /dev --proc /proc --bind "$T" "$T" \
    --unshare-user --uid 65534 --gid 65534 --disable-userns -- /usr/bin/python3 "$T/tcp.py" "$tcp_port"
expect connect ok "control: without tartaros-exec the host's 127.0.0.1 server is reachable"
expect bind ok "control: ... and a TCP port can be bound"
no_userns /usr/bin/python3 "$T/tcp.py" "$tcp_port"
expect_rc 0 "the degraded run ran"
expect connect EACCES "degraded: TCP connect to the host is refused (Landlock TCP layer)"
expect bind EACCES "degraded: TCP bind is refused (Landlock TCP layer)"

section "the credential broker is not started without its namespaces"
cat >"$T/broker.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
[broker]
allowed_hosts = ["localhost"]
[[broker.capability]]
name = "api"
host = "localhost"
value_env = "IT_BROKER_SECRET"
EOF
compile "$T/broker.toml" "$T/broker.plan" || it_finish
IT_ENV=(IT_BROKER_SECRET=it-degraded-value)
# shellcheck disable=SC2016  # expanded by the sandbox's shell
NO_USERNS_PLAN=$T/broker.plan no_userns /bin/sh -c '
test -e /run/credentials/tartaros && echo creds=present || echo creds=absent
curl -sS --max-time 5 "$TARTAROS_BROKER_URL/api/x" >/dev/null 2>&1 && echo broker=reached || echo broker=unreachable
env | grep -c IT_BROKER_SECRET | sed "s/^/env_secret=/"'
expect_rc 0 "the degraded run ran"
check_eq "stderr is one line" 1 "$(line_count "$ERR")"
check_match "the warning names the broker" '^tartaros: warning: not enforced: .*the credential broker.*clone\(CLONE_NEWUSER\) failed' "$ERR"
expect creds absent "no credentials directory"
expect broker unreachable "no broker listens"
expect env_secret 0 "the value's variable is not passed"
NO_USERNS_PLAN=$T/broker.plan no_userns --strict /bin/sh -c "touch $T/ws/ran-broker"
IT_ENV=()
expect_rc 78 "--strict refuses the broker plan"
check_not "nothing ran" test -e "$T/ws/ran-broker"

section "max_processes loses its exactness with the user namespace"
# RLIMIT_NPROC is exact only counted in the sandbox's own user namespace; without one it
# would count every process of the caller, so the run says max_processes is weakened.
cat >"$T/procs.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
[process]
max_processes = 64
EOF
compile "$T/procs.toml" "$T/procs.plan" || it_finish
NO_USERNS_PLAN=$T/procs.plan no_userns /bin/true
expect_rc 0 "the command ran"
check_match "a warning says max_processes is weakened, and why" \
    '^tartaros: warning: weakened: max_processes .*RLIMIT_NPROC instead.*all of the caller.s processes on the host' "$ERR"
NO_USERNS_PLAN=$T/procs.plan no_userns --strict /bin/true
expect_rc 78 "--strict refuses"

section "a caller holding every capability, no user namespace: the command holds none"
# uid 0 with the full set inside bubblewrap's user namespace, new ones forbidden: init and
# the command keep those capabilities (no namespace of their own to get fresh ones in) until
# the command drops them. The command tries what a compromised agent would:
# every capability set empty, the securebits locked, unlocking them refused, and no bounding
# set left for an exec to fill again.
capture_as bwrap --ro-bind / / --dev /dev --proc /proc --bind "$T" "$T" \
    --unshare-user --uid 0 --gid 0 --cap-add ALL --disable-userns -- \
    sh -c "grep -E '^Cap(Eff|Bnd):' /proc/self/status; \"$EXEC\" \"$T/plan\" -- /bin/sh -c '
grep -E \"^Cap(Inh|Prm|Eff|Bnd|Amb):\" /proc/self/status | sed \"s/^/in_/\"
python3 -c \"
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
print(\\\"securebits=%#x\\\" % libc.prctl(27, 0, 0, 0, 0))
print(\\\"unlock=%d %s\\\" % (libc.prctl(28, 0, 0, 0, 0), errno.errorcode.get(ctypes.get_errno())))\"
'"
expect_rc 0 "the degraded run"
check_match "control: the caller holds every capability, the bounding set full" '^CapEff:[[:space:]]*0*1ff+$' "$OUT"
check_match "control: ... and its bounding set" '^CapBnd:[[:space:]]*0*1ff+$' "$OUT"
for set in Inh Prm Eff Bnd Amb; do
    check_match "the command's Cap$set is empty" "^in_Cap$set:[[:space:]]*0+$" "$OUT"
done
check_match "its securebits are locked (NOROOT, NO_SETUID_FIXUP, KEEP_CAPS, NO_CAP_AMBIENT_RAISE)" '^securebits=0xef$' "$OUT"
check_match "unlocking them is refused" '^unlock=-1 EPERM$' "$OUT"

section "with --strict: a refusal, and nothing ran"
no_userns --strict /bin/sh -c "echo RAN; touch $T/ws/ran"
expect_rc 78 "--strict refuses"
check_eq "stderr is one line" 1 "$(line_count "$ERR")"
check_match "it names the guarantee, the reason and the way out" '^tartaros: .*cannot be enforced without a mount namespace.*run without --strict to degrade' "$ERR"
check_no_match "the command did not run" '^RAN$' "$OUT"
check_not "no marker" test -e "$T/ws/ran"

it_finish
