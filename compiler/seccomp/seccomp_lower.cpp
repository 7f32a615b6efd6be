// compiler/seccomp/seccomp_lower.cpp — lowers a Profile to classic BPF with libseccomp (see
// seccomp_lower.h). libseccomp decides the shape (a binary tree over syscall numbers); this
// file only says which rules exist, and bpf_shrink.h shortens the argument tests libseccomp
// can only spell as masked equalities. Everything it produces is re-checked by verify_seccomp.
#include "seccomp_lower.h"

#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <set>
#include <stdexcept>

#include "bpf_check.h"
#include "bpf_shrink.h"
#include "seccomp_cube.h"

namespace tartaros::seccomp {
namespace {

uint32_t scmp_action(const Action &a)
{
    switch (a.kind) {
    case Action::Kind::Allow: return SCMP_ACT_ALLOW;
    case Action::Kind::Errno: return SCMP_ACT_ERRNO(a.err);
    case Action::Kind::KillProcess: return SCMP_ACT_KILL_PROCESS;
    }
    return SCMP_ACT_KILL_PROCESS;
}

class Filter {
public:
    Filter() : ctx_(seccomp_init(SCMP_ACT_ALLOW))
    {
        if (ctx_ == nullptr)
            throw std::runtime_error("libseccomp: seccomp_init failed");
        check(seccomp_attr_set(ctx_, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS), "BADARCH");
        check(seccomp_attr_set(ctx_, SCMP_FLTATR_CTL_NNP, 0), "CTL_NNP");
        check(seccomp_attr_set(ctx_, SCMP_FLTATR_CTL_OPTIMIZE, 2), "CTL_OPTIMIZE=2");
    }
    ~Filter() { seccomp_release(ctx_); }
    Filter(const Filter &) = delete;
    Filter &operator=(const Filter &) = delete;

    void add(uint32_t nr, const Action &action, const std::vector<scmp_arg_cmp> &cmps)
    {
        int rc = seccomp_rule_add_exact_array(ctx_, scmp_action(action), static_cast<int>(nr),
                                              static_cast<unsigned>(cmps.size()), cmps.data());
        check(rc, "rule for syscall " + std::to_string(nr));
    }

    std::vector<tp_bpf_insn> export_bpf() const
    {
        int fd = memfd_create("tartaros-seccomp", MFD_CLOEXEC);
        if (fd < 0)
            throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
        std::vector<tp_bpf_insn> prog;
        int rc = seccomp_export_bpf(ctx_, fd);
        off_t size = rc == 0 ? lseek(fd, 0, SEEK_END) : -1;
        if (size > 0 && size % static_cast<off_t>(sizeof(tp_bpf_insn)) == 0) {
            prog.resize(static_cast<size_t>(size) / sizeof(tp_bpf_insn));
            if (pread(fd, prog.data(), static_cast<size_t>(size), 0) != size)
                prog.clear();
        }
        close(fd);
        if (prog.empty())
            throw std::runtime_error("libseccomp: seccomp_export_bpf produced no program");
        return prog;
    }

private:
    static void check(int rc, const std::string &what)
    {
        if (rc != 0)
            throw std::runtime_error("libseccomp: " + what + ": " + std::strerror(-rc));
    }
    scmp_filter_ctx ctx_;
};

// One libseccomp rule: its comparisons, as (arg, mask, value), one per tested argument.
using Chain = std::vector<std::array<uint64_t, 3>>;

// The libseccomp rules of a case: one per combination of its cubes, one comparison per tested
// argument (the cubes of all its tests on that argument intersected), a product over the
// arguments. A case no call passes has none. Stops past `room` rules.
std::vector<Chain> chains_of(const Case &c, size_t room)
{
    std::vector<Chain> chains = {{}};
    for (uint8_t arg = 0; arg < 6; arg++) {
        if (std::none_of(c.when.begin(), c.when.end(), [&](const ArgTest &t) { return t.arg == arg; }))
            continue;
        std::vector<Chain> next;
        for (const Cube &cube : argument_cubes(c.when, arg)) {
            if (cube.mask == 0)
                throw std::logic_error("seccomp profile: an argument test that always holds");
            for (const Chain &partial : chains) {
                next.push_back(partial);
                next.back().push_back({arg, cube.mask, cube.value});
            }
            if (next.size() > room)
                return next;
        }
        chains = std::move(next);
    }
    return chains;
}

// libseccomp keeps a syscall's rules as a tree of comparisons, each rule a path of its own to
// its action: a program holds at least one jump per distinct rule (and one per syscall with a
// rule), and libseccomp's time grows with the square of a syscall's rules (a second for 2048).
// Past kMaxChains the lowering stops rather than make libseccomp build a tree at the edge of
// the kernel's 4096 instructions, or past it.
constexpr size_t kMaxChains = 2048;

[[noreturn]] void too_many_rules()
{
    throw std::runtime_error("the syscall rules need more than " + std::to_string(kMaxChains) +
                             " chains of comparisons (a `!=` or `not in` costs up to 32 per value, a mask one per "
                             "bit, and conditions on several arguments multiply), too many for a filter the kernel "
                             "takes (4096 instructions): fewer or simpler syscall rules");
}

void add_cases(Filter &f, const SyscallRule &rule, size_t &added)
{
    std::set<std::pair<uint32_t, Chain>> seen;  // same-action cases may overlap: one rule each
    for (const Case &c : rule.cases)
        for (const Chain &chain : chains_of(c, kMaxChains - std::min(added, kMaxChains))) {
            if (!seen.insert({c.action.ret(), chain}).second)
                continue;
            if (++added > kMaxChains)
                too_many_rules();
            std::vector<scmp_arg_cmp> cmps;
            for (const auto &[arg, mask, value] : chain)
                cmps.push_back({static_cast<unsigned>(arg), SCMP_CMP_MASKED_EQ, mask, value});
            f.add(rule.nr, c.action, cmps);
        }
}

}  // namespace

std::vector<tp_bpf_insn> lower_seccomp(const Profile &profile)
{
    Filter f;
    size_t added = 0;
    for (const SyscallRule &rule : profile.rules()) {
        if (rule.cases.empty()) {
            if (++added > kMaxChains)
                too_many_rules();
            f.add(rule.nr, rule.otherwise, {});
            continue;
        }
        // libseccomp's default is ALLOW and a rule may not repeat the default, so a rule with
        // argument cases can only refuse in its cases and allow otherwise.
        if (!(rule.otherwise == Action::allow()))
            throw std::logic_error("seccomp profile: argument cases need `otherwise` = allow");
        add_cases(f, rule, added);
    }
    std::vector<tp_bpf_insn> prog = shrink_bpf(f.export_bpf());
    if (prog.size() > TP_BPF_MAXINSNS)
        throw std::runtime_error("the filter would be " + std::to_string(prog.size()) +
                                 " instructions long, the kernel's limit is " + std::to_string(TP_BPF_MAXINSNS) +
                                 ": fewer or simpler syscall rules");
    return prog;
}

}  // namespace tartaros::seccomp
