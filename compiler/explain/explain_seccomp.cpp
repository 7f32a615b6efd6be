// compiler/explain/explain_seccomp.cpp — the seccomp step of --explain (see explain_seccomp.h).
#include "explain_seccomp.h"

#include <cstdio>
#include <span>
#include <sstream>
#include <vector>

#include "bpf_disasm.h"
#include "json_text.h"
#include "seccomp_profile.h"
#include "seccomp_rules.h"
#include "seccomp_verify.h"
#include "syscall_rule_checks.h"
#include "syscall_table.h"

namespace tartaros {
namespace {

using seccomp::PolicyRule;
using seccomp::Profile;
using seccomp::SyscallRule;

// What the kernel cannot do for this layer; docs/limits.md says the same.
const std::vector<std::string> kSeccompLimits = {
    "loaded by the command only, before it executes: while it waits for init when no rule refuses a call "
    "of its own set-up, else as its last step; everything it starts inherits it; the sandbox's own init "
    "(PID 1, which only reaps and forwards signals) runs without it",
    "a filter sees the syscall number and six register values, never memory: it cannot judge paths, "
    "socket addresses or clone3's flags (so clone3 answers ENOSYS); paths are Landlock's and the mount "
    "layer's job, addresses the network namespace's",
    "a deny list over an allow-by-default: syscalls up to the compiler's table are judged, numbers past "
    "it up to 511 answer ENOSYS under harden_syscalls, and beyond 511 the kernel answers",
    "argument tests read the low 32 bits, as the kernel does for int arguments: a caller cannot slip "
    "past one by setting the high word; a policy rule's condition on a 64-bit argument (a length, an "
    "offset) sees its low half too, so == V also holds for V + k*2^32 and != V does not",
    "calls a kernel takes before its seccomp hook cannot be filtered: on PVM guests (this build machine "
    "kind) numbers 335 and 336 are paravirtual entries that no filter sees",
    "ptrace and process_vm_* are refused, but /proc/PID/mem of another process of the same sandbox stays "
    "readable and writable (a path, which no filter sees): the sandbox's processes are one trust domain",
    "a mode test cannot tell a directory from a file: refusing S_ISUID and S_ISGID refuses chmod g+s on a "
    "directory too; and open/openat, having an argument rule, run the filter on every call",
};

std::string rule_label(const SyscallRule &r)
{
    return r.name.empty() ? "#" + std::to_string(r.nr) : std::string(r.name) + " (" + std::to_string(r.nr) + ")";
}

std::string action_text(const seccomp::Action &a)
{
    return seccomp::action_name(a.ret());
}

// "(reads and rewrites ...)" for a built-in rule, "(policy rule at rules.tart:9:5)" for one the
// policy's rule made unconditional.
std::string rule_why(const Profile &profile, const SyscallRule &r)
{
    if (r.otherwise_rule >= 0)
        return "policy rule at " + profile.policy_rules()[r.otherwise_rule].where;
    return std::string(r.why);
}

std::string deny_text(const PolicyRule &r)
{
    const std::string name(seccomp::syscall_name(r.nr));
    return "deny " + name + (r.when.empty() ? "" : " when " + seccomp::describe_tests(r.when)) + ": " +
        action_text(r.action);
}

bool is_future(const SyscallRule &r)
{
    return r.name.empty();
}

std::string stats_line(const seccomp::FilterStats &st)
{
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.1f", st.weighted_mean);
    return "cost: " + std::to_string(st.length) +
        " instructions; an allowed syscall without argument rules runs at most " +
        std::to_string(st.worst_allowed_no_args) + " (target: 16), any allowed call at most " +
        std::to_string(st.worst_allowed) + " (" + st.worst_allowed_call + "); mean over typical agent work " + mean;
}

void text_rules(const Profile &profile, std::ostream &out)
{
    out << "   actions (every call not listed: ALLOW):\n";
    out << "     foreign architecture, x32 numbers: KILL_PROCESS\n";
    const std::vector<SyscallRule> &rules = profile.rules();
    for (size_t i = 0; i < rules.size(); i++) {
        const SyscallRule &r = rules[i];
        if (is_future(r)) {
            size_t j = i;
            while (j + 1 < rules.size() && is_future(rules[j + 1]))
                j++;
            out << "     #" << r.nr << "-#" << rules[j].nr << ": " << action_text(r.otherwise) << "  (" << r.why
                << ")\n";
            i = j;
            continue;
        }
        if (r.cases.empty()) {
            out << "     " << rule_label(r) << ": " << action_text(r.otherwise) << "  (" << rule_why(profile, r)
                << ")\n";
            continue;
        }
        out << "     " << rule_label(r) << ": " << action_text(r.otherwise) << " except  (" << r.why << ")\n";
        for (const seccomp::Case &c : r.cases)
            out << "         " << action_text(c.action) << " for " << c.why << '\n';
    }
}

// The policy's rules in policy order, each with its origin: after the built-in ones, which a
// policy cannot lift.
void text_policy_rules(const Profile &profile, std::ostream &out)
{
    const std::vector<PolicyRule> &rules = profile.policy_rules();
    if (rules.empty())
        return;
    out << "   policy rules (after the baseline and hardening, which they cannot lift; the first that holds "
           "decides):\n";
    for (size_t i = 0; i < rules.size(); i++) {
        out << "     " << rules[i].where << "  " << deny_text(rules[i]);
        if (!profile.policy_rule_applies(i))
            out << "  (never applies: " << shadow_reason(profile, i) << ")";
        out << '\n';
    }
}

std::vector<std::string> disassembly_lines(std::span<const tp_bpf_insn> prog)
{
    std::vector<std::string> lines;
    std::istringstream in(seccomp::disassemble(prog));
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

std::string profile_text(const tp_seccomp &sc, const OriginText &origin)
{
    std::string text = "baseline";
    text += (sc.profile & TP_SC_HARDEN) ? " + hardening" : " only (harden_syscalls = false)";
    text += " " + origin(sc.harden_origin);
    text += (sc.profile & TP_SC_DENY_UNIX) ? "; deny_unix " + origin(sc.deny_unix_origin) : "; AF_UNIX allowed";
    return text;
}

void json_rule(const Profile &profile, const SyscallRule &r, std::ostream &out)
{
    auto index = [](int rule) { return rule < 0 ? std::string("null") : std::to_string(rule); };
    out << "{\"nr\":" << r.nr << ",\"name\":" << (r.name.empty() ? "null" : quote(r.name))
        << ",\"action\":" << quote(action_text(r.otherwise)) << ",\"why\":" << quote(rule_why(profile, r))
        << ",\"hardening\":" << (r.hardening ? "true" : "false") << ",\"policy\":" << (r.policy ? "true" : "false")
        << ",\"policy_rule\":" << index(r.otherwise_rule) << ",\"cases\":[";
    for (size_t i = 0; i < r.cases.size(); i++)
        out << (i ? "," : "") << "{\"when\":" << quote(r.cases[i].why)
            << ",\"action\":" << quote(action_text(r.cases[i].action))
            << ",\"policy_rule\":" << index(r.cases[i].policy_rule) << '}';
    out << "]}";
}

void json_policy_rules(const tp_plan &plan, const Profile &profile, const OriginJson &origin, std::ostream &out)
{
    const std::vector<PolicyRule> &rules = profile.policy_rules();
    out << "[";
    for (size_t i = 0; i < rules.size(); i++) {
        const PolicyRule &r = rules[i];
        out << (i ? "," : "") << "{\"nr\":" << r.nr << ",\"name\":" << quote(seccomp::syscall_name(r.nr))
            << ",\"when\":" << quote(seccomp::describe_tests(r.when)) << ",\"action\":" << quote(action_text(r.action))
            << ",\"applies\":" << (profile.policy_rule_applies(i) ? "true" : "false") << ",\"origin\":";
        origin(out, plan.syscall_rules[i].origin);
        out << '}';
    }
    out << "]";
}

}  // namespace

void explain_seccomp_text(const tp_plan &plan, int step, const OriginText &origin, std::ostream &out)
{
    const tp_seccomp &sc = *plan.seccomp;
    const std::span<const tp_bpf_insn> prog(plan.seccomp_prog, plan.seccomp_insn_count);
    const seccomp::ProfileSpec spec = profile_spec(plan);
    const Profile profile(spec.flags, spec.rules);
    out << step << ". seccomp: " << prog.size() << "-instruction filter"
        << ((plan.seccomp_section_flags & TP_SECF_REQUIRED) ? " (required)" : "")
        << "; profile: " << profile_text(sc, origin) << '\n';
    out << "   " << stats_line(seccomp::filter_stats(prog, profile)) << '\n';
    text_rules(profile, out);
    text_policy_rules(profile, out);
    for (const std::string &note : kSeccompLimits)
        out << "   - " << note << '\n';
    out << "   disassembly:\n";
    for (const std::string &line : disassembly_lines(prog))
        out << "     " << line << '\n';
}

void explain_seccomp_json(const tp_plan &plan, const OriginJson &origin, std::ostream &out)
{
    const tp_seccomp &sc = *plan.seccomp;
    const std::span<const tp_bpf_insn> prog(plan.seccomp_prog, plan.seccomp_insn_count);
    const seccomp::ProfileSpec spec = profile_spec(plan);
    const Profile profile(spec.flags, spec.rules);
    const seccomp::FilterStats st = seccomp::filter_stats(prog, profile);
    out << "{\"step\":\"seccomp\",\"required\":" << ((plan.seccomp_section_flags & TP_SECF_REQUIRED) ? "true" : "false")
        << ",\"harden_syscalls\":" << ((sc.profile & TP_SC_HARDEN) ? "true" : "false") << ",\"harden_origin\":";
    origin(out, sc.harden_origin);
    out << ",\"deny_unix\":" << ((sc.profile & TP_SC_DENY_UNIX) ? "true" : "false") << ",\"deny_unix_origin\":";
    origin(out, sc.deny_unix_origin);
    out << ",\"table_max_nr\":" << sc.table_max_nr << ",\"length\":" << st.length
        << ",\"worst_allowed\":" << st.worst_allowed << ",\"worst_allowed_call\":" << quote(st.worst_allowed_call)
        << ",\"worst_allowed_no_args\":" << st.worst_allowed_no_args << ",\"weighted_mean\":" << st.weighted_mean
        << ",\"rules\":[";
    for (size_t i = 0; i < profile.rules().size(); i++) {
        out << (i ? "," : "");
        json_rule(profile, profile.rules()[i], out);
    }
    out << "],\"policy_rules\":";
    json_policy_rules(plan, profile, origin, out);
    out << ",\"notes\":" << quote_list(kSeccompLimits) << ",\"disassembly\":" << quote_list(disassembly_lines(prog))
        << '}';
}

}  // namespace tartaros
