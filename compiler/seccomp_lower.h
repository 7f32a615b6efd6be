// compiler/seccomp_lower.h — the profile lowered to classic BPF by libseccomp.
//
// libseccomp builds the filter (SCMP_FLTATR_CTL_OPTIMIZE=2: a binary tree over syscall
// numbers; BADARCH = KILL_PROCESS, which also covers x32 numbers), and the program is exported
// raw. Each argument test becomes SCMP_CMP_MASKED_EQ comparisons with a mask inside the low 32
// bits (never a plain EQ, which compares all 64 bits and is bypassable): In as one comparison
// per value, AnyBit as one per bit, NotIn as a cover of the complement by masked prefixes.
// The result is not trusted: verify_seccomp() checks it before it enters a plan.
#pragma once

#include <string>
#include <vector>

#include "plan.h"
#include "seccomp_profile.h"

namespace tartaros::seccomp {

// Throws std::runtime_error naming the libseccomp call that failed.
std::vector<tp_bpf_insn> lower_seccomp(const Profile &profile);

}  // namespace tartaros::seccomp
