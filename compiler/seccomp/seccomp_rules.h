// compiler/seccomp/seccomp_rules.h — the policy's syscall deny rules on their way from the model to the
// filter: Policy::syscalls → the plan's TP_SEC_SYSCALL_* records → seccomp::PolicyRule.
//
// The profile a filter implements is always rebuilt from the records (syscall_rule_records of
// the writer while lowering, of the plan for --verify and --explain), so the three agree by
// construction; the verifier compares the records with the model separately (expected_rules).
#pragma once

#include <span>
#include <vector>

#include "plan_origin.h"
#include "plan_reader.h"
#include "plan_writer.h"
#include "policy.h"
#include "seccomp_profile.h"

namespace tartaros {

struct SyscallRuleRecords {
    std::span<const tp_syscall_rule> rules;
    std::span<const tp_syscall_test> tests;
    std::span<const uint32_t> values;
};

SyscallRuleRecords syscall_rule_records(const ir::PlanWriter &w);
SyscallRuleRecords syscall_rule_records(const tp_plan &plan);  // a plan tp_plan_open accepted

// TP_SEC_SYSCALL_RULES/TESTS/VALUES for `syscalls`, in policy order.
void write_syscall_rules(ir::PlanWriter &w, const SyscallPolicy &syscalls, const PlanOrigins &origins);

// The records as profile rules (records that passed the plan reader's checks, or the writer's
// own), each named by where its origin points.
std::vector<seccomp::PolicyRule> policy_rules_of(const SyscallRuleRecords &records, const OriginNames &names);

// The profile a plan's filter implements: its TP_SC_* flags and its rules. Requires
// plan.seccomp != nullptr.
seccomp::ProfileSpec profile_spec(const tp_plan &plan);

// The rules the model asks for, built from the model without the records (the verifier's
// reference).
std::vector<seccomp::PolicyRule> expected_rules(const Policy &policy);

// The TP_SC_* bits of `flags`, and back.
uint32_t profile_bits(seccomp::ProfileFlags flags);
seccomp::ProfileFlags profile_flags(uint32_t bits);

}  // namespace tartaros
