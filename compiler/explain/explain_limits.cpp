// compiler/explain/explain_limits.cpp — see explain_limits.h. The text and the JSON are built from
// the same list of lines, so they cannot say different things.
#include "explain_limits.h"

#include <algorithm>
#include <string>
#include <vector>

#include "json_text.h"
#include "net_channel.h"
#include "units.h"

namespace tartaros {

namespace {

// How a limit is enforced here: a cgroup, a resource limit (as exact as the cgroup where it
// holds: processes_line), the supervisor, or not at all.
enum class Enforced { Cgroup, Rlimit, None, Supervisor };

const char *enforced_name(Enforced e)
{
    switch (e) {
    case Enforced::Cgroup: return "cgroup";
    case Enforced::Rlimit: return "rlimit";
    case Enforced::None: return "none";
    case Enforced::Supervisor: return "supervisor";
    }
    return "?";
}

struct Line {
    std::string limit;      // "max_processes", "timeout"
    uint64_t value = 0;     // as the plan holds it (bytes, tasks, quota us, ms)
    std::string text;       // "4G", "0.5 CPU", "30m"
    std::string mechanism;  // "cgroup v1 pids", "RLIMIT_NPROC", "not enforced", "the supervisor's timer"
    Enforced enforced = Enforced::None;
    tp_origin origin{};
    std::vector<std::string> notes;  // the first says how, in full
};

// The clause for a limit no cgroup can carry here; `instead` names a fallback ("" = none).
std::string no_cgroup(const cgroup_probe &host, cgroup_controller c, bool required, const std::string &instead)
{
    std::string s = std::string("not enforceable by a cgroup here (") + host.why_not[c] + "): ";
    if (instead.empty())
        return s + (required ? "not enforced (a --strict run refuses)" : "not enforced (a run warns)");
    return s + (required ? "a --strict run refuses; otherwise " : "a run warns and uses ") + instead;
}

Line processes_line(const tp_limits &l, const cgroup_probe &host, bool required)
{
    Line line{"max_processes",
              l.max_processes,
              std::to_string(l.max_processes),
              "",
              Enforced::Cgroup,
              l.max_processes_origin,
              {}};
    if (host.version[CG_PIDS] != 0) {
        line.mechanism = cgroup_mechanism(&host, CG_PIDS);
        line.notes.push_back(
            line.mechanism + " (pids.max = " + line.text +
            " + the enforcer's helpers: init, and the connect mediator and the socket factory when they "
            "run)");
    } else {
        line.mechanism = "RLIMIT_NPROC";
        line.enforced = Enforced::Rlimit;
        line.notes.push_back(std::string("no cgroup here (") + host.why_not[CG_PIDS] +
                             "): RLIMIT_NPROC = " + line.text +
                             " + the helpers, set by the command before it executes; the kernel counts it per user "
                             "namespace and uid, so in the sandbox's own user namespace it counts exactly the "
                             "sandbox's tasks, none of the caller's others, and the command cannot raise it");
        line.notes.push_back(std::string("that holds for a caller who is not root, in the sandbox's user namespace: "
                                         "the kernel never applies RLIMIT_NPROC to root, and without a user namespace "
                                         "it counts every process of the caller; then ") +
                             (required ? "a --strict run refuses and a run without it warns"
                                       : "a run warns that max_processes is not enforced or weakened"));
    }
    line.notes.emplace_back("a process that forks past it gets EAGAIN (threads count too)");
    return line;
}

Line memory_line(const tp_limits &l, const cgroup_probe &host, bool required)
{
    const std::string bytes = std::to_string(l.memory_max);
    Line line{
        "memory_max", l.memory_max, units::format_size(l.memory_max), "", Enforced::Cgroup, l.memory_max_origin, {}};
    if (host.version[CG_MEMORY] != 0) {
        line.mechanism = cgroup_mechanism(&host, CG_MEMORY);
        line.notes.push_back(line.mechanism +
                             (host.version[CG_MEMORY] == 2
                                  ? " (memory.max = " + bytes + ", memory.swap.max = 0)"
                                  : " (memory.limit_in_bytes = " + bytes + "; swap is not extra)"));
    } else {
        line.mechanism = "not enforced";
        line.enforced = Enforced::None;
        line.notes.push_back(no_cgroup(host, CG_MEMORY, required, ""));
        return line;
    }
    line.notes.emplace_back(
        "the OOM killer ends a process of the sandbox at memory_max; when it is the command the run "
        "exits 137; either way a tartaros: line says so");
    return line;
}

Line cpu_line(const tp_limits &l, const cgroup_probe &host, bool required)
{
    const std::string quota = std::to_string(l.cpu_quota_us), period = std::to_string(l.cpu_period_us);
    Line line{"cpu_max", l.cpu_quota_us,   units::format_cpus(l.cpu_quota_us) + " CPU",
              "",        Enforced::Cgroup, l.cpu_max_origin,
              {}};
    if (host.version[CG_CPU] != 0) {
        line.mechanism = cgroup_mechanism(&host, CG_CPU);
        line.notes.push_back(line.mechanism +
                             (host.version[CG_CPU] == 2
                                  ? " (cpu.max = \"" + quota + " " + period + "\")"
                                  : " (cpu.cfs_quota_us = " + quota + ", cpu.cfs_period_us = " + period + ")"));
    } else {
        line.mechanism = "not enforced";
        line.enforced = Enforced::None;
        line.notes.push_back(no_cgroup(host, CG_CPU, required, ""));
        return line;
    }
    line.notes.emplace_back("all processes of the sandbox together get " + quota + " us of CPU time per " + period +
                            " us; past it they are throttled, never killed");
    return line;
}

Line timeout_line(const tp_limits &l)
{
    Line line{"timeout",
              l.timeout_ms,
              units::format_duration_ms(l.timeout_ms),
              "the supervisor's timer",
              Enforced::Supervisor,
              l.timeout_origin,
              {}};
    line.notes.push_back("wall clock from the start: SIGTERM to the command, then SIGKILL of every process of the "
                         "sandbox after a grace of " +
                         units::format_duration_ms(l.grace_ms) +
                         "; the run exits 137 with a tartaros: line naming the timeout");
    line.notes.emplace_back("the supervisor's timer, outside the sandbox: no cgroup needed");
    return line;
}

std::vector<Line> limit_lines(const tp_plan &p, const cgroup_probe &host)
{
    std::vector<Line> lines;
    if (p.limits == nullptr)
        return lines;
    const tp_limits &l = *p.limits;
    const bool required = (p.limits_section_flags & TP_SECF_REQUIRED) != 0;
    if (l.max_processes)
        lines.push_back(processes_line(l, host, required));
    if (l.memory_max)
        lines.push_back(memory_line(l, host, required));
    if (l.cpu_quota_us)
        lines.push_back(cpu_line(l, host, required));
    if (l.timeout_ms)
        lines.push_back(timeout_line(l));
    return lines;
}

// An rlimit value in its resource's unit: "8M", "10m", "1024", "unlimited".
std::string rlimit_text(const units::RlimitResource *res, uint64_t v)
{
    if (v == TP_RLIM_INFINITY)
        return "unlimited";
    if (res == nullptr)
        return std::to_string(v);
    switch (res->unit) {
    case units::RlimitUnit::Bytes: return units::format_size(v);
    case units::RlimitUnit::Seconds:
        return v > ~0ull / 1000000 ? std::to_string(v) + "s" : units::format_duration_us(v * 1000000);
    case units::RlimitUnit::Microseconds: return units::format_duration_us(v);
    case units::RlimitUnit::Count: break;
    }
    return std::to_string(v);
}

std::string rlimit_name(const tp_rlimit &r)
{
    const units::RlimitResource *res = units::rlimit_by_number(r.resource);
    return res ? res->name : "resource " + std::to_string(r.resource);
}

std::string rlimit_values(const tp_rlimit &r)
{
    const units::RlimitResource *res = units::rlimit_by_number(r.resource);
    if (r.soft == r.hard)
        return rlimit_text(res, r.soft);
    return "soft " + rlimit_text(res, r.soft) + ", hard " + rlimit_text(res, r.hard);
}

// What holds tartaros-proxy (a network grant) to the run's limits here.
std::string proxy_note(const tp_plan &p, const cgroup_probe &host)
{
    const uint64_t memory_max = p.limits ? p.limits->memory_max : 0;
    std::string s = "tartaros-proxy serves at most " + std::to_string(tnc_max_connections(memory_max)) +
        " connections and " + std::to_string(tnc_max_exchanges(memory_max)) + " broker upstream connections at once (" +
        (memory_max ? "from memory_max" : "fixed without memory_max") + "); a client past them gets 503 overloaded; ";
    const bool limited = p.limits && (p.limits->memory_max || p.limits->max_processes || p.limits->cpu_quota_us);
    if (!limited)
        return s + "no limit to count it against";
    const unsigned tasks =
        tnc_proxy_tasks((p.network->modes & TP_NET_PROXY) != 0, (p.network->modes & TP_NET_BROKER) != 0);
    if (host.version[CG_MEMORY] || host.version[CG_PIDS] || host.version[CG_CPU])
        return s + "it runs in the run's cgroup, so its memory, its " + std::to_string(tasks) +
            " tasks (added to pids.max) and its CPU, TLS included, count against the limits; it is ended "
            "before the cgroup is killed";
    return s +
        "no cgroup here: its memory is not counted in memory_max, only bounded by those caps and by its "
        "RLIMIT_NOFILE (6 descriptors a connection)";
}

// A cgroup is made when one carries a limit, or as the only kill switch without a PID namespace.
std::vector<std::string> step_notes(const tp_plan &p, const cgroup_probe &host, const std::vector<Line> &lines)
{
    std::vector<std::string> notes;
    if (p.network && p.network->modes != 0)
        notes.push_back(proxy_note(p, host));
    notes.emplace_back("rlimits: set by the command just before it executes and inherited by its descendants, "
                       "never above the hard limit tartaros-exec runs with (lowered to it); no cgroup needed");
    std::string leftovers = "leftovers (a daemonised child, a forgotten server) are killed at the end of the run";
    const bool pid_ns = p.ns != nullptr && (p.ns->flags & TP_NS_PID) != 0;
    const bool cgroup = !pid_ns ||
        std::any_of(lines.begin(), lines.end(), [](const Line &l) { return l.enforced == Enforced::Cgroup; });
    const bool v2 = host.version[CG_PIDS] == 2 || host.version[CG_MEMORY] == 2 || host.version[CG_CPU] == 2;
    if (pid_ns)
        leftovers += ": the PID namespace's init is killed last and takes every process with it";
    if (cgroup && v2)
        leftovers += std::string(pid_ns ? ", and" : ":") + " the run's cgroup is emptied with cgroup.kill";
    else if (cgroup && host.version[CG_FREEZER] != 0)
        leftovers += std::string(pid_ns ? ", and" : ":") + " the run's cgroup is frozen and each process SIGKILLed";
    else if (!pid_ns)
        leftovers = "leftovers are not guaranteed to end with the run here: no PID namespace and no cgroup (" +
            std::string(host.why_not[CG_FREEZER]) + ")";
    notes.push_back(leftovers);
    return notes;
}

std::string summary(const std::vector<Line> &lines, bool required)
{
    if (lines.empty())
        return "no cgroup limit, no timeout; rlimits only";
    std::string s;
    for (const Line &line : lines)
        s += (s.empty() ? "" : ", ") + line.limit;
    return s + (required ? " (required: a --strict run refuses one this host cannot enforce)" : "");
}

}  // namespace

void explain_limits_text(const tp_plan &p, const cgroup_probe &host, int step, const OriginText &origin,
                         std::ostream &out)
{
    const std::vector<Line> lines = limit_lines(p, host);
    out << step << ". limits: " << summary(lines, (p.limits_section_flags & TP_SECF_REQUIRED) != 0) << '\n';
    int item = 1;
    for (const Line &line : lines) {
        out << "   " << step << '.' << item++ << ' ' << line.limit << ' ' << line.text << "  " << origin(line.origin)
            << '\n';
        for (const std::string &note : line.notes)
            out << "        - " << note << '\n';
    }
    for (uint32_t i = 0; i < p.rlimit_count; i++) {
        const tp_rlimit &r = p.rlimits[i];
        out << "   " << step << '.' << item++ << " rlimit " << rlimit_name(r) << ' ' << rlimit_values(r) << "  "
            << origin(r.origin) << '\n';
        if (r.origin.line == 0)
            out << "        - implied: no core dumps of the agent's memory are left behind\n";
    }
    for (const std::string &note : step_notes(p, host, lines))
        out << "   - " << note << '\n';
}

void explain_limits_json(const tp_plan &p, const cgroup_probe &host, const OriginJson &origin, std::ostream &out)
{
    auto value = [](uint64_t v) { return v == TP_RLIM_INFINITY ? std::string("\"unlimited\"") : std::to_string(v); };
    out << "{\"step\":\"limits\",\"required\":" << ((p.limits_section_flags & TP_SECF_REQUIRED) ? "true" : "false")
        << ",\"limits\":[";
    const std::vector<Line> lines = limit_lines(p, host);
    bool first = true;
    for (const Line &line : lines) {
        out << (first ? "" : ",") << "{\"limit\":" << quote(line.limit) << ",\"value\":" << line.value
            << ",\"text\":" << quote(line.text);
        if (line.limit == "timeout")
            out << ",\"grace_ms\":" << p.limits->grace_ms;
        out << ",\"mechanism\":" << quote(line.mechanism) << ",\"enforced\":" << quote(enforced_name(line.enforced))
            << ",\"origin\":";
        origin(out, line.origin);
        out << ",\"notes\":" << quote_list(line.notes) << '}';
        first = false;
    }
    out << "],\"rlimits\":[";
    for (uint32_t i = 0; i < p.rlimit_count; i++) {
        const tp_rlimit &r = p.rlimits[i];
        out << (i ? "," : "") << "{\"resource\":" << quote(rlimit_name(r)) << ",\"number\":" << r.resource
            << ",\"soft\":" << value(r.soft) << ",\"hard\":" << value(r.hard) << ",\"origin\":";
        origin(out, r.origin);
        out << '}';
    }
    out << "],\"notes\":" << quote_list(step_notes(p, host, lines)) << '}';
}

}  // namespace tartaros
