/* ir/bpf_interp.cpp — the classic BPF interpreter (bpf_interp.h). The hot path (loads, masks,
 * conditional jumps) is kept free of anything but the precondition's checks: the mutation
 * test and translation validation run millions of programs through it. */
#include "bpf_interp.h"

namespace {

struct machine {
    uint32_t a, x;
    tp_bpf_result result;
};

/* Stops `m` with `fault` at `pc`; false, so callers can `return fault(...)`. */
bool fault(machine &m, uint32_t fault_kind, uint32_t pc, uint64_t value)
{
    m.result.fault = fault_kind;
    m.result.fault_pc = pc;
    m.result.fault_value = value;
    return false;
}

/* Refuses what tp_bpf_check refuses among ALU instructions: division, modulo and negation
 * with X, division by constant 0, constant shifts >= 32. */
bool alu_allowed(machine &m, uint32_t code, uint32_t k, uint32_t pc)
{
    const uint32_t op = TP_BPF_OP(code);
    if (TP_BPF_SRC(code) == TP_BPF_X)
        return op == TP_BPF_DIV || op == TP_BPF_MOD || op == TP_BPF_NEG ? fault(m, TP_BPF_FAULT_X_OPERAND, pc, code)
                                                                        : true;
    if ((op == TP_BPF_DIV || op == TP_BPF_MOD) && k == 0)
        return fault(m, TP_BPF_FAULT_DIVISION, pc, k);
    if ((op == TP_BPF_LSH || op == TP_BPF_RSH) && k >= 32)
        return fault(m, TP_BPF_FAULT_SHIFT, pc, k);
    return true;
}

/* A <op> operand, 32-bit wrapping; false for an unknown operation. */
bool alu(machine &m, uint32_t code, uint32_t operand, uint32_t pc)
{
    uint32_t &a = m.a;
    switch (TP_BPF_OP(code)) {
    case TP_BPF_ADD: a += operand; return true;
    case TP_BPF_SUB: a -= operand; return true;
    case TP_BPF_MUL: a *= operand; return true;
    case TP_BPF_DIV: a /= operand; return true;
    case TP_BPF_MOD: a %= operand; return true;
    case TP_BPF_OR: a |= operand; return true;
    case TP_BPF_AND: a &= operand; return true;
    case TP_BPF_XOR: a ^= operand; return true;
    case TP_BPF_LSH: a <<= (operand & 31); return true;
    case TP_BPF_RSH: a >>= (operand & 31); return true;
    case TP_BPF_NEG: a = 0u - a; return true;
    default: return fault(m, TP_BPF_FAULT_OPCODE, pc, code);
    }
}

/* Whether the jump `code` is taken; -1 for an unknown condition. */
int condition(uint32_t code, uint32_t a, uint32_t operand)
{
    switch (TP_BPF_OP(code)) {
    case TP_BPF_JEQ: return a == operand;
    case TP_BPF_JGT: return a > operand;
    case TP_BPF_JGE: return a >= operand;
    case TP_BPF_JSET: return (a & operand) != 0;
    default: return -1;
    }
}

/* seccomp_data as the filter sees it: 32-bit words, little-endian. */
void data_words(const tp_seccomp_data *d, uint32_t *words)
{
    words[0] = d->nr;
    words[1] = d->arch;
    words[2] = (uint32_t)d->instruction_pointer;
    words[3] = (uint32_t)(d->instruction_pointer >> 32);
    for (int i = 0; i < 6; i++) {
        words[TP_SD_ARGS / 4 + 2 * i] = (uint32_t)d->args[i];
        words[TP_SD_ARGS / 4 + 2 * i + 1] = (uint32_t)(d->args[i] >> 32);
    }
}

}  // namespace

extern "C" tp_bpf_result tp_bpf_evaluate(const tp_bpf_insn *prog, uint32_t len, const tp_seccomp_data *data)
{
    machine m = {0, 0, {0, 0, TP_BPF_FAULT_NONE, 0, 0, 0}};
    if (len == 0 || len > TP_BPF_MAXINSNS) {
        fault(m, TP_BPF_FAULT_LENGTH, 0, len);
        return m.result;
    }
    uint32_t words[TP_SD_SIZE / 4];
    data_words(data, words);
    uint64_t pc = 0; /* 64-bit: `ja` adds a 32-bit offset */
    uint32_t at = 0; /* the instruction running, for faults */
    while (pc < len) {
        const tp_bpf_insn &in = prog[pc];
        at = (uint32_t)pc;
        m.result.executed++;
        switch (in.code) {
        case TP_BPF_LD | TP_BPF_W | TP_BPF_ABS:
            if (in.k >= TP_SD_SIZE || in.k % 4 != 0) {
                fault(m, TP_BPF_FAULT_LOAD, at, in.k);
                return m.result;
            }
            m.a = words[in.k / 4];
            m.result.loaded |= 1u << (in.k / 4);
            pc++;
            continue;
        case TP_BPF_LD | TP_BPF_IMM:
            m.a = in.k;
            pc++;
            continue;
        case TP_BPF_LDX | TP_BPF_IMM:
            m.x = in.k;
            pc++;
            continue;
        case TP_BPF_MISC | TP_BPF_TAX:
            m.x = m.a;
            pc++;
            continue;
        case TP_BPF_MISC | TP_BPF_TXA:
            m.a = m.x;
            pc++;
            continue;
        case TP_BPF_RET | TP_BPF_K: m.result.ret = in.k; return m.result;
        case TP_BPF_JMP | TP_BPF_JA: pc += 1 + (uint64_t)in.k; continue;
        default: break;
        }
        const uint32_t operand = TP_BPF_SRC(in.code) == TP_BPF_X ? m.x : in.k;
        if (in.code > 0xff) {
            fault(m, TP_BPF_FAULT_OPCODE, at, in.code);
            return m.result;
        }
        if (TP_BPF_CLASS(in.code) == TP_BPF_ALU) {
            if (!alu_allowed(m, in.code, in.k, at) || !alu(m, in.code, operand, at))
                return m.result;
            pc++;
            continue;
        }
        const int taken = TP_BPF_CLASS(in.code) == TP_BPF_JMP ? condition(in.code, m.a, operand) : -1;
        if (taken < 0) {
            fault(m, TP_BPF_FAULT_OPCODE, at, in.code);
            return m.result;
        }
        pc += 1 + (uint64_t)(taken ? in.jt : in.jf);
    }
    fault(m, TP_BPF_FAULT_PATH, at, pc);
    return m.result;
}

extern "C" const char *tp_bpf_fault_text(uint32_t fault_kind)
{
    switch (fault_kind) {
    case TP_BPF_FAULT_NONE: return "no fault";
    case TP_BPF_FAULT_LENGTH: return "program length";
    case TP_BPF_FAULT_LOAD: return "load of seccomp_data offset";
    case TP_BPF_FAULT_OPCODE: return "unsupported opcode";
    case TP_BPF_FAULT_DIVISION: return "division by constant";
    case TP_BPF_FAULT_SHIFT: return "shift by";
    case TP_BPF_FAULT_X_OPERAND: return "division, modulo or negation with X, opcode";
    case TP_BPF_FAULT_PATH: return "path leaves the program, towards instruction";
    default: return "unknown fault";
    }
}
