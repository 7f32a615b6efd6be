// compiler/seccomp/seccomp_cube.cpp — see seccomp_cube.h.
#include "seccomp_cube.h"

#include <algorithm>
#include <bit>
#include <set>
#include <stdexcept>
#include <string>

namespace tartaros::seccomp {
namespace {

[[noreturn]] void too_intricate()
{
    throw RulesTooIntricate("the syscall rules test one argument in too intricate a way (more than " +
                            std::to_string(kMaxCubesPerArgument) + " value ranges)");
}

// Covers every 32-bit value outside `excluded` (sorted) by prefix cubes: walk the binary trie
// of the excluded values from the top bit down and emit each sibling subtree that holds none of
// them. At most 32 cubes per excluded value.
void cover_complement(uint32_t prefix, int fixed_bits, const std::vector<uint32_t> &excluded, std::vector<Cube> &out)
{
    const uint32_t mask = fixed_bits == 0 ? 0 : ~0u << (32 - fixed_bits);
    const auto first = std::lower_bound(excluded.begin(), excluded.end(), prefix);
    const bool any = first != excluded.end() && (*first & mask) == prefix;
    if (!any) {
        out.push_back({mask, prefix});
        if (out.size() > kMaxCubesPerArgument)
            too_intricate();
        return;
    }
    if (fixed_bits == 32)
        return;  // exactly an excluded value
    const uint32_t bit = 1u << (31 - fixed_bits);
    cover_complement(prefix, fixed_bits + 1, excluded, out);
    cover_complement(prefix | bit, fixed_bits + 1, excluded, out);
}

// The cube of the values in both, if any.
bool intersect(const Cube &a, const Cube &b, Cube &out)
{
    if (((a.value ^ b.value) & a.mask & b.mask) != 0)
        return false;
    out = {a.mask | b.mask, a.value | b.value};
    return true;
}

// Whether every value of `inner` is in `outer`.
bool inside(const Cube &inner, const Cube &outer)
{
    return (outer.mask & ~inner.mask) == 0 && (inner.value & outer.mask) == outer.value;
}

std::vector<Cube> intersect_all(const std::vector<Cube> &a, const std::vector<Cube> &b)
{
    if (a.size() * b.size() > kMaxCubesPerArgument * 16)
        too_intricate();
    std::vector<Cube> out;
    for (const Cube &x : a)
        for (const Cube &y : b) {
            Cube both;
            if (!intersect(x, y, both))
                continue;
            if (std::any_of(out.begin(), out.end(), [&](const Cube &c) { return inside(both, c); }))
                continue;
            std::erase_if(out, [&](const Cube &c) { return inside(c, both); });
            out.push_back(both);
            if (out.size() > kMaxCubesPerArgument)
                too_intricate();
        }
    return out;
}

}  // namespace

std::vector<Cube> cubes_of(const ArgTest &test)
{
    std::vector<Cube> out;
    switch (test.kind) {
    case ArgTest::Kind::In:
        for (uint32_t v : test.values)
            out.push_back({0xffffffffu, v});
        break;
    case ArgTest::Kind::NotIn: cover_complement(0, 0, test.values, out); break;
    case ArgTest::Kind::AnyBit:
        for (uint32_t bit = 1; bit != 0; bit <<= 1)
            if (test.values[0] & bit)
                out.push_back({bit, bit});
        break;
    case ArgTest::Kind::NoBit: out.push_back({test.values[0], 0}); break;
    }
    return out;
}

std::vector<Cube> argument_cubes(std::span<const ArgTest> tests, uint8_t arg)
{
    std::vector<Cube> set = {Cube{}};  // every value
    for (const ArgTest &t : tests)
        if (t.arg == arg && !set.empty())
            set = intersect_all(set, cubes_of(t));
    return set;
}

namespace {

// Whether no value of argument `arg` passes all of `tests` on it, by counting where that is
// cheap: an In's values that pass the rest; without AnyBit, the values NoBit leaves against
// the ones NotIn excludes. Only AnyBit with NotIn needs the cubes.
bool argument_empty(std::span<const ArgTest> tests, uint8_t arg)
{
    size_t count = 0;
    const ArgTest *in = nullptr;
    bool any_bit = false;
    uint32_t no_bits = 0;
    for (const ArgTest &t : tests) {
        if (t.arg != arg)
            continue;
        count++;
        in = t.kind == ArgTest::Kind::In ? &t : in;
        any_bit |= t.kind == ArgTest::Kind::AnyBit;
        no_bits |= t.kind == ArgTest::Kind::NoBit ? t.values[0] : 0;
    }
    if (count < 2)
        return false;  // no test is empty on its own (ArgTest's invariants)
    const auto passes = [&](uint32_t v) {
        SeccompData d;
        d.args[arg] = v;
        return std::all_of(tests.begin(), tests.end(), [&](const ArgTest &t) { return t.arg != arg || t.holds(d); });
    };
    if (in != nullptr)
        return std::none_of(in->values.begin(), in->values.end(), passes);
    if (!any_bit) {
        std::set<uint32_t> excluded;
        for (const ArgTest &t : tests)
            if (t.arg == arg && t.kind == ArgTest::Kind::NotIn)
                for (uint32_t v : t.values)
                    if ((v & no_bits) == 0)
                        excluded.insert(v);
        return excluded.size() >= (uint64_t{1} << (32 - std::popcount(no_bits)));
    }
    return argument_cubes(tests, arg).empty();
}

}  // namespace

bool never_holds(std::span<const ArgTest> tests)
{
    for (uint8_t arg = 0; arg < 6; arg++)
        if (argument_empty(tests, arg))
            return true;
    return false;
}

}  // namespace tartaros::seccomp
