// compiler/seccomp/bpf_eval.h — the classic seccomp BPF interpreter of ir/bpf_interp.h (the one the
// enforcer's mediator runs too), as the compiler's translation validation, --explain's path
// lengths and the kernel differential test use it.
//
// Precondition: the program passed tp_bpf_check (ir/bpf_check.h); evaluate() asserts it,
// throwing std::logic_error naming the instruction. Semantics are the kernel's (see
// ir/bpf_interp.h): A and X start at 0, ALU is 32-bit wrapping, jumps are relative to the
// next instruction.
#pragma once

#include <cstdint>
#include <span>

#include "bpf_check.h"
#include "plan.h"

namespace tartaros::seccomp {

// The kernel's struct seccomp_data, as the filter sees it.
struct SeccompData {
    uint32_t nr = 0;
    uint32_t arch = TP_ARCH_X86_64;
    uint64_t instruction_pointer = 0;
    uint64_t args[6] = {};
    bool operator==(const SeccompData &) const = default;
};

struct EvalResult {
    uint32_t ret = 0;       // the full SECCOMP_RET_* value the program returned
    uint32_t executed = 0;  // instructions executed, the return included
    uint32_t loaded = 0;    // bit i: the path loaded word i of the input (seccomp_word())
};

// Word `i` (0..15) of `d` as a load reads it: nr 0, arch 1, the ip 2-3, args[k] 4+2k (low)
// and 5+2k (high). Inline: translation validation asks it for every input it checks.
inline uint32_t seccomp_word(const SeccompData &d, uint32_t i)
{
    if (i < 2)
        return i == 0 ? d.nr : d.arch;
    const uint64_t field = i < TP_SD_ARGS / 4 ? d.instruction_pointer : d.args[(i - TP_SD_ARGS / 4) / 2];
    return static_cast<uint32_t>(i % 2 == 0 ? field : field >> 32);
}

EvalResult evaluate(std::span<const tp_bpf_insn> prog, const SeccompData &data);

}  // namespace tartaros::seccomp
