// compiler/lower/lower_net.h — [network] → the plan's network sections and the proxy's environment.
//
// The modes (ir/plan.h tp_net_mode) follow from what the policy grants: PROXY when it allows a
// domain, PORTS when it lists local_ports, EXPOSE when it lists expose_ports, BROKER when it
// has a [broker] table; none of them is "none", where no section is written and nothing
// crosses the private namespace. Every mode keeps that namespace: what crosses it goes
// through tartaros-proxy on the host side. The names are the proxy's (ALLOW, DENY, PIN, only
// with PROXY) followed by the broker's allowed_hosts (BROKER_HOST), each in policy order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "plan_writer.h"
#include "policy.h"

namespace tartaros {

uint32_t network_modes(const Policy &policy);

// "http://127.0.0.1:<proxy_port>" when the proxy is on, else "".
std::string proxy_url(const NetworkPolicy &network);

// The variables that point the agent's tools at the proxy, in the order they are set.
std::vector<std::pair<std::string, std::string>> proxy_environment(const NetworkPolicy &network);

// Writes TP_SEC_NETWORK, TP_SEC_NET_PORTS and TP_SEC_NET_NAMES (nothing in mode "none").
// Keys that only matter to the proxy (deny_domains, hosts, domain_ports) while no domain is
// allowed get a warning: they do nothing.
void write_network(ir::PlanWriter &w, const Policy &policy, Diagnostics &diags);

}  // namespace tartaros
