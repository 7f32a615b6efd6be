// compiler/seccomp/bpf_shrink.cpp — see bpf_shrink.h. Four passes over a decoded program
// (absolute jump targets), each a table of replacements linearized at its end.
#include "bpf_shrink.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "bpf_check.h"

namespace tartaros::seccomp {
namespace {

constexpr uint32_t kFirstArg = 16;  // offsetof(seccomp_data, args)
constexpr uint32_t kDataEnd = 64;   // sizeof(seccomp_data)
constexpr uint16_t kLoadWord = TP_BPF_LD | TP_BPF_W | TP_BPF_ABS;
constexpr uint16_t kAndK = TP_BPF_ALU | TP_BPF_AND | TP_BPF_K;
constexpr uint16_t kJa = TP_BPF_JMP | TP_BPF_JA;
constexpr uint16_t kJeq = TP_BPF_JMP | TP_BPF_JEQ | TP_BPF_K;
constexpr uint16_t kJgt = TP_BPF_JMP | TP_BPF_JGT | TP_BPF_K;
constexpr uint16_t kJset = TP_BPF_JMP | TP_BPF_JSET | TP_BPF_K;
constexpr uint16_t kTxa = TP_BPF_MISC | TP_BPF_TXA;
// A region larger than this is left as it is (libseccomp's largest is about 70).
constexpr size_t kMaxRegion = 1024;

// Where a jump goes: an instruction of the program being rewritten, or (local) a node of the
// replacement the jump belongs to.
struct Target {
    bool local = false;
    size_t index = 0;
};

struct Node {
    uint16_t code = 0;
    uint32_t k = 0;
    Target jt, jf;  // a conditional jump's; a `ja` uses jt
};

using Prog = std::vector<Node>;  // no local targets
using Preds = std::vector<std::vector<size_t>>;

Target at(size_t i)
{
    return {false, i};
}

Target local(size_t i)
{
    return {true, i};
}

bool is_jump(const Node &n)
{
    return TP_BPF_CLASS(n.code) == TP_BPF_JMP;
}

bool is_conditional(const Node &n)
{
    return is_jump(n) && n.code != kJa;
}

// What the passes rely on (tp_bpf_check asks more, and a length within the kernel's limit,
// which libseccomp's covers may exceed until shrunk): every jump lands inside the program,
// forward, and the last instruction returns.
bool well_formed(std::span<const tp_bpf_insn> prog)
{
    if (prog.empty() || TP_BPF_CLASS(prog.back().code) != TP_BPF_RET)
        return false;
    for (size_t i = 0; i < prog.size(); i++) {
        const tp_bpf_insn &in = prog[i];
        if (TP_BPF_CLASS(in.code) != TP_BPF_JMP)
            continue;
        const uint64_t far = in.code == kJa ? uint64_t{in.k} : std::max(in.jt, in.jf);
        if (i + 1 + far >= prog.size())
            return false;
    }
    return true;
}

Prog decode(std::span<const tp_bpf_insn> prog)
{
    Prog out(prog.size());
    for (size_t i = 0; i < prog.size(); i++) {
        const tp_bpf_insn &in = prog[i];
        out[i].code = in.code;
        out[i].k = in.k;
        if (in.code == kJa) {
            out[i].jt = at(i + 1 + in.k);
        } else if (TP_BPF_CLASS(in.code) == TP_BPF_JMP) {
            out[i].jt = at(i + 1 + in.jt);
            out[i].jf = at(i + 1 + in.jf);
        }
    }
    return out;
}

// Offsets again; none when a jump would go backwards or not fit its field.
std::optional<std::vector<tp_bpf_insn>> encode(const Prog &p)
{
    std::vector<tp_bpf_insn> out(p.size());
    for (size_t i = 0; i < p.size(); i++) {
        out[i] = {p[i].code, 0, 0, p[i].k};
        if (!is_jump(p[i]))
            continue;
        if (p[i].jt.index <= i || (is_conditional(p[i]) && p[i].jf.index <= i))
            return std::nullopt;
        const size_t jt = p[i].jt.index - i - 1;
        if (p[i].code == kJa) {
            out[i].k = static_cast<uint32_t>(jt);
            continue;
        }
        const size_t jf = p[i].jf.index - i - 1;
        if (jt > 0xff || jf > 0xff)
            return std::nullopt;
        out[i].jt = static_cast<uint8_t>(jt);
        out[i].jf = static_cast<uint8_t>(jf);
    }
    return out;
}

std::vector<size_t> successors(const Prog &p, size_t i)
{
    const Node &n = p[i];
    if (TP_BPF_CLASS(n.code) == TP_BPF_RET)
        return {};
    if (n.code == kJa)
        return {n.jt.index};
    if (is_jump(n))
        return {n.jt.index, n.jf.index};
    return {i + 1};
}

Preds predecessors(const Prog &p)
{
    Preds preds(p.size());
    for (size_t i = 0; i < p.size(); i++)
        for (size_t s : successors(p, i))
            preds[s].push_back(i);
    return preds;
}

// Whether A is overwritten or not read from instruction `i` on: a load into A, `txa`, a
// return of a constant, or a `ja` to one of them.
bool a_dead(const Prog &p, size_t i)
{
    for (;; i = p[i].jt.index) {
        const Node &n = p[i];
        if (TP_BPF_CLASS(n.code) == TP_BPF_LD || n.code == kTxa)
            return true;
        if (TP_BPF_CLASS(n.code) == TP_BPF_RET)
            return TP_BPF_RVAL(n.code) == TP_BPF_K;
        if (n.code != kJa)
            return false;
    }
}

// Each instruction's replacement: itself until rewritten, nothing once removed (control that
// reached it goes on to the next instruction kept).
class Rewrite {
public:
    explicit Rewrite(const Prog &p) : p_(p), rep_(p.size()), touched_(p.size(), false)
    {
        for (size_t i = 0; i < p.size(); i++)
            rep_[i] = {p[i]};
    }

    void replace(size_t i, std::vector<Node> nodes)
    {
        rep_[i] = std::move(nodes);
        touched_[i] = true;
    }

    void remove(size_t i) { replace(i, {}); }

    bool touched(size_t i) const { return touched_[i]; }

    Prog linearize() const
    {
        std::vector<size_t> pos(p_.size() + 1, 0);
        for (size_t i = 0; i < p_.size(); i++)
            pos[i + 1] = pos[i] + rep_[i].size();
        const auto resolve = [&](size_t i, Target t) { return at(t.local ? pos[i] + t.index : pos[t.index]); };
        Prog out;
        out.reserve(pos.back());
        for (size_t i = 0; i < p_.size(); i++)
            for (Node n : rep_[i]) {
                if (is_jump(n)) {
                    n.jt = resolve(i, n.jt);
                    if (is_conditional(n))
                        n.jf = resolve(i, n.jf);
                }
                out.push_back(n);
            }
        return out;
    }

private:
    const Prog &p_;
    std::vector<std::vector<Node>> rep_;
    std::vector<bool> touched_;
};

// ---- 1. interval regions --------------------------------------------------------------------

struct Region {
    std::vector<size_t> members;                 // sorted
    std::map<size_t, std::set<uint32_t>> masks;  // masks_at
};

bool is_member(const Region &r, size_t i)
{
    return std::binary_search(r.members.begin(), r.members.end(), i);
}

// A mask whose clear bits are the low ones (0 included): `A & mask` then grows with A.
bool prefix_mask(uint32_t mask)
{
    const uint32_t low = ~mask;
    return (low & (low + 1)) == 0;
}

bool region_instruction(const Node &n)
{
    if (n.code == kAndK)
        return prefix_mask(n.k);
    return n.code == kJa || (is_conditional(n) && TP_BPF_SRC(n.code) == TP_BPF_K && TP_BPF_OP(n.code) != TP_BPF_JSET);
}

bool same_load(const Node &a, const Node &b)
{
    return a.code == kLoadWord && b.code == kLoadWord && a.k == b.k;
}

// The instructions control reaches from the load at `load` until A is dead, but for those of
// `cut`: none when one of them may not be in a region.
std::optional<std::set<size_t>> reach(const Prog &p, size_t load, const std::set<size_t> &cut)
{
    std::set<size_t> members;
    std::vector<size_t> todo = {load + 1};
    while (!todo.empty()) {
        const size_t i = todo.back();
        todo.pop_back();
        const bool reload = same_load(p[i], p[load]);
        if (members.count(i) != 0 || cut.count(i) != 0 || (!reload && a_dead(p, i)))
            continue;
        if (!(reload || region_instruction(p[i])) || members.size() == kMaxRegion)
            return std::nullopt;
        members.insert(i);
        for (size_t s : successors(p, i))
            todo.push_back(s);
    }
    return members;
}

// For each member of a region, the masks the paths from its load bring to it: A holds the
// word `& mask` there.
std::map<size_t, std::set<uint32_t>> masks_at(const Prog &p, const std::set<size_t> &members, size_t load)
{
    std::map<size_t, std::set<uint32_t>> masks;
    std::vector<std::pair<size_t, uint32_t>> todo = {{load + 1, ~0u}};
    while (!todo.empty()) {
        const auto [i, mask] = todo.back();
        todo.pop_back();
        if (members.count(i) == 0 || !masks[i].insert(mask).second)
            continue;
        const Node &n = p[i];
        if (n.code == kLoadWord) {
            todo.push_back({i + 1, ~0u});
        } else if (n.code == kAndK) {
            todo.push_back({i + 1, mask & n.k});
        } else if (n.code == kJa) {
            todo.push_back({n.jt.index, mask});
        } else {
            todo.push_back({n.jt.index, mask});
            todo.push_back({n.jf.index, mask});
        }
    }
    return masks;
}

// The interval region of the load at `load` (bpf_shrink.h), if it is one. A load of the same
// word again is part of it (libseccomp reloads the word before each masked comparison). Where
// something outside jumps in (libseccomp shares the tails of similar tests), the region ends
// there when A holds the whole word on every path from inside, as it does after the search
// that replaces the region: at a load of the word, or a comparison no mask came before.
std::optional<Region> interval_region(const Prog &p, const Preds &preds, size_t load)
{
    std::set<size_t> cut;
    for (;;) {
        const std::optional<std::set<size_t>> members = reach(p, load, cut);
        if (!members)
            return std::nullopt;
        const std::map<size_t, std::set<uint32_t>> masks = masks_at(p, *members, load);
        const size_t cuts = cut.size();
        for (size_t m : *members)
            for (size_t from : preds[m])
                if (from != load && members->count(from) == 0) {
                    if (!same_load(p[m], p[load]) && masks.at(m) != std::set<uint32_t>{~0u})
                        return std::nullopt;
                    cut.insert(m);
                }
        if (cut.size() == cuts)
            return Region{{members->begin(), members->end()}, masks};
    }
}

// Where `(x & mask) <op> k` can change outcome as x grows, for a prefix mask: `x & mask` is x
// rounded down to a multiple of step = ~mask + 1, so each comparison changes at most once
// (jeq: on and past its interval).
void add_changes(uint32_t op, uint32_t k, uint32_t mask, std::set<uint64_t> &out)
{
    if (mask == 0)
        return; /* A is 0 whatever the word */
    const uint64_t step = uint64_t{~mask} + 1;
    const uint64_t down = k & mask;
    const uint64_t up = (k & ~mask) != 0 ? down + step : down;
    switch (op) {
    case TP_BPF_JEQ:
        if (up == down)
            out.insert({down, down + step});
        break;
    case TP_BPF_JGT: out.insert(down + step); break;
    case TP_BPF_JGE: out.insert(up); break;
    default: break;
    }
}

// The first value of each piece of the word on which the region's exit is constant: 0 and
// every change of every comparison, under each mask a path brings to it.
std::vector<uint32_t> piece_starts(const Prog &p, const Region &r)
{
    std::set<uint64_t> starts = {0};
    for (const auto &[i, masks] : r.masks)
        if (is_conditional(p[i]))
            for (uint32_t mask : masks)
                add_changes(TP_BPF_OP(p[i].code), p[i].k, mask, starts);
    std::vector<uint32_t> out;
    for (uint64_t s : starts)
        if (s <= 0xffffffffu)
            out.push_back(static_cast<uint32_t>(s));
    return out;
}

// The exit the region takes for the word `x`.
size_t exit_for(const Prog &p, const Region &r, size_t load, uint32_t x)
{
    uint32_t a = x;
    size_t i = load + 1;
    while (is_member(r, i)) {
        const Node &n = p[i];
        if (n.code == kLoadWord || n.code == kAndK) {
            a = n.code == kLoadWord ? x : a & n.k;
            i++;
            continue;
        }
        if (n.code == kJa) {
            i = n.jt.index;
            continue;
        }
        const uint32_t op = TP_BPF_OP(n.code);
        const bool taken = op == TP_BPF_JEQ ? a == n.k : op == TP_BPF_JGT ? a > n.k : a >= n.k;
        i = taken ? n.jt.index : n.jf.index;
    }
    return i;
}

struct Piece {
    uint32_t last;  // its greatest value
    size_t exit;
};

std::vector<Piece> pieces_of(const Prog &p, const Region &r, size_t load)
{
    const std::vector<uint32_t> starts = piece_starts(p, r);
    std::vector<Piece> pieces;
    for (size_t j = 0; j < starts.size(); j++) {
        const uint32_t last = j + 1 < starts.size() ? starts[j + 1] - 1 : 0xffffffffu;
        const size_t exit = exit_for(p, r, load, starts[j]);
        if (!pieces.empty() && pieces.back().exit == exit)
            pieces.back().last = last;
        else
            pieces.push_back({last, exit});
    }
    return pieces;
}

// A binary search over pieces[lo..hi] appended to `nodes` (`jgt` on the last value of the
// middle piece); returns where control goes first.
Target search(const std::vector<Piece> &pieces, size_t lo, size_t hi, std::vector<Node> &nodes)
{
    if (lo == hi)
        return at(pieces[lo].exit);
    const size_t mid = lo + (hi - lo) / 2;
    const size_t self = nodes.size();
    nodes.push_back({kJgt, pieces[mid].last, {}, {}});
    const Target low = search(pieces, lo, mid, nodes);
    const Target high = search(pieces, mid + 1, hi, nodes);
    nodes[self].jt = high;
    nodes[self].jf = low;
    return local(self);
}

void rewrite_interval_regions(const Prog &p, const Preds &preds, Rewrite &rw)
{
    for (size_t load = 0; load + 1 < p.size(); load++) {
        if (p[load].code != kLoadWord || p[load].k < kFirstArg || p[load].k >= kDataEnd || rw.touched(load))
            continue;
        const std::optional<Region> region = interval_region(p, preds, load);
        if (!region)
            continue;
        const std::vector<Piece> pieces = pieces_of(p, *region, load);
        if (pieces.size() - 1 >= region->members.size())
            continue; /* no shorter */
        std::vector<Node> nodes = {p[load]};
        const Target first = search(pieces, 0, pieces.size() - 1, nodes);
        if (!first.local) /* one outcome whatever the word: nothing to load */
            nodes = {{kJa, 0, first, {}}};
        rw.replace(load, std::move(nodes));
        for (size_t m : region->members)
            rw.remove(m);
    }
}

// ---- 2. single-bit tests ---------------------------------------------------------------------

// `ld; and #b; jeq #b` (or `jeq #0`), the last two reached from the load alone and A dead at
// both exits: `ld; jset #b`, which leaves A as it was.
void rewrite_single_bits(const Prog &p, const Preds &preds, Rewrite &rw)
{
    for (size_t i = 0; i + 2 < p.size(); i++) {
        const Node &a = p[i + 1], &j = p[i + 2];
        if (p[i].code != kLoadWord || rw.touched(i + 1) || rw.touched(i + 2) || a.code != kAndK ||
            std::popcount(a.k) != 1 || j.code != kJeq || (j.k != a.k && j.k != 0))
            continue;
        if (preds[i + 1] != std::vector<size_t>{i} || preds[i + 2] != std::vector<size_t>{i + 1} ||
            !a_dead(p, j.jt.index) || !a_dead(p, j.jf.index))
            continue;
        const bool set = j.k != 0;
        rw.remove(i + 1);
        rw.replace(i + 2, {{kJset, a.k, set ? j.jt : j.jf, set ? j.jf : j.jt}});
    }
}

// ---- 3. loads of what A holds ----------------------------------------------------------------

Prog drop_reloads(const Prog &p)
{
    constexpr int64_t kUnknown = -1, kUnreached = -2;
    std::vector<int64_t> held(p.size(), kUnreached);  // the word A holds on entry, over all paths
    const auto meet = [&](size_t to, int64_t word) {
        held[to] = held[to] == kUnreached || held[to] == word ? word : kUnknown;
    };
    held[0] = kUnknown;
    Rewrite rw(p);
    for (size_t i = 0; i < p.size(); i++) {
        const Node &n = p[i];
        int64_t out = held[i] == kUnreached ? kUnknown : held[i];
        if (n.code == kLoadWord) {
            if (held[i] == static_cast<int64_t>(n.k))
                rw.remove(i);
            out = n.k;
        } else if (TP_BPF_CLASS(n.code) == TP_BPF_LD || TP_BPF_CLASS(n.code) == TP_BPF_ALU || n.code == kTxa) {
            out = kUnknown;
        }
        for (size_t s : successors(p, i))
            meet(s, out);
    }
    return rw.linearize();
}

// ---- 4. merged bit tests, and jumps to the next instruction ----------------------------------

Prog merge_bit_tests(Prog p)
{
    const Preds preds = predecessors(p);
    std::vector<bool> merged(p.size(), false);
    for (size_t i = p.size(); i-- > 0;) { /* from the end: a merged `next` already holds its own */
        Node &n = p[i];
        if (n.code != kJset)
            continue;
        const size_t f = n.jf.index;
        const Node &next = p[f];
        if (next.code != kJset || next.jt.index != n.jt.index || preds[f].size() != 1)
            continue;
        n.k |= next.k;
        n.jf = next.jf;
        merged[f] = true;
    }
    Rewrite rw(p);
    for (size_t i = 0; i < p.size(); i++)
        if (merged[i] || (p[i].code == kJa && p[i].jt.index == i + 1))
            rw.remove(i);
    return rw.linearize();
}

}  // namespace

std::vector<tp_bpf_insn> shrink_bpf(std::span<const tp_bpf_insn> prog)
{
    const std::vector<tp_bpf_insn> unchanged(prog.begin(), prog.end());
    if (!well_formed(prog))
        return unchanged; /* verify_seccomp refuses it */
    const Prog p = decode(prog);
    const Preds preds = predecessors(p);
    Rewrite rw(p);
    rewrite_interval_regions(p, preds, rw);
    rewrite_single_bits(p, preds, rw);
    const Prog rewritten = drop_reloads(rw.linearize());
    /* A merged `jset` jumps further: without the merges when one does not fit. */
    std::optional<std::vector<tp_bpf_insn>> out = encode(merge_bit_tests(rewritten));
    if (!out)
        out = encode(rewritten);
    if (!out || out->size() > prog.size())
        return unchanged;
    return *out;
}

}  // namespace tartaros::seccomp
