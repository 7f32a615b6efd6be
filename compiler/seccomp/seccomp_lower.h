// compiler/seccomp/seccomp_lower.h — the profile lowered to classic BPF by libseccomp.
//
// libseccomp builds the filter (SCMP_FLTATR_CTL_OPTIMIZE=2: a binary tree over syscall
// numbers; BADARCH = KILL_PROCESS, which also covers x32 numbers), and the program is exported
// raw. Each argument test becomes SCMP_CMP_MASKED_EQ comparisons with a mask inside the low 32
// bits (never a plain EQ, which compares all 64 bits and is bypassable), one per cube of
// seccomp_cube.h: In as one comparison per value, AnyBit as one per bit, NoBit as one, NotIn as
// a cover of the complement by masked prefixes (bpf_shrink.h folds those back into interval
// comparisons after the export); several tests on one argument (the policy's
// rules cut down by earlier cases) as the intersections of their cubes, so each libseccomp
// rule compares an argument once. The result is not trusted: verify_seccomp() checks it
// before it enters a plan.
#pragma once

#include <string>
#include <vector>

#include "plan.h"
#include "seccomp_profile.h"

namespace tartaros::seccomp {

// Throws std::runtime_error naming the libseccomp call that failed, or when the rules need
// more comparisons than a filter can hold (longer than TP_BPF_MAXINSNS); RulesTooIntricate
// when one argument's tests are too intricate (seccomp_cube.h).
std::vector<tp_bpf_insn> lower_seccomp(const Profile &profile);

}  // namespace tartaros::seccomp
