// compiler/seccomp/bpf_disasm.h — seccomp BPF as text, for --explain and for test failure messages.
//
// One line per instruction: index, mnemonic, operand, and for jumps the absolute targets;
// loads of seccomp_data name the field (`ld [arch]`, `ld [args[1].hi]`), returns name the
// action (`ret ERRNO(EPERM)`, `ret KILL_PROCESS`), and JEQ/JGE constants compared with the
// syscall number carry the syscall's name as a comment when the previous load was of nr.
// Example:
//      0: ld [arch]
//      1: jeq #0xc000003e          ; true 2, false 27
//      2: ld [nr]
//      ...
//     27: ret KILL_PROCESS
#pragma once

#include <span>
#include <string>

#include "plan.h"

namespace tartaros::seccomp {

std::string disassemble(std::span<const tp_bpf_insn> prog);

// "ALLOW", "ERRNO(EPERM)", "ERRNO(ENOSYS)", "KILL_PROCESS", ... for a SECCOMP_RET_* value.
std::string action_name(uint32_t ret);

}  // namespace tartaros::seccomp
