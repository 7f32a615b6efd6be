// compiler/seccomp/seccomp_merge.h — the policy's deny rules merged into the built-in rules of a
// profile (seccomp_profile.h, step 4). Internal to Profile's constructor.
//
// For each syscall, the built-in rule's cases come first and keep their actions; then each
// policy rule, in policy order, adds its condition cut down to where no earlier case of
// another action (built-in or the policy's) holds: u ∧ ¬c1 ∧ ... ∧ ¬ck, expanded into
// disjoint conjunctions (u ∧ ¬c = (u ∧ ¬t1) ∨ (u ∧ t1 ∧ ¬t2) ∨ ..., for c = t1 ∧ t2 ∧ ...),
// each kept only when some call passes it (seccomp_cube.h). Cases of the same action may
// overlap: where both hold the answer is the same, and not cutting them saves comparisons
// (a `!=` costs up to 32 of them). A rule every call of which an earlier case decides, of any
// action, is shadowed and adds nothing; a built-in rule without cases (ptrace: EPERM always)
// shadows every policy rule for its syscall. A rule left with a case for every call (a policy
// rule for every call that nothing of another action cuts) becomes unconditional.
#pragma once

#include <optional>
#include <vector>

#include "seccomp_profile.h"

namespace tartaros::seccomp {

// More cases than this for one syscall, or more subtractions of a case from a rule's pieces
// than kMaxMergeWork for the whole profile: RulesTooIntricate (the filter could not hold them,
// and a hostile policy must not cost minutes to find that out).
inline constexpr size_t kMaxCasesPerSyscall = 512;
inline constexpr size_t kMaxMergeWork = 1u << 18;

// `rules` sorted by nr, one per nr (the built-in ones); afterwards still so, with the policy's
// rules merged in. `shadowed[i]` says who shadows policy rule i, or nullopt when it kept cases
// (a rule whose search for a cover passes its bounds is taken to apply: at worst a warning is
// missed).
void merge_policy_rules(std::vector<SyscallRule> &rules, const std::vector<PolicyRule> &policy,
                        std::vector<std::optional<Shadowing>> &shadowed);

}  // namespace tartaros::seccomp
