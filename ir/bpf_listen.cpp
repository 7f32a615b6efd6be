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

namespace {

constexpr uint32_t kConnect = 42, kSendto = 44, kSendmsg = 46, kBind = 49, kExecve = 59, kExecveat = 322,
                   kSendmmsg = 307;

tp_bpf_insn jeq(uint32_t k, uint8_t jt, uint8_t jf)
{
    return {TP_BPF_JMP | TP_BPF_JEQ | TP_BPF_K, jt, jf, k};
}

tp_bpf_insn load(uint32_t offset)
{
    return {TP_BPF_LD | TP_BPF_W | TP_BPF_ABS, 0, 0, offset};
}

}  // namespace

extern "C" uint32_t tp_mediator_rules(int execs, tp_bpf_insn *out)
{
    /* Every number test jumps to the notify at the end; sendto's falls through to its address
     * words; the rest allows. Jumps count from the next instruction. */
    const uint32_t numbers[] = {kConnect, kBind, kSendmsg, kSendmmsg, kExecve, kExecveat};
    const uint32_t count = execs ? 6 : 4;
    const uint32_t len = count + 8;
    const uint32_t notify = len - 2, allow = len - 1;
    uint32_t at = 0;
    out[at++] = load(TP_SD_NR);
    for (uint32_t i = 0; i < count; i++, at++)
        out[at] = jeq(numbers[i], (uint8_t)(notify - at - 1), 0);
    out[at] = jeq(kSendto, 0, (uint8_t)(allow - at - 1));
    at++;
    out[at++] = load(TP_SD_ARGS + 8 * 4);
    out[at] = jeq(0, 0, (uint8_t)(notify - at - 1));
    at++;
    out[at++] = load(TP_SD_ARGS + 8 * 4 + 4);
    out[at] = jeq(0, (uint8_t)(allow - at - 1), 0);
    at++;
    out[at++] = {TP_BPF_RET | TP_BPF_K, 0, 0, TP_RET_USER_NOTIF};
    out[at++] = {TP_BPF_RET | TP_BPF_K, 0, 0, TP_RET_ALLOW};
    return at;
}
