// compiler/lower/syscall_rule_checks.cpp — syscall-rule-breaks-start and syscall-rule-shadowed (see
// syscall_rule_checks.h). Shadowing is decided by the profile itself (the merge of the
// built-in and the policy's rules, seccomp_merge.h), so the warning says exactly what the
// filter will do.
#include "syscall_rule_checks.h"

#include <algorithm>
#include <array>
#include <string>

#include "bpf_disasm.h"
#include "lower.h"
#include "seccomp_cube.h"
#include "seccomp_rules.h"
#include "syscall_table.h"

namespace tartaros {

namespace {

using seccomp::PolicyRule;
using seccomp::Profile;

std::string breaks_start_message(const std::string &name)
{
    if (name == "execve")
        return "deny execve would refuse the sandbox's own start: tartaros-exec loads the filter and then "
               "executes the command with execve, so no run of this policy could start it (nor could any "
               "program start another); remove the rule, and keep programs from running others by what they "
               "may read and execute ([filesystem]) instead";
    if (name == "exit" || name == "exit_group")
        return "deny " + name +
            " would keep processes from ending: every process ends with exit_group and "
            "every thread with exit; refused with an errno, glibc's _exit retries forever, and with kill "
            "every exit becomes a death by SIGSYS; remove the rule";
    return "deny " + name +
        " would crash programs that handle signals: the kernel returns from every signal "
        "handler through rt_sigreturn and resumes interrupted calls through restart_syscall; remove the rule";
}

std::string action_text(const seccomp::Action &a)
{
    return seccomp::action_name(a.ret());
}

// What the built-in rule answers where `rule` would apply: "ERRNO(EPERM) for every call", or
// the built-in cases that overlap the rule's condition ("ERRNO(EPERM) for TIOCSTI or
// TIOCLINUX").
std::string built_in_answer(const seccomp::SyscallRule &built_in, const PolicyRule &rule)
{
    if (built_in.cases.empty())
        return action_text(built_in.otherwise) + " for every call";
    std::string out;
    for (const seccomp::Case &c : built_in.cases) {
        std::vector<seccomp::ArgTest> both = rule.when;
        both.insert(both.end(), c.when.begin(), c.when.end());
        if (c.policy_rule < 0 && !seccomp::never_holds(both))
            out += (out.empty() ? "" : "; ") + action_text(c.action) + " for " + c.why;
    }
    return out;
}

}  // namespace

std::string shadow_reason(const Profile &profile, size_t i)
{
    const PolicyRule &rule = profile.policy_rules()[i];
    const seccomp::Shadowing by = profile.shadowed()[i].value_or(seccomp::Shadowing{});
    const std::string name(seccomp::syscall_name(rule.nr));
    if (by.rule < 0) {
        const Profile built_ins(profile.flags());
        const seccomp::SyscallRule &built_in = *built_ins.rule_for(rule.nr);
        return "the " + std::string(built_in.hardening ? "hardening" : "baseline") + " already answers every " + name +
            " call it covers (" + built_in_answer(built_in, rule) + ")";
    }
    return "the rule at " + profile.policy_rules()[by.rule].where +
        (by.with_earlier ? " (with the rules before it)" : "") + " already decides every " + name + " call it covers";
}

namespace {

std::string shadowed_message(const Profile &profile, size_t i)
{
    const bool built_in = profile.shadowed()[i].value_or(seccomp::Shadowing{}).rule < 0;
    return "this rule never applies: " + shadow_reason(profile, i) +
        (built_in ? ", and a policy rule cannot change a built-in answer; remove it"
                  : ", and the first rule that holds decides; remove it, or move it before that rule");
}

}  // namespace

bool needed_to_start(std::string_view syscall)
{
    static constexpr std::array<std::string_view, 5> kNeeded = {"execve", "exit", "exit_group", "rt_sigreturn",
                                                                "restart_syscall"};
    return std::find(kNeeded.begin(), kNeeded.end(), syscall) != kNeeded.end();
}

bool check_syscall_rules(const Policy &policy, Diagnostics &diags)
{
    bool ok = true;
    for (const SyscallDenyRule &r : policy.syscalls.rules)
        if (needed_to_start(r.name.value)) {
            diags.error(r.name.pos, breaks_start_message(r.name.value), "syscall-rule-breaks-start");
            ok = false;
        }
    if (policy.syscalls.rules.empty())
        return ok;
    const std::vector<PolicyRule> rules = expected_rules(policy);
    try {
        const Profile profile(seccomp_flags(policy), rules);
        for (size_t i = 0; i < rules.size(); i++)
            if (!profile.policy_rule_applies(i))
                diags.warning(policy.syscalls.rules[i].pos, shadowed_message(profile, i), "syscall-rule-shadowed");
    } catch (const seccomp::RulesTooIntricate &) {
        // The lowering refuses the policy with the reason (seccomp-build).
    }
    return ok;
}

}  // namespace tartaros
