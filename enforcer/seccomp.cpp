/* enforcer/seccomp.cpp — probing for and installing the plan's seccomp filter. */
#include "seccomp.h"

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf_check.h"
#include "kuapi.h"
#include "raw.h"
#include "report.h"
#include "setup_calls.h"

namespace {

/* Whether the kernel knows the action of return value `ret`. */
bool action_available(uint32_t ret)
{
    uint32_t action = ret & TP_RET_ACTION_FULL;
    return syscall(SYS_seccomp, kuapi::SECCOMP_GET_ACTION_AVAIL, 0u, &action) == 0;
}

/* The program's return actions, each once (tp_bpf_check allows only these four). */
bool program_uses(const tp_plan *plan, uint32_t action)
{
    for (uint32_t i = 0; i < plan->seccomp_insn_count; i++) {
        const tp_bpf_insn &in = plan->seccomp_prog[i];
        if (in.code == (TP_BPF_RET | TP_BPF_K) && (in.k & TP_RET_ACTION_FULL) == action)
            return true;
    }
    return false;
}

bool seccomp_required(const tp_plan *plan)
{
    return (plan->seccomp_section_flags & TP_SECF_REQUIRED) != 0;
}

bool plan_filter_wanted(const run_ctx *ctx)
{
    /* with denied-syscall events, mediator_attach loads it inside the listener program */
    return ctx->plan->seccomp != nullptr && ctx->seccomp && !ctx->deny_events;
}

/* The early command's load: 0, the kernel's -errno, or 1 when it did not try. */
long g_early_load = 1;

}  // namespace

const char *seccomp_unavailable_reason(const tp_plan *plan)
{
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
        return "the kernel has no seccomp (CONFIG_SECCOMP)";
    static const uint32_t kActions[] = {TP_RET_KILL_PROCESS, TP_RET_KILL_THREAD, TP_RET_ERRNO, TP_RET_ALLOW};
    for (uint32_t action : kActions)
        if (program_uses(plan, action) && !action_available(action))
            return errno == ENOSYS ? "the kernel lacks seccomp filters or SECCOMP_GET_ACTION_AVAIL (Linux 4.14)"
                                   : "the kernel does not know a return action the filter uses";
    return nullptr;
}

bool seccomp_may_load_early(const run_ctx *ctx)
{
    return plan_filter_wanted(ctx) && filter_admits_setup_calls(ctx->plan->seccomp_prog, ctx->plan->seccomp_insn_count);
}

void seccomp_enforce_early(const run_ctx *ctx)
{
    if (!ctx->seccomp_early)
        return;
    kuapi::sock_fprog prog = {(unsigned short)ctx->plan->seccomp_insn_count, ctx->plan->seccomp_prog};
    g_early_load = raw_syscall4(SYS_seccomp, kuapi::SECCOMP_SET_MODE_FILTER, 0, (long)&prog, 0);
}

void seccomp_enforce(const run_ctx *ctx)
{
    const tp_plan *plan = ctx->plan;
    if (!plan_filter_wanted(ctx) || g_early_load == 0)
        return;
    kuapi::sock_fprog prog = {(unsigned short)plan->seccomp_insn_count, plan->seccomp_prog};
    if (syscall(SYS_seccomp, kuapi::SECCOMP_SET_MODE_FILTER, 0u, &prog) == 0)
        return;
    if (must_not_degrade(ctx, seccomp_required(plan)))
        refuse("the seccomp filter cannot be installed: %s", strerror(errno));
    warn("not enforced: the seccomp filter (%s)", strerror(errno));
}
