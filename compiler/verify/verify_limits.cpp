// compiler/verify/verify_limits.cpp — see verify_limits.h.
#include "verify_limits.h"

#include <cstdint>
#include <map>
#include <optional>

#include "plan_origin.h"

namespace tartaros {

namespace {

constexpr uint32_t kRlimitCore = 4;

// The plan's value and origin of one limit against the policy's optional setting.
template <class T>
bool matches(uint64_t value, tp_origin o, const std::optional<Located<T>> &wanted, const PlanOrigins &origins)
{
    if (!wanted)
        return value == 0 && o.line == 0 && o.col == 0 && o.file == 0;
    return value == wanted->value && origins.same(o, wanted->pos);
}

Failure check_limits(const tp_plan &plan, const ProcessPolicy &process, const PlanOrigins &origins)
{
    const bool wanted = process.max_processes || process.memory_max || process.cpu_max || process.timeout;
    if ((plan.limits != nullptr) != wanted)
        return wanted ? "the plan has no limits section, the policy sets limits"
                      : "the plan has a limits section, the policy sets no limit";
    if (plan.limits == nullptr)
        return std::nullopt;
    const tp_limits &l = *plan.limits;
    if ((plan.limits_section_flags & TP_SECF_REQUIRED) == 0)
        return "the limits section is not required";
    if (!matches(l.max_processes, l.max_processes_origin, process.max_processes, origins))
        return "max_processes differs from the policy's";
    if (!matches(l.memory_max, l.memory_max_origin, process.memory_max, origins))
        return "memory_max differs from the policy's";
    if (!matches(l.cpu_quota_us, l.cpu_max_origin, process.cpu_max, origins) ||
        l.cpu_period_us != (process.cpu_max ? TP_CPU_PERIOD_US : 0u))
        return "the CPU quota or period differs from the policy's cpu_max";
    if (!matches(l.timeout_ms, l.timeout_origin, process.timeout, origins))
        return "the timeout differs from the policy's";
    const uint64_t grace = !process.timeout ? 0
        : process.timeout_grace             ? process.timeout_grace->value
                                            : kDefaultTimeoutGraceMs;
    if (l.grace_ms != grace)
        return "the timeout's grace differs from the policy's";
    return std::nullopt;
}

struct Wanted {
    uint64_t soft, hard;
    SourcePos pos;
};

Failure check_rlimits(const tp_plan &plan, const ProcessPolicy &process, const PlanOrigins &origins)
{
    std::map<uint32_t, Wanted> wanted;
    for (const RlimitSetting &r : process.rlimits)
        wanted[r.resource] = {r.soft, r.hard, r.pos};
    wanted.try_emplace(kRlimitCore, Wanted{0, 0, {}});
    if (plan.rlimit_count != wanted.size())
        return "the plan sets " + std::to_string(plan.rlimit_count) + " rlimits, the policy " +
            std::to_string(wanted.size()) + " (core included)";
    auto next = wanted.begin();
    for (uint32_t i = 0; i < plan.rlimit_count; i++, ++next) {
        const tp_rlimit &r = plan.rlimits[i];
        if (r.resource != next->first)
            return "rlimit " + std::to_string(i) + " is resource " + std::to_string(r.resource) + ", not " +
                std::to_string(next->first);
        if (r.soft != next->second.soft || r.hard != next->second.hard || !origins.same(r.origin, next->second.pos))
            return "rlimit resource " + std::to_string(r.resource) + " differs from the policy's";
    }
    return std::nullopt;
}

}  // namespace

Failure verify_limits(const tp_plan &plan, const Policy &policy)
{
    const PlanOrigins origins(policy);
    for (const Failure &failure :
         {check_limits(plan, policy.process, origins), check_rlimits(plan, policy.process, origins)})
        if (failure)
            return "limits: " + *failure;
    return std::nullopt;
}

}  // namespace tartaros
