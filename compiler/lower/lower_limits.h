// compiler/lower/lower_limits.h — the [process] limits → TP_SEC_LIMITS and TP_SEC_RLIMITS.
//
// TP_SEC_LIMITS is written when the policy sets max_processes, memory_max, cpu_max or
// timeout, and is required like every other layer (a --strict run refuses a limit no cgroup
// can carry here); a timeout always has a grace (timeout_grace, else kDefaultTimeoutGraceMs),
// and the CPU period is TP_CPU_PERIOD_US exactly when cpu_max is set. TP_SEC_RLIMITS is
// always written: the policy's rlimits in ascending resource order, plus core = 0 with origin
// (0,0) when the policy does not set core, so no run leaves core dumps of the agent's memory
// behind. Only the policy decides the bytes: the same policy gives the same sections.
#pragma once

#include "plan_origin.h"
#include "plan_writer.h"
#include "policy.h"

namespace tartaros {

void write_limits(ir::PlanWriter &w, const ProcessPolicy &process, const PlanOrigins &origin);

}  // namespace tartaros
