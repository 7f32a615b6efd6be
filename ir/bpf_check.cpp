/* ir/bpf_check.cpp — the structural verifier of seccomp programs (rules in bpf_check.h).
 *
 * Freestanding like plan_reader.cpp: compiled into the static musl enforcer, which has no C++
 * runtime, so only vsnprintf from the C library, no allocation, no static constructors.
 * One pass over the instructions; each rule is one small function.
 */
#include "bpf_check.h"

#include <stdarg.h>
#include <stdio.h>

namespace {

struct Ctx {
    char *err;
    uint32_t errlen;
};

__attribute__((format(printf, 2, 3))) int fail(const Ctx &c, const char *fmt, ...)
{
    if (c.errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c.err, c.errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

bool is_known_return(uint32_t k)
{
    uint32_t action = k & TP_RET_ACTION_FULL;
    uint32_t data = k & TP_RET_DATA;
    if (action == TP_RET_ERRNO)
        return data >= 1 && data <= TP_MAX_ERRNO;
    return k == TP_RET_KILL_PROCESS || k == TP_RET_KILL_THREAD || k == TP_RET_ALLOW;
}

/* LD: only `ld [seccomp_data + k]` (32-bit, aligned, inside) and `ld #k`. */
int check_ld(const Ctx &c, uint32_t i, const tp_bpf_insn &in)
{
    if (TP_BPF_SIZE(in.code) != TP_BPF_W)
        return fail(c, "instruction %u: load of a size other than 32 bits (code 0x%02x)", i, in.code);
    if (TP_BPF_MODE(in.code) == TP_BPF_IMM)
        return 0;
    if (TP_BPF_MODE(in.code) != TP_BPF_ABS)
        return fail(c,
                    "instruction %u: load mode 0x%02x is not absolute or immediate (scratch memory "
                    "and packet modes are refused)",
                    i, TP_BPF_MODE(in.code));
    if (in.k >= TP_SD_SIZE || (in.k & 3u) != 0)
        return fail(c, "instruction %u: load at offset %u outside seccomp_data or unaligned", i, in.k);
    return 0;
}

int check_alu(const Ctx &c, uint32_t i, const tp_bpf_insn &in)
{
    uint32_t op = TP_BPF_OP(in.code);
    bool by_x = TP_BPF_SRC(in.code) == TP_BPF_X;
    switch (op) {
    case TP_BPF_ADD:
    case TP_BPF_SUB:
    case TP_BPF_MUL:
    case TP_BPF_OR:
    case TP_BPF_AND:
    case TP_BPF_XOR: return 0;
    case TP_BPF_NEG: return by_x ? fail(c, "instruction %u: unknown ALU opcode 0x%02x", i, in.code) : 0;
    case TP_BPF_LSH:
    case TP_BPF_RSH:
        if (!by_x && in.k >= 32)
            return fail(c, "instruction %u: shift by %u (>= 32)", i, in.k);
        return 0;
    case TP_BPF_DIV:
    case TP_BPF_MOD:
        if (by_x)
            return fail(c, "instruction %u: division by X is refused (it may divide by zero)", i);
        if (in.k == 0)
            return fail(c, "instruction %u: division by the constant 0", i);
        return 0;
    default: return fail(c, "instruction %u: unknown ALU opcode 0x%02x", i, in.code);
    }
}

/* Jumps are relative to the next instruction and may only go forward, inside the program. */
int check_jmp(const Ctx &c, uint32_t i, const tp_bpf_insn &in, uint32_t n)
{
    uint32_t op = TP_BPF_OP(in.code);
    uint64_t next = (uint64_t)i + 1;
    if (op == TP_BPF_JA) {
        if (TP_BPF_SRC(in.code) != TP_BPF_K)
            return fail(c, "instruction %u: unknown jump opcode 0x%02x", i, in.code);
        if (next + in.k >= n)
            return fail(c, "instruction %u: jump target %llu beyond the end (length %u)", i,
                        (unsigned long long)(next + in.k), n);
        return 0;
    }
    if (op != TP_BPF_JEQ && op != TP_BPF_JGT && op != TP_BPF_JGE && op != TP_BPF_JSET)
        return fail(c, "instruction %u: unknown jump opcode 0x%02x", i, in.code);
    if (next + in.jt >= n)
        return fail(c, "instruction %u: jump target %llu beyond the end (length %u)", i,
                    (unsigned long long)(next + in.jt), n);
    if (next + in.jf >= n)
        return fail(c, "instruction %u: jump target %llu beyond the end (length %u)", i,
                    (unsigned long long)(next + in.jf), n);
    return 0;
}

int check_insn(const Ctx &c, uint32_t i, const tp_bpf_insn &in, uint32_t n)
{
    if (in.code > 0xff) /* classic BPF opcodes are one byte; the kernel refuses the rest */
        return fail(c, "instruction %u: unknown opcode 0x%04x", i, in.code);
    switch (TP_BPF_CLASS(in.code)) {
    case TP_BPF_LD: return check_ld(c, i, in);
    case TP_BPF_LDX:
        if (in.code != (TP_BPF_LDX | TP_BPF_W | TP_BPF_IMM))
            return fail(c, "instruction %u: LDX other than `ldx #k` (code 0x%02x)", i, in.code);
        return 0;
    case TP_BPF_ALU: return check_alu(c, i, in);
    case TP_BPF_JMP: return check_jmp(c, i, in, n);
    case TP_BPF_RET:
        if (in.code != (TP_BPF_RET | TP_BPF_K))
            return fail(c, "instruction %u: return of a register, not a constant (code 0x%02x)", i, in.code);
        if (!is_known_return(in.k))
            return fail(c,
                        "instruction %u: return value 0x%08x is not KILL_PROCESS, KILL_THREAD, "
                        "ERRNO(1..4095) or ALLOW",
                        i, in.k);
        return 0;
    case TP_BPF_MISC:
        if (in.code != (TP_BPF_MISC | TP_BPF_TAX) && in.code != (TP_BPF_MISC | TP_BPF_TXA))
            return fail(c, "instruction %u: unknown MISC opcode 0x%02x", i, in.code);
        return 0;
    default: /* ST, STX: scratch memory */
        return fail(c, "instruction %u: store to scratch memory is refused (code 0x%02x)", i, in.code);
    }
}

/* ld [arch]; jeq #TP_ARCH_X86_64, 0, kill — where `kill` returns KILL_PROCESS. */
int check_arch_first(const Ctx &c, const tp_bpf_insn *prog, uint32_t n)
{
    if (n < 3 || prog[0].code != (TP_BPF_LD | TP_BPF_W | TP_BPF_ABS) || prog[0].k != TP_SD_ARCH)
        return fail(c, "instruction 0: the program does not start by loading the architecture");
    const tp_bpf_insn &cmp = prog[1];
    if (cmp.code != (TP_BPF_JMP | TP_BPF_JEQ | TP_BPF_K) || cmp.k != TP_ARCH_X86_64 || cmp.jt != 0)
        return fail(c, "instruction 1: the architecture is not compared with x86_64 first");
    const tp_bpf_insn &other = prog[2u + cmp.jf];
    if (other.code != (TP_BPF_RET | TP_BPF_K) || other.k != TP_RET_KILL_PROCESS)
        return fail(c, "instruction 1: a foreign architecture does not reach a KILL_PROCESS return");
    return 0;
}

}  // namespace

int tp_bpf_check(const struct tp_bpf_insn *prog, uint32_t n, char *err, uint32_t errlen)
{
    Ctx c{err, errlen};
    if (n == 0)
        return fail(c, "empty seccomp program");
    if (n > TP_BPF_MAXINSNS)
        return fail(c, "seccomp program of %u instructions (the kernel's limit is %u)", n, TP_BPF_MAXINSNS);
    for (uint32_t i = 0; i < n; i++)
        if (check_insn(c, i, prog[i], n) != 0)
            return -1;
    if (TP_BPF_CLASS(prog[n - 1].code) != TP_BPF_RET)
        return fail(c, "instruction %u: the program does not end in a return", n - 1);
    return check_arch_first(c, prog, n);
}
