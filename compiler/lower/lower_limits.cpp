// compiler/lower/lower_limits.cpp — see lower_limits.h.
#include "lower_limits.h"

#include <algorithm>
#include <vector>

namespace tartaros {

namespace {

static_assert(kRlimUnlimited == TP_RLIM_INFINITY, "policy.h and ir/plan.h agree on unlimited");

constexpr uint32_t kRlimitCore = 4;

template <class T>
tp_origin origin_of(const std::optional<Located<T>> &value, const PlanOrigins &origin)
{
    return value ? origin(value->pos) : tp_origin{};
}

bool sets_limits(const ProcessPolicy &process)
{
    return process.max_processes || process.memory_max || process.cpu_max || process.timeout;
}

// The policy's rlimits and the default core = 0, in ascending resource order.
std::vector<tp_rlimit> rlimit_records(const ProcessPolicy &process, const PlanOrigins &origin)
{
    std::vector<tp_rlimit> out;
    for (const RlimitSetting &r : process.rlimits) {
        tp_rlimit rec{};
        rec.resource = r.resource;
        rec.soft = r.soft;
        rec.hard = r.hard;
        rec.origin = origin(r.pos);
        out.push_back(rec);
    }
    const bool sets_core =
        std::any_of(out.begin(), out.end(), [](const tp_rlimit &r) { return r.resource == kRlimitCore; });
    if (!sets_core) {
        tp_rlimit core{};
        core.resource = kRlimitCore;
        out.push_back(core);
    }
    std::sort(out.begin(), out.end(), [](const tp_rlimit &a, const tp_rlimit &b) { return a.resource < b.resource; });
    return out;
}

}  // namespace

void write_limits(ir::PlanWriter &w, const ProcessPolicy &process, const PlanOrigins &origin)
{
    if (sets_limits(process)) {
        tp_limits l{};
        l.max_processes = process.max_processes ? process.max_processes->value : 0;
        l.memory_max = process.memory_max ? process.memory_max->value : 0;
        l.cpu_quota_us = process.cpu_max ? process.cpu_max->value : 0;
        l.cpu_period_us = process.cpu_max ? TP_CPU_PERIOD_US : 0;
        l.timeout_ms = process.timeout ? process.timeout->value : 0;
        l.grace_ms = !process.timeout ? 0
            : process.timeout_grace   ? process.timeout_grace->value
                                      : kDefaultTimeoutGraceMs;
        l.max_processes_origin = origin_of(process.max_processes, origin);
        l.memory_max_origin = origin_of(process.memory_max, origin);
        l.cpu_max_origin = origin_of(process.cpu_max, origin);
        l.timeout_origin = origin_of(process.timeout, origin);
        w.set_limits(l, true);
    }
    for (const tp_rlimit &r : rlimit_records(process, origin))
        w.add_rlimit(r);
}

}  // namespace tartaros
