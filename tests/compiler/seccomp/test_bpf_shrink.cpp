// Unit tests of the BPF shrinking pass (bpf_shrink.h) on hand-written programs in libseccomp's
// shapes: each is compared with its shrunk form on every boundary of its constants and on
// pseudo-random words (fixed seed), and the shapes it must leave alone are left alone. The
// lowered profiles are checked against their profiles by verify_seccomp and the kernel
// (test_seccomp_verify.cpp, kernel_diff.cpp).
#include <doctest/doctest.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "bpf_check.h"
#include "bpf_eval.h"
#include "bpf_shrink.h"

using namespace tartaros::seccomp;

namespace {

using Prog = std::vector<tp_bpf_insn>;

bool same(const Prog &a, const Prog &b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const tp_bpf_insn &x, const tp_bpf_insn &y) {
        return x.code == y.code && x.jt == y.jt && x.jf == y.jf && x.k == y.k;
    });
}

constexpr uint32_t kAllow = SECCOMP_RET_ALLOW;
constexpr uint32_t kDeny = SECCOMP_RET_ERRNO | 97;
constexpr uint32_t kOther = SECCOMP_RET_ERRNO | 1;

tp_bpf_insn ld(uint32_t word_offset)
{
    return BPF_STMT(BPF_LD | BPF_W | BPF_ABS, word_offset);
}

tp_bpf_insn and_k(uint32_t mask)
{
    return BPF_STMT(BPF_ALU | BPF_AND | BPF_K, mask);
}

tp_bpf_insn jeq(uint32_t k, uint8_t jt, uint8_t jf)
{
    return BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, jt, jf);
}

tp_bpf_insn ret(uint32_t action)
{
    return BPF_STMT(BPF_RET | BPF_K, action);
}

// `body` between the prologue of every valid program (ld [arch]; jeq x86_64, else to the
// kill) and that kill; the body starts at instruction 2.
Prog framed(const Prog &body)
{
    Prog p = {ld(4), jeq(AUDIT_ARCH_X86_64, 0, static_cast<uint8_t>(body.size()))};
    p.insert(p.end(), body.begin(), body.end());
    p.push_back(ret(SECCOMP_RET_KILL_PROCESS));
    char err[256];
    REQUIRE_MESSAGE(tp_bpf_check(p.data(), static_cast<uint32_t>(p.size()), err, sizeof err) == 0, err);
    return p;
}

// libseccomp's cover of "args[0] not in `excluded`" by masked prefixes (seccomp_cube.cpp's
// walk), each prefix reloading the word: true (deny) for the values outside, else allow.
void cover(uint32_t prefix, int fixed, const std::vector<uint32_t> &excluded,
           std::vector<std::pair<uint32_t, uint32_t>> &out)
{
    const uint32_t mask = fixed == 0 ? 0 : ~0u << (32 - fixed);
    bool any = false;
    for (uint32_t v : excluded)
        any = any || (v & mask) == prefix;
    if (!any) {
        out.push_back({mask, prefix});
        return;
    }
    if (fixed == 32)
        return;
    cover(prefix, fixed + 1, excluded, out);
    cover(prefix | (1u << (31 - fixed)), fixed + 1, excluded, out);
}

Prog not_in_chain(const std::vector<uint32_t> &excluded)
{
    std::vector<std::pair<uint32_t, uint32_t>> cubes;
    cover(0, 0, excluded, cubes);
    REQUIRE((cubes.size() - 1) * 3 + 1 <= 0xff);  // the jumps to the last return fit
    Prog body;
    for (size_t i = 0; i < cubes.size(); i++) {
        const auto [mask, value] = cubes[i];
        const auto to_deny = static_cast<uint8_t>((cubes.size() - 1 - i) * 3 + 1);
        body.push_back(ld(16));
        body.push_back(and_k(mask));
        body.push_back(jeq(value, to_deny, 0));
    }
    body.push_back(ret(kAllow));
    body.push_back(ret(kDeny));
    return framed(body);
}

SeccompData call(uint32_t low, uint32_t high = 0xa5a5a5a5u)
{
    SeccompData d;
    d.args[0] = uint64_t{high} << 32 | low;
    return d;
}

// `a` and `b` return the same on each word of args[0] around `constants` and on 20,000
// pseudo-random ones.
void check_same(const Prog &a, const Prog &b, const std::vector<uint32_t> &constants)
{
    std::vector<uint32_t> words = {0, 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff};
    for (uint32_t c : constants)
        words.insert(words.end(), {c - 1, c, c + 1});
    std::mt19937 rng(20261207);
    for (int i = 0; i < 20000; i++)
        words.push_back(static_cast<uint32_t>(rng()) >> (rng() % 32));
    for (uint32_t w : words) {
        INFO("args[0] low word ", w);
        CHECK(evaluate(a, call(w)).ret == evaluate(b, call(w)).ret);
    }
}

}  // namespace

TEST_CASE("bpf_shrink: a `not in` cover by masked prefixes becomes a binary search over intervals")
{
    const std::vector<uint32_t> allowed = {2, 10};
    const Prog chain = not_in_chain(allowed);
    const Prog shrunk = shrink_bpf(chain);
    // ld and 4 jgt for the 5 intervals [0, 1], [2], [3, 9], [10], [11, max]; the prologue and
    // both returns stay.
    CHECK(chain.size() > 100);
    CHECK(shrunk.size() == 3 + 1 + 4 + 2);
    check_same(chain, shrunk, allowed);
    for (uint32_t f : allowed)
        CHECK(evaluate(shrunk, call(f)).ret == kAllow);
    CHECK(evaluate(shrunk, call(3)).ret == kDeny);
    CHECK(evaluate(shrunk, call(2, 0xffffffffu)).ret == kAllow);  // the high word is not read
    // At most 3 comparisons of the word, where the cover ran through all its prefixes.
    CHECK(evaluate(shrunk, call(0xffffffffu)).executed <= 2 + 1 + 3 + 1);
    char err[256];
    CHECK(tp_bpf_check(shrunk.data(), static_cast<uint32_t>(shrunk.size()), err, sizeof err) == 0);
}

TEST_CASE("bpf_shrink: a test of the high word with mask 0 always holds and goes")
{
    // libseccomp's `A = args[0].hi; A &= 0; jeq 0` before each low-word test.
    const Prog p = framed({ld(20), and_k(0), jeq(0, 0, 2), ld(16), jeq(7, 1, 0), ret(kAllow), ret(kDeny)});
    const Prog shrunk = shrink_bpf(p);
    CHECK(shrunk.size() == p.size() - 3);
    check_same(p, shrunk, {7});
    CHECK(evaluate(shrunk, call(7, 0x12345678)).ret == kDeny);
}

TEST_CASE("bpf_shrink: single-bit tests become jset, their reloads go, and those of one target merge")
{
    // clone's CLONE_NEW* test as libseccomp writes it: one reload, `and` and `jeq` per flag.
    const std::vector<uint32_t> flags = {0x10000000, 0x20000, 0x4000000, 0x8000000, 0x2000000, 0x40000000, 0x20000000};
    Prog body;
    for (size_t i = 0; i < flags.size(); i++) {
        const auto to_deny = static_cast<uint8_t>((flags.size() - 1 - i) * 3 + 1);
        body.insert(body.end(), {ld(16), and_k(flags[i]), jeq(flags[i], to_deny, 0)});
    }
    body.insert(body.end(), {ret(kAllow), ret(kDeny)});
    const Prog p = framed(body);
    const Prog shrunk = shrink_bpf(p);
    CHECK(shrunk.size() == 3 + 2 + 2);  // ld, one jset of all seven bits, the two returns
    check_same(p, shrunk, flags);
    CHECK(evaluate(shrunk, call(0x00011200)).ret == kAllow);  // CLONE_VM | CLONE_FS | ... pass
    for (uint32_t f : flags)
        CHECK(evaluate(shrunk, call(f | 0x11)).ret == kDeny);
}

TEST_CASE("bpf_shrink: a test whose A a later instruction reads, or that is entered from outside, stays")
{
    // The `jeq #4` after the test reads what the `and` left (5 & 4 == 4): both stay.
    const Prog reads_a = framed({ld(16), and_k(0x4), jeq(0x4, 0, 2), jeq(0x4, 0, 1), ret(kDeny), ret(kAllow)});
    CHECK(same(shrink_bpf(reads_a), reads_a));
    CHECK(evaluate(reads_a, call(5)).ret == kDeny);
    // A jump from outside into the middle of a masked test, where A holds the word under a
    // mask the search would not leave: left as it is.
    const Prog entered =
        framed({ld(24), jeq(1, 2, 0), ld(16), and_k(0xfffffff0), jeq(0x10, 1, 0), ret(kAllow), ret(kDeny)});
    const Prog shrunk = shrink_bpf(entered);
    check_same(entered, shrunk, {0x10, 0x1f, 0x20});
    SeccompData arg1_set = call(0x15);
    arg1_set.args[1] = 1;
    CHECK(evaluate(shrunk, arg1_set).ret == evaluate(entered, arg1_set).ret);
}

TEST_CASE("bpf_shrink: what it cannot read is returned unchanged, and never a longer program")
{
    // Comparisons against X and arithmetic other than `and` are not interval tests.
    const Prog with_x =
        framed({ld(16), BPF_STMT(BPF_LDX | BPF_W | BPF_IMM, 5), BPF_JUMP(BPF_JMP | BPF_JGT | BPF_X, 0, 0, 1),
                ret(kDeny), BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 1), jeq(3, 0, 1), ret(kOther), ret(kAllow)});
    CHECK(same(shrink_bpf(with_x), with_x));
    // A jump out of the program, or no return at its end: not read at all (verify_seccomp
    // refuses such a program).
    const Prog jumps_out = {ld(16), BPF_JUMP(BPF_JMP | BPF_JA, 7, 0, 0), and_k(0xfffffff0), ret(kAllow)};
    CHECK(same(shrink_bpf(jumps_out), jumps_out));
    const Prog no_return = {ld(16), and_k(0xfffffff0), jeq(0x10, 0, 0)};
    CHECK(same(shrink_bpf(no_return), no_return));
    for (const std::vector<uint32_t> &excluded : {std::vector<uint32_t>{0}, {0xffffffffu}, {5, 6}, {0x80000000u}}) {
        const Prog chain = not_in_chain(excluded);
        const Prog shrunk = shrink_bpf(chain);
        CHECK(shrunk.size() <= chain.size());
        check_same(chain, shrunk, excluded);
    }
}
