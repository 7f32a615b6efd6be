// ir/plan_writer.cpp — lays out a plan: header, section table, then the sections in
// ascending tp_section_type, each 8-aligned with zero padding, checksum filled in last.
#include "plan_writer.h"

#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "plan_reader.h"

namespace tartaros::ir {

namespace {

// One section to be written: its table entry (offset filled in by the layout) and bytes.
struct PendingSection {
    tp_section entry;
    const void *data;
};

template <typename Record>
PendingSection records(uint32_t type, const Record *data, std::size_t count, bool required)
{
    if (count > TP_MAX_RECORDS)
        throw std::length_error("plan: more than TP_MAX_RECORDS records in one section");
    tp_section s{};
    s.type = type;
    s.flags = required ? TP_SECF_REQUIRED : 0u;
    s.count = static_cast<uint32_t>(count);
    s.record_size = static_cast<uint32_t>(sizeof(Record));
    s.size = s.count * s.record_size;
    return {s, data};
}

std::size_t align8(std::size_t n)
{
    return (n + 7u) & ~static_cast<std::size_t>(7u);
}

}  // namespace

tp_str PlanWriter::str(std::string_view s)
{
    // Offset 0 always holds a NUL: the empty string (and a zeroed tp_str) is {0, 0}
    // whatever order strings are interned in.
    if (strtab_.empty())
        strtab_.push_back('\0');
    if (s.empty())
        return tp_str{0, 0};
    std::string key(s);
    auto found = interned_.find(key);
    if (found != interned_.end())
        return found->second;
    if (strtab_.size() + s.size() + 1 > TP_MAX_PLAN_SIZE)
        throw std::length_error("plan: string table exceeds TP_MAX_PLAN_SIZE");
    tp_str ref{static_cast<uint32_t>(strtab_.size()), static_cast<uint32_t>(s.size())};
    strtab_.append(s);
    strtab_.push_back('\0');
    interned_.emplace(std::move(key), ref);
    return ref;
}

void PlanWriter::set_meta(const tp_meta &meta)
{
    meta_ = meta;
    has_meta_ = true;
}

void PlanWriter::set_namespaces(const tp_namespaces &ns, bool required)
{
    ns_ = ns;
    has_ns_ = true;
    ns_required_ = required;
}

void PlanWriter::add_mount(const tp_mount &m)
{
    mounts_.push_back(m);
}

void PlanWriter::set_mounts_required(bool required)
{
    mounts_required_ = required;
}

void PlanWriter::set_landlock(const tp_landlock_ruleset &rs, bool required)
{
    landlock_ = rs;
    has_landlock_ = true;
    landlock_required_ = required;
}

void PlanWriter::add_landlock_path(const tp_landlock_path &p)
{
    landlock_paths_.push_back(p);
}

void PlanWriter::add_env(const tp_env &e)
{
    env_.push_back(e);
}

void PlanWriter::set_exec(const tp_exec &e)
{
    exec_ = e;
    has_exec_ = true;
}

void PlanWriter::set_seccomp(const tp_seccomp &sc, const std::vector<tp_bpf_insn> &prog, bool required)
{
    seccomp_ = sc;
    seccomp_prog_ = prog;
    has_seccomp_ = true;
    seccomp_required_ = required;
}

void PlanWriter::set_network(const tp_network &n)
{
    network_ = n;
    has_network_ = true;
}

void PlanWriter::add_net_port(const tp_net_port &p)
{
    net_ports_.push_back(p);
}

void PlanWriter::add_net_name(const tp_net_name &n)
{
    net_names_.push_back(n);
}

void PlanWriter::set_limits(const tp_limits &l, bool required)
{
    limits_ = l;
    has_limits_ = true;
    limits_required_ = required;
}

void PlanWriter::add_rlimit(const tp_rlimit &r)
{
    rlimits_.push_back(r);
}

void PlanWriter::set_broker(const tp_broker &b, bool required)
{
    broker_ = b;
    has_broker_ = true;
    broker_required_ = required;
}

void PlanWriter::add_broker_cap(const tp_broker_cap &c)
{
    broker_caps_.push_back(c);
}

void PlanWriter::add_source(std::string_view absolute_path)
{
    if (sources_.size() >= TP_MAX_SOURCES)
        throw std::length_error("plan: more than TP_MAX_SOURCES included files");
    sources_.push_back(str(absolute_path));
}

void PlanWriter::add_syscall_rule(uint32_t nr, uint32_t action, tp_origin origin,
                                  const std::vector<SyscallTestSpec> &tests)
{
    if (syscall_rules_.size() >= TP_MAX_SYSCALL_RULES)
        throw std::length_error("plan: more than TP_MAX_SYSCALL_RULES syscall rules");
    tp_syscall_rule r{};
    r.nr = nr;
    r.action = action;
    r.first_test = static_cast<uint32_t>(syscall_tests_.size());
    r.test_count = static_cast<uint32_t>(tests.size());
    r.origin = origin;
    for (const SyscallTestSpec &spec : tests) {
        tp_syscall_test t{};
        t.arg = spec.arg;
        t.kind = spec.kind;
        t.first_value = static_cast<uint32_t>(syscall_values_.size());
        t.value_count = static_cast<uint32_t>(spec.values.size());
        syscall_values_.insert(syscall_values_.end(), spec.values.begin(), spec.values.end());
        syscall_tests_.push_back(t);
    }
    syscall_rules_.push_back(r);
}

std::vector<uint8_t> PlanWriter::finish() const
{
    static const char kEmptyStrtab[1] = {'\0'};
    std::vector<PendingSection> sections;
    if (strtab_.empty())
        sections.push_back(records(TP_SEC_STRTAB, kEmptyStrtab, 1, false));
    else
        sections.push_back({tp_section{TP_SEC_STRTAB, 0, 0, static_cast<uint32_t>(strtab_.size()),
                                       static_cast<uint32_t>(strtab_.size()), 1},
                            strtab_.data()});
    if (has_meta_)
        sections.push_back(records(TP_SEC_META, &meta_, 1, false));
    if (has_ns_)
        sections.push_back(records(TP_SEC_NAMESPACES, &ns_, 1, ns_required_));
    if (!mounts_.empty() || mounts_required_)
        sections.push_back(records(TP_SEC_MOUNTS, mounts_.data(), mounts_.size(), mounts_required_));
    if (has_landlock_)
        sections.push_back(records(TP_SEC_LANDLOCK, &landlock_, 1, landlock_required_));
    if (!landlock_paths_.empty())
        sections.push_back(records(TP_SEC_LANDLOCK_FS, landlock_paths_.data(), landlock_paths_.size(), false));
    if (!env_.empty())
        sections.push_back(records(TP_SEC_ENV, env_.data(), env_.size(), false));
    if (has_exec_)
        sections.push_back(records(TP_SEC_EXEC, &exec_, 1, false));
    if (has_seccomp_) {
        sections.push_back(records(TP_SEC_SECCOMP, &seccomp_, 1, seccomp_required_));
        sections.push_back(records(TP_SEC_SECCOMP_BPF, seccomp_prog_.data(), seccomp_prog_.size(), false));
    }
    if (has_network_)
        sections.push_back(records(TP_SEC_NETWORK, &network_, 1, false));
    if (!net_ports_.empty())
        sections.push_back(records(TP_SEC_NET_PORTS, net_ports_.data(), net_ports_.size(), false));
    if (!net_names_.empty())
        sections.push_back(records(TP_SEC_NET_NAMES, net_names_.data(), net_names_.size(), false));
    if (has_limits_)
        sections.push_back(records(TP_SEC_LIMITS, &limits_, 1, limits_required_));
    if (!rlimits_.empty())
        sections.push_back(records(TP_SEC_RLIMITS, rlimits_.data(), rlimits_.size(), false));
    if (has_broker_)
        sections.push_back(records(TP_SEC_BROKER, &broker_, 1, broker_required_));
    if (!broker_caps_.empty())
        sections.push_back(records(TP_SEC_BROKER_CAPS, broker_caps_.data(), broker_caps_.size(), false));
    if (!sources_.empty())
        sections.push_back(records(TP_SEC_SOURCES, sources_.data(), sources_.size(), false));
    if (!syscall_rules_.empty())
        sections.push_back(records(TP_SEC_SYSCALL_RULES, syscall_rules_.data(), syscall_rules_.size(), false));
    if (!syscall_tests_.empty())
        sections.push_back(records(TP_SEC_SYSCALL_TESTS, syscall_tests_.data(), syscall_tests_.size(), false));
    if (!syscall_values_.empty())
        sections.push_back(records(TP_SEC_SYSCALL_VALUES, syscall_values_.data(), syscall_values_.size(), false));

    std::size_t offset = sizeof(tp_header) + sections.size() * sizeof(tp_section);
    for (PendingSection &s : sections) {
        offset = align8(offset);
        s.entry.offset = static_cast<uint32_t>(offset);
        offset += s.entry.size;
    }
    std::size_t total = align8(offset);
    if (total > TP_MAX_PLAN_SIZE)
        throw std::length_error("plan: larger than TP_MAX_PLAN_SIZE");

    std::vector<uint8_t> out(total, 0);
    tp_header h{};
    std::memcpy(h.magic, TP_MAGIC, sizeof h.magic);
    h.format_version = TP_FORMAT_VERSION;
    h.header_size = sizeof(tp_header);
    h.total_size = static_cast<uint32_t>(total);
    h.section_count = static_cast<uint32_t>(sections.size());
    h.section_table_off = sizeof(tp_header);
    h.arch = TP_ARCH_X86_64;
    h.required_features = required_features_;
    h.min_landlock_abi = min_landlock_abi_;
    std::memcpy(out.data(), &h, sizeof h);
    for (std::size_t i = 0; i < sections.size(); i++) {
        const PendingSection &s = sections[i];
        std::memcpy(out.data() + sizeof(tp_header) + i * sizeof(tp_section), &s.entry, sizeof s.entry);
        if (s.entry.size != 0)
            std::memcpy(out.data() + s.entry.offset, s.data, s.entry.size);
    }
    h.checksum = tp_checksum(out.data(), static_cast<uint32_t>(total), offsetof(tp_header, checksum));
    std::memcpy(out.data() + offsetof(tp_header, checksum), &h.checksum, sizeof h.checksum);
    return out;
}

}  // namespace tartaros::ir
