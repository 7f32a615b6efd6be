/* ir/bpf_interp.h — an interpreter of classic seccomp BPF: the reference the compiler's
 * translation validation, --explain's path lengths and the kernel differential test compare
 * against, and what the enforcer's mediator runs to learn the plan's verdict on a system call
 * it was notified of (bpf_listen.h). Freestanding: no allocation, no exceptions, no libc.
 *
 * Semantics are the kernel's (kernel/seccomp.c seccomp_check_filter, then kernel/bpf/core.c
 * once converted): 32-bit A and X, both starting at 0; loads read the little-endian struct
 * seccomp_data; jumps are relative to the next instruction; a shift by X uses X & 31, as the
 * 32-bit eBPF ALU and the x86 JIT do (checked on this machine's kernel).
 *
 * Precondition: the program passed tp_bpf_check (bpf_check.h), except that any return value
 * is accepted (the enforcer's listener program returns USER_NOTIF). The precondition is
 * checked as the interpreter goes, at the cost of a comparison or two per instruction: an
 * opcode outside the accepted set, a load outside seccomp_data, a jump beyond the end, a shift
 * >= 32 or a division by 0 stops it with a fault naming the instruction, instead of running
 * off the program.
 */
#ifndef TARTAROS_IR_BPF_INTERP_H
#define TARTAROS_IR_BPF_INTERP_H

#include "bpf_check.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel's struct seccomp_data, as the filter sees it (64 bytes). */
struct tp_seccomp_data {
    uint32_t nr;
    uint32_t arch;
    uint64_t instruction_pointer;
    uint64_t args[6];
};

enum tp_bpf_fault {
    TP_BPF_FAULT_NONE = 0,
    TP_BPF_FAULT_LENGTH,    /* the program is empty or longer than TP_BPF_MAXINSNS */
    TP_BPF_FAULT_LOAD,      /* a load outside seccomp_data or not 4-aligned (value: offset) */
    TP_BPF_FAULT_OPCODE,    /* an opcode outside the accepted set (value: opcode) */
    TP_BPF_FAULT_DIVISION,  /* division or modulo by constant 0 (value: 0) */
    TP_BPF_FAULT_SHIFT,     /* a constant shift >= 32 (value: the shift) */
    TP_BPF_FAULT_X_OPERAND, /* division, modulo or negation with X (value: opcode) */
    TP_BPF_FAULT_PATH,      /* a path leaves the program (value: the instruction it goes to) */
};

struct tp_bpf_result {
    uint32_t ret;         /* the full SECCOMP_RET_* value the program returned */
    uint32_t executed;    /* instructions executed, the return included */
    uint32_t fault;       /* enum tp_bpf_fault; ret is meaningless unless NONE */
    uint32_t fault_pc;    /* the instruction that faulted */
    uint64_t fault_value; /* what was wrong with it (see enum tp_bpf_fault) */
    uint32_t loaded;      /* bit i: the path loaded 32-bit word i of seccomp_data (nr 0, arch 1,
                           * ip 2-3, args[k] 4+2k low and 5+2k high); the program's path, and so
                           * its answer, is the same for every input that agrees on these words */
};

/* Runs `prog` (`len` instructions) on `data`. */
struct tp_bpf_result tp_bpf_evaluate(const struct tp_bpf_insn *prog, uint32_t len, const struct tp_seccomp_data *data);

/* A short description of fault `fault` ("load of seccomp_data offset", ...). */
const char *tp_bpf_fault_text(uint32_t fault);

#ifdef __cplusplus
}
#endif

#endif
