#!/bin/bash
# When a helper of the run dies while the command runs: the connect mediator (which makes
# every connect, bind and addressed send of the command) and tartaros-proxy (which holds the
# proxy's and the relays' listeners). The host kills one between two rounds of requests from
# the sandbox: with SIGKILL (a test's stray kill, the OOM killer) or with SIGALRM (a crash's
# kind of end, without a core file).
# Before it, the proxy and a relayed host port answer; after it, the command's calls fail
# closed (ENOSYS without the mediator, refused without the proxy), the host server sees none
# of them, and the run ends as the command did, with one warning line naming the helper and
# the signal, after the command's output.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W"
use_net_helper
SERVICES=$T/.runs/services.out
serve_on_host "$SERVICES" upstream=tcp:127.0.0.1:0
port=$(service_port "$SERVICES" upstream)

cat >"$T/policy.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
[network]
allow_domains = ["allowed.test"]
domain_ports = [$port]
hosts = { "allowed.test" = "127.0.0.1" }
local_ports = [$port]
EOF
compile "$T/policy.toml" "$T/plan" || it_finish

# The mediator: the run's tartaros-exec process that holds a seccomp listener.
find_mediator() {
    local p fd
    for p in $(descendants "$1"); do
        [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$IT_DIR/tartaros-exec" ] || continue
        for fd in /proc/"$p"/fd/*; do
            [ "$(readlink "$fd" 2>/dev/null)" = "anon_inode:seccomp notify" ] && echo "$p" && return 0
        done
    done
    return 1
}

# kill_helper NAME ROUND SIGNAL: once the sandbox is ready, the helper NAME (mediator or
# proxy) gets SIGNAL; the sandbox goes on once it is gone.
kill_helper() {
    local name=$1 round=$2 sig=$3 pid=""
    for _ in $(seq 1 300); do [ -e "$W/ready$round" ] && break; sleep 0.1; done
    if [ "$name" = mediator ]; then
        pid=$(find_mediator $$)
    else
        pid=$(find_descendant $$ "$IT_DIR/tartaros-proxy")
    fi
    echo "killed=${pid:-<none>}" >"$T/.runs/host$round.out"
    [ -n "$pid" ] && kill -s "$sig" "$pid"
    for _ in $(seq 1 100); do running "$pid" || break; sleep 0.05; done
    touch "$W/go$round"
}

# round N NAME SIGNAL: the sandbox's requests before and after the host kills NAME.
round() {
    local n=$1 name=$2
    kill_helper "$name" "$n" "$3" &
    local host_side=$!
    sbx_script "$T/plan" <<EOF
${HELPER[*]} client "before_get get allowed.test:$port /before$n" "before_relay tcp 127.0.0.1 $port" \
    "ready touch $W/ready$n" "go wait $W/go$n 30" \
    "after_get get allowed.test:$port /after$n" "after_relay tcp 127.0.0.1 $port"
echo command-done >&2
EOF
    wait "$host_side"
    echo "   (host: $(cat "$T/.runs/host$n.out"))"
    expect_rc 0 "the run ends as the command did"
    expect before_get "200 upstream GET /before$n host=allowed.test:$port" "before: through the proxy"
    expect before_relay "upstream GET /before_relay host=127.0.0.1" "before: the relayed host port"
    check "the host side found the $name and killed it" grep -q '^killed=[0-9]' "$T/.runs/host$n.out"
}

n=0
for sig in KILL ALRM; do
    num=$(kill -l "$sig")
    n=$((n + 1))
    section "the connect mediator dies (SIG$sig): the command's connects fail with ENOSYS, and the run says so"
    round "$n" mediator "$sig"
    expect after_get ENOSYS "after: a connect to the proxy, with no mediator to make it"
    expect after_relay ENOSYS "after: a connect to the relayed port"
    check_match "one warning names the mediator and the signal" \
        "^tartaros: warning: the connect mediator stopped while the command ran \(killed by signal $num\): .*ENOSYS" "$ERR"
    check_eq "... after the command's output" "command-done" "$(grep -v '^tartaros: ' <<<"$ERR" | tail -n 1)"
    check_eq "... and it is the only line of tartaros" 1 "$(grep -c '^tartaros: ' <<<"$ERR")"

    n=$((n + 1))
    section "tartaros-proxy dies (SIG$sig): the proxy and the relay refuse, and the run says so"
    round "$n" proxy "$sig"
    expect after_get ECONNREFUSED "after: the proxy's port, its listener gone with it"
    expect after_relay ECONNREFUSED "after: the relayed port"
    check_match "one warning names the proxy and the signal" \
        "^tartaros: warning: tartaros-proxy was killed by signal $num \(.*\) during the run: .*refused" "$ERR"
    check_eq "... and it is the only line of tartaros" 1 "$(grep -c '^tartaros: ' <<<"$ERR")"
done

section "the host server saw the requests made before, none after"
check "the requests before reached it" grep -q 'request upstream GET /before1 ' "$SERVICES"
check_eq "none after" 0 "$(grep -c 'request upstream GET /after' "$SERVICES")"

section "control: with every helper alive, the same requests work after the wait"
touch "$W/go0"
sbx_script "$T/plan" <<EOF
touch $W/ready0
${HELPER[*]} client "after_get get allowed.test:$port /control" "after_relay tcp 127.0.0.1 $port"
EOF
expect_rc 0 "sandbox exit status"
expect after_get "200 upstream GET /control host=allowed.test:$port" "through the proxy"
expect after_relay "upstream GET /after_relay host=127.0.0.1" "the relayed host port"
check_eq "no warning" 0 "$(grep -c '^tartaros: warning' <<<"$ERR")"

it_finish
