// compiler/explain/explain_summary.cpp — see explain_summary.h.
#include "explain_summary.h"

#include <cinttypes>
#include <cstring>
#include <string_view>

#include "paths.h"
#include "plan_reader.h"

namespace tartaros {

namespace {

constexpr size_t kListed = 6;  // names shown per list before "+N more"

// What the sandbox may do, in the order a reviewer asks: read, write, network, system calls,
// process. Every line comes from the plan alone.
class Summary {
public:
    explicit Summary(const tp_plan &plan) : p_(plan) {}
    void print(std::ostream &out) const;

private:
    std::string_view str(tp_str s) const { return {tp_plan_str(&p_, s), s.len}; }
    // The mounts of `op` whose origin is (policy_line) or is not (!policy_line) a policy line.
    std::vector<std::string> mount_paths(uint32_t op, bool writable_only, int policy_line) const;
    std::string listed(const std::vector<std::string> &names, const char *none = "none") const;

    void header(std::ostream &out) const;
    void reading(std::ostream &out) const;
    void writing(std::ostream &out) const;
    void network(std::ostream &out) const;
    void syscalls(std::ostream &out) const;
    void process(std::ostream &out) const;
    void environment(std::ostream &out) const;

    const tp_plan &p_;
};

std::vector<std::string> Summary::mount_paths(uint32_t op, bool writable_only, int policy_line) const
{
    std::vector<std::string> paths;
    for (uint32_t i = 0; i < p_.mount_count; ++i) {
        const tp_mount &m = p_.mounts[i];
        if (m.op != op || (writable_only && (m.flags & TP_MNTF_RDONLY) != 0))
            continue;
        const bool from_policy = m.origin.line != 0;
        if (policy_line < 0 || from_policy == (policy_line == 1))
            paths.emplace_back(str(m.path));
    }
    return paths;
}

std::string Summary::listed(const std::vector<std::string> &names, const char *none) const
{
    if (names.empty())
        return none;
    std::string out;
    for (size_t i = 0; i < names.size() && i < kListed; ++i)
        out += (i == 0 ? "" : ", ") + printable(names[i]);
    if (names.size() > kListed)
        out += ", +" + std::to_string(names.size() - kListed) + " more";
    return out;
}

void Summary::header(std::ostream &out) const
{
    out << "plan of " << (p_.meta != nullptr ? printable(str(p_.meta->policy_path)) : std::string("(unknown policy)"));
    if (p_.meta != nullptr)
        out << " (version " << p_.meta->policy_version << ", " << printable(str(p_.meta->compiler)) << ")";
    out << "; every step with its policy line: --explain without --summary\n";
}

void Summary::reading(std::ostream &out) const
{
    bool empty_root = false;
    for (uint32_t i = 0; i < p_.mount_count; ++i)
        empty_root = empty_root || p_.mounts[i].op == TP_MNT_ROOT_EMPTY;
    const std::vector<std::string> denies = mount_paths(TP_MNT_MASK, false, 1);
    const std::vector<std::string> implied = mount_paths(TP_MNT_MASK, false, 0);
    if (empty_root) {
        const std::vector<std::string> granted = mount_paths(TP_MNT_BIND, false, 1);
        out << "read:     only the system paths and " << granted.size() << " granted: " << listed(granted) << '\n';
    } else {
        out << "read:     everything, read-only, but " << denies.size() << " hidden: " << listed(denies) << '\n';
    }
    if (!implied.empty())
        out << "          hidden by default: " << listed(implied) << '\n';
}

void Summary::writing(std::ostream &out) const
{
    const std::vector<std::string> roots = mount_paths(TP_MNT_BIND, true, -1);
    out << "write:    " << roots.size() << " writable roots: " << listed(roots) << '\n';
    const std::vector<std::string> tmpfs = mount_paths(TP_MNT_TMPFS, false, -1);
    if (!tmpfs.empty())
        out << "          private and emptied after the run: " << listed(tmpfs) << '\n';
    const std::vector<std::string> denies = mount_paths(TP_MNT_WRITE_DENY, false, 1);
    const std::vector<std::string> implied = mount_paths(TP_MNT_WRITE_DENY, false, 0);
    if (!denies.empty() || !implied.empty())
        out << "          read-only inside them: " << listed(denies) << "; and " << implied.size()
            << " the compiler adds (the policy, git's files, symlink targets, the plan cache)\n";
}

void Summary::network(std::ostream &out) const
{
    if (p_.network == nullptr) {
        out << "network:  none: a private namespace with loopback only\n";
        return;
    }
    std::vector<std::string> allowed, denied, local, exposed;
    for (uint32_t i = 0; i < p_.net_name_count; ++i) {
        const tp_net_name &n = p_.net_names[i];
        if (n.kind == TP_NAME_ALLOW)
            allowed.emplace_back(str(n.name));
        else if (n.kind == TP_NAME_DENY)
            denied.emplace_back(str(n.name));
    }
    for (uint32_t i = 0; i < p_.net_port_count; ++i) {
        const tp_net_port &port = p_.net_ports[i];
        if (port.kind == TP_PORT_LOCAL)
            local.push_back(std::to_string(port.port));
        else if (port.kind == TP_PORT_EXPOSE)
            exposed.push_back(std::to_string(port.port));
    }
    if (p_.network->modes & TP_NET_PROXY) {
        out << "network:  HTTP(S) through the proxy at 127.0.0.1:" << p_.network->proxy_port << " to " << allowed.size()
            << " names: " << listed(allowed) << '\n';
        if (!denied.empty())
            out << "          never: " << listed(denied) << '\n';
    } else {
        out << "network:  no proxy\n";
    }
    if (!local.empty() || !exposed.empty())
        out << "          host ports reachable inside: " << listed(local)
            << "; exposed to the host: " << listed(exposed) << '\n';
    if (p_.broker != nullptr)
        out << "          credential broker at 127.0.0.1:" << p_.broker->port << ", " << p_.broker_cap_count
            << " capabilities\n";
}

void Summary::syscalls(std::ostream &out) const
{
    if (p_.seccomp == nullptr) {
        out << "syscalls: no seccomp filter\n";
        return;
    }
    out << "syscalls: " << p_.seccomp_insn_count << "-instruction filter: baseline"
        << ((p_.seccomp->profile & TP_SC_HARDEN) ? " + hardening" : " (hardening off)")
        << ((p_.seccomp->profile & TP_SC_DENY_UNIX) ? ", unix sockets refused" : ", unix sockets mediated") << ", "
        << p_.syscall_rule_count << " rules of the policy's own\n";
}

void Summary::process(std::ostream &out) const
{
    out << "process:  namespaces ";
    if (p_.ns == nullptr) {
        out << "none";
    } else {
        static constexpr std::pair<uint32_t, const char *> kNames[] = {
            {TP_NS_USER, "user"}, {TP_NS_MOUNT, "mount"}, {TP_NS_PID, "pid"},       {TP_NS_NET, "net"},
            {TP_NS_IPC, "ipc"},   {TP_NS_UTS, "uts"},     {TP_NS_CGROUP, "cgroup"},
        };
        const char *sep = "";
        for (const auto &[bit, name] : kNames)
            if (p_.ns->flags & bit) {
                out << sep << name;
                sep = " ";
            }
    }
    out << "; Landlock " << (p_.landlock != nullptr ? "on" : "off");
    if (p_.limits == nullptr) {
        out << "; no limits\n";
        return;
    }
    const tp_limits &l = *p_.limits;
    if (l.max_processes)
        out << "; max " << l.max_processes << " tasks";
    if (l.memory_max)
        out << "; memory " << (l.memory_max >> 20) << " MiB";
    if (l.cpu_quota_us)
        out << "; cpu " << (l.cpu_quota_us * 100 / l.cpu_period_us) << "%";
    if (l.timeout_ms)
        out << "; timeout " << l.timeout_ms / 1000 << " s";
    out << '\n';
}

void Summary::environment(std::ostream &out) const
{
    std::vector<std::string> passed, set;
    for (uint32_t i = 0; i < p_.env_count; ++i)
        (p_.env[i].op == TP_ENV_PASS ? passed : set).emplace_back(str(p_.env[i].name));
    const bool inherit = p_.exec != nullptr && (p_.exec->flags & TP_EXEC_INHERIT_ENV);
    out << "env:      " << (inherit ? "the launcher's whole environment, then " : "built from nothing: ")
        << passed.size() << " passed (" << listed(passed) << "), " << set.size() << " set (" << listed(set) << ")\n";
}

void Summary::print(std::ostream &out) const
{
    header(out);
    reading(out);
    writing(out);
    network(out);
    syscalls(out);
    process(out);
    environment(out);
}

}  // namespace

bool explain_plan_summary(const std::vector<uint8_t> &plan, std::ostream &out, std::string &err)
{
    std::vector<uint64_t> aligned((plan.size() + 7) / 8);
    if (!plan.empty())
        std::memcpy(aligned.data(), plan.data(), plan.size());
    tp_plan view{};
    char reason[256];
    if (tp_plan_open(reinterpret_cast<const uint8_t *>(aligned.data()), static_cast<uint32_t>(plan.size()), &view,
                     reason, sizeof reason) != 0) {
        err = reason;
        return false;
    }
    Summary(view).print(out);
    return true;
}

}  // namespace tartaros
