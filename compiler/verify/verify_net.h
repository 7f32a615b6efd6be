// compiler/verify/verify_net.h — the compiler's check of the plan's network sections.
//
// Read back through ir/plan_reader and compared with the policy, not with the lowering:
//  1. modes == network_modes(policy); proxy_port is the policy's exactly when PROXY is on;
//  2. the LOCAL, EXPOSE and DESTINATION ports are the policy's lists (domain_ports or its
//     default), in order, and nothing else;
//  3. with the proxy on, the ALLOW, DENY and PIN names are the policy's, in order; with it off,
//     there are none; the BROKER_HOST names are [broker] allowed_hosts, in order (none
//     without a broker);
//  4. the environment sets every proxy variable (lower_net.h) to its value, and the policy's
//     own `set` entries come after them.
#pragma once

#include <string>

#include "diagnostics.h"
#include "plan_reader.h"
#include "policy.h"

namespace tartaros {

// The first difference between the plan's network sections and `policy`, or nothing.
Failure verify_network(const tp_plan &plan, const Policy &policy);

}  // namespace tartaros
