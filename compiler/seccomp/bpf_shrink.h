// compiler/seccomp/bpf_shrink.h — a shorter classic BPF program that returns the same for
// every input.
//
// libseccomp tests an argument through masked equalities only (seccomp_lower.h), so a `!=` or
// a `not in` becomes a cover of the complement by masked prefixes: up to 32 `and`/`jeq` pairs
// per excluded value, run one after another by every call they guard, and converted and
// JIT-compiled by the kernel at every start (the command loads the filter: ~0.2 µs an
// instruction on the build machine). The default profile's socket() family test alone was 70
// instructions. After the export, and before verify_seccomp checks the result against the
// profile, this rewrites:
//  1. every interval region (below) as a binary search over the intervals of the word on which
//     its outcome is constant: a `not in` of 4 values becomes 6 `jgt`s, at most 3 run;
//  2. every single-bit test (`and #b; jeq #b` or `jeq #0`) as `jset #b`;
//  3. a load of the word A already holds, dropped;
//  4. a `jset` whose false branch is reached from it alone and is a `jset` to the same true
//     target: one `jset` of both masks.
//
// An interval region is what a load of an argument word reaches before A is dead (a load, a
// return of a constant, or a jump to one: its exits), when every instruction in it is an `and`
// with a prefix mask (high bits set), a comparison with a constant other than `jset`, or a
// `ja`, and nothing outside jumps into it. Its exit is then a function of the word alone, and
// with prefix masks a piecewise constant one: the pieces' ends are found from the constants
// and masks, each piece's exit by running the region on its first value.
//
// Invariants: the result returns what `prog` returns for every seccomp_data; it is never
// longer; it only jumps forward. When a rewritten jump would not fit a conditional jump's 8-bit
// offset, or a jump of `prog` leaves it, `prog` comes back unchanged.
#pragma once

#include <span>
#include <vector>

#include "plan.h"

namespace tartaros::seccomp {

std::vector<tp_bpf_insn> shrink_bpf(std::span<const tp_bpf_insn> prog);

}  // namespace tartaros::seccomp
