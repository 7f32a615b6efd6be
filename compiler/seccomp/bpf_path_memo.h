// compiler/seccomp/bpf_path_memo.h — a seccomp program's answers to a stream of calls, each call
// run only when its path can differ from the last one run.
//
// A classic seccomp program reads its input only through absolute loads of 32-bit words of
// seccomp_data (the interpreter faults on anything else), so which instructions it executes,
// and with them its answer, is a function of the words its path loads: a call that agrees with
// the last call run on every word that path loaded takes the same path, instruction by
// instruction, to the same answer. Translation validation tries tens of thousands of calls
// that differ from the one before only in words the program never looks at for that syscall
// (every case's witness on read(), a word of one argument varied where the path tests another);
// those are answered without a run. The answer is always exactly evaluate()'s.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "bpf_eval.h"

namespace tartaros::seccomp {

class PathMemo {
public:
    explicit PathMemo(std::span<const tp_bpf_insn> prog) : prog_(prog) {}

    // evaluate(prog, d).ret.
    uint32_t ret(const SeccompData &d);

    // How many calls were run rather than answered from the last path.
    size_t runs() const { return runs_; }

private:
    std::span<const tp_bpf_insn> prog_;
    SeccompData last_;
    EvalResult last_result_;
    size_t runs_ = 0;
};

}  // namespace tartaros::seccomp
