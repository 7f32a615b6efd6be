// compiler/seccomp/bpf_path_memo.cpp — see bpf_path_memo.h.
#include "bpf_path_memo.h"

#include <bit>

namespace tartaros::seccomp {

uint32_t PathMemo::ret(const SeccompData &d)
{
    // Nothing to rely on before the first run; after it, a path that loaded nothing is the
    // path of every call.
    bool same_path = runs_ > 0;
    for (uint32_t words = last_result_.loaded; same_path && words != 0; words &= words - 1) {
        const auto i = static_cast<uint32_t>(std::countr_zero(words));
        same_path = seccomp_word(d, i) == seccomp_word(last_, i);
    }
    if (!same_path) {
        last_result_ = evaluate(prog_, d);  // first: if it throws, the memo is as it was
        last_ = d;
        runs_++;
    }
    return last_result_.ret;
}

}  // namespace tartaros::seccomp
