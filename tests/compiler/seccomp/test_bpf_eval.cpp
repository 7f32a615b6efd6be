// Unit tests of the BPF interpreter: every opcode the structural check accepts, on
// hand-written programs written with the kernel's own macros and constants, so the
// interpreter is compared with the UAPI and not with itself. Shifts by X use X & 31: checked
// on this machine's kernel (6.18) by installing `ld #1; ldx #x; lsh x` filters for x = 30..69.
#include <doctest/doctest.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "bpf_check.h"
#include "bpf_eval.h"

using namespace tartaros::seccomp;

namespace {

using Prog = std::vector<tp_bpf_insn>;

// `body` framed by the prologue every valid program has (ld [arch]; jeq x86_64, else kill)
// and a final kill, so the program passes tp_bpf_check. The body starts at instruction 2.
Prog framed(const Prog &body)
{
    Prog p = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
              BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, static_cast<uint8_t>(body.size()))};
    p.insert(p.end(), body.begin(), body.end());
    p.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    char err[256];
    REQUIRE_MESSAGE(tp_bpf_check(p.data(), static_cast<uint32_t>(p.size()), err, sizeof err) == 0, err);
    return p;
}

EvalResult run(const Prog &body, const SeccompData &d = {})
{
    return evaluate(framed(body), d);
}

constexpr uint32_t kYes = SECCOMP_RET_ALLOW;
constexpr uint32_t kNo = SECCOMP_RET_ERRNO | 1;

// Whether A == `expected` after `compute` runs.
bool a_after(Prog compute, uint32_t expected, const SeccompData &d = {})
{
    compute.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, expected, 0, 1));
    compute.push_back(BPF_STMT(BPF_RET | BPF_K, kYes));
    compute.push_back(BPF_STMT(BPF_RET | BPF_K, kNo));
    return run(compute, d).ret == kYes;
}

tp_bpf_insn ld_imm(uint32_t k)
{
    return BPF_STMT(BPF_LD | BPF_IMM, k);
}
tp_bpf_insn ldx_imm(uint32_t k)
{
    return BPF_STMT(BPF_LDX | BPF_IMM, k);
}
tp_bpf_insn alu_k(uint16_t op, uint32_t k)
{
    return BPF_STMT(static_cast<uint16_t>(BPF_ALU | op | BPF_K), k);
}
tp_bpf_insn alu_x(uint16_t op)
{
    return BPF_STMT(static_cast<uint16_t>(BPF_ALU | op | BPF_X), 0);
}

// A program that returns kYes when the jump `j` (jt 0, jf 1) is taken, else kNo.
uint32_t jump_result(Prog setup, tp_bpf_insn j)
{
    j.jt = 0;
    j.jf = 1;
    setup.push_back(j);
    setup.push_back(BPF_STMT(BPF_RET | BPF_K, kYes));
    setup.push_back(BPF_STMT(BPF_RET | BPF_K, kNo));
    return run(setup).ret;
}

}  // namespace

TEST_CASE("bpf_eval: loads read seccomp_data little-endian, words of every field")
{
    SeccompData d;
    d.nr = 257;
    d.instruction_pointer = 0x11223344'55667788ull;
    for (int i = 0; i < 6; i++)
        d.args[i] = (uint64_t{0xa0u + static_cast<uint32_t>(i)} << 32) | (0x10u + static_cast<uint32_t>(i));
    auto ld = [](uint32_t off) -> tp_bpf_insn { return BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off); };
    CHECK(a_after({ld(offsetof(seccomp_data, nr))}, 257, d));
    CHECK(a_after({ld(offsetof(seccomp_data, arch))}, AUDIT_ARCH_X86_64, d));
    CHECK(a_after({ld(offsetof(seccomp_data, instruction_pointer))}, 0x55667788, d));
    CHECK(a_after({ld(offsetof(seccomp_data, instruction_pointer) + 4)}, 0x11223344, d));
    for (uint32_t i = 0; i < 6; i++) {
        const uint32_t lo = static_cast<uint32_t>(offsetof(seccomp_data, args) + 8 * i);
        CHECK(a_after({ld(lo)}, 0x10 + i, d));
        CHECK(a_after({ld(lo + 4)}, 0xa0 + i, d));
    }
    CHECK_FALSE(a_after({ld(offsetof(seccomp_data, args))}, 0xa0, d));
    for (uint32_t i = 0; i < TP_SD_SIZE / 4; i++)
        CHECK(a_after({ld(4 * i)}, seccomp_word(d, i), d));
}

TEST_CASE("bpf_eval: the words a path loaded, and only those, are reported")
{
    // 2: ld [nr]  3: jeq #39 true 4 false 6  4: ld [args[2].hi]  5: ret ALLOW  6: ret ERRNO
    const Prog body = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 39, 0, 2),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args) + 8 * 2 + 4),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
    };
    constexpr uint32_t kNr = 1u << 0, kArch = 1u << 1, kArg2High = 1u << (TP_SD_ARGS / 4 + 2 * 2 + 1);
    SeccompData getpid;
    getpid.nr = 39;
    CHECK(run(body, getpid).loaded == (kArch | kNr | kArg2High));
    CHECK(run(body).loaded == (kArch | kNr));
    SeccompData i386;
    i386.arch = AUDIT_ARCH_I386;
    CHECK(run(body, i386).loaded == kArch);
}

TEST_CASE("bpf_eval: A and X start at 0, ld and ldx immediate, tax and txa")
{
    CHECK(a_after({BPF_STMT(BPF_MISC | BPF_TXA, 0)}, 0));
    CHECK(a_after({ld_imm(0xdeadbeef)}, 0xdeadbeef));
    CHECK(a_after({ldx_imm(7), BPF_STMT(BPF_MISC | BPF_TXA, 0)}, 7));
    CHECK(a_after({ld_imm(9), BPF_STMT(BPF_MISC | BPF_TAX, 0), ld_imm(1), BPF_STMT(BPF_MISC | BPF_TXA, 0)}, 9));
    // TAX copies, it does not swap: A keeps its value.
    CHECK(a_after({ldx_imm(3), ld_imm(5), BPF_STMT(BPF_MISC | BPF_TAX, 0)}, 5));
}

TEST_CASE("bpf_eval: ALU with a constant is 32-bit and wraps")
{
    CHECK(a_after({ld_imm(0xffffffff), alu_k(BPF_ADD, 2)}, 1));
    CHECK(a_after({ld_imm(0), alu_k(BPF_SUB, 1)}, 0xffffffff));
    CHECK(a_after({ld_imm(0x10000), alu_k(BPF_MUL, 0x10000)}, 0));
    CHECK(a_after({ld_imm(0x10001), alu_k(BPF_MUL, 0x10001)}, 0x20001));
    CHECK(a_after({ld_imm(7), alu_k(BPF_DIV, 2)}, 3));
    CHECK(a_after({ld_imm(0xffffffff), alu_k(BPF_DIV, 0x10)}, 0x0fffffff));
    CHECK(a_after({ld_imm(7), alu_k(BPF_MOD, 3)}, 1));
    CHECK(a_after({ld_imm(0xf0), alu_k(BPF_OR, 0x0f)}, 0xff));
    CHECK(a_after({ld_imm(0xf0f0), alu_k(BPF_AND, 0xff00)}, 0xf000));
    CHECK(a_after({ld_imm(0xff), alu_k(BPF_XOR, 0x0f)}, 0xf0));
    CHECK(a_after({ld_imm(1), alu_k(BPF_LSH, 31)}, 0x80000000));
    CHECK(a_after({ld_imm(0x80000001), alu_k(BPF_LSH, 1)}, 2));
    CHECK(a_after({ld_imm(0x80000000), alu_k(BPF_RSH, 31)}, 1));
    CHECK(a_after({ld_imm(0x80000000), alu_k(BPF_RSH, 0)}, 0x80000000));
    CHECK(a_after({ld_imm(1), alu_k(BPF_NEG, 0)}, 0xffffffff));
    CHECK(a_after({ld_imm(0x80000000), alu_k(BPF_NEG, 0)}, 0x80000000));
}

TEST_CASE("bpf_eval: ALU with X, where shifts by X use X & 31 as the kernel does")
{
    CHECK(a_after({ldx_imm(2), ld_imm(0xffffffff), alu_x(BPF_ADD)}, 1));
    CHECK(a_after({ldx_imm(1), ld_imm(0), alu_x(BPF_SUB)}, 0xffffffff));
    CHECK(a_after({ldx_imm(0x10000), ld_imm(0x10000), alu_x(BPF_MUL)}, 0));
    CHECK(a_after({ldx_imm(0x0f), ld_imm(0xf0), alu_x(BPF_OR)}, 0xff));
    CHECK(a_after({ldx_imm(0xff00), ld_imm(0xf0f0), alu_x(BPF_AND)}, 0xf000));
    CHECK(a_after({ldx_imm(0x0f), ld_imm(0xff), alu_x(BPF_XOR)}, 0xf0));
    CHECK(a_after({ldx_imm(4), ld_imm(1), alu_x(BPF_LSH)}, 0x10));
    CHECK(a_after({ldx_imm(33), ld_imm(1), alu_x(BPF_LSH)}, 2));
    CHECK(a_after({ldx_imm(32), ld_imm(0x80000000), alu_x(BPF_RSH)}, 0x80000000));
    CHECK(a_after({ldx_imm(63), ld_imm(0x80000000), alu_x(BPF_RSH)}, 1));
}

TEST_CASE("bpf_eval: conditional jumps with a constant, unsigned, at the boundaries")
{
    auto j = [](uint16_t op, uint32_t k) -> tp_bpf_insn {
        return BPF_JUMP(static_cast<uint16_t>(BPF_JMP | op | BPF_K), k, 0, 0);
    };
    CHECK(jump_result({ld_imm(5)}, j(BPF_JEQ, 5)) == kYes);
    CHECK(jump_result({ld_imm(5)}, j(BPF_JEQ, 6)) == kNo);
    CHECK(jump_result({ld_imm(5)}, j(BPF_JGT, 4)) == kYes);
    CHECK(jump_result({ld_imm(5)}, j(BPF_JGT, 5)) == kNo);
    CHECK(jump_result({ld_imm(5)}, j(BPF_JGE, 5)) == kYes);
    CHECK(jump_result({ld_imm(5)}, j(BPF_JGE, 6)) == kNo);
    // Unsigned: 0xffffffff is the largest value, not -1.
    CHECK(jump_result({ld_imm(0xffffffff)}, j(BPF_JGT, 0x7fffffff)) == kYes);
    CHECK(jump_result({ld_imm(0x80000000)}, j(BPF_JGE, 0x7fffffff)) == kYes);
    CHECK(jump_result({ld_imm(0b1010)}, j(BPF_JSET, 0b0010)) == kYes);
    CHECK(jump_result({ld_imm(0b1010)}, j(BPF_JSET, 0b0101)) == kNo);
    CHECK(jump_result({ld_imm(0x80000000)}, j(BPF_JSET, 0x80000000)) == kYes);
    CHECK(jump_result({ld_imm(0)}, j(BPF_JSET, 0xffffffff)) == kNo);
}

TEST_CASE("bpf_eval: conditional jumps against X")
{
    auto j = [](uint16_t op) -> tp_bpf_insn {
        return BPF_JUMP(static_cast<uint16_t>(BPF_JMP | op | BPF_X), 0xdead, 0, 0);
    };
    CHECK(jump_result({ldx_imm(5), ld_imm(5)}, j(BPF_JEQ)) == kYes);
    CHECK(jump_result({ldx_imm(0xdead), ld_imm(5)}, j(BPF_JEQ)) == kNo);  // k is ignored
    CHECK(jump_result({ldx_imm(4), ld_imm(5)}, j(BPF_JGT)) == kYes);
    CHECK(jump_result({ldx_imm(5), ld_imm(5)}, j(BPF_JGT)) == kNo);
    CHECK(jump_result({ldx_imm(5), ld_imm(5)}, j(BPF_JGE)) == kYes);
    CHECK(jump_result({ldx_imm(6), ld_imm(5)}, j(BPF_JGE)) == kNo);
    CHECK(jump_result({ldx_imm(0x100), ld_imm(0x1ff)}, j(BPF_JSET)) == kYes);
    CHECK(jump_result({ldx_imm(0x200), ld_imm(0x1ff)}, j(BPF_JSET)) == kNo);
}

TEST_CASE("bpf_eval: returns the full value and counts executed instructions, the return included")
{
    // 2: ld [nr]  3: jeq #39 true 4 false 6  4: ja 7  5: ret ALLOW (never reached)
    // 6: ret ERRNO(ENOSYS)  7: ret ERRNO(EPERM)  8: ret KILL (the frame's)
    const Prog body = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 39, 0, 2),
        BPF_STMT(BPF_JMP | BPF_JA, 2),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 38),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
    };
    SeccompData getpid;
    getpid.nr = 39;
    const EvalResult taken = run(body, getpid);
    CHECK(taken.ret == (SECCOMP_RET_ERRNO | 1));
    CHECK(taken.executed == 6);  // 0 1 2 3 4 7
    SeccompData read;
    const EvalResult not_taken = run(body, read);
    CHECK(not_taken.ret == (SECCOMP_RET_ERRNO | 38));
    CHECK(not_taken.executed == 5);  // 0 1 2 3 6
    SeccompData i386;
    i386.arch = AUDIT_ARCH_I386;
    const EvalResult foreign = run(body, i386);
    CHECK(foreign.ret == SECCOMP_RET_KILL_PROCESS);
    CHECK(foreign.executed == 3);  // 0 1 8
}

TEST_CASE("bpf_eval: a program the structural check refuses is not run past its fault")
{
    const Prog out_of_data = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 64), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    CHECK_THROWS_AS(evaluate(out_of_data, {}), std::logic_error);
    const Prog no_return = {BPF_STMT(BPF_LD | BPF_IMM, 1)};
    CHECK_THROWS_AS(evaluate(no_return, {}), std::logic_error);
    const Prog far_jump = {BPF_STMT(BPF_JMP | BPF_JA, 5), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    CHECK_THROWS_AS(evaluate(far_jump, {}), std::logic_error);
    const Prog div_x = {BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    CHECK_THROWS_AS(evaluate(div_x, {}), std::logic_error);
    const Prog scratch = {BPF_STMT(BPF_ST, 0), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    CHECK_THROWS_AS(evaluate(scratch, {}), std::logic_error);
    const Prog ret_a = {BPF_STMT(BPF_RET | BPF_A, 0)};
    CHECK_THROWS_AS(evaluate(ret_a, {}), std::logic_error);
    CHECK_THROWS_AS(evaluate(Prog{}, {}), std::logic_error);
}
