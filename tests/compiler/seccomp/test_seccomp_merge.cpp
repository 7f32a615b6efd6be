// Tests of the policy's syscall rules in the seccomp profile (seccomp_merge.h, seccomp_cube.h):
// the merged profile keeps the profile's invariants (disjoint, non-empty cases); its answer is
// the reference semantics written out plainly here (a built-in answer stands, else the first
// policy rule that holds, else allow) on every validation input and on pseudo-random calls; the
// lowered program passes translation validation and gives the same answers; conditions read the
// low 32 bits only; shadowed rules are found; and intricate or oversized rule sets are refused
// with a reason instead of a wrong or endless lowering.
#include <doctest/doctest.h>

#include <cerrno>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bpf_check.h"
#include "bpf_eval.h"
#include "seccomp_cube.h"
#include "seccomp_lower.h"
#include "seccomp_profile.h"
#include "seccomp_verify.h"
#include "syscall_table.h"

using namespace tartaros::seccomp;

namespace {

using Kind = ArgTest::Kind;

constexpr uint64_t kHigh = 0x100000000ull;  // 1 in the high word
constexpr uint32_t kTiocsti = 0x5412, kTioclinux = 0x541c, kFionread = 0x541b;
constexpr uint32_t kCloneNewUser = 0x10000000, kCloneNewNet = 0x40000000, kCloneVm = 0x100;
constexpr ProfileFlags kHarden{true, false}, kBaseline{false, false};

uint32_t nr_of(std::string_view name)
{
    return *syscall_number(name);
}

PolicyRule rule(std::string_view name, std::vector<ArgTest> when, Action action = Action::error(EPERM),
                std::string where = "rules.tart:1:1")
{
    return PolicyRule{nr_of(name), std::move(when), action, std::move(where)};
}

SeccompData call(std::string_view name, std::initializer_list<uint64_t> args = {})
{
    SeccompData d;
    d.nr = nr_of(name);
    size_t i = 0;
    for (uint64_t a : args)
        d.args[i++] = a;
    return d;
}

// policy_rule_applies(i) of every policy rule.
std::vector<bool> applies(const Profile &p)
{
    std::vector<bool> out;
    for (size_t i = 0; i < p.policy_rules().size(); i++)
        out.push_back(p.policy_rule_applies(i));
    return out;
}

// Who shadows each policy rule: "-" (it applies), "built-in", or the rule's index ("5", "5+"
// with earlier rules).
std::vector<std::string> shadowed_by(const Profile &p)
{
    std::vector<std::string> out;
    for (const std::optional<Shadowing> &s : p.shadowed())
        out.push_back(!s ? "-" : s->rule < 0 ? "built-in" : std::to_string(s->rule) + (s->with_earlier ? "+" : ""));
    return out;
}

// The meaning of a profile with policy rules, without the merge: the built-in profile's answer
// when it refuses, else the first policy rule whose tests all hold, else allow.
Action reference(const Profile &built_in, const std::vector<PolicyRule> &rules, const SeccompData &d)
{
    const Action fixed = built_in.intended(d);
    if (!(fixed == Action::allow()))
        return fixed;
    for (const PolicyRule &r : rules)
        if (r.nr == d.nr && std::all_of(r.when.begin(), r.when.end(), [&](const ArgTest &t) { return t.holds(d); }))
            return r.action;
    return Action::allow();
}

// The profile invariants of seccomp_profile.h (cases of different actions never hold together),
// checked on `inputs`.
void check_invariants(const Profile &profile, const std::vector<SeccompData> &inputs)
{
    for (size_t i = 1; i < profile.rules().size(); i++)
        REQUIRE(profile.rules()[i - 1].nr < profile.rules()[i].nr);
    for (const SyscallRule &r : profile.rules()) {
        if (!r.cases.empty())
            CHECK(r.otherwise == Action::allow());
        for (const Case &c : r.cases) {
            CHECK_FALSE(never_holds(c.when));
            CHECK(std::is_sorted(c.when.begin(), c.when.end(),
                                 [](const ArgTest &a, const ArgTest &b) { return a.arg < b.arg; }));
        }
    }
    for (const SeccompData &d : inputs) {
        const SyscallRule *r = profile.rule_for(d.nr);
        if (r == nullptr || d.arch != TP_ARCH_X86_64)
            continue;
        std::set<uint32_t> actions;
        for (const Case &c : r->cases)
            if (std::all_of(c.when.begin(), c.when.end(), [&](const ArgTest &t) { return t.holds(d); }))
                actions.insert(c.action.ret());
        CHECK_MESSAGE(actions.size() <= 1, "overlapping cases of different actions in " << r->name);
    }
}

// Pseudo-random calls aimed at the rules: each rule's syscall with its values, their
// neighbours, single bits and garbage high words.
std::vector<SeccompData> aimed_calls(const std::vector<PolicyRule> &rules, uint32_t seed)
{
    std::mt19937 gen(seed);
    std::vector<uint32_t> lows = {0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff};
    for (const PolicyRule &r : rules)
        for (const ArgTest &t : r.when)
            for (uint32_t v : t.values)
                lows.insert(lows.end(), {v - 1, v, v + 1, v & (~v + 1), ~v});
    std::vector<SeccompData> out;
    for (const PolicyRule &r : rules)
        for (int n = 0; n < 400; n++) {
            SeccompData d;
            d.nr = r.nr;
            for (uint64_t &a : d.args) {
                const uint64_t high = gen() % 3 == 0 ? gen() : 0;
                a = high << 32 | lows[gen() % lows.size()];
            }
            out.push_back(d);
        }
    return out;
}

// Everything this file asserts of a merged profile: invariants, the reference answers of the
// profile and of its lowered, verified program.
void check_merged(ProfileFlags flags, const std::vector<PolicyRule> &rules, uint32_t seed)
{
    const Profile built_in(flags);
    const Profile merged(flags, rules);
    std::vector<SeccompData> inputs = merged.validation_inputs();
    const std::vector<SeccompData> aimed = aimed_calls(rules, seed);
    inputs.insert(inputs.end(), aimed.begin(), aimed.end());
    check_invariants(merged, inputs);
    const std::vector<tp_bpf_insn> prog = lower_seccomp(merged);
    const std::optional<std::string> verdict = verify_seccomp(prog, merged);
    CHECK_MESSAGE(!verdict, *verdict);
    size_t wrong = 0;
    for (const SeccompData &d : inputs) {
        const Action want = reference(built_in, rules, d);
        if (!(merged.intended(d) == want) || evaluate(prog, d).ret != want.ret())
            wrong++;
    }
    CHECK_MESSAGE(wrong == 0, wrong << " of " << inputs.size() << " calls answered against the reference");
}

// A rule of a few syscalls with built-in rules and without, its conditions on arguments 0-2
// drawn from constants near the built-in ones and masks of a few bits, at most one `not in`
// (a `not in` costs up to 32 comparisons per value, a mask one per bit, and tests on two
// arguments multiply: the refusal test below). Drawn in a fixed order, so every compiler
// makes the same rules.
PolicyRule random_rule(std::mt19937 &gen, std::string where)
{
    static const std::vector<std::string_view> kNames = {"ioctl",    "socket", "clone",      "personality", "kcmp",
                                                         "mprotect", "fcntl",  "socketpair", "prctl",       "ptrace"};
    static const std::vector<uint32_t> kPool = {0,          1,          2,          3,          16,      0x5412,
                                                0x541b,     0x541c,     0x10000000, 0x40000000, 0x10001, 0xffffffff,
                                                0x80000000, 0x7fffffff, 0x100,      0x6};
    static const std::vector<uint32_t> kMasks = {0x1,        0x4,        0x6,     0x100,     0x10000000,
                                                 0x40000000, 0x50000000, 0x10001, 0x80000000};
    PolicyRule r;
    r.nr = nr_of(kNames[gen() % kNames.size()]);
    const bool kill = gen() % 4 == 0;
    const int err = 1 + static_cast<int>(gen() % 130);
    r.action = kill ? Action::kill() : Action::error(err);
    r.where = std::move(where);
    bool not_in = false;
    for (uint8_t arg = 0; arg < 3; arg++) {
        if (gen() % 2 != 0)
            continue;
        auto kind = static_cast<Kind>(gen() % 4);
        if (kind == Kind::NotIn && std::exchange(not_in, true))
            kind = Kind::In;
        std::set<uint32_t> values;
        if (kind == Kind::In || kind == Kind::NotIn) {
            values.insert(kPool[gen() % kPool.size()]);
            values.insert(kPool[gen() % kPool.size()]);
        } else {
            values.insert(kMasks[gen() % kMasks.size()]);
        }
        r.when.push_back({kind, arg, {values.begin(), values.end()}});
    }
    return r;
}

}  // namespace

TEST_CASE("seccomp merge: a policy rule below a built-in rule keeps the built-in answer first")
{
    const std::vector<PolicyRule> rules = {
        rule("ioctl", {{Kind::In, 1, {kTiocsti, kFionread}}}, Action::error(EACCES)),
        rule("ioctl", {}, Action::error(EINVAL)),
    };
    const Profile p(kHarden, rules);
    CHECK(p.intended(call("ioctl", {0, kTiocsti})) == Action::error(EPERM));  // the hardening's
    CHECK(p.intended(call("ioctl", {0, kTioclinux})) == Action::error(EPERM));
    CHECK(p.intended(call("ioctl", {0, kFionread})) == Action::error(EACCES));  // rule 0
    CHECK(p.intended(call("ioctl", {0, kHigh | kFionread})) == Action::error(EACCES));
    CHECK(p.intended(call("ioctl", {0, 0x5413})) == Action::error(EINVAL));  // rule 1: the rest
    CHECK(applies(p) == std::vector<bool>{true, true});
    const SyscallRule &ioctl = *p.rule_for(nr_of("ioctl"));
    REQUIRE(ioctl.cases.size() == 3);
    CHECK(ioctl.cases[0].policy_rule == -1);
    // Rule 0 cut down to FIONREAD alone; rule 1 to everything but the three values.
    CHECK(ioctl.cases[1].when == std::vector<ArgTest>{{Kind::In, 1, {kFionread}}});
    CHECK(ioctl.cases[1].why == "arg1 == 0x541b (policy rule at rules.tart:1:1, where no earlier rule decides)");
    CHECK(ioctl.cases[2].when == std::vector<ArgTest>{{Kind::NotIn, 1, {kTiocsti, kFionread, kTioclinux}}});
    check_merged(kHarden, rules, 1);
}

TEST_CASE("seccomp merge: rules of a syscall without a built-in rule, in policy order")
{
    const std::vector<PolicyRule> rules = {
        rule("kcmp", {{Kind::In, 0, {1}}, {Kind::AnyBit, 2, {0x6}}}, Action::error(EINVAL), "a.tart:1:1"),
        rule("kcmp", {{Kind::NotIn, 0, {7}}}, Action::kill(), "a.tart:2:1"),
        rule("kcmp", {}, Action::error(EPERM), "a.tart:3:1"),
    };
    const Profile p(kBaseline, rules);
    CHECK(p.intended(call("kcmp", {1, 7, 2})) == Action::error(EINVAL));
    CHECK(p.intended(call("kcmp", {1, 8, 8})) == Action::kill());
    CHECK(p.intended(call("kcmp", {kHigh | 7, 0, 2})) == Action::error(EPERM));
    CHECK(p.intended(call("kcmp", {0xffffffffull << 32 | 9, 7, 0})) == Action::kill());
    CHECK(p.intended(call("kcmp", {7, 1, 2})) == Action::error(EPERM));
    CHECK(p.rule_for(nr_of("kcmp"))->policy);
    check_merged(kBaseline, rules, 2);
    check_merged(kHarden, rules, 3);
}

TEST_CASE("seccomp merge: a rule for every call of a syscall is an unconditional rule")
{
    const Profile p(kHarden,
                    {rule("kcmp", {}, Action::error(EACCES), "r.tart:4:5"),
                     rule("kcmp", {{Kind::In, 0, {1}}}, Action::kill(), "r.tart:5:5")});
    const SyscallRule &kcmp = *p.rule_for(nr_of("kcmp"));
    CHECK(kcmp.cases.empty());
    CHECK(kcmp.otherwise == Action::error(EACCES));
    CHECK(kcmp.otherwise_rule == 0);
    CHECK(applies(p) == std::vector<bool>{true, false});
    CHECK(p.intended(call("kcmp", {1})) == Action::error(EACCES));
}

TEST_CASE("seccomp merge: shadowed rules are the ones a built-in or earlier rule fully covers")
{
    const std::vector<PolicyRule> rules = {
        rule("ptrace", {}, Action::error(EACCES)),                                        // hardening: EPERM always
        rule("ioctl", {{Kind::In, 1, {kTiocsti, kTioclinux}}}, Action::error(EACCES)),    // covered by the hardening
        rule("clone", {{Kind::AnyBit, 0, {kCloneNewUser | kCloneNewNet}}}),               // inside CLONE_NEW*
        rule("clone", {{Kind::AnyBit, 0, {kCloneNewUser | kCloneVm}}}),                   // CLONE_VM alone is new
        rule("socket", {{Kind::In, 0, {40}}}),                                            // AF_VSOCK: the baseline
        rule("socket", {{Kind::In, 0, {2}}, {Kind::In, 1, {3}}}, Action::error(EACCES)),  // AF_INET raw: new
        rule("socket", {{Kind::In, 0, {2}}, {Kind::In, 1, {3}}, {Kind::In, 2, {1}}}),     // under the one above
        rule("io_uring_setup", {}),                                                       // the baseline: ENOSYS
    };
    const Profile harden(kHarden, rules);
    CHECK(applies(harden) == std::vector<bool>{false, false, false, true, false, true, false, false});
    CHECK(shadowed_by(harden) ==
          std::vector<std::string>{"built-in", "built-in", "built-in", "-", "built-in", "-", "5", "built-in"});
    // Covered by two earlier rules together, of other actions: named by the one that completes it.
    const Profile together(kHarden,
                           {rule("kcmp", {{Kind::In, 0, {1}}}),
                            rule("kcmp", {{Kind::In, 0, {2}}}, Action::error(EACCES)),
                            rule("kcmp", {{Kind::In, 0, {1, 2}}}, Action::error(EINVAL))});
    CHECK(shadowed_by(together) == std::vector<std::string>{"-", "-", "1+"});
    const Profile baseline(kBaseline, rules);
    CHECK(applies(baseline) == std::vector<bool>{true, true, true, true, false, true, false, false});
    CHECK(harden.intended(call("clone", {kCloneVm | 17})) == Action::error(EPERM));  // rule 3
    CHECK(harden.intended(call("clone", {kCloneNewUser})) == Action::error(EPERM));  // the hardening
    CHECK(harden.intended(call("socket", {2, 3, 262})) == Action::error(EPROTONOSUPPORT));
    CHECK(harden.intended(call("socket", {2, 3, 1})) == Action::error(EACCES));  // rule 5, not 6
    check_merged(kHarden, rules, 4);
    check_merged(kBaseline, rules, 5);
}

TEST_CASE("seccomp merge: NoBit and AnyBit read the low 32 bits")
{
    const std::vector<PolicyRule> rules = {
        rule("mprotect", {{Kind::AnyBit, 2, {0x4}}}, Action::kill()),
        rule("mmap", {{Kind::NoBit, 3, {0x20}}, {Kind::In, 4, {0xffffffff}}}, Action::error(EINVAL)),
    };
    const Profile p(kHarden, rules);
    CHECK(p.intended(call("mprotect", {0, 0, 0x7})) == Action::kill());
    CHECK(p.intended(call("mprotect", {0, 0, 0x3})) == Action::allow());
    CHECK(p.intended(call("mprotect", {0, 0, 0x4ull << 32 | 0x3})) == Action::allow());  // the high word asks nothing
    CHECK(p.intended(call("mmap", {0, 0, 0, 0x2, 0, 0xffffffff})) == Action::allow());   // arg4 is -1 only here
    CHECK(p.intended(call("mmap", {0, 0, 0, 0x2, 0xffffffffffffffffull})) == Action::error(EINVAL));
    CHECK(p.intended(call("mmap", {0, 0, 0, kHigh | 0x22, 0xffffffff})) == Action::allow());
    CHECK(p.intended(call("mmap", {0, 0, 0, 0x20ull << 32, 0xffffffff})) == Action::error(EINVAL));
    check_merged(kHarden, rules, 6);
}

TEST_CASE("seccomp merge: the lowered program ignores the high word as the profile does")
{
    const std::vector<PolicyRule> rules = {rule("ioctl", {{Kind::In, 1, {kFionread}}}, Action::error(EACCES))};
    const Profile p(kHarden, rules);
    const std::vector<tp_bpf_insn> prog = lower_seccomp(p);
    const uint32_t eacces = TP_RET_ERRNO | EACCES;
    CHECK(evaluate(prog, call("ioctl", {0, kFionread})).ret == eacces);
    CHECK(evaluate(prog, call("ioctl", {0, kHigh | kFionread})).ret == eacces);
    CHECK(evaluate(prog, call("ioctl", {0, 0xffffffffull << 32 | kFionread})).ret == eacces);
    CHECK(evaluate(prog, call("ioctl", {0, kFionread - 1})).ret == TP_RET_ALLOW);
    CHECK(evaluate(prog, call("ioctl", {0, kHigh | kTiocsti})).ret == (TP_RET_ERRNO | EPERM));
}

TEST_CASE("seccomp merge: validation inputs cover the policy's constants")
{
    const Profile p(kHarden, {rule("kcmp", {{Kind::In, 3, {0x1234}}, {Kind::NoBit, 4, {0x30}}})});
    bool value = false, neighbour = false, high = false, mask_bit = false;
    for (const SeccompData &d : p.validation_inputs()) {
        if (d.nr != nr_of("kcmp"))
            continue;
        const auto low3 = static_cast<uint32_t>(d.args[3]);
        value |= d.args[3] == 0x1234;
        neighbour |= low3 == 0x1235;
        high |= low3 == 0x1234 && (d.args[3] >> 32) == 0xffffffff;
        mask_bit |= static_cast<uint32_t>(d.args[4]) == 0x10;
    }
    CHECK(value);
    CHECK(neighbour);
    CHECK(high);
    CHECK(mask_bit);
}

TEST_CASE("seccomp merge: pseudo-random policies mean what the reference says, lowered and verified")
{
    std::mt19937 gen(20261130);
    for (int policy = 0; policy < 16; policy++) {
        std::vector<PolicyRule> rules;
        const auto count = static_cast<uint32_t>(1 + gen() % 6);
        for (uint32_t i = 0; i < count; i++)
            rules.push_back(random_rule(gen, "p.tart:" + std::to_string(i + 1) + ":1"));
        const bool harden = gen() % 2 == 0;
        const bool deny_unix = gen() % 2 == 0;
        std::string text;
        for (const PolicyRule &r : rules)
            text += std::string(syscall_name(r.nr)) + " " + describe_tests(r.when) + "; ";
        CAPTURE(policy);
        CAPTURE(text);
        check_merged({harden, deny_unix}, rules, static_cast<uint32_t>(policy));
    }
}

TEST_CASE("seccomp merge: rules too intricate or too long for a filter are refused with a reason")
{
    // Every earlier case of another action cuts the next rule: 6 arguments tested by 200 rules
    // on one syscall, their errnos alternating. Of one action, they need no cut.
    std::vector<PolicyRule> many;
    for (uint32_t i = 0; i < 200; i++) {
        std::vector<ArgTest> when;
        for (uint8_t arg = 0; arg < 6; arg++)
            when.push_back({Kind::NotIn, arg, {i * 7 + arg}});
        many.push_back(rule("kcmp", when, Action::error(i % 2 == 0 ? EPERM : EACCES)));
    }
    CHECK_THROWS_WITH_AS(Profile(kHarden, many), doctest::Contains("need more than 512 disjoint cases"),
                         RulesTooIntricate);
    for (PolicyRule &r : many)
        r.action = Action::error(EPERM);
    CHECK(Profile(kHarden, many).rule_for(nr_of("kcmp"))->cases.size() == 200);

    // A NotIn of many values: a cover of thousands of ranges.
    std::vector<uint32_t> values;
    for (uint32_t v = 0; v < 5000; v++)
        values.push_back(v * 977);
    CHECK_THROWS_AS(lower_seccomp(Profile(kHarden, {rule("kcmp", {{Kind::NotIn, 0, values}})})), RulesTooIntricate);

    // Fits the profile, not a filter: `not in` on two arguments needs the product of their
    // covers (each up to 32 comparisons per value), refused before libseccomp builds it.
    const Profile two_not_in(
        kBaseline,
        {rule("ioctl", {{Kind::In, 0, {2, 3}}, {Kind::NotIn, 1, {1, 0x10000000}}, {Kind::NotIn, 2, {0, 0x10001}}})});
    CHECK_THROWS_WITH_AS(lower_seccomp(two_not_in), doctest::Contains("more than 2048 chains of comparisons"),
                         std::runtime_error);
    // Few enough chains, and more than the kernel's 4096 instructions as libseccomp lowers
    // them (its covers, one `and`/`jeq` pair per prefix); once shrunk (bpf_shrink.h), a filter
    // the kernel takes, verified.
    const Profile long_filter(kHarden,
                              {rule("mmap", {{Kind::NotIn, 1, {0x10}}, {Kind::In, 3, {1}}, {Kind::NotIn, 4, {1}}}),
                               rule("mprotect", {{Kind::NotIn, 0, {5}}, {Kind::In, 1, {1, 2, 3, 4}}})});
    const std::vector<tp_bpf_insn> shrunk = lower_seccomp(long_filter);
    CHECK(shrunk.size() < 1024);
    CHECK_FALSE(verify_seccomp(shrunk, long_filter).has_value());
}

TEST_CASE("seccomp merge: conditions read as the policy wrote them")
{
    CHECK(describe_tests(std::vector<ArgTest>{{Kind::In, 0, {16}},
                                              {Kind::NotIn, 2, {0, 4}},
                                              {Kind::AnyBit, 3, {0x30}},
                                              {Kind::NoBit, 4, {0x1}},
                                              {Kind::In, 5, {1, 2}},
                                              {Kind::NotIn, 1, {9}}}) ==
          "arg0 == 0x10 and arg2 not in {0x0, 0x4} and arg3 & 0x30 != 0 and arg4 & 0x1 == 0 and arg5 in {0x1, 0x2} "
          "and arg1 != 0x9");
    CHECK(describe_tests({}).empty());
}
