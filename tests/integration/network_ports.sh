#!/bin/bash
# Ports mode: `local_ports = [P]` keeps the private network namespace and relays 127.0.0.1:P
# inside to the host's 127.0.0.1:P, and nothing else. Host servers listen on 127.0.0.1:P, on
# the same port P at 127.0.0.2 and [::1], on another port of 127.0.0.2 and on another port of
# 127.0.0.1; a UDP listener on 127.0.0.1:P and a unix socket under the host's /tmp (where
# host_sockets.sh shows the implied mask at work; a socket in another readable place is the
# blind spot docs/limits.md states). In one sandbox run the agent reaches 127.0.0.1:P and none of the others,
# no proxy is set up (no allow_domains), while a socket it makes in its workspace works.
# `expose_ports = [E]`: a server the agent starts on 127.0.0.1:E inside answers the host at
# 127.0.0.1:E while the run lasts (the agent waits for the host side before it exits), and one
# it starts on a port not exposed cannot be reached from the host. The relay process runs as
# the caller, confined, and ends with the sandbox; the exposed port closes with it.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W"
hostsockdir=/tmp/tartaros-it-$$-$RANDOM
mkdir -m 755 "$hostsockdir" || die "cannot create $hostsockdir"
trap 'rm -rf "$hostsockdir"; it_cleanup' EXIT
use_net_helper
SERVICES=$T/.runs/services.out
HOSTSOCK=$hostsockdir/service.sock
serve_on_host "$SERVICES" local=tcp:127.0.0.1:0 alias_same=tcp:127.0.0.2:@local \
    v6=tcp:::1:@local alias_other=tcp:127.0.0.2:0 other=tcp:127.0.0.1:0 udp_same=udp:127.0.0.1:@local \
    host-service=unix:"$HOSTSOCK"
P=$(service_port "$SERVICES" local)
P2=$(service_port "$SERVICES" alias_other)
Q=$(service_port "$SERVICES" other)
read -r E N < <("${HELPER[@]}" free 2 | tr '\n' ' ')
[ -n "$E" ] && [ -n "$N" ] || die "no free ports"

section "control: every host service answers the test's user; nothing listens on $E or $N"
capture_as "${HELPER[@]}" client "ctl_local tcp 127.0.0.1 $P" "ctl_alias_same tcp 127.0.0.2 $P" \
    "ctl_v6 tcp ::1 $P" "ctl_alias_other tcp 127.0.0.2 $P2" "ctl_other tcp 127.0.0.1 $Q" \
    "ctl_udp udp 127.0.0.1 $P" "ctl_unix unix $HOSTSOCK" \
    "ctl_exposed tcp 127.0.0.1 $E" "ctl_hidden tcp 127.0.0.1 $N"
expect ctl_local "local GET /ctl_local host=127.0.0.1" "control: 127.0.0.1:$P"
expect ctl_alias_same "alias_same GET /ctl_alias_same host=127.0.0.2" "control: 127.0.0.2:$P"
expect ctl_v6 "v6 GET /ctl_v6 host=::1" "control: [::1]:$P"
expect ctl_alias_other "alias_other GET /ctl_alias_other host=127.0.0.2" "control: 127.0.0.2:$P2"
expect ctl_other "other GET /ctl_other host=127.0.0.1" "control: 127.0.0.1:$Q"
expect ctl_unix host-service "control: the unix socket $HOSTSOCK"
expect ctl_exposed ECONNREFUSED "control: nothing on the host's 127.0.0.1:$E"
expect ctl_hidden ECONNREFUSED "control: nothing on the host's 127.0.0.1:$N"
for _ in $(seq 1 20); do grep -q '^datagram udp_same query-ctl_udp' "$SERVICES" && break; sleep 0.1; done
check "control: the UDP datagram to 127.0.0.1:$P arrives" grep -q '^datagram udp_same query-ctl_udp' "$SERVICES"
log_mark=$(wc -l <"$SERVICES")

cat >"$T/policy.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
[network]
local_ports = [$P]
expose_ports = [$E]
EOF
compile "$T/policy.toml" "$T/plan" || it_finish

section "local_ports: exactly 127.0.0.1:$P; expose_ports: the host reaches $E and only $E"
# The host side waits for the agent's servers, connects to them, then lets the agent exit.
spawn "${HELPER[@]}" hostside $$ "$W/ready" "$W/go" "$T/.runs/hostside.out" \
    "in_exposed tcp 127.0.0.1 $E" "in_hidden tcp 127.0.0.1 $N"
sbx_script "$T/plan" <<EOF
env | sed -n 's/^\(HTTP_PROXY\|HTTPS_PROXY\|http_proxy\|https_proxy\|ALL_PROXY\|NO_PROXY\)=/env_\1=/p'
${HELPER[*]} client \
    "local tcp 127.0.0.1 $P" \
    "local_again tcp 127.0.0.1 $P" \
    "alias_same tcp 127.0.0.2 $P" \
    "alias_other tcp 127.0.0.2 $P2" \
    "v6 tcp ::1 $P" \
    "other tcp 127.0.0.1 $Q" \
    "udp udp 127.0.0.1 $P" \
    "proxy tcp 127.0.0.1 3128" \
    "raw raw" \
    "host_unix unix $HOSTSOCK" \
    "own_unix unix_own /dev/shm/own.sock" \
    "pair pair" \
    "exposed listen 127.0.0.1 $E" \
    "hidden listen 127.0.0.1 $N" \
    "ready touch $W/ready" \
    "go wait $W/go 30"
EOF
expect_rc 0 "sandbox exit status"
NOT_REACHED="ECONNREFUSED|ENETUNREACH|EADDRNOTAVAIL|EACCES|EPERM"
expect local "local GET /local host=127.0.0.1" "127.0.0.1:$P inside is the host's 127.0.0.1:$P"
expect local_again "local GET /local_again host=127.0.0.1" "... and stays so for a second connection"
expect alias_same "$NOT_REACHED" "not the same port on 127.0.0.2"
expect alias_other "$NOT_REACHED" "not another port on 127.0.0.2 ($P2)"
expect v6 "$NOT_REACHED" "not the same port on [::1]"
expect other "$NOT_REACHED" "not another host port on 127.0.0.1 ($Q)"
expect proxy "$NOT_REACHED" "no proxy without allow_domains"
expect raw EPERM "a raw socket is refused"
for var in HTTP_PROXY HTTPS_PROXY http_proxy https_proxy ALL_PROXY NO_PROXY; do
    expect "env_$var" "<missing>" "no \$$var without allow_domains"
done
expect host_unix "ENOENT|ECONNREFUSED|EACCES|EPERM" "the host's unix socket under /tmp is unreachable"
expect own_unix own-service "a unix socket made in the private /dev/shm works"
expect pair pair "a socketpair works"
expect exposed listening "the agent's server on 127.0.0.1:$E (exposed)"
expect hidden listening "the agent's server on 127.0.0.1:$N (not exposed)"
expect go ok "the host side connected in before the agent exited"

section "host side: into the sandbox only through $E; the relay is the caller's and ends with the run"
# (Without the agent's ready marker the host side is still waiting: nothing to read.)
[ -e "$W/ready" ] && for _ in $(seq 1 50); do [ -e "$W/go" ] && break; sleep 0.1; done
OUT=$(cat "$T/.runs/hostside.out" 2>/dev/null)
expect hostside_ready ok "the host side saw the agent's servers start"
expect in_exposed "inside exposed" "the host's 127.0.0.1:$E reaches the agent's server"
expect in_hidden ECONNREFUSED "the host's 127.0.0.1:$N does not reach the agent's other server"
expect_proxy_confined "tartaros-proxy relays under the supervisor"
capture_as "${HELPER[@]}" client "after_exposed tcp 127.0.0.1 $E"
expect after_exposed ECONNREFUSED "the host's 127.0.0.1:$E is closed after the run"
log=$(tail -n +"$((log_mark + 1))" "$SERVICES")
check_match "the host's 127.0.0.1:$P got the relayed requests" "^request local GET /local_again host=" "$log"
check_no_match "no other host server got a connection" "^request (alias_same|alias_other|v6|other) " "$log"
sleep 0.3
check_no_match "the UDP datagram to 127.0.0.1:$P never reached the host" "^datagram " \
    "$(tail -n +"$((log_mark + 1))" "$SERVICES")"

it_finish
