#!/bin/bash
# Proxy mode: a policy with allow_domains keeps the private network namespace; the agent's only
# way out is tartaros-proxy at 127.0.0.1:3128 inside, announced in HTTP_PROXY & co. The test
# domains are pinned (`hosts`) to an HTTP server on the host's 127.0.0.1:PORT, PORT being the
# only domain port. In one sandbox run: an allowed name works through curl (absolute-form and
# CONNECT) and a raw CONNECT, a `*.suffix` name too; a name not allowed, a denied one, an
# allowed but unpinned name that resolves to loopback (`localhost`), an IP literal and a port
# not granted get their 403 and reason; Host-header smuggling, an oversized head and 1,000
# malformed requests are refused while the proxy keeps serving, also with 300 slow clients
# holding connections; `curl --noproxy '*'`, direct TCP, IPv6, UDP and raw sockets get
# nowhere. On the host: the proxy runs as the caller, confined (no_new_privs, seccomp, no
# capabilities), exits with the sandbox, and the server saw exactly the allowed requests.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W"
use_net_helper
SERVICES=$T/.runs/services.out
serve_on_host "$SERVICES" upstream=tcp:127.0.0.1:0 v6=tcp:::1:0 dns=udp:127.0.0.1:0
port=$(service_port "$SERVICES" upstream)
port6=$(service_port "$SERVICES" v6)
udp=$(service_port "$SERVICES" dns)
up="upstream GET"

section "control: the host's services answer the test's user"
capture_as "${HELPER[@]}" client "ctl_tcp tcp 127.0.0.1 $port" "ctl_v6 tcp ::1 $port6" "ctl_udp udp 127.0.0.1 $udp"
expect ctl_tcp "$up /ctl_tcp host=127.0.0.1" "control: TCP 127.0.0.1:$port"
expect ctl_v6 "v6 GET /ctl_v6 host=::1" "control: TCP [::1]:$port6"
for _ in $(seq 1 20); do grep -q '^datagram dns query-ctl_udp' "$SERVICES" && break; sleep 0.1; done
check "control: the UDP datagram arrives on the host" grep -q '^datagram dns query-ctl_udp' "$SERVICES"
log_mark=$(wc -l <"$SERVICES")

cat >"$T/policy.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
[network]
allow_domains = ["allowed.test", "*.corp.test", "localhost"]
deny_domains = ["secret.corp.test"]
domain_ports = [$port]
hosts = { "allowed.test" = "127.0.0.1", "api.corp.test" = "127.0.0.1", "secret.corp.test" = "127.0.0.1" }
EOF
compile "$T/policy.toml" "$T/plan" || it_finish

section "allow_domains: only the proxy leads out, and it enforces the policy"
# While the sandbox waits at the start, the host side looks at the running proxy.
spawn "${HELPER[@]}" hostside $$ "$W/ready" "$W/go" "$T/.runs/hostside.out"
a=allowed.test:$port
sbx_script "$T/plan" <<EOF
${HELPER[*]} client "ready touch $W/ready" "go wait $W/go 30"
env | sed -n 's/^\(HTTP_PROXY\|HTTPS_PROXY\|http_proxy\|https_proxy\|ALL_PROXY\|NO_PROXY\)=/env_\1=/p'
t curl_allowed curl -sS --max-time 5 http://$a/curl
t curl_tunnel curl -sS --max-time 5 -p http://$a/curl-tunnel
t curl_denied curl -sS --max-time 5 -o /dev/null -w '%{http_code} %header{x-proxy-error}' http://other.test:$port/denied
t curl_https_denied curl -sS --max-time 5 https://other.test:$port/denied
t curl_noproxy curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:$port/noproxy
t curl_noproxy_name curl -sS --max-time 5 --noproxy '*' http://$a/noproxy
${HELPER[*]} client \
    "allowed get $a /allowed" \
    "tunnel connect $a /tunnel" \
    "wildcard get api.corp.test:$port /wildcard" \
    "notallowed get other.test:$port /denied" \
    "notallowed_connect connect other.test:$port /denied" \
    "denylisted get secret.corp.test:$port /denied" \
    "denylisted_connect connect secret.corp.test:$port /denied" \
    "internal get localhost:$port /internal" \
    "internal_connect connect localhost:$port /internal" \
    "literal connect 127.0.0.1:$port /literal" \
    "port get allowed.test:25 /port" \
    "smuggle get $a /smuggle other.test:$port" \
    "smuggle_reverse get other.test:$port /smuggle $a" \
    "oversized bigheader $a 65536" \
    "malformed malformed $a 1000" \
    "slow slow $a 300" \
    "during_slow get $a /during-slow" \
    "slow_closed slow_close" \
    "after get $a /after" \
    "direct tcp 127.0.0.1 $port" \
    "v6 tcp ::1 $port6" \
    "udp udp 127.0.0.1 $udp" \
    "raw raw" \
    "dns resolve example.com"
EOF
expect_rc 0 "sandbox exit status"
expect go ok "the host side saw the sandbox start"
proxy_url="http://127\.0\.0\.1:3128"
for var in HTTP_PROXY HTTPS_PROXY http_proxy https_proxy ALL_PROXY; do
    expect "env_$var" "$proxy_url" "\$$var names the proxy"
done
expect env_NO_PROXY "localhost,127\.0\.0\.1,::1" "\$NO_PROXY keeps loopback direct"
expect curl_allowed ok "curl to an allowed name through \$http_proxy"
expect curl_allowed.data "$up /curl host=$a" "... reaches the pinned server with Host = the target"
expect curl_tunnel.data "$up /curl-tunnel host=$a" "curl -p: the same through a CONNECT tunnel"
expect curl_denied.data "403 blocked-by-allowlist" "curl to a name not allowed: 403 and the reason"
expect curl_https_denied 'fail\(56\)' "https through \$https_proxy: the CONNECT is refused (not a lookup failure)"
expect curl_https_denied.data '.*403.*'
expect curl_noproxy 'fail\([0-9]+\)' "curl --noproxy '*' to the host's 127.0.0.1:$port fails"
expect curl_noproxy_name 'fail\([0-9]+\)' "curl --noproxy '*' to the allowed name fails"
expect allowed "200 $up /allowed host=$a" "absolute-form GET of an allowed name"
expect tunnel "200 $up /tunnel host=$a" "raw CONNECT, then HTTP over the tunnel"
expect wildcard "200 $up /wildcard host=api.corp.test:$port" "a name under an allowed *.suffix"
expect notallowed "403 blocked-by-allowlist" "GET of a name not allowed"
expect notallowed.data ".*other\.test.*allow_domains.*" "... the body names the domain and the field to change"
expect notallowed_connect "403 blocked-by-allowlist" "CONNECT to a name not allowed"
expect denylisted "403 blocked-by-denylist" "a denied name under an allowed suffix, pinned"
expect denylisted.data ".*secret\.corp\.test.*deny_domains.*" "... the body names the domain and the field to change"
expect denylisted_connect "403 blocked-by-denylist" "CONNECT to the denied name"
expect internal "403 blocked-internal-address" "an allowed, unpinned name resolving to loopback"
# localhost is 127.0.0.1, ::1 or both, first one or the other, as the host's /etc/hosts and
# gai.conf say (Debian's default lists both); the proxy names every loopback address it got.
expect internal.data ".*localhost resolves to .*(127\.0\.0\.1|::1) \(loopback.*hosts.*" \
    "... the body names the loopback address and the field to change"
expect internal_connect "403 blocked-internal-address" "... through CONNECT too"
expect literal "403 blocked-by-allowlist" "CONNECT to an IP literal not allowed"
expect port "403 blocked-port" "an allowed name on a port outside domain_ports"
expect smuggle "400 host-mismatch" "target allowed.test with Host: other.test"
expect smuggle_reverse "400 host-mismatch|403 blocked-by-allowlist" "target other.test with Host: allowed.test"
expect oversized "431 header-too-large" "a 64 KiB header"
expect malformed "1000 refused" "1,000 malformed heads, each refused with a reason"
expect slow "300 held" "300 connections sending half a head and stalling"
expect during_slow "200 $up /during-slow host=$a" "an allowed request is served while they stall"
expect after "200 $up /after host=$a" "the proxy keeps serving after all of it"
expect direct "ECONNREFUSED|ENETUNREACH|EACCES" "direct TCP to the host's 127.0.0.1:$port fails"
expect v6 "ECONNREFUSED|ENETUNREACH|EADDRNOTAVAIL|EACCES" "TCP to the host's [::1]:$port6 fails"
expect raw EPERM "a raw socket is refused"
expect dns gaierror "a name outside the allow-list does not resolve"

section "host side: the proxy is the caller's, confined, and ends with the sandbox"
# (Without the agent's ready marker the host side is still waiting: nothing to read.)
[ -e "$W/ready" ] && for _ in $(seq 1 50); do [ -e "$W/go" ] && break; sleep 0.1; done
OUT=$(cat "$T/.runs/hostside.out" 2>/dev/null)
expect hostside_ready ok "the host side saw the sandbox start"
expect_proxy_confined "tartaros-proxy runs under the supervisor"
log=$(tail -n +"$((log_mark + 1))" "$SERVICES")
for path in /curl /curl-tunnel /allowed /tunnel /wildcard /during-slow /after; do
    check_match "the server got $path" "^request upstream GET $path host=" "$log"
done
check_no_match "no refused request reached the server" \
    "^request .* /(denied|internal|literal|port|smuggle|oversized|malformed|slow|noproxy|direct|v6)( |$)" "$log"
check_no_match "... and no smuggled Host" "^request .* host=other\.test" "$log"
sleep 0.3
check_no_match "the UDP datagram never reached the host" "^datagram " "$(tail -n +"$((log_mark + 1))" "$SERVICES")"

it_finish
