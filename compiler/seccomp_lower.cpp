// compiler/seccomp_lower.cpp — lowers a Profile to classic BPF with libseccomp (see
// seccomp_lower.h). libseccomp decides the shape (a binary tree over syscall numbers); this
// file only says which rules exist. Everything it produces is re-checked by verify_seccomp.
#include "seccomp_lower.h"

#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace tartaros::seccomp {
namespace {

// A set of 32-bit values written as (low32 & mask) == value.
struct Cube {
    uint32_t mask;
    uint32_t value;
};

// Covers every 32-bit value outside `excluded` (sorted) by prefix cubes: walk the binary trie
// of the excluded values from the top bit down and emit each sibling subtree that holds none of
// them. At most 32 cubes per excluded value.
void cover_complement(uint32_t prefix, int fixed_bits, const std::vector<uint32_t> &excluded,
                      std::vector<Cube> &out)
{
    uint32_t mask = fixed_bits == 0 ? 0 : ~0u << (32 - fixed_bits);
    bool any = false;
    for (uint32_t v : excluded)
        if ((v & mask) == prefix)
            any = true;
    if (!any) {
        out.push_back({mask, prefix});
        return;
    }
    if (fixed_bits == 32)
        return;  // exactly an excluded value
    uint32_t bit = 1u << (31 - fixed_bits);
    cover_complement(prefix, fixed_bits + 1, excluded, out);
    cover_complement(prefix | bit, fixed_bits + 1, excluded, out);
}

std::vector<Cube> cubes_of(const ArgTest &t)
{
    std::vector<Cube> out;
    switch (t.kind) {
    case ArgTest::Kind::In:
        for (uint32_t v : t.values)
            out.push_back({0xffffffffu, v});
        break;
    case ArgTest::Kind::NotIn:
        cover_complement(0, 0, t.values, out);
        break;
    case ArgTest::Kind::AnyBit:
        for (uint32_t bit = 1; bit != 0; bit <<= 1)
            if (t.values[0] & bit)
                out.push_back({bit, bit});
        break;
    }
    if (out.empty() || (out.size() == 1 && out[0].mask == 0))
        throw std::logic_error("seccomp profile: an argument test that always or never holds");
    return out;
}

uint32_t scmp_action(const Action &a)
{
    switch (a.kind) {
    case Action::Kind::Allow:
        return SCMP_ACT_ALLOW;
    case Action::Kind::Errno:
        return SCMP_ACT_ERRNO(a.err);
    case Action::Kind::KillProcess:
        return SCMP_ACT_KILL_PROCESS;
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

// One libseccomp rule per combination of cubes of the case's tests (a product over arguments).
void add_case(Filter &f, uint32_t nr, const Case &c)
{
    std::vector<std::vector<scmp_arg_cmp>> rules = {{}};
    for (const ArgTest &t : c.when) {
        std::vector<std::vector<scmp_arg_cmp>> next;
        for (const auto &partial : rules)
            for (const Cube &cube : cubes_of(t)) {
                auto rule = partial;
                rule.push_back({t.arg, SCMP_CMP_MASKED_EQ, cube.mask, cube.value});
                next.push_back(std::move(rule));
            }
        rules = std::move(next);
    }
    for (const auto &cmps : rules)
        f.add(nr, c.action, cmps);
}

}  // namespace

std::vector<tp_bpf_insn> lower_seccomp(const Profile &profile)
{
    Filter f;
    for (const SyscallRule &rule : profile.rules()) {
        if (rule.cases.empty()) {
            f.add(rule.nr, rule.otherwise, {});
            continue;
        }
        // libseccomp's default is ALLOW and a rule may not repeat the default, so a rule with
        // argument cases can only refuse in its cases and allow otherwise.
        if (!(rule.otherwise == Action::allow()))
            throw std::logic_error("seccomp profile: argument cases need `otherwise` = allow");
        for (const Case &c : rule.cases)
            add_case(f, rule.nr, c);
    }
    return f.export_bpf();
}

}  // namespace tartaros::seccomp
