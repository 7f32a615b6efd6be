// compiler/seccomp/seccomp_verify.h — the seccomp program is checked, not trusted.
//
// verify_seccomp() runs the structural check (ir/bpf_check.h) and then translation validation:
// the interpreter (bpf_eval.h) runs the program on every input of
// Profile::validation_inputs(), and on inputs aimed at the edges of every comparison the
// program itself makes (seccomp_verify.cpp says why both), and compares each result with
// Profile::intended(). Any difference is a compiler bug; the plan is not written.
//
// filter_stats() measures what --explain reports: the worst number of instructions executed
// by an allowed call (over every validation input the profile allows), and the mean weighted
// by the frequency table of typical agent work (shell, git, compilers; syscall_frequency()).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plan.h"
#include "seccomp_profile.h"

namespace tartaros::seccomp {

// nullopt when the program passes both checks; otherwise the first reason, one line, e.g.
// "instruction 12: jump target 300 beyond the end (length 120)" or
// "socket(domain=0x1_00000028, ...) returns ALLOW, the profile says ERRNO(EAFNOSUPPORT)".
std::optional<std::string> verify_seccomp(std::span<const tp_bpf_insn> prog, const Profile &profile);

// The validation inputs of a profile with the intended answer of each, held in memory. One
// check streams the inputs instead (the overload above: a compile checks one program); build
// a ValidationSet to check many programs against one profile, as the mutation test does.
class ValidationSet {
public:
    explicit ValidationSet(const Profile &profile);
    const Profile &profile() const { return profile_; }
    const std::vector<SeccompData> &inputs() const { return inputs_; }
    const std::vector<uint32_t> &intended() const { return intended_; }  // SECCOMP_RET_* per input
    const std::vector<SeccompData> &calls() const { return calls_; }     // one per (nr, arch)

private:
    Profile profile_;
    std::vector<SeccompData> inputs_;
    std::vector<uint32_t> intended_;
    std::vector<SeccompData> calls_;
};

// The same check as verify_seccomp(prog, set.profile()), with the inputs kept in `set`.
std::optional<std::string> verify_seccomp(std::span<const tp_bpf_insn> prog, const ValidationSet &set);

struct FilterStats {
    uint32_t length = 0;                 // instructions in the program
    uint32_t worst_allowed = 0;          // most instructions executed by an allowed call
    std::string worst_allowed_call;      // which call (name and arguments) needs them
    uint32_t worst_allowed_no_args = 0;  // the same over syscalls without argument rules
    double weighted_mean = 0;            // mean over the frequency table's calls
};

FilterStats filter_stats(std::span<const tp_bpf_insn> prog, const Profile &profile);

// Relative frequencies of syscalls in typical agent work (shell, git, compilers), summing to
// 1. Measured with strace -c on this machine kind; see the comment in the .cpp.
struct SyscallWeight {
    std::string_view name;
    double weight;
};
std::span<const SyscallWeight> syscall_frequency();

}  // namespace tartaros::seccomp
