// compiler/verify/verify_limits.h — the compiler's check of the plan's limits and rlimits.
//
// Read back through ir/plan_reader and compared with the policy, not with the lowering:
//  1. TP_SEC_LIMITS is present exactly when the policy sets max_processes, memory_max, cpu_max
//     or timeout, and then it is required;
//  2. each limit is the policy's value (0 when unset) with the policy's position; the CPU
//     period is TP_CPU_PERIOD_US exactly when cpu_max is set; the grace is timeout_grace, or
//     kDefaultTimeoutGraceMs with a timeout alone, and 0 without a timeout;
//  3. TP_SEC_RLIMITS holds each of the policy's rlimits (soft, hard, position) and, when the
//     policy does not set core, core = 0 with origin (0,0); nothing else, in strictly
//     ascending resource order.
#pragma once

#include <string>

#include "diagnostics.h"
#include "plan_reader.h"
#include "policy.h"

namespace tartaros {

// The first difference between the plan's limit sections and `policy`, or nothing.
Failure verify_limits(const tp_plan &plan, const Policy &policy);

}  // namespace tartaros
