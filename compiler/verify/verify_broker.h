// compiler/verify/verify_broker.h — the compiler's check of the plan's broker records.
//
// Read back through ir/plan_reader and compared with the policy, not with the lowering:
//  1. TP_SEC_BROKER is present exactly when the policy has [broker], and is required; its
//     port, allow_internal flag, auth_header, token_env ("" when unset) and ca_file ("" when
//     unset) are the policy's;
//  2. the capabilities are the policy's, in order, field by field (methods and path prefixes
//     joined by one space, the port 443 unless the host names one);
//  3. every capability's host is matched by a BROKER_HOST name (verify_net checks those are
//     allowed_hosts, in order);
//  4. the two broker variables (lower_broker.h) are set, with their values, right after the
//     proxy's; no token_env or value_env is passed or set;
//  5. the credentials TMPFS step exists exactly with a broker, and its parent directory lies
//     in a tmpfs the sandbox made (lower_broker.h). The probes of verify.h check its levels:
//     read at the mount layer, kCredentialsRights from Landlock (or write, mount-only, inside
//     a writable root such as "/").
#pragma once

#include <string>

#include "diagnostics.h"
#include "plan_reader.h"
#include "policy.h"

namespace tartaros {

// The first difference between the plan's broker records and `policy`, or nothing.
Failure verify_broker(const tp_plan &plan, const Policy &policy);

}  // namespace tartaros
