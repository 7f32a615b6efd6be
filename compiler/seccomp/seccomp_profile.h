// compiler/seccomp/seccomp_profile.h — what the seccomp filter must do, written as data: the intended
// action for every call, independent of how libseccomp lowers it. Translation validation
// (seccomp_verify.h) compares the lowered program against Profile::intended().
//
// The profile is a frame around the policy's two choices (after sandbox2's policy.cc):
//  1. prologue, always: a foreign architecture or an x32 number (0x40000000 bit) kills the
//     process; -1 passes (the kernel answers ENOSYS; libseccomp reserves it for tracers);
//  2. baseline, always: socket()/socketpair() families are allow-listed and io_uring is
//     refused, because a network namespace does not scope AF_VSOCK and io_uring creates
//     sockets and opens files without the syscalls this filter sees;
//  3. hardening, when harden_syscalls: the deny list, each rule with its reason;
//  4. the policy's own deny rules (policy.h SyscallDenyRule, a .tart `syscalls` block), in
//     policy order, below the built-in rules: they only refuse, and never where a built-in
//     rule already decides (seccomp_merge.cpp);
//  5. epilogue: every other call is allowed.
//
// Invariants of rules():
//  - sorted by nr, at most one rule per nr;
//  - a rule's cases of different actions are disjoint: for any arguments the cases that hold
//    all have one action, so "first case that holds" and "any case that holds" agree.
//    libseccomp has no order among the rules of one syscall, and lower_seccomp relies on this.
//    A built-in rule's cases come first (and are disjoint); a policy rule adds the cases of its
//    condition cut down to where no earlier case of another action holds;
//  - no case is empty (some call makes it hold), and a rule with cases allows otherwise;
//  - an argument test reads only the low 32 bits of its argument, as the kernel does for its
//    int and unsigned int parameters (and for clone's flags, which it truncates), so a caller
//    cannot slip past a test by setting the high word.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bpf_eval.h"

namespace tartaros::seccomp {

struct Action {
    enum class Kind : uint8_t { Allow, Errno, KillProcess };
    Kind kind = Kind::Allow;
    uint16_t err = 0;  // Errno only

    static Action allow() { return {}; }
    static Action error(int e) { return {Kind::Errno, static_cast<uint16_t>(e)}; }
    static Action kill() { return {Kind::KillProcess, 0}; }
    uint32_t ret() const;  // the SECCOMP_RET_* value
    bool operator==(const Action &) const = default;
};

// A condition on the low 32 bits of argument `arg`.
struct ArgTest {
    enum class Kind : uint8_t {
        In,      // low32 is one of `values`
        NotIn,   // low32 is none of `values`
        AnyBit,  // low32 & values[0] != 0 (values holds exactly one non-zero mask)
        NoBit,   // low32 & values[0] == 0 (values holds exactly one non-zero mask)
    };
    Kind kind = Kind::In;
    uint8_t arg = 0;               // 0..5
    std::vector<uint32_t> values;  // sorted, no duplicates
    bool holds(const SeccompData &d) const;
    bool operator==(const ArgTest &) const = default;
};

struct Case {
    std::vector<ArgTest> when;  // all must hold; sorted by argument, several on one argument all hold
    Action action;
    std::string why;       // e.g. "family AF_VSOCK, AF_PACKET, ... (not in the allow-list)"
    int policy_rule = -1;  // the index of the policy rule it comes from; -1: built in
};

struct SyscallRule {
    uint32_t nr = 0;
    std::string_view name;    // "" for a number beyond the table (future syscalls)
    std::vector<Case> cases;  // disjoint across actions; empty: `otherwise` always applies
    Action otherwise;         // when no case holds
    std::string_view why;     // one line: why the rule exists (docs/seccomp.md, --explain)
    bool hardening = false;   // false: baseline, in every profile (or the policy's)
    bool policy = false;      // only the policy's rules decide this syscall (no built-in rule)
    int otherwise_rule = -1;  // the policy rule `otherwise` comes from; -1: built in (or allow)
};

// One deny rule of the policy as the plan carries it (TP_SEC_SYSCALL_RULES; seccomp_rules.h
// builds the list from the plan's sections, so lowering, --verify and --explain agree).
// Invariants: nr is in the native table; `when` is sorted by argument with at most one test
// per argument, each test as ArgTest says; action is Errno (1..4095) or KillProcess.
struct PolicyRule {
    uint32_t nr = 0;
    std::vector<ArgTest> when;  // all must hold; empty: every call
    Action action;
    std::string where;  // where the policy says it ("rules.tart:4:5"), for the why texts
    bool operator==(const PolicyRule &) const = default;
};

// Who shadows a policy rule that never applies: the built-in rule of its syscall (rule -1), or
// the policy rule whose case took the last calls it covered, alone or with earlier rules
// (built-in or the policy's).
struct Shadowing {
    int rule = -1;
    bool with_earlier = false;
};

// Tests as a policy writes them: "arg0 == 0x10 and arg2 & 0x8 != 0" ("" for none).
std::string describe_tests(std::span<const ArgTest> tests);

struct ProfileFlags {
    bool harden = true;
    bool deny_unix = false;
    bool operator==(const ProfileFlags &) const = default;
};

// What a profile is built from: the two switches and the policy's rules.
struct ProfileSpec {
    ProfileFlags flags;
    std::vector<PolicyRule> rules;
    bool operator==(const ProfileSpec &) const = default;
};

// The policy's syscall rules need more cases or value ranges than a filter could hold
// (seccomp_merge.h, seccomp_cube.h): the policy is refused, not the plan's size.
struct RulesTooIntricate : std::length_error {
    using std::length_error::length_error;
};

using InputVisitor = std::function<void(const SeccompData &)>;

// validation inputs: above this many combinations of the other arguments' core values, a
// varied argument is crossed with the witnesses of the cases instead; above this many
// argument inputs for one syscall (a policy rule with long value lists), an even sample of
// them (see below). The built-in rules stay under both.
inline constexpr size_t kMaxHeldCombinations = 4096;
inline constexpr size_t kMaxInputsPerRule = 1u << 14;
inline constexpr size_t kMaxWitnessesPerRule = 32;

class Profile {
public:
    // Throws RulesTooIntricate when the policy's rules are too intricate to merge (more cases
    // or value ranges than the bounds of seccomp_merge.cpp and seccomp_cube.h).
    explicit Profile(ProfileFlags flags, std::vector<PolicyRule> policy_rules = {});

    ProfileFlags flags() const { return flags_; }
    const std::vector<SyscallRule> &rules() const { return rules_; }
    const SyscallRule *rule_for(uint32_t nr) const;
    const std::vector<PolicyRule> &policy_rules() const { return policy_rules_; }
    // Per policy rule: nullopt when it decides some call; else it can never decide one, and
    // who shadows it (an earlier rule, built-in or the policy's, decides every call it covers).
    const std::vector<std::optional<Shadowing>> &shadowed() const { return shadowed_; }
    bool policy_rule_applies(size_t i) const { return !shadowed_[i].has_value(); }

    // The action the filter must return for `d` (the prologue, the rules, then Allow).
    Action intended(const SeccompData &d) const;

    // The inputs translation validation runs (deterministic order; untested arguments hold a
    // junk pattern):
    //  - every number 0..kFutureMaxNr+16 and some beyond, each also with the x32 bit, and each
    //    with a witness of every argument case of the profile (so a dispatch error that sends
    //    one syscall into another's argument checks shows; of a rule with more than
    //    kMaxWitnessesPerRule cases, an even sample); foreign architectures; nr -1;
    //  - for every rule with argument tests, each tested argument through its boundary values
    //    while the others hold each of their core values (high word 0). Core: k-1, k, k+1 for
    //    every constant (and every bit of a mask), 0, 0x7fffffff, 0x80000000, all-ones.
    //    Boundary: the core crossed with high words {0, 1, 0x80000000, 0xffffffff}, plus every
    //    single bit, every run of low bits, every constant with one bit flipped and each bit
    //    of a mask with every other bit set (the filter compares under masks), with a zero or
    //    a garbage high word. When the product of the other arguments' core values passes
    //    kMaxHeldCombinations (a policy rule testing many arguments), they hold instead, case
    //    after case, the values of a witness of the case (and the junk pattern); when one
    //    syscall's argument inputs pass kMaxInputsPerRule, every k-th of them is kept. The
    //    verifier's inputs aimed at the program's own comparisons (seccomp_verify.h) are not
    //    sampled.
    // About 30k calls; visiting them needs no memory for them, validation_inputs() keeps them.
    void visit_validation_inputs(const InputVisitor &visit) const;
    std::vector<SeccompData> validation_inputs() const;

private:
    ProfileFlags flags_;
    std::vector<PolicyRule> policy_rules_;
    std::vector<SyscallRule> rules_;
    // Per number up to the last rule's: 1 + the index of its rule in rules_, 0 for none.
    // rule_for() runs for every validation input, several times: no binary search there.
    std::vector<uint16_t> rule_index_;
    std::vector<std::optional<Shadowing>> shadowed_;
};

}  // namespace tartaros::seccomp
