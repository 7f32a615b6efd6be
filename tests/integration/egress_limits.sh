#!/bin/bash
# The proxy inside the run's limits, and what it tells a person. Everything runs in a network
# namespace the test makes (loopback only), so a lookup the proxy makes fails at once and
# nothing leaves the machine. A host server on its 127.0.0.1 plays the upstream (allowed.test
# is pinned to it).
#  - memory_max = "32M": the proxy serves at most 64 connections at once (memory_max / 512 KiB).
#    The agent starts one well-behaved 8 MiB download, then opens 100 connections whose
#    endless downloads it never reads: past the cap they get 503 overloaded, the download
#    completes, and once the hogs are gone a request works again. As root the proxy is in the
#    run's memory and pids cgroups (pids.max counts its tasks), and stays small; as a user
#    (no cgroup here) its descriptor limit holds the cap.
#  - End-of-run notes: one `tartaros: note:` line per distinct refusal, with its count and
#    the policy field to change, after the command's output; a failed lookup says "could not
#    resolve" in the note and in the HTTP reply.
#  - A local port with nothing listening on the host: the agent's connection is reset
#    (ECONNRESET), not ended cleanly.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

NS=tartaros-it-egress-$$
ip netns add "$NS" || die "cannot create the network namespace $NS"
trap 'it_cleanup; ip netns del "$NS" 2>/dev/null' EXIT
ip netns exec "$NS" ip link set lo up || die "cannot bring up lo in $NS"
# nsenter, not `ip netns exec`: that remounts /sys, and the cgroup hierarchies with it.
AS=(nsenter --net=/run/netns/"$NS" "${AS[@]}")

W=$T/ws
mkdir -p "$W"
install -m 644 "$(dirname "$0")/egress_helper.py" "$T/egress_helper.py"
HELPER=(/usr/bin/python3 "$T/egress_helper.py")
spawn ip netns exec "$NS" "${HELPER[@]}" upstream "$T/.runs/port"
for _ in $(seq 1 50); do [ -s "$T/.runs/port" ] && break; sleep 0.1; done
port=$(cat "$T/.runs/port" 2>/dev/null)
[ -n "$port" ] || die "the upstream did not start"
closed=$(ip netns exec "$NS" python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

cat >"$T/limits.toml" <<EOF2
version = 1
[filesystem]
writable_roots = ["ws"]
[process]
memory_max = "32M"
max_processes = 40
[network]
allow_domains = ["allowed.test"]
domain_ports = [$port]
hosts = { "allowed.test" = "127.0.0.1" }
EOF2
compile "$T/limits.toml" "$T/limits.plan" || it_finish

section "memory_max 32M: 64 connections at most; past them 503 overloaded, the others unharmed"
# The host side notes the proxy's RSS as soon as it runs, then looks at it while the hogs are
# held: its growth is measured, as a sanitizer build's proxy starts far higher (its shadow
# memory) than a plain one.
(
    pid=""
    for _ in $(seq 1 600); do
        pid=$(find_descendant $$ "$IT_DIR/tartaros-proxy")
        [ -n "$pid" ] && break
        sleep 0.05
    done
    rss_start=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null)
    for _ in $(seq 1 600); do [ -e "$W/held" ] && break; sleep 0.1; done
    {
        echo "proxy_rss_start=${rss_start:-<none>}"
        echo "proxy_pid=${pid:-<none>}"
        [ -n "$pid" ] && sed -n 's/^\(VmRSS\|VmHWM\):[[:space:]]*\([0-9]*\) kB/proxy_\1=\2/p' "/proc/$pid/status"
        [ -n "$pid" ] && sed -n 's/^Max open files *\([0-9]*\) .*/proxy_nofile=\1/p' "/proc/$pid/limits"
        [ -n "$pid" ] && sed -n 's/^[0-9]*:\(memory\|pids\):\(.*\)$/proxy_cg_\1=\2/p' "/proc/$pid/cgroup"
        [ -n "$pid" ] && echo "proxy_tasks=$(ls "/proc/$pid/task" | wc -l)"
        cg=$(sed -n 's/^[0-9]*:pids:\(.*\)$/\1/p' "/proc/$pid/cgroup" 2>/dev/null)
        [ -n "$cg" ] && echo "pids_max=$(cat "/sys/fs/cgroup/pids$cg/pids.max" 2>/dev/null)"
        cg=$(sed -n 's/^[0-9]*:memory:\(.*\)$/\1/p' "/proc/$pid/cgroup" 2>/dev/null)
        [ -n "$cg" ] && echo "cg_memory=$(cat "/sys/fs/cgroup/memory$cg/memory.usage_in_bytes" 2>/dev/null)"
    } >"$T/.runs/host.out"
    touch "$W/go"
) &
host_side=$!
sbx "$T/limits.plan" "${HELPER[@]}" hog "$port" 100 "$W/held" "$W/go"
wait "$host_side"
expect_rc 0 "sandbox exit status"
expect good_status 200 "a well-behaved download starts"
expect hogs "200:63,503-overloaded:37" "100 unread downloads: 63 fit beside it, 37 get 503 overloaded"
expect good_download "200:8388608" "the well-behaved download completes while they are held"
expect during 503-overloaded "a new request while every slot is held: 503 overloaded"
expect after 200 "once the hogs are gone a request works again"
OUT=$(cat "$T/.runs/host.out")
echo "   (proxy: $(tr '\n' ' ' <"$T/.runs/host.out"))"
expect proxy_pid '[0-9]+' "the host side found the proxy"
expect proxy_VmRSS '[0-9]{1,5}' "the proxy's RSS stays under 100 MiB"
if [ "$RUN_USER" = root ]; then
    expect proxy_cg_memory ".*/tartaros-[0-9]+" "the proxy is in the run's memory cgroup"
    expect proxy_cg_pids ".*/tartaros-[0-9]+" "... and in its pids cgroup"
    expect pids_max 47 "pids.max = 40 + init and the connect mediator + the proxy's 5 tasks"
    result_of proxy_rss_start
    start=$RESULT
    result_of proxy_VmRSS
    check "the proxy's RSS grew by less than memory_max/2 (from $start to $RESULT KiB)" \
        test "$((${RESULT:-99999} - ${start:-0}))" -lt 16384
else
    # No cgroup for a user here: the caps are what holds, the descriptor limit among them.
    result_of proxy_nofile
    check "the proxy's RLIMIT_NOFILE (${RESULT}) fits 64 connections, not more" test "${RESULT:-0}" -le 500
fi

cat >"$T/notes.toml" <<EOF2
version = 1
[filesystem]
writable_roots = ["ws"]
[network]
allow_domains = ["allowed.test", "nx.invalid", "localhost"]
domain_ports = [$port]
hosts = { "allowed.test" = "127.0.0.1" }
local_ports = [$closed]
EOF2
compile "$T/notes.toml" "$T/notes.plan" || it_finish

section "end-of-run notes: one line per distinct refusal; a relayed port with nothing behind it resets"
sbx_script "$T/notes.plan" <<EOF2
for i in 1 2 3; do curl -s -o /dev/null http://other.test:$port/; done
t dns curl -s -i http://nx.invalid:$port/
curl -s -o /dev/null https://nx.invalid:$port/  # the same host and port: the same note
curl -s -o /dev/null --noproxy '' https://localhost:$port/
t good curl -sS http://allowed.test:$port/small
echo "relay=\$(${HELPER[*]} reset $closed)"
echo agent-done >&2
EOF2
expect_rc 0 "sandbox exit status"
expect good.data small-ok "an allowed request works"
expect dns.data ".*HTTP/1.1 502 Could Not Resolve Host.*could not resolve nx.invalid.*" \
    "a failed lookup: the status line and the body say could not resolve"
expect relay "ECONNRESET|ECONNREFUSED" "connect + recv on local port $closed with nothing on the host: ECONNRESET, not EOF"
notes=$(grep '^tartaros: note: ' <<<"$ERR")
echo "$notes" | sed 's/^/   | /'
check_eq "four distinct refusals, four notes" 4 "$(grep -c . <<<"$notes")"
check_match "the allow-list refusal, counted, with the field to change" \
    "^tartaros: note: the proxy refused GET other\.test:$port 3 times: blocked-by-allowlist: .*add it to allow_domains" "$notes"
check_match "the failed lookup says could not resolve" \
    "^tartaros: note: the proxy refused GET nx\.invalid:$port 2 times: dns-failure: could not resolve nx\.invalid: .*pin it in hosts" "$notes"
check_match "the internal address names it and the pin" \
    "^tartaros: note: the proxy refused CONNECT localhost:$port once: blocked-internal-address: localhost resolves to .*pin it in hosts" "$notes"
check_match "the relay's refusal names the local port" \
    "^tartaros: note: the proxy refused RELAY 127\.0\.0\.1:$closed once: upstream-unreachable: cannot connect to 127\.0\.0\.1:$closed: Connection refused; .*local_ports" "$notes"
check_eq "the notes come after the command's last output line" "agent-done" \
    "$(grep -v '^tartaros: note: ' <<<"$ERR" | tail -n 1)"
check_eq "... and none before it" "$(grep -c . <<<"$notes")" \
    "$(sed -n '/^agent-done$/,$p' <<<"$ERR" | grep -c '^tartaros: note: ')"

it_finish
