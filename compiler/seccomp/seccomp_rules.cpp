// compiler/seccomp/seccomp_rules.cpp — see seccomp_rules.h.
#include "seccomp_rules.h"

#include "bpf_check.h"

namespace tartaros {
namespace {

using seccomp::Action;
using seccomp::ArgTest;

// tp_arg_test_kind is ArgTest::Kind + 1 and SyscallCondition::Kind + 1: the one place that
// says so.
uint8_t record_kind(SyscallCondition::Kind kind)
{
    return static_cast<uint8_t>(kind) + 1;
}
ArgTest::Kind test_kind(uint8_t record)
{
    return static_cast<ArgTest::Kind>(record - 1);
}
static_assert(TP_ARG_IN == 1 && TP_ARG_NOT_IN == 2 && TP_ARG_ANY_BIT == 3 && TP_ARG_NO_BIT == 4);
static_assert(static_cast<int>(SyscallCondition::Kind::NoBit) == static_cast<int>(ArgTest::Kind::NoBit));

uint32_t record_action(const SyscallDenyRule &r)
{
    return r.kill ? TP_RET_KILL_PROCESS : TP_RET_ERRNO | r.err;
}

Action action_of(uint32_t record)
{
    return record == TP_RET_KILL_PROCESS ? Action::kill() : Action::error(static_cast<int>(record & TP_RET_DATA));
}

}  // namespace

SyscallRuleRecords syscall_rule_records(const ir::PlanWriter &w)
{
    return {w.syscall_rules(), w.syscall_tests(), w.syscall_values()};
}

SyscallRuleRecords syscall_rule_records(const tp_plan &plan)
{
    return {{plan.syscall_rules, plan.syscall_rule_count},
            {plan.syscall_tests, plan.syscall_test_count},
            {plan.syscall_values, plan.syscall_value_count}};
}

void write_syscall_rules(ir::PlanWriter &w, const SyscallPolicy &syscalls, const PlanOrigins &origins)
{
    for (const SyscallDenyRule &r : syscalls.rules) {
        std::vector<ir::SyscallTestSpec> tests;
        for (const SyscallCondition &c : r.when)
            tests.push_back({c.arg, record_kind(c.kind), c.values});
        w.add_syscall_rule(r.nr, record_action(r), origins(r.pos), tests);
    }
}

std::vector<seccomp::PolicyRule> policy_rules_of(const SyscallRuleRecords &records, const OriginNames &names)
{
    std::vector<seccomp::PolicyRule> out;
    for (const tp_syscall_rule &r : records.rules) {
        seccomp::PolicyRule rule;
        rule.nr = r.nr;
        rule.action = action_of(r.action);
        rule.where = names.text(r.origin);
        for (const tp_syscall_test &t : records.tests.subspan(r.first_test, r.test_count)) {
            const std::span<const uint32_t> values = records.values.subspan(t.first_value, t.value_count);
            rule.when.push_back({test_kind(t.kind), t.arg, {values.begin(), values.end()}});
        }
        out.push_back(std::move(rule));
    }
    return out;
}

seccomp::ProfileSpec profile_spec(const tp_plan &plan)
{
    return {profile_flags(plan.seccomp->profile), policy_rules_of(syscall_rule_records(plan), OriginNames(plan))};
}

std::vector<seccomp::PolicyRule> expected_rules(const Policy &policy)
{
    const PlanOrigins origins(policy);
    const OriginNames names(policy);
    std::vector<seccomp::PolicyRule> out;
    for (const SyscallDenyRule &r : policy.syscalls.rules) {
        seccomp::PolicyRule rule;
        rule.nr = r.nr;
        rule.action = r.kill ? Action::kill() : Action::error(r.err);
        rule.where = names.text(origins(r.pos));
        for (const SyscallCondition &c : r.when)
            rule.when.push_back({static_cast<ArgTest::Kind>(c.kind), c.arg, c.values});
        out.push_back(std::move(rule));
    }
    return out;
}

uint32_t profile_bits(seccomp::ProfileFlags flags)
{
    return (flags.harden ? uint32_t{TP_SC_HARDEN} : 0u) | (flags.deny_unix ? uint32_t{TP_SC_DENY_UNIX} : 0u);
}

seccomp::ProfileFlags profile_flags(uint32_t bits)
{
    return {(bits & TP_SC_HARDEN) != 0, (bits & TP_SC_DENY_UNIX) != 0};
}

}  // namespace tartaros
