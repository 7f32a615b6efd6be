// compiler/seccomp/seccomp_merge.cpp — see seccomp_merge.h.
#include "seccomp_merge.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "seccomp_cube.h"
#include "syscall_table.h"

namespace tartaros::seccomp {
namespace {

// Tests that must all hold, sorted by argument (tests of one argument in the order added).
using Conjunction = std::vector<ArgTest>;

// The search for a shadowed rule follows at most this many pieces and subtractions before it
// takes the rule to apply (at worst a warning is missed).
constexpr size_t kShadowPieces = 64;
constexpr size_t kShadowWork = 4096;

ArgTest negated(const ArgTest &t)
{
    ArgTest n = t;
    switch (t.kind) {
    case ArgTest::Kind::In: n.kind = ArgTest::Kind::NotIn; break;
    case ArgTest::Kind::NotIn: n.kind = ArgTest::Kind::In; break;
    case ArgTest::Kind::AnyBit: n.kind = ArgTest::Kind::NoBit; break;
    case ArgTest::Kind::NoBit: n.kind = ArgTest::Kind::AnyBit; break;
    }
    return n;
}

Conjunction with(Conjunction c, const ArgTest &t)
{
    const auto at = std::upper_bound(c.begin(), c.end(), t.arg, [](uint8_t a, const ArgTest &x) { return a < x.arg; });
    c.insert(at, t);
    return c;
}

// One argument's tests in their simplest equivalent form: with an In among them, the one In
// of the values that pass them all; otherwise NotIns united and NoBits or-ed (AnyBits stay:
// two of them are not one).
void simplify_argument(const Conjunction &tests, Conjunction &out)
{
    const auto in =
        std::find_if(tests.begin(), tests.end(), [](const ArgTest &t) { return t.kind == ArgTest::Kind::In; });
    if (in != tests.end()) {
        ArgTest only{ArgTest::Kind::In, in->arg, {}};
        for (uint32_t v : in->values) {
            SeccompData d;
            d.args[in->arg] = v;
            if (std::all_of(tests.begin(), tests.end(), [&](const ArgTest &t) { return t.holds(d); }))
                only.values.push_back(v);
        }
        out.push_back(std::move(only));
        return;
    }
    std::set<uint32_t> excluded;
    uint32_t no_bits = 0;
    for (const ArgTest &t : tests) {
        if (t.kind == ArgTest::Kind::NotIn)
            excluded.insert(t.values.begin(), t.values.end());
        else if (t.kind == ArgTest::Kind::NoBit)
            no_bits |= t.values[0];
        else if (std::find(out.begin(), out.end(), t) == out.end())
            out.push_back(t);
    }
    if (!excluded.empty())
        out.push_back({ArgTest::Kind::NotIn, tests.front().arg, {excluded.begin(), excluded.end()}});
    if (no_bits != 0)
        out.push_back({ArgTest::Kind::NoBit, tests.front().arg, {no_bits}});
}

Conjunction simplified(const Conjunction &c)
{
    Conjunction out;
    for (uint8_t arg = 0; arg < 6; arg++) {
        Conjunction tests;
        for (const ArgTest &t : c)
            if (t.arg == arg)
                tests.push_back(t);
        if (!tests.empty())
            simplify_argument(tests, out);
    }
    return out;
}

bool disjoint(const Conjunction &q, const Conjunction &c)
{
    Conjunction both = q;
    for (const ArgTest &t : c)
        both = with(both, t);
    return never_holds(both);
}

// About how many masked comparisons the test costs the lowering (seccomp_cube.h; a NotIn's
// cover needs up to 32 per value).
size_t cost(const ArgTest &t)
{
    switch (t.kind) {
    case ArgTest::Kind::In: return t.values.size();
    case ArgTest::Kind::NotIn: return 32 * t.values.size();
    case ArgTest::Kind::AnyBit: return static_cast<size_t>(std::popcount(t.values[0]));
    case ArgTest::Kind::NoBit: return 1;
    }
    return 1;
}

// `c`'s tests in the order that keeps the pieces of subtract() small: piece j holds tests
// 1..j-1 as they are and test j negated, so a test whose negation is costly (In: a NotIn cover
// of 32 comparisons per value) goes first, where nothing multiplies it, and one that is costly
// as it is (NotIn) goes last, where no later piece carries it.
Conjunction split_order(Conjunction c)
{
    std::stable_sort(c.begin(), c.end(), [](const ArgTest &a, const ArgTest &b) {
        const auto gain = [](const ArgTest &t) {
            return static_cast<long>(cost(negated(t))) - static_cast<long>(cost(t));
        };
        return gain(a) > gain(b);
    });
    return c;
}

// q ∧ ¬c as disjoint conjunctions, none of them empty (q is not).
std::vector<Conjunction> subtract(const Conjunction &q, const Conjunction &c)
{
    if (disjoint(q, c))
        return {q};
    std::vector<Conjunction> out;
    Conjunction prefix = q;
    for (const ArgTest &t : split_order(c)) {
        const Conjunction piece = with(prefix, negated(t));
        const bool implied = never_holds(piece);  // the prefix passes t anyway
        if (!implied)
            out.push_back(simplified(piece));
        const Conjunction narrowed = with(prefix, t);
        if (never_holds(narrowed))
            break;  // nothing of the prefix passes t: every later piece is empty
        if (!implied)
            prefix = narrowed;
    }
    return out;
}

// The rule for `nr`, made (allowing, with no case) where there is none yet.
SyscallRule &rule_for_policy(std::vector<SyscallRule> &rules, uint32_t nr)
{
    const auto at =
        std::lower_bound(rules.begin(), rules.end(), nr, [](const SyscallRule &r, uint32_t n) { return r.nr < n; });
    if (at != rules.end() && at->nr == nr)
        return *at;
    SyscallRule r;
    r.nr = nr;
    r.name = syscall_name(nr);
    r.otherwise = Action::allow();
    r.why = "the policy's own syscall rules";
    r.policy = true;
    return *rules.insert(at, std::move(r));
}

std::string why(const PolicyRule &p, const Conjunction &piece, bool cut)
{
    return (piece.empty() ? std::string("every call") : describe_tests(piece)) + " (policy rule at " + p.where +
        (cut ? ", where no earlier rule decides" : "") + ")";
}

// The first case of `r` that alone holds wherever `p` does (p ∧ ¬t is empty for each test t of
// the case), or null: the common way to be shadowed (a built-in case, a repeated rule), found
// without cutting p into pieces.
const Case *case_around(const SyscallRule &r, const PolicyRule &p)
{
    const auto around = std::find_if(r.cases.begin(), r.cases.end(), [&](const Case &c) {
        return std::all_of(c.when.begin(), c.when.end(),
                           [&](const ArgTest &t) { return never_holds(with(p.when, negated(t))); });
    });
    return around != r.cases.end() ? &*around : nullptr;
}

struct Remainder {
    std::vector<Conjunction> pieces;
    bool complete = true;  // false: the search stopped at a bound; the pieces are not the answer
    size_t last_case = 0;  // no piece left: the index of the case that took the last of them
};

// Who shadows a rule: the rules of the cases up to the one that took its last piece.
Shadowing shadowing_of(const SyscallRule &r, size_t last_case)
{
    const int rule = r.cases[last_case].policy_rule;
    const bool with_earlier = std::any_of(r.cases.begin(), r.cases.begin() + static_cast<std::ptrdiff_t>(last_case),
                                          [&](const Case &c) { return c.policy_rule != rule; });
    return {rule, rule >= 0 && with_earlier};
}

// `p`'s condition where no case of `r` holds yet, as disjoint pieces; with `other_actions`, only
// the cases whose action differs from p's count (where one with p's action holds, the answer
// is the same). Stops, incomplete, past `max_pieces` pieces or when `work` (subtractions left)
// runs out.
Remainder remaining(const SyscallRule &r, const PolicyRule &p, bool other_actions, size_t max_pieces, size_t &work)
{
    Remainder out{{p.when}, true};
    for (const Case &c : r.cases) {
        if (other_actions && c.action == p.action)
            continue;
        std::vector<Conjunction> next;
        for (const Conjunction &q : out.pieces) {
            if (work == 0)
                return {std::move(next), false};
            work--;
            for (Conjunction &piece : subtract(q, c.when))
                next.push_back(std::move(piece));
        }
        out.pieces = std::move(next);
        if (out.pieces.size() > max_pieces)
            return {std::move(out.pieces), false};
        if (out.pieces.empty()) {
            out.last_case = static_cast<size_t>(&c - r.cases.data());
            break;
        }
    }
    return out;
}

std::string test_text(const ArgTest &t)
{
    auto hex = [](uint32_t v) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "0x%x", v);
        return std::string(buf);
    };
    auto set = [&](const char *one, const char *many) {
        if (t.values.size() == 1)
            return std::string(one) + hex(t.values[0]);
        std::string list;
        for (uint32_t v : t.values)
            list += (list.empty() ? "" : ", ") + hex(v);
        return std::string(many) + "{" + list + "}";
    };
    const std::string arg = "arg" + std::to_string(t.arg);
    switch (t.kind) {
    case ArgTest::Kind::In: return arg + set(" == ", " in ");
    case ArgTest::Kind::NotIn: return arg + set(" != ", " not in ");
    case ArgTest::Kind::AnyBit: return arg + " & " + hex(t.values[0]) + " != 0";
    case ArgTest::Kind::NoBit: return arg + " & " + hex(t.values[0]) + " == 0";
    }
    return arg;
}

}  // namespace

std::string describe_tests(std::span<const ArgTest> tests)
{
    std::string out;
    for (const ArgTest &t : tests)
        out += (out.empty() ? "" : " and ") + test_text(t);
    return out;
}

void merge_policy_rules(std::vector<SyscallRule> &rules, const std::vector<PolicyRule> &policy,
                        std::vector<std::optional<Shadowing>> &shadowed)
{
    shadowed.assign(policy.size(), std::nullopt);
    size_t work = kMaxMergeWork;  // shared by every rule's cut
    for (size_t i = 0; i < policy.size(); i++) {
        const PolicyRule &p = policy[i];
        SyscallRule &r = rule_for_policy(rules, p.nr);
        if (r.cases.empty() && !(r.otherwise == Action::allow())) {
            shadowed[i] = Shadowing{};  // a built-in rule decides every call
            continue;
        }
        // Shadowed: every call it covers is decided already. Emitted: the condition cut by the
        // cases of other actions only, so no comparison is spent where the answer is the same.
        if (const Case *around = case_around(r, p)) {
            shadowed[i] = Shadowing{around->policy_rule, false};
            continue;
        }
        size_t shadow_work = kShadowWork;
        const Remainder left = remaining(r, p, false, kShadowPieces, shadow_work);
        if (left.complete && left.pieces.empty()) {
            shadowed[i] = shadowing_of(r, left.last_case);
            continue;
        }
        const Remainder cut_down = remaining(r, p, true, kMaxCasesPerSyscall, work);
        const std::vector<Conjunction> &pieces = cut_down.pieces;
        if (!cut_down.complete || r.cases.size() + pieces.size() > kMaxCasesPerSyscall)
            throw RulesTooIntricate("the syscall rules for " + std::string(r.name) + " need more than " +
                                    std::to_string(kMaxCasesPerSyscall) + " disjoint cases");
        const bool cut = !(pieces.size() == 1 && pieces.front() == p.when);
        for (const Conjunction &piece : pieces)
            r.cases.push_back({piece, p.action, why(p, piece, cut), static_cast<int>(i)});
    }
    // A case for every call overlaps every other case, which then all have its action: the
    // rule is that action, unconditionally.
    for (SyscallRule &r : rules) {
        const auto every = std::find_if(r.cases.begin(), r.cases.end(), [](const Case &c) { return c.when.empty(); });
        if (every == r.cases.end())
            continue;
        r.otherwise = every->action;
        r.otherwise_rule = every->policy_rule;
        r.cases.clear();
    }
}

}  // namespace tartaros::seccomp
