// compiler/bpf_eval.cpp — the classic BPF interpreter (bpf_eval.h).
//
// It mirrors what the kernel does with a seccomp filter (kernel/seccomp.c seccomp_check_filter,
// then kernel/bpf/core.c once converted): 32-bit A and X, both starting at 0; loads read the
// little-endian struct seccomp_data; jumps are relative to the next instruction; a shift by X
// uses X & 31, as the 32-bit eBPF ALU and the x86 JIT do (checked on this machine's kernel).
//
// The precondition (tp_bpf_check accepted the program) is asserted as the interpreter goes, at
// the cost of a comparison or two per instruction: an opcode outside the accepted set, a load
// outside seccomp_data, a jump beyond the end, a shift >= 32 or a division by 0 throws
// std::logic_error naming the instruction, instead of running off the program. The checks stay
// in release builds: the mutation test and translation validation run millions of programs,
// and the hot path (loads, masks, conditional jumps) is kept free of anything else.
#include "bpf_eval.h"

#include <stdexcept>
#include <string>

#include "bpf_check.h"

namespace tartaros::seccomp {

namespace {

[[noreturn, gnu::cold, gnu::noinline]] void invalid(uint32_t pc, const char *what, uint64_t value)
{
    throw std::logic_error("evaluate: instruction " + std::to_string(pc) + ": " + what + " " +
                           std::to_string(value) + " (the program did not pass tp_bpf_check)");
}

// A <op> operand for an ALU instruction, 32-bit wrapping. DIV and MOD only ever see a
// constant (bpf_check refuses them with X), checked to be non-zero by the caller.
uint32_t alu(uint32_t code, uint32_t a, uint32_t operand, uint32_t pc)
{
    switch (TP_BPF_OP(code)) {
    case TP_BPF_ADD: return a + operand;
    case TP_BPF_SUB: return a - operand;
    case TP_BPF_MUL: return a * operand;
    case TP_BPF_DIV: return a / operand;
    case TP_BPF_MOD: return a % operand;
    case TP_BPF_OR: return a | operand;
    case TP_BPF_AND: return a & operand;
    case TP_BPF_XOR: return a ^ operand;
    case TP_BPF_LSH: return a << (operand & 31);
    case TP_BPF_RSH: return a >> (operand & 31);
    case TP_BPF_NEG: return 0u - a;
    default: invalid(pc, "unknown ALU opcode", code);
    }
}

// Refuses what tp_bpf_check refuses among ALU instructions: division, modulo and negation
// with X, division by constant 0, constant shifts >= 32.
void check_alu(uint32_t code, uint32_t k, uint32_t pc)
{
    const uint32_t op = TP_BPF_OP(code);
    if (TP_BPF_SRC(code) == TP_BPF_X) {
        if (op == TP_BPF_DIV || op == TP_BPF_MOD || op == TP_BPF_NEG)
            invalid(pc, "division, modulo or negation with X, opcode", code);
        return;
    }
    if ((op == TP_BPF_DIV || op == TP_BPF_MOD) && k == 0)
        invalid(pc, "division by constant", k);
    if ((op == TP_BPF_LSH || op == TP_BPF_RSH) && k >= 32)
        invalid(pc, "shift by", k);
}

bool condition(uint32_t code, uint32_t a, uint32_t operand, uint32_t pc)
{
    switch (TP_BPF_OP(code)) {
    case TP_BPF_JEQ: return a == operand;
    case TP_BPF_JGT: return a > operand;
    case TP_BPF_JGE: return a >= operand;
    case TP_BPF_JSET: return (a & operand) != 0;
    default: invalid(pc, "unknown jump opcode", code);
    }
}

}  // namespace

EvalResult evaluate(std::span<const tp_bpf_insn> prog, const SeccompData &data)
{
    const size_t n = prog.size();
    if (n == 0 || n > TP_BPF_MAXINSNS)
        invalid(0, "program length", n);
    // seccomp_data as the filter sees it: 32-bit words, little-endian.
    uint32_t words[TP_SD_SIZE / 4] = {data.nr, data.arch, static_cast<uint32_t>(data.instruction_pointer),
                                      static_cast<uint32_t>(data.instruction_pointer >> 32)};
    for (int i = 0; i < 6; i++) {
        words[TP_SD_ARGS / 4 + 2 * i] = static_cast<uint32_t>(data.args[i]);
        words[TP_SD_ARGS / 4 + 2 * i + 1] = static_cast<uint32_t>(data.args[i] >> 32);
    }
    uint32_t a = 0, x = 0;
    EvalResult result;
    uint64_t pc = 0;  // 64-bit: `ja` adds a 32-bit offset
    uint32_t at = 0;  // the instruction running, for the messages
    while (pc < n) {
        const tp_bpf_insn &in = prog[pc];
        at = static_cast<uint32_t>(pc);
        result.executed++;
        switch (in.code) {
        case TP_BPF_LD | TP_BPF_W | TP_BPF_ABS:
            if (in.k >= TP_SD_SIZE || in.k % 4 != 0)
                invalid(at, "load of seccomp_data offset", in.k);
            a = words[in.k / 4];
            pc++;
            continue;
        case TP_BPF_LD | TP_BPF_IMM: a = in.k; pc++; continue;
        case TP_BPF_LDX | TP_BPF_IMM: x = in.k; pc++; continue;
        case TP_BPF_MISC | TP_BPF_TAX: x = a; pc++; continue;
        case TP_BPF_MISC | TP_BPF_TXA: a = x; pc++; continue;
        case TP_BPF_RET | TP_BPF_K: result.ret = in.k; return result;
        case TP_BPF_JMP | TP_BPF_JA: pc += 1 + uint64_t{in.k}; continue;
        default: break;
        }
        if (in.code > 0xff)
            invalid(at, "opcode", in.code);
        if (TP_BPF_CLASS(in.code) == TP_BPF_ALU) {
            check_alu(in.code, in.k, at);
            a = alu(in.code, a, TP_BPF_SRC(in.code) == TP_BPF_X ? x : in.k, at);
            pc++;
        } else if (TP_BPF_CLASS(in.code) == TP_BPF_JMP && TP_BPF_OP(in.code) != TP_BPF_JA) {
            const bool taken = condition(in.code, a, TP_BPF_SRC(in.code) == TP_BPF_X ? x : in.k, at);
            pc += 1 + uint64_t{taken ? in.jt : in.jf};
        } else {
            invalid(at, "unsupported opcode", in.code);
        }
    }
    invalid(at, "path leaves the program, towards instruction", pc);
}

}  // namespace tartaros::seccomp
