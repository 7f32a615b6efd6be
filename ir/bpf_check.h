/* ir/bpf_check.h — the structural verifier of seccomp programs, shared by the compiler (run on
 * every compile and by --verify) and the static musl enforcer (run again on load, because a
 * plan is untrusted input to the privileged path). Freestanding: no allocation, no libc
 * beyond what the plan reader already uses.
 *
 * tp_bpf_check() accepts a program only when all of these hold (each is a kernel rule or is
 * stricter than the kernel, as noted):
 *  - 1 <= length <= TP_BPF_MAXINSNS (4096, BPF_MAXINSNS);
 *  - every opcode is in the accepted set below (a subset of what seccomp accepts: no scratch
 *    memory, no RET A, no division or modulo by X, so every return value is a constant and
 *    no instruction can fault);
 *  - every load of seccomp_data is a 32-bit absolute load at a 4-aligned offset inside it
 *    (< TP_SD_SIZE);
 *  - every jump goes forward and lands inside the program; a constant shift is < 32; a
 *    constant divisor is not 0;
 *  - the last instruction is a return, so every path ends in a return;
 *  - every return is of a known action: KILL_PROCESS, KILL_THREAD, ERRNO with errno
 *    1..4095, or ALLOW (stricter: no TRAP, TRACE, LOG or USER_NOTIF);
 *  - the architecture is checked first: instruction 0 loads seccomp_data.arch, instruction 1
 *    compares it with TP_ARCH_X86_64 (JEQ K), jumps on true to instruction 2, and its false
 *    target is a return of KILL_PROCESS.
 */
#ifndef TARTAROS_IR_BPF_CHECK_H
#define TARTAROS_IR_BPF_CHECK_H

#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_BPF_MAXINSNS 4096u

/* struct seccomp_data offsets (little-endian: an argument's low word comes first). */
#define TP_SD_NR   0u
#define TP_SD_ARCH 4u
#define TP_SD_IP   8u
#define TP_SD_ARGS 16u /* args[i] low word at 16 + 8i, high word at 20 + 8i */
#define TP_SD_SIZE 64u

/* Return values (SECCOMP_RET_*). The action is the top 16 bits, the data the low 16. */
#define TP_RET_KILL_PROCESS 0x80000000u
#define TP_RET_KILL_THREAD  0x00000000u
#define TP_RET_ERRNO        0x00050000u
#define TP_RET_ALLOW        0x7fff0000u
#define TP_RET_ACTION_FULL  0xffff0000u
#define TP_RET_DATA         0x0000ffffu
#define TP_MAX_ERRNO        4095u

/* Classic BPF opcode fields (linux/bpf_common.h). */
#define TP_BPF_CLASS(c)  ((c)&0x07)
#define TP_BPF_LD        0x00
#define TP_BPF_LDX       0x01
#define TP_BPF_ST        0x02
#define TP_BPF_STX       0x03
#define TP_BPF_ALU       0x04
#define TP_BPF_JMP       0x05
#define TP_BPF_RET       0x06
#define TP_BPF_MISC      0x07
#define TP_BPF_SIZE(c)   ((c)&0x18)
#define TP_BPF_W         0x00
#define TP_BPF_MODE(c)   ((c)&0xe0)
#define TP_BPF_IMM       0x00
#define TP_BPF_ABS       0x20
#define TP_BPF_MEM       0x60
#define TP_BPF_OP(c)     ((c)&0xf0)
#define TP_BPF_ADD       0x00
#define TP_BPF_SUB       0x10
#define TP_BPF_MUL       0x20
#define TP_BPF_DIV       0x30
#define TP_BPF_OR        0x40
#define TP_BPF_AND       0x50
#define TP_BPF_LSH       0x60
#define TP_BPF_RSH       0x70
#define TP_BPF_NEG       0x80
#define TP_BPF_MOD       0x90
#define TP_BPF_XOR       0xa0
#define TP_BPF_JA        0x00
#define TP_BPF_JEQ       0x10
#define TP_BPF_JGT       0x20
#define TP_BPF_JGE       0x30
#define TP_BPF_JSET      0x40
#define TP_BPF_SRC(c)    ((c)&0x08)
#define TP_BPF_K         0x00
#define TP_BPF_X         0x08
#define TP_BPF_RVAL(c)   ((c)&0x18)
#define TP_BPF_A         0x10
#define TP_BPF_MISCOP(c) ((c)&0xf8)
#define TP_BPF_TAX       0x00
#define TP_BPF_TXA       0x80

/* Checks `prog` (n instructions) against every rule above. Returns 0, or -1 with a one-line
 * reason naming the instruction index (no "tartaros:" prefix, no newline) in err[0..errlen). */
int tp_bpf_check(const struct tp_bpf_insn *prog, uint32_t n, char *err, uint32_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* TARTAROS_IR_BPF_CHECK_H */
