// compiler/seccomp/seccomp_profile.cpp — the intended seccomp profile (see seccomp_profile.h).
//
// Every rule is a line of data with its reason; docs/seccomp.md's hardening table is these reasons.
// Kernel constants are spelled out here rather than taken from <linux/*.h> so the profile does
// not change with the headers of the machine that builds it.
#include "seccomp_profile.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>

#include "bpf_check.h"
#include "seccomp_cube.h"
#include "seccomp_merge.h"
#include "syscall_table.h"

namespace tartaros::seccomp {
namespace {

constexpr uint32_t kAfUnix = 1, kAfInet = 2, kAfInet6 = 10, kAfNetlink = 16;
constexpr uint32_t kIpprotoMptcp = 262;
constexpr uint32_t kNetlinkRoute = 0;
constexpr uint32_t kTiocsti = 0x5412, kTioclinux = 0x541C;
constexpr uint32_t kSetIdBits = 04000 | 02000;  // S_ISUID | S_ISGID
constexpr uint32_t kPerLinux = 0, kPersonalityQuery = 0xffffffffu;
// CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. (CLONE_NEWTIME, 0x80,
// lies inside clone()'s exit-signal byte and can only be asked for through clone3 or unshare,
// both refused whole.)
constexpr uint32_t kCloneNamespaceFlags =
    0x00020000u | 0x02000000u | 0x04000000u | 0x08000000u | 0x10000000u | 0x20000000u | 0x40000000u;
constexpr uint32_t kArchI386 = 0x40000003u, kArchAarch64 = 0xC00000B7u;
constexpr uint32_t kX32Bit = 0x40000000u;
constexpr uint32_t kNrSkip = 0xffffffffu;  // -1: "no syscall", the kernel answers ENOSYS

ArgTest test(ArgTest::Kind kind, uint8_t arg, std::vector<uint32_t> values)
{
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return ArgTest{kind, arg, std::move(values)};
}

uint32_t number_of(std::string_view name)
{
    std::optional<uint32_t> nr = syscall_number(name);
    if (!nr)
        throw std::logic_error("seccomp profile names an unknown syscall: " + std::string(name));
    return *nr;
}

SyscallRule unconditional(std::string_view name, Action action, std::string_view why, bool hardening)
{
    SyscallRule r;
    r.nr = number_of(name);
    r.name = syscall_name(r.nr);
    r.otherwise = action;
    r.why = why;
    r.hardening = hardening;
    return r;
}

// socket(domain, type, protocol): families allow-listed, MPTCP and netlink other than route
// refused. The cases are disjoint by family.
SyscallRule socket_rule(bool deny_unix)
{
    SyscallRule r = unconditional("socket", Action::allow(),
                                  "families allow-listed: AF_VSOCK is not scoped by network "
                                  "namespaces; packet, alg, key, xdp... are kernel attack surface",
                                  false);
    std::vector<uint32_t> known = {kAfUnix, kAfInet, kAfInet6, kAfNetlink};
    r.cases.push_back({{test(ArgTest::Kind::NotIn, 0, known)},
                       Action::error(EAFNOSUPPORT),
                       "a family other than AF_UNIX, AF_INET, AF_INET6, AF_NETLINK"});
    if (deny_unix)
        r.cases.push_back({{test(ArgTest::Kind::In, 0, {kAfUnix})}, Action::error(EPERM), "AF_UNIX (deny_unix)"});
    r.cases.push_back({{test(ArgTest::Kind::In, 0, {kAfInet, kAfInet6}), test(ArgTest::Kind::In, 2, {kIpprotoMptcp})},
                       Action::error(EPROTONOSUPPORT),
                       "AF_INET/AF_INET6 with IPPROTO_MPTCP"});
    r.cases.push_back({{test(ArgTest::Kind::In, 0, {kAfNetlink}), test(ArgTest::Kind::NotIn, 2, {kNetlinkRoute})},
                       Action::error(EPROTONOSUPPORT),
                       "AF_NETLINK other than NETLINK_ROUTE"});
    return r;
}

SyscallRule socketpair_rule(bool deny_unix)
{
    SyscallRule r = unconditional("socketpair", Action::allow(),
                                  "only AF_UNIX pairs exist in practice; nothing else is needed", false);
    r.cases.push_back(
        {{test(ArgTest::Kind::NotIn, 0, {kAfUnix})}, Action::error(EAFNOSUPPORT), "a family other than AF_UNIX"});
    if (deny_unix)
        r.cases.push_back({{test(ArgTest::Kind::In, 0, {kAfUnix})}, Action::error(EPERM), "AF_UNIX (deny_unix)"});
    return r;
}

void add_baseline(std::vector<SyscallRule> &rules, ProfileFlags flags)
{
    rules.push_back(socket_rule(flags.deny_unix));
    rules.push_back(socketpair_rule(flags.deny_unix));
    for (std::string_view name : {"io_uring_setup", "io_uring_enter", "io_uring_register"})
        rules.push_back(unconditional(name, Action::error(ENOSYS),
                                      "io_uring opens files and creates sockets without the "
                                      "syscalls this filter sees; ENOSYS makes libraries fall "
                                      "back to epoll",
                                      false));
}

struct Denial {
    std::string_view name;
    std::string_view why;
};

// The unconditional part of the hardening profile (EPERM), in docs/seccomp.md's order.
constexpr Denial kDenials[] = {
    {"ptrace", "reads and rewrites other processes of the sandbox (and their secrets)"},
    {"process_vm_readv", "reads another process's memory without ptrace"},
    {"process_vm_writev", "writes another process's memory without ptrace"},
    {"bpf", "eBPF programs and maps: large kernel attack surface"},
    {"perf_event_open", "performance counters: kernel attack surface and side channels"},
    {"userfaultfd", "stalls kernel accesses to user memory, a standard exploit primitive"},
    {"keyctl", "the kernel keyring holds credentials shared beyond the sandbox"},
    {"add_key", "the kernel keyring (as keyctl)"},
    {"request_key", "the kernel keyring (as keyctl); can also run upcall helpers"},
    {"kexec_load", "replaces the running kernel"},
    {"kexec_file_load", "replaces the running kernel"},
    {"init_module", "loads kernel code"},
    {"finit_module", "loads kernel code"},
    {"delete_module", "unloads kernel code"},
    {"mount", "would rearrange the sandbox's mount tree in a nested user namespace"},
    {"umount2", "would uncover what the sandbox's mounts hide (in a nested user namespace)"},
    {"pivot_root", "changes the root of a mount namespace"},
    {"open_tree", "new mount API: clones mount trees"},
    {"move_mount", "new mount API: attaches mounts"},
    {"fsopen", "new mount API: creates a filesystem context"},
    {"fsconfig", "new mount API: configures a filesystem context"},
    {"fsmount", "new mount API: makes a mount from a context"},
    {"fspick", "new mount API: reconfigures an existing mount"},
    {"mount_setattr", "new mount API: changes mount attributes (read-only, propagation)"},
    {"open_tree_attr", "new mount API (Linux 6.15): clones a tree with new attributes"},
    {"unshare", "new namespaces: a user namespace regains every capability inside it"},
    {"setns", "joins other namespaces"},
    {"open_by_handle_at", "opens a file by handle, bypassing path checks (the shocker escape)"},
    {"name_to_handle_at", "makes the handles open_by_handle_at uses"},
    {"acct", "process accounting writes a file the caller names"},
    {"swapon", "swap configuration"},
    {"swapoff", "swap configuration"},
    {"reboot", "reboots, or in a PID namespace ends its init"},
    {"syslog", "reads the kernel log (addresses, other users' events)"},
    {"iopl", "raw I/O port access"},
    {"ioperm", "raw I/O port access"},
    {"quotactl", "disk quota configuration"},
    {"quotactl_fd", "disk quota configuration"},
};

// The calls that give a file its mode, and which argument holds it.
struct ModeArg {
    std::string_view name;
    uint8_t arg;
};
constexpr ModeArg kModeArgs[] = {
    {"open", 2},  {"creat", 1},  {"openat", 3},   {"mknod", 1},     {"mknodat", 2},
    {"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2},
};

// No set-user-ID or set-group-ID file can be made: one made in a writable root keeps its
// bits on the host, where it runs as its owner, the launcher (root, for a root launcher).
// The mode is an argument in a register for every call but openat2, whose mode lies in
// memory: openat2 is ENOSYS (glibc's open() never uses it; libraries that try it fall
// back to openat). A file capability (security.capability) needs CAP_SETFCAP, which the
// command never holds.
void add_setid_mode_rules(std::vector<SyscallRule> &rules)
{
    for (const ModeArg &m : kModeArgs) {
        SyscallRule r = unconditional(m.name, Action::allow(),
                                      "a mode with S_ISUID or S_ISGID: such a file made in a writable root "
                                      "runs as its owner on the host (root's, for a root launcher)",
                                      true);
        r.cases.push_back({{test(ArgTest::Kind::AnyBit, m.arg, {kSetIdBits})},
                           Action::error(EPERM),
                           "mode & 06000 (S_ISUID, S_ISGID)"});
        rules.push_back(std::move(r));
    }
    rules.push_back(unconditional("openat2", Action::error(ENOSYS),
                                  "its mode sits in memory a filter cannot read; ENOSYS makes libraries fall "
                                  "back to openat, whose mode is checked",
                                  true));
}

void add_hardening(std::vector<SyscallRule> &rules)
{
    for (const Denial &d : kDenials)
        rules.push_back(unconditional(d.name, Action::error(EPERM), d.why, true));

    SyscallRule clone =
        unconditional("clone", Action::allow(), "new namespaces refused (as unshare); threads and fork stay", true);
    clone.cases.push_back({{test(ArgTest::Kind::AnyBit, 0, {kCloneNamespaceFlags})},
                           Action::error(EPERM),
                           "flags with a CLONE_NEW* bit"});
    rules.push_back(std::move(clone));
    rules.push_back(unconditional("clone3", Action::error(ENOSYS),
                                  "its flags sit in memory a filter cannot read; ENOSYS makes "
                                  "libc fall back to clone, whose flags are checked",
                                  true));

    SyscallRule pers = unconditional("personality", Action::allow(),
                                     "ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC... weaken exploit "
                                     "mitigations; only the default and the query pass",
                                     true);
    pers.cases.push_back({{test(ArgTest::Kind::NotIn, 0, {kPerLinux, kPersonalityQuery})},
                          Action::error(EPERM),
                          "anything but PER_LINUX (0) or the query (0xffffffff)"});
    rules.push_back(std::move(pers));

    SyscallRule ioctl = unconditional("ioctl", Action::allow(),
                                      "TIOCSTI types into the terminal the user's shell reads; "
                                      "TIOCLINUX can do the same on a virtual console",
                                      true);
    ioctl.cases.push_back(
        {{test(ArgTest::Kind::In, 1, {kTiocsti, kTioclinux})}, Action::error(EPERM), "TIOCSTI or TIOCLINUX"});
    rules.push_back(std::move(ioctl));

    add_setid_mode_rules(rules);

    for (uint32_t nr = kTableMaxNr + 1; nr <= kFutureMaxNr; nr++) {
        SyscallRule future;
        future.nr = nr;
        future.otherwise = Action::error(ENOSYS);
        future.why = "a syscall newer than the compiler's table: it cannot be judged, so it does "
                     "not exist (libc falls back on ENOSYS)";
        future.hardening = true;
        rules.push_back(std::move(future));
    }
}

constexpr uint64_t kJunk = 0xa5a5a5a55a5a5a5aull;
constexpr uint32_t kHighWords[] = {0u, 1u, 0x80000000u, 0xffffffffu};
constexpr uint32_t kGarbageHigh = 0xdeadbeefu;

SeccompData call(uint32_t nr, uint32_t arch = TP_ARCH_X86_64)
{
    SeccompData d;
    d.nr = nr;
    d.arch = arch;
    for (uint64_t &a : d.args)
        a = kJunk;
    return d;
}

bool is_bit_test(const ArgTest &t)
{
    return t.kind == ArgTest::Kind::AnyBit || t.kind == ArgTest::Kind::NoBit;
}

// The constants a test compares with (each bit of a mask too), their neighbours, and the
// extremes.
void add_core_values(const ArgTest &t, std::set<uint32_t> &lows)
{
    auto near = [&](uint32_t v) {
        lows.insert(v - 1);
        lows.insert(v);
        lows.insert(v + 1);
    };
    for (uint32_t v : t.values)
        near(v);
    if (is_bit_test(t)) {
        lows.insert(~t.values[0]);
        for (uint32_t bit = 1; bit != 0; bit <<= 1)
            if (t.values[0] & bit)
                near(bit);
    }
    for (uint32_t v : {0u, 0x7fffffffu, 0x80000000u, 0xffffffffu})
        lows.insert(v);
}

// The filter compares under masks, so a wrong mask or constant shows in one bit: every single
// bit, every run of low bits, every constant with one bit flipped, and each bit of a mask with
// every bit outside the mask set.
void add_bit_values(const ArgTest &t, std::set<uint32_t> &lows)
{
    for (uint32_t bit = 1; bit != 0; bit <<= 1) {
        lows.insert(bit);
        lows.insert(bit - 1);
        for (uint32_t v : t.values)
            lows.insert(v ^ bit);
        if (is_bit_test(t) && (t.values[0] & bit))
            lows.insert(bit | ~t.values[0]);
    }
}

struct ArgValues {
    std::vector<uint64_t> held;      // core lows, high word 0: while another argument varies
    std::vector<uint64_t> extended;  // core lows with every high word, and the bit values with
                                     // a zero or garbage high word
};

ArgValues values_of(const std::vector<const ArgTest *> &tests)
{
    std::set<uint32_t> core, bits;
    for (const ArgTest *t : tests) {
        add_core_values(*t, core);
        add_bit_values(*t, bits);
    }
    ArgValues v;
    for (uint32_t low : core) {
        v.held.push_back(low);
        for (uint32_t high : kHighWords)
            v.extended.push_back((static_cast<uint64_t>(high) << 32) | low);
    }
    for (uint32_t low : bits)
        if (!core.count(low))
            for (uint32_t high : {0u, kGarbageHigh})
                v.extended.push_back((static_cast<uint64_t>(high) << 32) | low);
    return v;
}

// Calls `visit` with `d` for every combination of the remaining tested arguments' choices.
void visit_product(SeccompData &d, std::span<const uint8_t> rest, uint8_t varied, const ArgValues *values,
                   const InputVisitor &visit)
{
    if (rest.empty()) {
        visit(d);
        return;
    }
    const uint8_t arg = rest.front();
    for (uint64_t value : arg == varied ? values[arg].extended : values[arg].held) {
        d.args[arg] = value;
        visit_product(d, rest.subspan(1), varied, values, visit);
    }
}

// Arguments that make `c` hold, on any syscall (no case is empty; an argument it does not
// test holds the junk pattern).
SeccompData witness_of(const Case &c, uint32_t nr)
{
    SeccompData d = call(nr);
    for (uint8_t arg = 0; arg < 6; arg++) {
        const std::vector<Cube> cubes = argument_cubes(c.when, arg);
        if (!cubes.empty() && cubes.front().mask != 0)
            d.args[arg] = cubes.front().value;
    }
    return d;
}

// The varied argument runs through its extended values while the other tested arguments
// hold, case after case, the witness of the case, and then the junk pattern.
void visit_witness_rows(const SyscallRule &rule, const std::vector<uint8_t> &tested, uint8_t varied,
                        const ArgValues *values, const InputVisitor &visit)
{
    std::vector<SeccompData> rows;
    for (const Case &c : rule.cases)
        rows.push_back(witness_of(c, rule.nr));
    rows.push_back(call(rule.nr));
    for (SeccompData d : rows) {
        for (uint8_t arg : tested)
            if (arg != varied && (d.args[arg] >> 32) != 0)
                d.args[arg] = values[arg].held.front();
        for (uint64_t value : values[varied].extended) {
            d.args[varied] = value;
            visit(d);
        }
    }
}

// Each tested argument runs through its extended values while every other tested argument
// holds each of its core values (the product over those), or, past kMaxHeldCombinations, the
// witness rows. Past kMaxInputsPerRule inputs in all, an even sample of them (every k-th).
void visit_argument_inputs(const SyscallRule &rule, const InputVisitor &visit)
{
    std::vector<const ArgTest *> by_arg[6];
    for (const Case &c : rule.cases)
        for (const ArgTest &t : c.when)
            by_arg[t.arg].push_back(&t);
    std::vector<uint8_t> tested;
    ArgValues values[6];
    for (uint8_t arg = 0; arg < 6; arg++)
        if (!by_arg[arg].empty()) {
            tested.push_back(arg);
            values[arg] = values_of(by_arg[arg]);
        }
    size_t held[6] = {}, total = 0;
    for (uint8_t varied : tested) {
        held[varied] = 1;
        for (uint8_t arg : tested)
            if (arg != varied)
                held[varied] = std::min(held[varied] * values[arg].held.size(), kMaxHeldCombinations + 1);
        const size_t rows = held[varied] <= kMaxHeldCombinations ? held[varied] : rule.cases.size() + 1;
        total += rows * values[varied].extended.size();
    }
    const size_t stride = (total + kMaxInputsPerRule - 1) / kMaxInputsPerRule;
    size_t seen = 0;
    const InputVisitor sampled = [&](const SeccompData &d) {
        if (seen++ % stride == 0)
            visit(d);
    };
    for (uint8_t varied : tested) {
        SeccompData d = call(rule.nr);
        if (held[varied] <= kMaxHeldCombinations)
            visit_product(d, tested, varied, values, stride > 1 ? sampled : visit);
        else
            visit_witness_rows(rule, tested, varied, values, stride > 1 ? sampled : visit);
    }
}

// The baseline and (with harden) the hardening, sorted by nr: made once per flags, as the
// lint of a policy's syscall rules builds many profiles.
const std::vector<SyscallRule> &built_in_rules(ProfileFlags flags)
{
    static const std::array<std::vector<SyscallRule>, 4> kBuiltIn = [] {
        std::array<std::vector<SyscallRule>, 4> out;
        for (size_t i = 0; i < out.size(); i++) {
            const ProfileFlags f{(i & 1) != 0, (i & 2) != 0};
            add_baseline(out[i], f);
            if (f.harden)
                add_hardening(out[i]);
            std::sort(out[i].begin(), out[i].end(),
                      [](const SyscallRule &a, const SyscallRule &b) { return a.nr < b.nr; });
            for (size_t k = 1; k < out[i].size(); k++)
                if (out[i][k].nr == out[i][k - 1].nr)
                    throw std::logic_error("seccomp profile has two rules for one syscall");
        }
        return out;
    }();
    return kBuiltIn[(flags.harden ? 1 : 0) | (flags.deny_unix ? 2 : 0)];
}

}  // namespace

uint32_t Action::ret() const
{
    switch (kind) {
    case Kind::Allow: return TP_RET_ALLOW;
    case Kind::Errno: return TP_RET_ERRNO | err;
    case Kind::KillProcess: return TP_RET_KILL_PROCESS;
    }
    return TP_RET_KILL_PROCESS;
}

bool ArgTest::holds(const SeccompData &d) const
{
    uint32_t low = static_cast<uint32_t>(d.args[arg]);
    switch (kind) {
    case Kind::In: return std::binary_search(values.begin(), values.end(), low);
    case Kind::NotIn: return !std::binary_search(values.begin(), values.end(), low);
    case Kind::AnyBit: return (low & values[0]) != 0;
    case Kind::NoBit: return (low & values[0]) == 0;
    }
    return false;
}

Profile::Profile(ProfileFlags flags, std::vector<PolicyRule> policy_rules)
    : flags_(flags), policy_rules_(std::move(policy_rules)), rules_(built_in_rules(flags))
{
    merge_policy_rules(rules_, policy_rules_, shadowed_);
    // Every rule names a syscall of the table or a future number (PolicyRule: the table's).
    if (!rules_.empty() && rules_.back().nr > kFutureMaxNr)
        throw std::logic_error("seccomp profile has a rule for a number past the future ones");
    rule_index_.assign(rules_.empty() ? 0 : rules_.back().nr + 1, 0);
    for (size_t i = 0; i < rules_.size(); i++)
        rule_index_[rules_[i].nr] = static_cast<uint16_t>(i + 1);
}

const SyscallRule *Profile::rule_for(uint32_t nr) const
{
    const uint16_t i = nr < rule_index_.size() ? rule_index_[nr] : 0;
    return i == 0 ? nullptr : &rules_[i - 1];
}

Action Profile::intended(const SeccompData &d) const
{
    if (d.arch != TP_ARCH_X86_64)
        return Action::kill();
    if (d.nr >= kX32Bit && d.nr != kNrSkip)
        return Action::kill();
    const SyscallRule *rule = rule_for(d.nr);
    if (rule == nullptr)
        return Action::allow();
    for (const Case &c : rule->cases)
        if (std::all_of(c.when.begin(), c.when.end(), [&](const ArgTest &t) { return t.holds(d); }))
            return c.action;
    return rule->otherwise;
}

void Profile::visit_validation_inputs(const InputVisitor &visit) const
{
    std::vector<SeccompData> witnesses;  // one per case of every rule, moved to each number
    for (const SyscallRule &rule : rules_) {
        const size_t stride = (rule.cases.size() + kMaxWitnessesPerRule - 1) / kMaxWitnessesPerRule;
        for (size_t i = 0; i < rule.cases.size(); i += std::max<size_t>(stride, 1))
            witnesses.push_back(witness_of(rule.cases[i], 0));
    }
    for (uint32_t nr = 0; nr <= kFutureMaxNr + 16; nr++) {
        visit(call(nr));
        visit(call(nr | kX32Bit));
        for (SeccompData w : witnesses) {
            w.nr = nr;
            visit(w);
        }
    }
    for (uint32_t nr : {600u, 1000u, 0x3fffffffu, kNrSkip, 0x7fffffffu, 0x80000000u, 0xfffffffeu})
        visit(call(nr));
    for (uint32_t arch : {kArchI386, kArchAarch64, 0u, TP_ARCH_X86_64 ^ 0x80000000u})
        for (uint32_t nr : {0u, 1u, 11u, 41u, 56u, 101u, 165u, 272u, 435u, kNrSkip})
            visit(call(nr, arch));
    for (const SyscallRule &rule : rules_)
        if (!rule.cases.empty())
            visit_argument_inputs(rule, visit);
}

std::vector<SeccompData> Profile::validation_inputs() const
{
    std::vector<SeccompData> out;
    visit_validation_inputs([&](const SeccompData &d) { out.push_back(d); });
    return out;
}

}  // namespace tartaros::seccomp
