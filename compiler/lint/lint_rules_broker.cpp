// compiler/lint/lint_rules_broker.cpp — the lint rules on [broker] (docs/lint-rules.md): what a
// compile accepts but a security review would question.
#include <algorithm>

#include "lint_rules_parts.h"
#include "names.h"
#include "toml_schema.h"

namespace tartaros {

namespace {

bool is_ip_literal(const std::string &host)
{
    const std::optional<tproxy::Host> parsed = tproxy::normalize_host(host);
    return parsed && parsed->kind != tproxy::HostKind::Name;
}

// allow_internal lifts the internal-address rule for every capability. Needed for an
// upstream inside the host's network; for one reached by name it also means that whoever
// answers for the name (DNS) can point the credential at an internal service.
void check_allow_internal(const BrokerPolicy &broker, Diagnostics &diags)
{
    if (!broker.allow_internal.value)
        return;
    const auto named = std::find_if(broker.capabilities.begin(), broker.capabilities.end(),
                                    [](const BrokerCapability &cap) { return !is_ip_literal(cap.host.value); });
    if (named == broker.capabilities.end())
        return;
    diags.warning(broker.allow_internal.pos,
                  "allow_internal = true lets every capability's upstream resolve to loopback, private or "
                  "link-local addresses: whoever answers DNS for " +
                      quoted(named->host.value) +
                      " can then send its credential to a service inside your network; write internal upstreams "
                      "as IP addresses, or keep internal and public upstreams in separate policies",
                  "broker-allow-internal");
}

// A capability without methods or path prefixes hands the agent the whole credential; one
// with prefixes but no methods still lets it delete or overwrite whatever lies under them.
void check_unrestricted(const BrokerPolicy &broker, Diagnostics &diags)
{
    for (const BrokerCapability &cap : broker.capabilities) {
        if (!cap.methods.empty())
            continue;
        const std::string what = cap.path_prefixes.empty()
            ? " limits neither methods nor path_prefixes: the agent can make every request the credential allows "
              "(delete, publish, change settings); list what it needs, like methods = [\"GET\"] or path_prefixes = "
              "[\"/repos/myorg/\"]"
            : " lists path_prefixes but no methods: the agent can use any method under them (DELETE, PUT, PATCH); "
              "the broker refuses TRACE, TRACK and CONNECT anyway, but list the methods it needs, like methods = "
              "[\"GET\"]";
        diags.warning(cap.name.pos.line != 0 ? cap.name.pos : cap.pos, "capability " + quoted(cap.name.value) + what,
                      "capability-unrestricted");
    }
}

// The broker connects to its capabilities' hosts only: an allowed host no capability uses
// allows nothing, and usually means a capability's host was mistyped or removed.
void check_unused_hosts(const BrokerPolicy &broker, Diagnostics &diags)
{
    for (const Located<std::string> &pattern : broker.allowed_hosts) {
        const bool used =
            std::any_of(broker.capabilities.begin(), broker.capabilities.end(), [&](const BrokerCapability &cap) {
                return tproxy::pattern_matches(pattern.value, cap.host.value);
            });
        if (!used)
            diags.warning(pattern.pos,
                          "allowed_hosts: " + quoted(pattern.value) +
                              " matches no capability's host: the broker only connects to those, so it allows "
                              "nothing; remove it or fix the capability's host",
                          "allowed-host-unused");
    }
}

}  // namespace

void lint_broker_rules(const Policy &policy, Diagnostics &diags)
{
    if (!policy.broker)
        return;
    check_allow_internal(*policy.broker, diags);
    check_unrestricted(*policy.broker, diags);
    check_unused_hosts(*policy.broker, diags);
}

}  // namespace tartaros
