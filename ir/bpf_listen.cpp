/* ir/bpf_listen.cpp — see bpf_listen.h. */
#include "bpf_listen.h"

extern "C" uint32_t tp_bpf_listener_program(const tp_bpf_insn *plan, uint32_t plan_len, const tp_bpf_insn *tail,
                                            uint32_t tail_len, tp_bpf_insn *out, uint32_t cap)
{
    const uint64_t len = (uint64_t)plan_len + tail_len;
    if (plan_len == 0 || tail_len == 0 || len > cap || len > TP_BPF_MAXINSNS)
        return 0;
    for (uint32_t i = 0; i < plan_len; i++) {
        tp_bpf_insn in = plan[i];
        if (in.code == (TP_BPF_RET | TP_BPF_K) && (in.k & TP_RET_ACTION_FULL) == TP_RET_ERRNO)
            in.k = TP_RET_USER_NOTIF;
        else if (in.code == (TP_BPF_RET | TP_BPF_K) && in.k == TP_RET_ALLOW)
            in = {TP_BPF_JMP | TP_BPF_JA, 0, 0, plan_len - i - 1};
        out[i] = in;
    }
    for (uint32_t i = 0; i < tail_len; i++)
        out[plan_len + i] = tail[i];
    return (uint32_t)len;
}
