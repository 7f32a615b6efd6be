#!/bin/bash
# The credential broker ([broker], docs/broker.md) in a real sandbox, against a local HTTPS upstream
# with a test CA (tests/proxy/https_upstream.py, on the host's 127.0.0.1; `allow_internal`).
# With the token from $CREDENTIALS_DIRECTORY/broker-token, a request to $TARTAROS_BROKER_URL
# reaches the upstream, which sees exactly the injected header and never the token; a missing
# or wrong token and an unknown capability are refused with their X-Broker-Error. The secret
# (value_env, only in the launcher's environment) is then looked for as an attacker would:
# the agent's environment, every readable file under /proc of every pid it sees and the memory
# of those it can read, /run, /tmp, the credentials directory (only the token is there), the
# refusals' bodies, tartaros-exec's messages and the effect log; from the host, as root, the
# environ, cmdline and memory of the supervisor and everything below it (all but the proxy).
# Also with `inherit = true` and a token_env set: neither variable reaches the agent. A
# missing or malformed value refuses (78) with a line that names the variable, never the value.
# 100 MB go down and up through the broker with the proxy's peak RSS bounded.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W" "$T/upstream" "$T/bin"
install -m 644 "$(dirname "$0")/broker_helper.py" "$T/broker_helper.py"
HELPER=(/usr/bin/python3 "$T/broker_helper.py")
BIG=$((100 << 20))
truncate -s "$BIG" "$W/big"  # sparse zeros: the upload

# The upstream keeps its key and request log (which holds the secret) under upstream/, which
# the policy hides; only the CA certificate is copied out for the proxy.
UPSTREAM_OUT=$T/.runs/upstream.out
spawn /usr/bin/python3 "$(dirname "$0")/../proxy/https_upstream.py" --dir "$T/upstream" >"$UPSTREAM_OUT"
for _ in $(seq 1 100); do grep -q '^PORT ' "$UPSTREAM_OUT" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/^PORT //p' "$UPSTREAM_OUT")
[ -n "$port" ] || die "the HTTPS upstream did not start"
install -m 644 "$T/upstream/ca.pem" "$T/ca.pem"
REQUESTS=$T/upstream/requests.jsonl

SECRET="it-secret-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
TOKEN2="it-token-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
DL_SHA=$(python3 -c "
import hashlib, sys
p = bytes(i % 251 for i in range(251 * 261)); h = hashlib.sha256(); n = $BIG
while n: piece = p[:min(n, len(p))]; h.update(piece); n -= len(piece)
print(h.hexdigest())")
UL_SHA=$(head -c "$BIG" /dev/zero | sha256sum | cut -c1-64)

# policy FILE [EXTRA_BROKER_LINE] [EXTRA_TABLES]. A private /tmp: the scan reads every file
# there, and the host's own /tmp may hold anything (a log that names the variable).
policy() {
    cat >"$1" <<EOF
version = 1
[filesystem]
writable_roots = ["ws"]
read_denies = ["upstream"]
private_tmp = true
${3:-}
[broker]
allowed_hosts = ["localhost", "::1"]
allow_internal = true
ca_file = "ca.pem"
${2:-}
[[broker.capability]]
name = "api"
host = "localhost:$port"
value_env = "IT_BROKER_SECRET"
value_format = "Bearer {value}"
[[broker.capability]]
name = "v6"
host = "[::1]:1"
value_env = "IT_BROKER_SECRET"
methods = ["GET"]
EOF
}
policy "$T/policy.toml"
compile "$T/policy.toml" "$T/plan" || it_finish
policy "$T/inherit.toml" 'token_env = "IT_BROKER_TOKEN"' $'[env]\ninherit = true'
compile "$T/inherit.toml" "$T/inherit.plan" || it_finish

# The first run keeps an effect log: sbx goes through a wrapper that adds --log.
REAL_EXEC=$EXEC
LOG=$T/log.jsonl
cat >"$T/bin/tartaros-exec" <<EOF
#!/bin/sh
exec "$REAL_EXEC" --log "$LOG" "\$@"
EOF
chmod 755 "$T/bin/tartaros-exec"

# What every run's agent does first: the credentials directory, a brokered request, the
# refusals, then the scan for the secret (the host greps its dump). The token goes to curl in
# a header file (-H @FILE, written by the shell's builtin printf), never on a command line:
# an agent that puts it in argv shows it to /proc (argv_token does, on purpose: the effect
# log's exec event must show it as stars).
agent_checks() {
    cat <<EOF
TOK=\$(cat "\$CREDENTIALS_DIRECTORY/broker-token")
A=$W/auth.\$\$ X=$W/wrong.\$\$
printf 'X-Broker-Auth: %s\n' "\$TOK" > "\$A"
printf 'X-Broker-Auth: %sx\n' "\$TOK" > "\$X"
echo "token=\$TOK"
echo "url=\$TARTAROS_BROKER_URL"
echo "creds_dir=\$CREDENTIALS_DIRECTORY"
echo "creds_list=\$(ls -A "\$CREDENTIALS_DIRECTORY" | tr '\n' ' ')"
echo "creds_modes=\$(stat -c '%a %u' "\$CREDENTIALS_DIRECTORY" "\$CREDENTIALS_DIRECTORY/broker-token" | tr '\n' ' ')"
t creds_write sh -c 'echo x > "\$CREDENTIALS_DIRECTORY/other"'
t creds_chmod chmod 600 "\$CREDENTIALS_DIRECTORY/broker-token"
echo "creds_mount=\$(grep " \$CREDENTIALS_DIRECTORY " /proc/self/mounts | cut -d' ' -f4)"
env | grep -c '^IT_BROKER' | sed 's/^/env_broker_vars=/'
env | grep '^TARTAROS_BROKER_URL=\|^CREDENTIALS_DIRECTORY=' | sed 's/^/env_/'
t ok curl -sS --max-time 10 -H @"\$A" "\$TARTAROS_BROKER_URL/api/status/200?q=1"
t argv_token /bin/true "X-Broker-Auth: \$TOK"
t missing curl -sS --max-time 10 -o /dev/null -w '%{http_code} %header{x-broker-error}' "\$TARTAROS_BROKER_URL/api/missing-token"
t wrong curl -sS --max-time 10 -o /dev/null -w '%{http_code} %header{x-broker-error}' -H @"\$X" "\$TARTAROS_BROKER_URL/api/bad-token"
t unknown curl -sS --max-time 10 -o /dev/null -w '%{http_code} %header{x-broker-error}' -H @"\$A" "\$TARTAROS_BROKER_URL/nope/x"
t v6 curl -sS --max-time 10 -o /dev/null -w '%{http_code} %header{x-broker-error}' -H @"\$A" "\$TARTAROS_BROKER_URL/v6/x"
t bodies sh -c 'for p in api/missing-token nope/x; do curl -sS --max-time 10 -H @"\$1" "\$TARTAROS_BROKER_URL/\$p"; done' - "\$X"
${HELPER[*]} scan "$W/scan.\$\$"
echo "scan_file=$W/scan.\$\$"
EOF
}

section "a brokered request, the refusals, and the secret nowhere the agent looks"
IT_ENV=(IT_BROKER_SECRET="$SECRET")
EXEC=$T/bin/tartaros-exec
# The host side looks at the proxy's peak RSS before the transfers and after, and at the
# supervisor and everything below it once they are done, while the agent waits.
IT_SECRET=$SECRET spawn "${HELPER[@]}" hostside $$ "$W/before" "$W/ready" "$W/go" "$T/.runs/hostside.out"
sbx_script "$T/plan" <<EOF
$(agent_checks)
touch "$W/before"
for i in \$(seq 1 300); do [ -e "$W/before.go" ] && break; sleep 0.1; done
s=\$(date +%s%N)
echo "dl_sha=\$(curl -sS --max-time 60 -H @"\$A" "\$TARTAROS_BROKER_URL/api/download?bytes=$BIG" | sha256sum | cut -c1-64)"
m=\$(date +%s%N)
t upload curl -sS --max-time 60 -T "$W/big" -H @"\$A" "\$TARTAROS_BROKER_URL/api/upload"
e=\$(date +%s%N)
echo "dl_ms=\$(( (m - s) / 1000000 ))"
echo "ul_ms=\$(( (e - m) / 1000000 ))"
echo "\$TOK" > "$W/ready.tmp" && mv "$W/ready.tmp" "$W/ready"
for i in \$(seq 1 300); do [ -e "$W/go" ] && break; sleep 0.1; done
EOF
EXEC=$REAL_EXEC
IT_ENV=()
expect_rc 0 "sandbox exit status"
result_of token
TOKEN=$RESULT
check_match "the token is 64 hex digits (random: no token_env)" '^[0-9a-f]{64}$' "$TOKEN"
expect url "http://127\.0\.0\.1:3129" "\$TARTAROS_BROKER_URL names the broker"
expect creds_dir /run/credentials/tartaros "\$CREDENTIALS_DIRECTORY"
expect creds_list "broker-token " "the credentials directory holds only the token"
expect creds_modes "500 $(id -u "$RUN_USER") 400 $(id -u "$RUN_USER") " "... 0500 and 0400, the agent's own"
expect creds_write 'fail\(.*' "... and nothing can be added"
expect creds_write.data '.*Read-only file system.*'
expect creds_chmod 'fail\(.*' "... nor changed"
expect creds_mount 'ro,nosuid,nodev,noexec,.*' "... a read-only, nosuid, nodev, noexec mount"
expect env_broker_vars 0 "no IT_BROKER_* variable in the agent's environment"
expect env_TARTAROS_BROKER_URL "http://127\.0\.0\.1:3129"
expect env_CREDENTIALS_DIRECTORY /run/credentials/tartaros
expect ok ok "a request with the token"
expect ok.data "status 200" "... reaches the upstream (which does not echo the request)"
expect missing.data "401 missing-token" "no token: 401 missing-token"
expect wrong.data "401 bad-token" "a wrong token: 401 bad-token"
expect unknown.data "404 unknown-capability" "an unknown capability: 404 unknown-capability"
expect v6.data "502 upstream-unreachable" "a second capability, on an IPv6 literal: tried, nothing listens there"
expect bodies.data 'tartaros-broker: .*\|tartaros-broker: .*' "... each with a one-line body"
expect dl_sha "$DL_SHA" "100 MB down through the broker, intact"
expect upload.data ".*\"bytes\": $BIG, \"sha256\": \"$UL_SHA\".*" "100 MB up through the broker, intact"
result_of dl_ms
echo "        (download ${RESULT} ms)"
result_of ul_ms
echo "        (upload ${RESULT} ms)"
check_no_match "the secret is not in the agent's output" "$SECRET" "$OUT"
check_no_match "... nor in tartaros-exec's messages" "$SECRET" "$ERR"

section "the agent's view, scanned: the secret is nowhere"
result_of scan_file
SCAN=$RESULT
expect scan_pids '[3-9]|[1-9][0-9]+' "the scan saw the sandbox's processes"
expect scan_files '[1-9][0-9]{2,}' "... read hundreds of /proc files"
expect scan_mem_pids '[1-9][0-9]*' "... read the memory of the agent's other processes"
expect scan_run_files '[1-9][0-9]*' "... and the files under /run and /tmp"
check "control: the scan found the token (in the credentials directory)" grep -qaF "$TOKEN" "$SCAN"
check "control: ... and the agent's environment" grep -qaF "TARTAROS_BROKER_URL=" "$SCAN"
check_not "the secret is nowhere in the scan" grep -qaF "$SECRET" "$SCAN"
check_not "the variable's name is nowhere in the scan" grep -qaF "IT_BROKER_SECRET" "$SCAN"

section "host side: the supervisor and everything below it, as root"
OUT=$(cat "$T/.runs/hostside.out" 2>/dev/null)
expect hostside_ready ok "the host side saw the sandbox up"
expect host_checked '[3-9]|[1-9][0-9]+' "it looked at the supervisor and its descendants"
expect host_secret_environ none "the secret is in no /proc/PID/environ"
expect host_secret_cmdline none "... in no /proc/PID/cmdline"
expect host_secret_mem none "... in no memory but the proxy's (the supervisor wiped it)"
expect host_token_in_supervisor no "the supervisor has forgotten the token too, once init wrote it"
expect proxy_environ_bytes 0 "tartaros-proxy runs with an empty environment"
expect proxy_cmdline_token no "... and without the token on its command line"
# Bounded streaming: the peak grows by far less than one transfer. Measured as growth, as a
# sanitizer build's proxy starts far higher (its shadow memory) than a plain one.
result_of proxy_hwm_before_kib
HWM_BEFORE=$RESULT
result_of proxy_hwm_kib
HWM=$RESULT
if [[ $HWM_BEFORE =~ ^[0-9]+$ && $HWM =~ ^[0-9]+$ ]] && [ $((HWM - HWM_BEFORE)) -lt 16384 ]; then
    pass "tartaros-proxy's peak RSS grew by $((HWM - HWM_BEFORE)) KiB (from $HWM_BEFORE to $HWM) while 200 MB streamed (< 16 MiB)"
else
    fail "tartaros-proxy's peak RSS while 200 MB streamed" "growth < 16384 KiB" "from $HWM_BEFORE to $HWM KiB"
fi

section "the upstream saw the injected header, never the token"
OUT=$(IT_SECRET=$SECRET IT_TOKEN=$TOKEN "${HELPER[@]}" requests "$REQUESTS" "/status/200?q=1")
expect req_count 1 "the brokered request arrived once, its query kept"
expect req_authorization_count 1 "exactly one Authorization header"
expect req_authorization_is_secret yes "... carrying the capability's value"
expect req_token_anywhere no "the token is in no header"
expect req_broker_auth_header no "no X-Broker-Auth header"
expect req_host "localhost:$port" "Host is the capability's"
check_not "no refused request reached the upstream" grep -qE '"path": "/(missing-token|bad-token|x)"' "$REQUESTS"
check "control: the upstream's log holds the secret (the grep can find it)" grep -qF "$SECRET" "$REQUESTS"

section "the effect log: broker events, no secret, no token"
check "the log has broker events" grep -qF '"event":"broker"' "$LOG"
check_not "the secret is not in the log" grep -qF "$SECRET" "$LOG"
check_not "the token is not in the log" grep -qF "$TOKEN" "$LOG"
check "a token passed in argv is logged as stars" \
    grep -qF "\"X-Broker-Auth: $(printf '%64s' '' | tr ' ' '*')\"" "$LOG"
check "run_start lists the broker as installed" grep -qF '"credential_broker"' "$LOG"

section "inherit = true and a token_env: neither variable reaches the agent"
IT_ENV=(IT_BROKER_SECRET="$SECRET" IT_BROKER_TOKEN="$TOKEN2" IT_OTHER=passes)
sbx_script "$T/inherit.plan" <<EOF
$(agent_checks)
env | grep -c '^IT_OTHER=passes$' | sed 's/^/env_other=/'
EOF
IT_ENV=()
expect_rc 0 "sandbox exit status"
expect token "$TOKEN2" "the token file holds token_env's token"
expect env_other 1 "inherit = true passes the launcher's other variables"
expect env_broker_vars 0 "... but neither IT_BROKER_SECRET nor IT_BROKER_TOKEN"
expect ok.data "status 200" "the token_env token works"
expect wrong.data "401 bad-token" "a wrong token is still refused"
result_of scan_file
check_not "the secret is nowhere in the scan" grep -qaF "$SECRET" "$RESULT"
check_not "... nor the variables' names" grep -qaE "IT_BROKER_(SECRET|TOKEN)" "$RESULT"
check_no_match "the secret is not in the agent's output" "$SECRET" "$OUT"

section "a missing or malformed value refuses, naming the variable and never the value"
sbx "$T/plan" /bin/sh -c "touch $W/ran-unset"
expect_rc 78 "IT_BROKER_SECRET unset: refused"
check_match "one line naming the variable and the capability" \
    '^tartaros: broker capability api \(policy line [0-9]+:[0-9]+\): its value_env IT_BROKER_SECRET is not set' "$ERR"
check_eq "... and only that line" 1 "$(line_count "$ERR")"
check_not "the command never ran" test -e "$W/ran-unset"
IT_ENV=(IT_BROKER_SECRET=$'Bearer-part\r\nX-Injected: '"$SECRET")
sbx "$T/plan" /bin/sh -c "touch $W/ran-crlf"
IT_ENV=()
expect_rc 78 "a value with CR LF: refused"
check_match "the line names the variable" 'its value_env IT_BROKER_SECRET holds a byte that cannot go into an HTTP header' "$ERR"
check_no_match "... and holds none of the value" "$SECRET|Bearer-part|X-Injected" "$ERR"
check_not "the command never ran" test -e "$W/ran-crlf"
IT_ENV=(IT_BROKER_SECRET="$SECRET")
sbx "$T/inherit.plan" /bin/sh -c "touch $W/ran-token"
IT_ENV=()
expect_rc 78 "token_env unset: refused"
check_match "the line names token_env's variable" '^tartaros: broker \(policy line [0-9]+:[0-9]+\): its token_env IT_BROKER_TOKEN is not set' "$ERR"

it_finish
