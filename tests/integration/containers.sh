#!/bin/bash
# TartarOS inside a podman container: rootful as root (it.containers.root), rootless as the
# fixture's unprivileged user (it.containers.user). What docs/containers.md says, checked:
#   - in a default container `tartaros run --strict` refuses (exit 78, the `tartaros:` line)
#     and the line names the container option that lifts the cause; a run without --strict
#     goes on with `tartaros: warning: not enforced:` lines, and what it keeps still holds
#     (no write outside the writable root, no read of a denied file, the workspace writable);
#   - with the documented option (--security-opt unmask=/proc/*) --strict runs, a write
#     outside the writable root and a read of a denied file fail and the allowed work succeeds;
#     rootful, that option makes the host's sysctls the container root's to write unless the
#     container has a user namespace (--uidmap), in which --strict runs as well;
#   - under a seccomp profile that, like Docker's default, refuses namespaces and mounts to a
#     container without CAP_SYS_ADMIN (made here from podman's own profile), --strict refuses
#     naming --security-opt seccomp=...; without --strict, Landlock keeps both escapes out; and
#     that profile with examples/fleet/seccomp-tartaros.py's rule runs --strict again.
# Installs nothing: without podman it skips (77); scripts/install-deps installs podman, runc,
# uidmap (rootless) and the rest.
#
# The container's root is a directory assembled here, not an image (no registry is reachable,
# and an image would be minutes of debootstrap): the host's /usr bind-mounted read-only, the
# usual /bin, /lib symlinks into it, a two-line /etc/passwd, and the fixture's binaries copied
# into /opt/tartaros. The runtime's restrictions (masked /proc, seccomp, capabilities,
# read-only cgroups) do not depend on what the image holds. podman keeps its state in $T
# (--root, --runroot, --tmpdir), so nothing of the machine's podman is read or changed, and
# runs with --network none: the sandbox makes its own network namespace anyway, and nothing
# here uses a network.
. "$(dirname "$0")/lib.sh"
it_setup "$@"
SRC_ROOT=$(cd "$(dirname "$0")/../.." && pwd)

PODMAN_BIN=$(command -v podman) || {
    echo "SKIP: podman is not installed (scripts/install-deps installs it)"
    exit 77
}
PODMAN=("$PODMAN_BIN" --root "$T/pm/storage" --runroot "$T/pm/run" --tmpdir "$T/pm/tmp" --storage-driver vfs
    --events-backend none --cgroup-manager cgroupfs)
CTR_PREFIX="tartaros-it-ctr-$$"
CTR_COUNT=0
SUBID_ADDED=""

# Containers this test created are removed by name; a rootless podman's pause process (it
# holds the user namespace and outlives podman) is killed by the pid podman recorded.
containers_cleanup() {
    local i pid f
    for i in $(seq 1 "$CTR_COUNT"); do
        run_as "${PODMAN[@]}" rm -f "$CTR_PREFIX-$i" >/dev/null 2>&1
    done
    for f in $(find "$T" -name pause.pid 2>/dev/null); do
        pid=$(cat "$f" 2>/dev/null)
        # Still podman's: a pid recorded by a process that has ended may be anyone's now.
        [[ $pid =~ ^[0-9]+$ ]] && [[ $(cat "/proc/$pid/comm" 2>/dev/null) =~ ^(podman( pause)?|catatonit)$ ]] &&
            kill -KILL "$pid" 2>/dev/null
    done
    if [ -n "$SUBID_ADDED" ]; then
        usermod --del-subuids "$SUBID_ADDED" --del-subgids "$SUBID_ADDED" "$IT_USER" 2>/dev/null
    fi
    it_cleanup
}
trap containers_cleanup EXIT

if [ "$IT_VARIANT" = user ]; then
    command -v newuidmap >/dev/null || {
        echo "SKIP: rootless podman needs newuidmap (uidmap; scripts/install-deps installs it)"
        exit 77
    }
    # Rootless podman maps the container's ids through the user's subordinate range.
    if ! grep -q "^$IT_USER:" /etc/subuid 2>/dev/null || ! grep -q "^$IT_USER:" /etc/subgid 2>/dev/null; then
        start=$(awk -F: 'BEGIN { m = 100000 } { if ($2 + $3 > m) m = $2 + $3 } END { print m }' \
            /etc/subuid /etc/subgid 2>/dev/null)
        SUBID_ADDED="$start-$((start + 65535))"
        usermod --add-subuids "$SUBID_ADDED" --add-subgids "$SUBID_ADDED" "$IT_USER" || die "usermod --add-subuids"
    fi
    mkdir -p "$T/xdg" && chmod 700 "$T/xdg"
    IT_ENV=(XDG_RUNTIME_DIR="$T/xdg")
fi

# --- the container's root --------------------------------------------------------------------
R=$T/root
mkdir -p "$R"/{usr,etc,tmp,proc,sys,dev,run,root,opt/tartaros,work/ws,work/home,work/secret}
chmod 1777 "$R/tmp"
for d in bin lib lib64 sbin; do ln -s "usr/$d" "$R/$d"; done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$R/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$R/etc/group"
cp "$IT_DIR/tartaros" "$IT_DIR/tartaros-cli" "$IT_DIR/tartaros-compile" "$IT_DIR/tartaros-exec" "$IT_DIR/tartaros-proxy" \
    "$R/opt/tartaros/"
echo "PRIVATE" >"$R/work/secret/key"
echo "readable" >"$R/work/readable"
# Inside: `tartaros run` with a writable root /work/ws and a denied /work/secret, strict or
# not ($1), with the escapes and the allowed work in one sandbox; its stderr goes to
# /work/err.$2 (podman's own warnings stay on podman's stderr), its status to stdout.
cat >"$R/opt/run.sh" <<'EOF'
#!/bin/sh
mode=$1 tag=$2
strict=""
[ "$mode" = strict ] && strict=--strict
cd /work
HOME=/work/home /opt/tartaros/tartaros run $strict --no-cache --write /work/ws --read-deny /work/secret -- /bin/sh -c '
t() { __l=$1; shift; if "$@" >/dev/null 2>&1; then echo "$__l=ok"; else echo "$__l=fail"; fi; }
t ws_write sh -c "echo allowed > /work/ws/ok"
t read_allowed cat /work/readable
t write_outside sh -c "echo escaped > /work/outside"
t read_denied cat /work/secret/key
' 2>"/work/err.$tag"
echo "rc=$?"
EOF
chmod 755 "$R/opt/run.sh"
give_to_user

# ctr TAG OPTIONS... -- CMD...: one container from $R, removed by podman when it ends (and by
# name at exit if it did not). HOST_OPTS (below) work around this host, not the sandbox.
ctr() {
    local tag=$1 opts=()
    shift
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    CTR_COUNT=$((CTR_COUNT + 1))
    capture_as "${PODMAN[@]}" run --rm --name "$CTR_PREFIX-$CTR_COUNT" --network none "${HOST_OPTS[@]}" \
        -v /usr:/usr:ro "${opts[@]}" --rootfs "$R" "$@"
    LAST_CMD="[$tag] $LAST_CMD"
}

# sandbox_run TAG strict|nonstrict OPTIONS...: run.sh in a container; sets RC (the run's
# status, from the rc= line) and SERR (the sandbox's stderr).
sandbox_run() {
    local tag=$1 mode=$2
    shift 2
    rm -f "$R/work/ws/ok" "$R/work/outside" "$R/work/err.$tag"
    ctr "$tag" "$@" -- /opt/run.sh "$mode" "$tag"
    PODMAN_RC=$RC
    result_of rc
    SANDBOX_RC=$RESULT
    SERR=""
    [ -f "$R/work/err.$tag" ] && SERR=$(<"$R/work/err.$tag")
    ERR="podman: $ERR"$'\n'"sandbox: $SERR"
}

first_line() {
    printf '%s\n' "$1" | head -n 1
}

# The escapes fail, the allowed work succeeds, the host sees only the allowed write.
expect_confined() {
    local why=$1
    expect ws_write ok "$why: the writable root is writable"
    expect read_allowed ok "$why: a readable file reads"
    expect write_outside fail "$why: no write outside the writable root"
    expect read_denied fail "$why: the denied file stays unreadable"
    check "$why: the allowed write landed" test -s "$R/work/ws/ok"
    check_not "$why: nothing was written outside the root" test -e "$R/work/outside"
}

# --- this host's podman ----------------------------------------------------------------------
# What this host needs so that podman starts any container at all, learned by trying:
# crun refuses a hybrid cgroup v1/v2 host (runc does not), and rootful podman sets
# RLIMIT_NOFILE to 1048576 and RLIMIT_NPROC above its own, which needs CAP_SYS_RESOURCE.
section "podman on this host"
HOST_OPTS=()
for _ in 1 2 3; do
    ctr probe -- /bin/true
    [ "$RC" -eq 0 ] && break
    if [[ $ERR == *"hybrid mode"* ]] && command -v runc >/dev/null && [[ " ${HOST_OPTS[*]} " != *" --runtime "* ]]; then
        HOST_OPTS+=(--runtime "$(command -v runc)")
    elif [[ $ERR == *setrlimit* || $ERR == *rlimit* ]] && [[ " ${HOST_OPTS[*]} " != *" --ulimit "* ]]; then
        # podman lowers its own RLIMIT_NPROC to 32768 when it cannot raise it.
        nproc=$(ulimit -Hu)
        [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ] && nproc=32768
        HOST_OPTS+=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit "nproc=$nproc:$nproc")
    else
        break
    fi
done
if [ "$RC" -ne 0 ]; then
    echo "SKIP: podman cannot start a container on this host as $RUN_USER: $(first_line "$ERR")"
    exit 77
fi
pass "a container starts (host options: ${HOST_OPTS[*]:-none})"

section "a default container: --strict refuses and names the option; without it, degraded"
sandbox_run default strict
if [ "$SANDBOX_RC" = 0 ]; then
    # A runtime that masks nothing: then the sandbox must be whole.
    expect_confined "default container, --strict"
else
    check_eq "--strict in a default container refuses with 78" 78 "$SANDBOX_RC"
    check_match "its first line is the refusal" '^tartaros: ' "$(first_line "$SERR")"
    check_eq "it is one line" 1 "$(line_count "$SERR")"
    check_match "it names the container option" 'in a container: .*--security-opt unmask=/proc/\*' "$SERR"
    check_match "... the cause: the fresh /proc" 'isolate_proc /proc cannot be installed: procfs: Operation not permitted' "$SERR"
    check_no_match "nothing of the command ran" '^(ws_write|write_outside)=' "$OUT"
    check_not "nothing was written in the workspace" test -e "$R/work/ws/ok"
fi
sandbox_run default-degraded nonstrict
check_eq "without --strict the command runs" 0 "$SANDBOX_RC"
check_match "a warning says what is lost" '^tartaros: warning: isolate_proc /proc not enforced: procfs' "$SERR"
expect_confined "default container, degraded"

section "with the documented option (--security-opt unmask=/proc/*): --strict runs"
sandbox_run unmasked strict --security-opt 'unmask=/proc/*'
check_eq "--strict runs" 0 "$SANDBOX_RC"
check_no_match "no refusal" '^tartaros: [^w]' "$SERR"
expect_confined "unmask=/proc/*, --strict"

if [ "$IT_VARIANT" = root ]; then
    # What unmask costs a rootful container whose root is the host's: /proc/sys is writable
    # (opened for appending, nothing written). Recommended instead: a user namespace.
    section "rootful: unmask=/proc/* hands the host's sysctls to the container's root, unless it has a user namespace"
    ctr core-pattern --security-opt 'unmask=/proc/*' -- /bin/sh -c \
        '{ true >>/proc/sys/kernel/core_pattern; } 2>/dev/null && echo core_pattern=ok || echo core_pattern=fail'
    expect core_pattern ok "control: without a user namespace kernel.core_pattern opens for writing"
    UIDMAP_BASE=2000000000
    chown -R "$UIDMAP_BASE:$UIDMAP_BASE" "$R/work"
    USERNS=(--uidmap "0:$UIDMAP_BASE:65536" --gidmap "0:$UIDMAP_BASE:65536")
    ctr core-pattern-userns "${USERNS[@]}" --security-opt 'unmask=/proc/*' -- /bin/sh -c \
        '{ true >>/proc/sys/kernel/core_pattern; } 2>/dev/null && echo core_pattern=ok || echo core_pattern=fail'
    expect core_pattern fail "with --uidmap it does not"
    sandbox_run userns strict "${USERNS[@]}" --security-opt 'unmask=/proc/*'
    check_eq "--strict runs in it (the container's ids mapped into the sandbox)" 0 "$SANDBOX_RC"
    expect_confined "--uidmap, unmask=/proc/*, --strict"
    chown -R root:root "$R/work"
fi

section "a Docker-like seccomp profile (no namespaces or mounts without CAP_SYS_ADMIN)"
BASE_PROFILE=/usr/share/containers/seccomp.json
if [ -r "$BASE_PROFILE" ]; then
    # Docker's default profile (moby/profiles) allows these calls only with CAP_SYS_ADMIN, and
    # clone only without namespace flags; podman's allows them. This makes podman's like Docker's.
    python3 - "$BASE_PROFILE" "$T/docker-like.json" <<'PYEOF'
import json, sys
gated = {"unshare", "setns", "mount", "umount", "umount2", "pivot_root", "mount_setattr", "open_tree",
         "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "sethostname", "clone", "clone3"}
p = json.load(open(sys.argv[1]))
p["defaultErrnoRet"], p["defaultErrno"] = 1, "EPERM"  # Docker's (podman's is ENOSYS)
for rule in p["syscalls"]:
    if not rule.get("includes", {}).get("caps"):
        rule["names"] = [n for n in rule["names"] if n not in gated]
p["syscalls"] = [r for r in p["syscalls"] if r["names"]]
p["syscalls"].append({"names": ["clone"], "action": "SCMP_ACT_ALLOW",
                      "args": [{"index": 0, "value": 2114060288, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}]})
p["syscalls"].append({"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38})
json.dump(p, open(sys.argv[2], "w"), indent=1)
PYEOF
    python3 "$SRC_ROOT/examples/fleet/seccomp-tartaros.py" "$T/docker-like.json" >"$T/docker-like-tartaros.json" ||
        fail "seccomp-tartaros.py" "exit 0" "exit $?"
    give_to_user
    sandbox_run docker-like strict --security-opt "seccomp=$T/docker-like.json" --security-opt 'unmask=/proc/*'
    check_eq "--strict refuses with 78" 78 "$SANDBOX_RC"
    check_eq "in one line" 1 "$(line_count "$SERR")"
    check_match "naming the seccomp option" '^tartaros: .*user namespace.*Operation not permitted.*in a container: .*--security-opt seccomp=unconfined' "$SERR"
    sandbox_run docker-like-degraded nonstrict --security-opt "seccomp=$T/docker-like.json" --security-opt 'unmask=/proc/*'
    check_eq "without --strict the command runs" 0 "$SANDBOX_RC"
    check_match "warning: the namespaces are lost" '^tartaros: warning: not enforced: .*mount isolation' "$SERR"
    # Landlock alone: /work/secret lies outside the writable root, so it holds there too.
    expect_confined "Docker-like profile, degraded to Landlock"
    sandbox_run narrow strict --security-opt "seccomp=$T/docker-like-tartaros.json" --security-opt 'unmask=/proc/*'
    check_eq "with seccomp-tartaros.py's rule added, --strict runs" 0 "$SANDBOX_RC"
    check_no_match "nothing lost, no refusal" '^tartaros: (warning: |[^w])' "$SERR"
    expect_confined "Docker-like profile + seccomp-tartaros.py, --strict"
else
    echo "  (no $BASE_PROFILE: the seccomp part is left out)"
fi

it_finish
