// compiler/seccomp/bpf_eval.cpp — the compiler's face of ir/bpf_interp.h: a fault is a logic error (the
// program did not pass tp_bpf_check), thrown with the instruction it happened at.
#include "bpf_eval.h"

#include <stdexcept>
#include <string>

#include "bpf_interp.h"

namespace tartaros::seccomp {

namespace {

[[noreturn, gnu::cold, gnu::noinline]] void invalid(const tp_bpf_result &r)
{
    throw std::logic_error("evaluate: instruction " + std::to_string(r.fault_pc) + ": " + tp_bpf_fault_text(r.fault) +
                           " " + std::to_string(r.fault_value) + " (the program did not pass tp_bpf_check)");
}

}  // namespace

EvalResult evaluate(std::span<const tp_bpf_insn> prog, const SeccompData &data)
{
    if (prog.size() > TP_BPF_MAXINSNS)
        throw std::logic_error("evaluate: program length " + std::to_string(prog.size()) +
                               " (the program did not pass tp_bpf_check)");
    tp_seccomp_data d = {data.nr, data.arch, data.instruction_pointer, {}};
    for (int i = 0; i < 6; i++)
        d.args[i] = data.args[i];
    const tp_bpf_result r = tp_bpf_evaluate(prog.data(), static_cast<uint32_t>(prog.size()), &d);
    if (r.fault != TP_BPF_FAULT_NONE)
        invalid(r);
    return {r.ret, r.executed, r.loaded};
}

}  // namespace tartaros::seccomp
