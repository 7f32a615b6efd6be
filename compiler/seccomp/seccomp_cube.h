// compiler/seccomp/seccomp_cube.h — sets of 32-bit argument values as unions of cubes, the one exact
// arithmetic behind the profile's merging of rules (seccomp_merge.cpp: which cases are empty,
// a witness of each) and the lowering's comparisons (seccomp_lower.cpp: one masked comparison
// per cube).
//
// A cube is `(low32 & mask) == value` with value & ~mask == 0, so no cube is empty. A test's
// cubes (cubes_of) cover exactly the values the test holds for: In, one cube per value; NotIn,
// the complement of its values by prefix cubes (at most 32 per value); AnyBit, one cube per bit
// of the mask (these overlap); NoBit, the one cube (mask, 0). The cubes of several tests on one
// argument are the pairwise intersections, duplicates and cubes inside another dropped: empty
// exactly when no value passes every test.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "seccomp_profile.h"

namespace tartaros::seccomp {

struct Cube {
    uint32_t mask = 0;
    uint32_t value = 0;
    bool contains(uint32_t low) const { return (low & mask) == value; }
    bool operator==(const Cube &) const = default;
};

// More cubes than this for one argument of one case: the rules are too intricate to lower
// (RulesTooIntricate). Real rules need a few dozen; the bound keeps a hostile policy from
// costing minutes before the filter's own length limit refuses it.
inline constexpr size_t kMaxCubesPerArgument = 4096;

std::vector<Cube> cubes_of(const ArgTest &test);

// The values of argument `arg` that pass every test of `tests` on it (tests on other arguments
// are ignored). Throws RulesTooIntricate past kMaxCubesPerArgument.
std::vector<Cube> argument_cubes(std::span<const ArgTest> tests, uint8_t arg);

// Whether no call passes all of `tests` (on any arguments).
bool never_holds(std::span<const ArgTest> tests);

}  // namespace tartaros::seccomp
