// compiler/seccomp_profile.h — what the seccomp filter must do, written as data: the intended
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
//  4. epilogue: every other call is allowed.
//
// Invariants of rules():
//  - sorted by nr, at most one rule per nr;
//  - a rule's cases are disjoint: for any arguments at most one case holds, so "first case
//    that holds" and "any case that holds" agree. libseccomp has no order among the rules of
//    one syscall, and lower_seccomp relies on this;
//  - an argument test reads only the low 32 bits of its argument, as the kernel does for its
//    int and unsigned int parameters (and for clone's flags, which it truncates), so a caller
//    cannot slip past a test by setting the high word (TOOLCHAIN §3).
#pragma once

#include <cstdint>
#include <functional>
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
    uint32_t ret() const;            // the SECCOMP_RET_* value
    bool operator==(const Action &) const = default;
};

// A condition on the low 32 bits of argument `arg`.
struct ArgTest {
    enum class Kind : uint8_t {
        In,      // low32 is one of `values`
        NotIn,   // low32 is none of `values`
        AnyBit,  // low32 & values[0] != 0 (values holds exactly one mask)
    };
    Kind kind = Kind::In;
    uint8_t arg = 0;                // 0..5
    std::vector<uint32_t> values;   // sorted, no duplicates
    bool holds(const SeccompData &d) const;
};

struct Case {
    std::vector<ArgTest> when;  // all must hold; at most one test per argument
    Action action;
    std::string why;            // e.g. "family AF_VSOCK, AF_PACKET, ... (not in the allow-list)"
};

struct SyscallRule {
    uint32_t nr = 0;
    std::string_view name;      // "" for a number beyond the table (future syscalls)
    std::vector<Case> cases;    // disjoint; empty: `otherwise` always applies
    Action otherwise;           // when no case holds
    std::string_view why;       // one line: why the rule exists (README, --explain)
    bool hardening = false;     // false: baseline, in every profile
};

struct ProfileFlags {
    bool harden = true;
    bool deny_unix = false;
    bool operator==(const ProfileFlags &) const = default;
};

using InputVisitor = std::function<void(const SeccompData &)>;

class Profile {
public:
    explicit Profile(ProfileFlags flags);

    ProfileFlags flags() const { return flags_; }
    const std::vector<SyscallRule> &rules() const { return rules_; }
    const SyscallRule *rule_for(uint32_t nr) const;

    // The action the filter must return for `d` (the prologue, the rules, then Allow).
    Action intended(const SeccompData &d) const;

    // The inputs translation validation runs (deterministic order; untested arguments hold a
    // junk pattern):
    //  - every number 0..kFutureMaxNr+16 and some beyond, each also with the x32 bit, and each
    //    with a witness of every argument case of the profile (so a dispatch error that sends
    //    one syscall into another's argument checks shows); foreign architectures; nr -1;
    //  - for every rule with argument tests, each tested argument through its boundary values
    //    while the others hold each of their core values (high word 0). Core: k-1, k, k+1 for
    //    every constant (and every bit of a mask), 0, 0x7fffffff, 0x80000000, all-ones.
    //    Boundary: the core crossed with high words {0, 1, 0x80000000, 0xffffffff}, plus every
    //    single bit, every run of low bits, every constant with one bit flipped and each bit
    //    of a mask with every other bit set (the filter compares under masks), with a zero or
    //    a garbage high word.
    // About 30k calls; visiting them needs no memory for them, validation_inputs() keeps them.
    void visit_validation_inputs(const InputVisitor &visit) const;
    std::vector<SeccompData> validation_inputs() const;

private:
    ProfileFlags flags_;
    std::vector<SyscallRule> rules_;
};

}  // namespace tartaros::seccomp
