// Unit tests of the seccomp verifier: the lowered programs pass; programs of another profile
// and damaged programs are refused with a readable reason; and the mutation test, which shows
// that every single-instruction change of a lowered program that changes its behaviour is
// refused. Whether a mutant changes behaviour is decided without the verifier: the mutant and
// the original are run side by side on ~20,000 pseudo-random calls (fixed seed) plus the
// validation inputs.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdio>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "bpf_check.h"
#include "bpf_disasm.h"
#include "bpf_eval.h"
#include "seccomp_lower.h"
#include "seccomp_profile.h"
#include "seccomp_verify.h"
#include "syscall_table.h"

using namespace tartaros::seccomp;

namespace {

using Prog = std::vector<tp_bpf_insn>;

constexpr ProfileFlags kAllFlags[] = {{false, false}, {false, true}, {true, false}, {true, true}};
constexpr uint32_t kX32Bit = 0x40000000u;

std::string hex(uint64_t v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string flags_name(ProfileFlags f)
{
    return std::string("harden=") + (f.harden ? "on" : "off") + " deny_unix=" + (f.deny_unix ? "on" : "off");
}

std::string input_text(const SeccompData &d)
{
    std::string s = "nr " + hex(d.nr) + " arch " + hex(d.arch) + " args";
    for (uint64_t a : d.args)
        s += " " + hex(a);
    return s;
}

// Line `i` of the disassembly of `p`.
std::string line_of(const Prog &p, size_t i)
{
    const std::string text = disassemble(p);
    size_t start = 0;
    for (size_t n = 0; n < i; n++)
        start = text.find('\n', start) + 1;
    return text.substr(start, text.find('\n', start) - start);
}

bool same(const tp_bpf_insn &a, const tp_bpf_insn &b)
{
    return a.code == b.code && a.jt == b.jt && a.jf == b.jf && a.k == b.k;
}

// ---- the behaviour oracle: the original and a mutant side by side, no verifier involved ----

// Low words worth trying: every constant the profile compares with, its neighbours and its
// complement, every power of two and its neighbours (the edges of masked-prefix ranges), the
// small numbers (families, protocols) and the extremes.
std::vector<uint32_t> interesting_lows(const Profile &profile)
{
    std::set<uint32_t> pool = {0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};
    for (uint32_t small = 0; small < 64; small++)
        pool.insert(small);
    for (uint32_t bit = 0; bit < 32; bit++) {
        pool.insert(1u << bit);
        pool.insert((1u << bit) - 1);
        pool.insert((1u << bit) + 1);
    }
    for (const SyscallRule &rule : profile.rules())
        for (const Case &c : rule.cases)
            for (const ArgTest &t : c.when)
                for (uint32_t v : t.values)
                    for (uint32_t near : {v - 1, v, v + 1, ~v})
                        pool.insert(near);
    return {pool.begin(), pool.end()};
}

// `n` calls from a fixed seed: about a third with a syscall number the profile tests arguments of,
// the rest any number in 0..600, some with the x32 bit or a foreign architecture; each
// argument a low word from the pool (or fully random) under a random high word (or 0).
std::vector<SeccompData> random_calls(const Profile &profile, size_t n)
{
    std::mt19937_64 rng(0x7a7a05u);
    const std::vector<uint32_t> lows = interesting_lows(profile);
    std::vector<uint32_t> arg_rules;
    for (const SyscallRule &rule : profile.rules())
        if (!rule.cases.empty())
            arg_rules.push_back(rule.nr);
    const uint32_t arches[] = {0x40000003u, 0xc00000b7u, 0u, TP_ARCH_X86_64 ^ 1u};
    auto word = [&] { return static_cast<uint32_t>(rng()); };
    std::vector<SeccompData> out(n);
    for (SeccompData &d : out) {
        const uint32_t kind = word() % 20;
        d.nr = kind < 7 ? arg_rules[word() % arg_rules.size()] : word() % 601;
        if (kind == 7 || kind == 8)
            d.nr |= kX32Bit;
        if (kind == 9)
            d.arch = word() % 2 == 0 ? arches[word() % 4] : word();
        if (kind == 10)
            d.nr = 0xffffffffu;
        for (uint64_t &a : d.args) {
            const uint32_t low = word() % 8 == 0 ? word() : lows[word() % lows.size()];
            const uint32_t high = word() % 2 == 0 ? 0 : (word() % 2 == 0 ? word() : 0xffffffffu);
            a = (uint64_t{high} << 32) | low;
        }
    }
    return out;
}

// The original program, its verdict on every oracle input, the inputs themselves (validation
// inputs first: a behaviour change usually shows there), and for every instruction the inputs
// whose path passes it. A mutant of instruction i can only differ from the original on those:
// the paths agree up to i.
struct Oracle {
    Prog prog;
    std::vector<SeccompData> inputs;
    std::vector<uint32_t> rets;
    std::vector<std::vector<uint32_t>> reach;  // per instruction, ascending input indices
};

// Not a valid action: no instruction of a checked program returns it.
constexpr uint32_t kMarker = 0x7ffe0000u;

std::vector<std::vector<uint32_t>> predecessors(const Prog &prog)
{
    std::vector<std::vector<uint32_t>> preds(prog.size());
    for (uint32_t i = 0; i < prog.size(); i++) {
        const tp_bpf_insn &in = prog[i];
        if (TP_BPF_CLASS(in.code) == TP_BPF_RET)
            continue;
        if (in.code == (TP_BPF_JMP | TP_BPF_JA)) {
            preds[i + 1 + in.k].push_back(i);
        } else if (TP_BPF_CLASS(in.code) == TP_BPF_JMP) {
            preds[i + 1 + in.jt].push_back(i);
            if (in.jf != in.jt)
                preds[i + 1 + in.jf].push_back(i);
        } else {
            preds[i + 1].push_back(i);
        }
    }
    return preds;
}

// Which inputs reach each instruction, with evaluate() alone: the program with instruction i
// replaced by a return of the marker returns it exactly for the inputs that reach i, and only
// the inputs that reach a predecessor of i need trying.
std::vector<std::vector<uint32_t>> reach_sets(const Prog &prog, const std::vector<SeccompData> &inputs)
{
    const std::vector<std::vector<uint32_t>> preds = predecessors(prog);
    std::vector<std::vector<uint32_t>> reach(prog.size());
    for (uint32_t i = 0; i < inputs.size(); i++)
        reach[0].push_back(i);
    Prog probe = prog;
    for (size_t i = 1; i < prog.size(); i++) {
        std::set<uint32_t> candidates;
        for (uint32_t p : preds[i])
            candidates.insert(reach[p].begin(), reach[p].end());
        probe[i] = {TP_BPF_RET | TP_BPF_K, 0, 0, kMarker};
        for (uint32_t c : candidates)
            if (evaluate(probe, inputs[c]).ret == kMarker)
                reach[i].push_back(c);
        probe[i] = prog[i];
    }
    return reach;
}

Oracle oracle_for(const Profile &profile, Prog prog)
{
    Oracle o{std::move(prog), profile.validation_inputs(), {}, {}};
    const std::vector<SeccompData> random = random_calls(profile, 20000);
    o.inputs.insert(o.inputs.end(), random.begin(), random.end());
    o.rets.reserve(o.inputs.size());
    for (const SeccompData &d : o.inputs)
        o.rets.push_back(evaluate(o.prog, d).ret);
    o.reach = reach_sets(o.prog, o.inputs);
    // Each input's path is as long as the number of instructions found to reach it.
    std::vector<uint32_t> on_path(o.inputs.size());
    for (const std::vector<uint32_t> &r : o.reach)
        for (uint32_t i : r)
            on_path[i]++;
    size_t wrong = 0;
    for (size_t i = 0; i < o.inputs.size(); i++)
        wrong += on_path[i] != evaluate(o.prog, o.inputs[i]).executed;
    CHECK(wrong == 0);
    return o;
}

// The first oracle input on which `mutant`, the original with instruction `at` changed, returns
// something else than the original.
std::optional<size_t> first_difference(const Oracle &o, const Prog &mutant, uint32_t at)
{
    for (uint32_t i : o.reach[at])
        if (evaluate(mutant, o.inputs[i]).ret != o.rets[i])
            return i;
    return std::nullopt;
}

// ---- mutants ----

struct Mutant {
    uint32_t at;
    tp_bpf_insn insn;
};

bool is_conditional(const tp_bpf_insn &in)
{
    return TP_BPF_CLASS(in.code) == TP_BPF_JMP && TP_BPF_OP(in.code) != TP_BPF_JA;
}

// Every mutant of instruction `at`: jump offsets +1/-1 and swapped; k +1, -1, ^1, ^0x80000000,
// ^0x100; a return replaced by another action or errno. Duplicates and no-ops dropped.
void mutate(const Prog &prog, uint32_t at, std::vector<Mutant> &out)
{
    const tp_bpf_insn in = prog[at];
    std::vector<tp_bpf_insn> variants;
    if (is_conditional(in)) {
        for (int delta : {1, -1}) {
            if (in.jt + delta >= 0 && in.jt + delta <= 255)
                variants.push_back({in.code, static_cast<uint8_t>(in.jt + delta), in.jf, in.k});
            if (in.jf + delta >= 0 && in.jf + delta <= 255)
                variants.push_back({in.code, in.jt, static_cast<uint8_t>(in.jf + delta), in.k});
        }
        variants.push_back({in.code, in.jf, in.jt, in.k});
    }
    for (uint32_t k : {in.k + 1, in.k - 1, in.k ^ 1u, in.k ^ 0x80000000u, in.k ^ 0x100u})
        variants.push_back({in.code, in.jt, in.jf, k});
    if (in.code == (TP_BPF_RET | TP_BPF_K))
        for (uint32_t k :
             {TP_RET_ALLOW, TP_RET_ERRNO | EPERM, TP_RET_KILL_PROCESS, TP_RET_ERRNO | EACCES, TP_RET_ERRNO | ENOSYS})
            variants.push_back({in.code, in.jt, in.jf, k});
    std::vector<tp_bpf_insn> kept;
    for (const tp_bpf_insn &v : variants) {
        bool seen = same(v, in);
        for (const tp_bpf_insn &k : kept)
            seen = seen || same(v, k);
        if (!seen)
            kept.push_back(v);
    }
    for (const tp_bpf_insn &v : kept)
        out.push_back({at, v});
}

bool structurally_valid(const Prog &p)
{
    char err[256];
    return tp_bpf_check(p.data(), static_cast<uint32_t>(p.size()), err, sizeof err) == 0;
}

const Prog &lowered(ProfileFlags flags)
{
    static std::vector<std::pair<ProfileFlags, Prog>> cache;
    for (const auto &[f, p] : cache)
        if (f == flags)
            return p;
    cache.emplace_back(flags, lower_seccomp(Profile(flags)));
    return cache.back().second;
}

void mutation_test(const std::string &name, const Profile &profile, const Prog &prog)
{
    const Oracle oracle = oracle_for(profile, prog);
    const ValidationSet set(profile);  // verified thousands of times: inputs kept in memory
    std::vector<Mutant> mutants;
    for (uint32_t at = 0; at < oracle.prog.size(); at++)
        mutate(oracle.prog, at, mutants);

    // A refusal by translation validation names a call on which the mutant disagrees with the
    // profile, which the original agrees with: it changes behaviour even when no oracle input
    // shows it (verifier_only counts those).
    size_t structural = 0, semantic = 0, verifier_only = 0, equivalent = 0, missed = 0;
    Prog work = oracle.prog;
    for (const Mutant &m : mutants) {
        work[m.at] = m.insn;
        const std::optional<std::string> verdict = verify_seccomp(work, set);
        if (!structurally_valid(work)) {
            CHECK(verdict.has_value());
            structural++;
        } else {
            const std::optional<size_t> diff = first_difference(oracle, work, m.at);
            INFO("mutant: ", line_of(oracle.prog, m.at), " became ", line_of(work, m.at));
            INFO("verdict: ", verdict.value_or("accepted"));
            if (verdict) {
                semantic++;
                verifier_only += !diff.has_value();
            } else if (diff) {
                missed++;
                if (missed <= 10)
                    FAIL_CHECK("accepted, yet it differs on ", input_text(oracle.inputs[*diff]));
            } else {
                equivalent++;
            }
        }
        work[m.at] = oracle.prog[m.at];
    }
    MESSAGE(name, ": ", oracle.prog.size(), " instructions, ", mutants.size(), " mutants: ", structural,
            " refused by the structural check, ", semantic, " by translation validation (", verifier_only,
            " of them differ on no oracle input), ", equivalent, " equivalent on all ", oracle.inputs.size(),
            " oracle inputs; ", missed, " changed behaviour unnoticed");
    CHECK(missed == 0);
    CHECK(structural + semantic + equivalent + missed == mutants.size());
}

// The index of the first instruction with `code` and `k`.
size_t find_insn(const Prog &p, uint32_t code, uint32_t k)
{
    for (size_t i = 0; i < p.size(); i++)
        if (p[i].code == code && p[i].k == k)
            return i;
    FAIL("no instruction with code ", code, " and k ", k);
    return 0;
}

}  // namespace

TEST_CASE("seccomp_verify: the lowered program of every profile passes")
{
    for (ProfileFlags flags : kAllFlags) {
        const Profile profile(flags);
        const std::optional<std::string> verdict = verify_seccomp(lowered(flags), profile);
        CHECK(verify_seccomp(lowered(flags), ValidationSet(profile)) == verdict);
        INFO(flags_name(flags), ": ", verdict.value_or(""));
        CHECK_FALSE(verdict.has_value());
    }
}

TEST_CASE("seccomp_verify: the program of another profile is refused, naming the call")
{
    for (ProfileFlags flags : kAllFlags)
        for (ProfileFlags other : kAllFlags) {
            if (flags == other)
                continue;
            const std::optional<std::string> verdict = verify_seccomp(lowered(other), Profile(flags));
            INFO("program of ", flags_name(other), " checked against ", flags_name(flags));
            REQUIRE(verdict.has_value());
            const std::string name = verdict->substr(0, verdict->find('('));
            INFO("verdict: ", *verdict);
            CHECK(syscall_number(name).has_value());
            CHECK(verdict->find(" returns ") != std::string::npos);
            CHECK(verdict->find(", the profile says ") != std::string::npos);
        }
    // Without hardening the program allows what the hardened profile refuses.
    const std::optional<std::string> verdict = verify_seccomp(lowered({false, false}), Profile({true, false}));
    REQUIRE(verdict.has_value());
    INFO("verdict: ", *verdict);
    const std::optional<uint32_t> nr = syscall_number(verdict->substr(0, verdict->find('(')));
    REQUIRE(nr.has_value());
    REQUIRE(Profile({true, false}).rule_for(*nr) != nullptr);
    CHECK(Profile({true, false}).rule_for(*nr)->hardening);
    CHECK(verdict->ends_with(" returns ALLOW, the profile says ERRNO(EPERM)"));
}

TEST_CASE("seccomp_verify: mismatches show x32 numbers and high words")
{
    const ProfileFlags flags{true, false};
    const Profile profile(flags);
    Prog p = lowered(flags);
    // The x32 test sends x32 numbers to the kill; make both branches go on to the tree.
    const size_t x32 = find_insn(p, TP_BPF_JMP | TP_BPF_JGE | TP_BPF_K, kX32Bit);
    p[x32].jt = p[x32].jf;
    CHECK(verify_seccomp(p, profile).value_or("accepted") ==
          "x32 read (nr 0x40000000) returns ALLOW, the profile says KILL_PROCESS");

    // socket's family test reads the domain's low word only; made to read its high word, it
    // is refused with a call whose high word shows.
    p = lowered(flags);
    const size_t socket = find_insn(p, TP_BPF_JMP | TP_BPF_JEQ | TP_BPF_K, 41);
    const size_t domain = socket + 1 + p[socket].jt;
    REQUIRE(p[domain].code == (TP_BPF_LD | TP_BPF_W | TP_BPF_ABS));
    REQUIRE(p[domain].k == 16);
    p[domain].k = 20;
    CHECK(verify_seccomp(p, profile).value_or("accepted") ==
          "socket(domain=0xa5a5a5a5_00000001, protocol=0x0, ...) returns ERRNO(EAFNOSUPPORT), the profile says ALLOW");
}

// Translation validation answers a call from the last path run when the call agrees with it on
// every word that path loaded (bpf_path_memo.h), and tries each case's witness on every
// syscall. A program that differs from the lowered one only on one witness of read(), a call
// of a syscall without argument rules that one call per syscall would stand for, is refused.
TEST_CASE("seccomp_verify: a program wrong on one witness of a syscall without argument rules is refused")
{
    const ProfileFlags flags{true, false};
    const Profile profile(flags);
    const std::vector<SeccompData> inputs = profile.validation_inputs();
    // The first input of read that differs from read's first input in an argument's low word.
    const SeccompData *first = nullptr, *witness = nullptr;
    uint32_t arg = 0;
    for (const SeccompData &d : inputs) {
        if (d.nr != 0 || d.arch != TP_ARCH_X86_64 || witness != nullptr)
            continue;
        if (first == nullptr)
            first = &d;
        for (uint32_t a = 0; a < 6 && witness == nullptr; a++)
            if (static_cast<uint32_t>(d.args[a]) != static_cast<uint32_t>(first->args[a])) {
                witness = &d;
                arg = a;
            }
    }
    REQUIRE(witness != nullptr);
    const auto value = static_cast<uint32_t>(witness->args[arg]);
    // After the architecture check: read with that low word returns EPERM; everything else
    // goes on to the lowered program, which loads nr again.
    const Prog lowered_prog = lowered(flags);
    REQUIRE(lowered_prog[2].code == (TP_BPF_LD | TP_BPF_W | TP_BPF_ABS));
    const Prog inserted = {
        {TP_BPF_LD | TP_BPF_W | TP_BPF_ABS, 0, 0, TP_SD_NR},
        {TP_BPF_JMP | TP_BPF_JEQ | TP_BPF_K, 0, 3, 0},
        {TP_BPF_LD | TP_BPF_W | TP_BPF_ABS, 0, 0, TP_SD_ARGS + 8 * arg},
        {TP_BPF_JMP | TP_BPF_JEQ | TP_BPF_K, 0, 1, value},
        {TP_BPF_RET | TP_BPF_K, 0, 0, TP_RET_ERRNO | EPERM},
    };
    Prog p(lowered_prog.begin(), lowered_prog.begin() + 2);
    REQUIRE(p[1].jf + inserted.size() <= 255);
    p[1].jf = static_cast<uint8_t>(p[1].jf + inserted.size());
    p.insert(p.end(), inserted.begin(), inserted.end());
    p.insert(p.end(), lowered_prog.begin() + 2, lowered_prog.end());
    REQUIRE(structurally_valid(p));
    REQUIRE(evaluate(p, *witness).ret == (TP_RET_ERRNO | EPERM));
    REQUIRE(evaluate(p, *first).ret == TP_RET_ALLOW);

    const std::optional<std::string> verdict = verify_seccomp(p, profile);
    INFO("verdict: ", verdict.value_or("accepted"));
    REQUIRE(verdict.has_value());
    // The argument with that low word (the high word is the witness's or junk, depending on
    // which input set meets the call first).
    char shown[64];
    std::snprintf(shown, sizeof shown, "arg%u=0x[0-9a-f]+_%08x,", arg, value);
    CHECK(verdict->starts_with("read("));
    CHECK(std::regex_search(*verdict, std::regex(shown)));
    CHECK(verdict->ends_with(" returns ERRNO(EPERM), the profile says ALLOW"));
    CHECK(verify_seccomp(p, ValidationSet(profile)) == verdict);
}

TEST_CASE("seccomp_verify: a structurally bad program is refused with the check's reason")
{
    const ProfileFlags flags{true, true};
    Prog p = lowered(flags);
    p.resize(p.size() / 2);
    const std::optional<std::string> verdict = verify_seccomp(p, Profile(flags));
    REQUIRE(verdict.has_value());
    INFO("verdict: ", *verdict);
    CHECK(verdict->starts_with("instruction "));
    CHECK(verdict->find("beyond the end") != std::string::npos);
}

void mutation_test(ProfileFlags flags)
{
    mutation_test(flags_name(flags), Profile(flags), lowered(flags));
}

TEST_CASE("seccomp_verify: mutation test, harden off, deny_unix off")
{
    mutation_test({false, false});
}
TEST_CASE("seccomp_verify: mutation test, harden off, deny_unix on")
{
    mutation_test({false, true});
}
TEST_CASE("seccomp_verify: mutation test, harden on, deny_unix off")
{
    mutation_test({true, false});
}
TEST_CASE("seccomp_verify: mutation test, harden on, deny_unix on")
{
    mutation_test({true, true});
}

// The policy's own rules (seccomp_merge.h) of every kind, some cut by the hardening's cases or
// by each other: their comparisons are as closely checked as the built-in ones.
TEST_CASE("seccomp_verify: mutation test, harden on, the policy's syscall rules")
{
    using K = ArgTest::Kind;
    auto nr = [](std::string_view name) { return *syscall_number(name); };
    const std::vector<PolicyRule> rules = {
        {nr("ioctl"), {{K::In, 1, {0x541b}}}, Action::error(EACCES), "r.tart:1:1"},
        {nr("kcmp"), {{K::In, 0, {1, 2}}, {K::AnyBit, 2, {0x6}}}, Action::kill(), "r.tart:2:1"},
        {nr("kcmp"), {}, Action::error(EPERM), "r.tart:3:1"},
        {nr("mprotect"), {{K::AnyBit, 2, {0x4}}}, Action::error(EACCES), "r.tart:4:1"},
        {nr("mmap"), {{K::NoBit, 3, {0x20}}}, Action::error(EINVAL), "r.tart:5:1"},
        {nr("personality"), {{K::NotIn, 0, {8}}}, Action::error(EINVAL), "r.tart:6:1"},
    };
    const Profile profile({true, false}, rules);
    mutation_test("harden=on with policy rules", profile, lower_seccomp(profile));
}

TEST_CASE("seccomp_verify: filter statistics")
{
    for (ProfileFlags flags : kAllFlags) {
        const Profile profile(flags);
        const Prog &p = lowered(flags);
        const FilterStats s = filter_stats(p, profile);
        MESSAGE(flags_name(flags), ": length ", s.length, ", worst allowed ", s.worst_allowed, " (",
                s.worst_allowed_call, "), worst allowed without argument rules ", s.worst_allowed_no_args,
                ", weighted mean ", s.weighted_mean);
        CHECK(s.length == p.size());
        CHECK(s.worst_allowed_no_args <= s.worst_allowed);
        // The project's target (docs/architecture.md): at most 16 instructions for an allowed syscall (met by those without
        // argument rules; the argument checks of socket() run far longer, see the MESSAGE).
        CHECK(s.worst_allowed_no_args <= 16);
        // The longest allowed path tests arguments, so it belongs to a syscall with argument rules.
        const std::string name = s.worst_allowed_call.substr(0, s.worst_allowed_call.find('('));
        const std::optional<uint32_t> nr = syscall_number(name);
        REQUIRE(nr.has_value());
        REQUIRE(profile.rule_for(*nr) != nullptr);
        CHECK_FALSE(profile.rule_for(*nr)->cases.empty());
        // getpid has no rule: its path is the prologue and one descent of the tree.
        SeccompData getpid;
        getpid.nr = 39;
        const EvalResult r = evaluate(p, getpid);
        CHECK(r.ret == TP_RET_ALLOW);
        CHECK(r.executed <= s.worst_allowed_no_args);
        CHECK(s.weighted_mean >= 6);  // prologue (6) before any dispatch
        CHECK(s.weighted_mean <= s.worst_allowed);
    }
}

TEST_CASE("seccomp_verify: the syscall frequency table")
{
    const auto table = syscall_frequency();
    CHECK(table.size() >= 40);
    CHECK(table.size() <= 60);
    double sum = 0;
    std::set<std::string_view> names;
    for (const SyscallWeight &w : table) {
        INFO(w.name);
        CHECK(syscall_number(w.name).has_value());
        CHECK(w.weight > 0);
        CHECK(names.insert(w.name).second);
        sum += w.weight;
    }
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
}
