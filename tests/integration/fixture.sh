#!/bin/bash
# tests/integration/fixture.sh — the shared fixture of the integration tests.
#
#   fixture.sh setup STATE COMPILE EXEC PROBE SYSPROBE PROXY TARTAROS CLI
#       creates the throwaway user (recreated if a crashed run left it), copies the binaries
#       into a fresh world-readable directory (the build tree may be mode 700 for others),
#       and writes STATE (IT_USER=..., IT_DIR=...) for the tests to source.
#   fixture.sh cleanup STATE
#       deletes the user and the directory, and STATE itself.
#
# The user name is derived from the build directory, so two build trees on one machine can
# run their suites at the same time without deleting each other's user.
set -u

die() {
    echo "fixture: $*" >&2
    exit 1
}

user_for_state() {
    echo "tartaros-it-$(printf '%s' "$(dirname "$1")" | sha256sum | cut -c1-8)"
}

# useradd/userdel fail while another process holds the passwd lock: retry for a while.
retry() {
    for _ in $(seq 1 30); do
        "$@" && return 0
        sleep 0.5
    done
    return 1
}

# Deletes the user and its group (a crash between useradd's two steps can leave either).
remove_user() {
    if id -u "$1" >/dev/null 2>&1; then
        retry userdel -f "$1" >/dev/null 2>&1 || die "cannot delete user $1"
    fi
    if getent group "$1" >/dev/null; then
        retry groupdel "$1" >/dev/null 2>&1 || die "cannot delete group $1"
    fi
    return 0
}

remove_old_dir() {
    local state=$1 dir
    [ -r "$state" ] || return 0
    dir=$(sed -n 's/^IT_DIR=//p' "$state")
    case $dir in
        */tartaros-it-bin.*) rm -rf --one-file-system "$dir" ;;
    esac
}

setup() {
    local state=$1 compile=$2 exec=$3 probe=$4 sysprobe=$5 proxy=$6 tartaros=$7 cli=$8 user dir
    if [ "$(id -u)" -ne 0 ]; then
        echo "SKIP: the integration tests create a user and must run as root"
        exit 77
    fi
    for f in "$compile" "$exec" "$probe" "$sysprobe" "$proxy" "$tartaros" "$cli"; do
        [ -x "$f" ] || die "missing binary $f (build first)"
    done
    user=$(user_for_state "$state")
    remove_old_dir "$state"
    rm -f "$state"
    remove_user "$user"
    retry useradd -M -s /bin/sh -d /nonexistent "$user" || die "useradd $user failed"

    dir=$(mktemp -d "${IT_TMPDIR:-/var/tmp}/tartaros-it-bin.XXXXXX") || die "mktemp failed"
    chmod 755 "$dir"
    install -m 755 "$compile" "$dir/tartaros-compile"
    install -m 755 "$exec" "$dir/tartaros-exec"
    install -m 755 "$proxy" "$dir/tartaros-proxy"  # tartaros-exec starts the one next to it
    install -m 755 "$tartaros" "$dir/tartaros"     # tartaros run starts the tartaros-exec next to it
    install -m 755 "$cli" "$dir/tartaros-cli"      # and the tartaros-cli next to it
    install -m 755 "$probe" "$dir/it-probe"
    install -m 755 "$sysprobe" "$dir/it-syscalls"
    printf 'IT_USER=%s\nIT_DIR=%s\n' "$user" "$dir" >"$state"
    echo "fixture: user $user (uid $(id -u "$user")), binaries in $dir"
}

cleanup() {
    local state=$1
    remove_old_dir "$state"
    remove_user "$(user_for_state "$state")"
    rm -f "$state"
    echo "fixture: cleaned up"
}

case ${1:-} in
    setup) [ $# -eq 9 ] || die "usage: fixture.sh setup STATE COMPILE EXEC PROBE SYSPROBE PROXY TARTAROS CLI"; setup "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" ;;
    cleanup) [ $# -eq 2 ] || die "usage: fixture.sh cleanup STATE"; cleanup "$2" ;;
    *) die "usage: fixture.sh setup|cleanup STATE ..." ;;
esac
