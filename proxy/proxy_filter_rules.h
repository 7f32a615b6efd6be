/* proxy/proxy_filter_rules.h — the seccomp filter tartaros-proxy confines itself with
 * (confine.h says what it allows and why), as libseccomp rules. The filter is exported at
 * build time (proxy_filter_gen.cpp, into the generated proxy_filter_bpf.h) with a placeholder
 * for the one value known only at run time, the proxy's pid in the tgkill rule; the proxy
 * writes its pid there (proxy_filter_set_pid) and loads the program as it is.
 * Invariant: the placeholder is the operand of exactly one instruction of the exported
 * program (the generator refuses to write it otherwise), and a test checks that the patched
 * program is, byte for byte, what libseccomp builds for the real pid. */
#pragma once

#include <linux/filter.h>
#include <seccomp.h>  // its types only: the rules are compiled into the generator and the tests

#include <cstddef>
#include <cstdint>

namespace tproxy {

// Adds the rules to `ctx` (made with seccomp_init(SCMP_ACT_ERRNO(EPERM))), tgkill allowed for
// `pid` only, and asks for a binary tree over the syscall numbers; libseccomp's error, or 0.
int add_proxy_filter_rules(scmp_filter_ctx ctx, uint32_t pid);

// The pid the exported program holds until proxy_filter_set_pid replaces it: no pid_max
// allows it (4194304 at most).
constexpr uint32_t kProxyFilterPidPlaceholder = 0x7ad0c0deu;

inline bool proxy_filter_is_placeholder(const sock_filter &insn)
{
    return insn.code == (BPF_JMP | BPF_JEQ | BPF_K) && insn.k == kProxyFilterPidPlaceholder;
}

// The instructions of `insns` whose operand is the placeholder; one in an exported program.
inline size_t proxy_filter_placeholders(const sock_filter *insns, size_t count)
{
    size_t found = 0;
    for (size_t i = 0; i < count; i++)
        found += proxy_filter_is_placeholder(insns[i]) ? 1 : 0;
    return found;
}

// Writes `pid` where the placeholder is.
inline void proxy_filter_set_pid(sock_filter *insns, size_t count, uint32_t pid)
{
    for (size_t i = 0; i < count; i++)
        if (proxy_filter_is_placeholder(insns[i]))
            insns[i].k = pid;
}

}  // namespace tproxy
