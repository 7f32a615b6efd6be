// compiler/explain_seccomp.cpp — the seccomp step of --explain (see explain_seccomp.h).
#include "explain_seccomp.h"

#include <cstdio>
#include <span>
#include <sstream>
#include <vector>

#include "bpf_disasm.h"
#include "json_text.h"
#include "seccomp_profile.h"
#include "seccomp_verify.h"
#include "syscall_table.h"

namespace tartaros {
namespace {

using seccomp::Profile;
using seccomp::SyscallRule;

// What the kernel cannot do for this layer; the README's Limits say the same.
const std::vector<std::string> kSeccompLimits = {
    "loaded last, after Landlock, by the command only: everything it starts inherits it; the sandbox's "
    "own init (PID 1, which only reaps and forwards signals) runs without it",
    "a filter sees the syscall number and six register values, never memory: it cannot judge paths, "
    "socket addresses or clone3's flags (so clone3 answers ENOSYS); paths are Landlock's and the mount "
    "layer's job, addresses the network namespace's",
    "a deny list over an allow-by-default: syscalls up to the compiler's table are judged, numbers past "
    "it up to 511 answer ENOSYS under harden_syscalls, and beyond 511 the kernel answers",
    "argument tests read the low 32 bits, as the kernel does for int arguments: a caller cannot slip "
    "past one by setting the high word",
    "calls a kernel takes before its seccomp hook cannot be filtered: on PVM guests (this build machine "
    "kind) numbers 335 and 336 are paravirtual entries that no filter sees",
};

seccomp::ProfileFlags flags_of(const tp_seccomp &sc)
{
    return {(sc.profile & TP_SC_HARDEN) != 0, (sc.profile & TP_SC_DENY_UNIX) != 0};
}

std::string rule_label(const SyscallRule &r)
{
    return r.name.empty() ? "#" + std::to_string(r.nr) : std::string(r.name) + " (" + std::to_string(r.nr) + ")";
}

std::string action_text(const seccomp::Action &a) { return seccomp::action_name(a.ret()); }

bool is_future(const SyscallRule &r) { return r.name.empty(); }

std::string stats_line(const seccomp::FilterStats &st)
{
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.1f", st.weighted_mean);
    return "cost: " + std::to_string(st.length) + " instructions; an allowed syscall without argument rules runs at most " +
           std::to_string(st.worst_allowed_no_args) + " (target: 16), any allowed call at most " +
           std::to_string(st.worst_allowed) + " (" + st.worst_allowed_call + "); mean over typical agent work " +
           mean;
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
            out << "     #" << r.nr << "-#" << rules[j].nr << ": " << action_text(r.otherwise) << "  (" << r.why << ")\n";
            i = j;
            continue;
        }
        if (r.cases.empty()) {
            out << "     " << rule_label(r) << ": " << action_text(r.otherwise) << "  (" << r.why << ")\n";
            continue;
        }
        out << "     " << rule_label(r) << ": " << action_text(r.otherwise) << " except  (" << r.why << ")\n";
        for (const seccomp::Case &c : r.cases)
            out << "         " << action_text(c.action) << " for " << c.why << '\n';
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

void json_origin(std::ostream &out, tp_origin o)
{
    if (o.line == 0)
        out << "null";
    else
        out << "{\"line\":" << o.line << ",\"col\":" << o.col << '}';
}

void json_rule(const SyscallRule &r, std::ostream &out)
{
    out << "{\"nr\":" << r.nr << ",\"name\":" << (r.name.empty() ? "null" : quote(r.name))
        << ",\"action\":" << quote(action_text(r.otherwise)) << ",\"why\":" << quote(r.why)
        << ",\"hardening\":" << (r.hardening ? "true" : "false") << ",\"cases\":[";
    for (size_t i = 0; i < r.cases.size(); i++)
        out << (i ? "," : "") << "{\"when\":" << quote(r.cases[i].why)
            << ",\"action\":" << quote(action_text(r.cases[i].action)) << '}';
    out << "]}";
}

}  // namespace

void explain_seccomp_text(const tp_plan &plan, int step, const OriginText &origin, std::ostream &out)
{
    const tp_seccomp &sc = *plan.seccomp;
    const std::span<const tp_bpf_insn> prog(plan.seccomp_prog, plan.seccomp_insn_count);
    const Profile profile(flags_of(sc));
    out << step << ". seccomp: " << prog.size() << "-instruction filter"
        << ((plan.seccomp_section_flags & TP_SECF_REQUIRED) ? " (required)" : "") << "; profile: "
        << profile_text(sc, origin) << '\n';
    out << "   " << stats_line(seccomp::filter_stats(prog, profile)) << '\n';
    text_rules(profile, out);
    for (const std::string &note : kSeccompLimits)
        out << "   - " << note << '\n';
    out << "   disassembly:\n";
    for (const std::string &line : disassembly_lines(prog))
        out << "     " << line << '\n';
}

void explain_seccomp_json(const tp_plan &plan, std::ostream &out)
{
    const tp_seccomp &sc = *plan.seccomp;
    const std::span<const tp_bpf_insn> prog(plan.seccomp_prog, plan.seccomp_insn_count);
    const Profile profile(flags_of(sc));
    const seccomp::FilterStats st = seccomp::filter_stats(prog, profile);
    out << "{\"step\":\"seccomp\",\"required\":" << ((plan.seccomp_section_flags & TP_SECF_REQUIRED) ? "true" : "false")
        << ",\"harden_syscalls\":" << ((sc.profile & TP_SC_HARDEN) ? "true" : "false") << ",\"harden_origin\":";
    json_origin(out, sc.harden_origin);
    out << ",\"deny_unix\":" << ((sc.profile & TP_SC_DENY_UNIX) ? "true" : "false") << ",\"deny_unix_origin\":";
    json_origin(out, sc.deny_unix_origin);
    out << ",\"table_max_nr\":" << sc.table_max_nr << ",\"length\":" << st.length
        << ",\"worst_allowed\":" << st.worst_allowed << ",\"worst_allowed_call\":" << quote(st.worst_allowed_call)
        << ",\"worst_allowed_no_args\":" << st.worst_allowed_no_args << ",\"weighted_mean\":" << st.weighted_mean
        << ",\"rules\":[";
    for (size_t i = 0; i < profile.rules().size(); i++) {
        out << (i ? "," : "");
        json_rule(profile.rules()[i], out);
    }
    out << "],\"notes\":" << quote_list(kSeccompLimits) << ",\"disassembly\":" << quote_list(disassembly_lines(prog))
        << '}';
}

}  // namespace tartaros
