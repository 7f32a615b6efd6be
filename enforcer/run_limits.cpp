/* enforcer/run_limits.cpp — the plan's limits at run time (run_limits.h). */
#include "run_limits.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "arena.h"
#include "effect_log.h"
#include "egress.h"
#include "raw.h"
#include "report.h"
#include "text_append.h"

const char kNprocWeakness[] =
    "RLIMIT_NPROC counts tasks per user and user namespace: without a user namespace of its own it counts all of "
    "the caller's processes on the host";

namespace {

run_limits g_limits;

/* The timeout's state, shared with the SIGALRM handler (raw calls only: raw.h). */
enum timeout_phase : int { TIMEOUT_NONE = 0, TIMEOUT_ARMED, TIMEOUT_TERMINATED, TIMEOUT_KILLED };
volatile sig_atomic_t g_phase = TIMEOUT_NONE;
pid_t g_timeout_target;
uint64_t g_grace_ms;

bool wants_cgroup(const cgroup_wants &w)
{
    return w.pids_max || w.memory_max || w.cpu_quota_us || w.kill_switch;
}

unsigned helper_count(const run_ctx *ctx)
{
    const tp_network *net = ctx->plan->network;
    return 1u + (ctx->mediate_connect ? 1u : 0u) + (net && (net->modes & TP_NET_EXPOSE) ? 1u : 0u);
}

void raw_set_timer(uint64_t ms)
{
    struct itimerval t = {};
    t.it_value.tv_sec = (time_t)(ms / 1000);
    t.it_value.tv_usec = (suseconds_t)(ms % 1000) * 1000;
    raw_syscall4(SYS_setitimer, ITIMER_REAL, (long)&t, 0, 0);
}

/* First the deadline: SIGTERM to init (forwarded to the command); then the end of the grace:
 * SIGKILL to init, which takes the PID namespace with it. */
void on_alarm(int)
{
    if (g_phase == TIMEOUT_ARMED) {
        g_phase = TIMEOUT_TERMINATED;
        raw_syscall2(SYS_kill, g_timeout_target, SIGTERM);
        raw_set_timer(g_grace_ms);
    } else if (g_phase == TIMEOUT_TERMINATED) {
        g_phase = TIMEOUT_KILLED;
        raw_syscall2(SYS_kill, g_timeout_target, SIGKILL);
    }
}

/* "64 MiB", "1.5 GiB", "4096 bytes". */
const char *bytes_text(uint64_t n, char *buf, size_t size)
{
    static const char *const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    if (n < 1024) {
        snprintf(buf, size, "%llu bytes", (unsigned long long)n);
        return buf;
    }
    double v = (double)n / 1024.0;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof kUnits / sizeof kUnits[0]) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, size, v == (double)(uint64_t)v ? "%.0f %s" : "%.1f %s", v, kUnits[u]);
    return buf;
}

/* "30 s", "1.5 s", "250 ms". */
const char *duration_text(uint64_t ms, char *buf, size_t size)
{
    if (ms % 1000 == 0)
        snprintf(buf, size, "%llu s", (unsigned long long)(ms / 1000));
    else if (ms > 1000)
        snprintf(buf, size, "%.1f s", (double)ms / 1000.0);
    else
        snprintf(buf, size, "%llu ms", (unsigned long long)ms);
    return buf;
}

/* One "tartaros: ..." line that is neither a warning nor a failure: what a limit did. */
__attribute__((format(printf, 1, 2))) void say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    dprintf(STDERR_FILENO, "tartaros: %s\n", line);
}

int report_timeout(const tp_limits *l)
{
    char at[48], timeout[32], grace[32];
    origin_text(l->timeout_origin.line, l->timeout_origin.col, at, sizeof at);
    duration_text(l->timeout_ms, timeout, sizeof timeout);
    duration_text(l->grace_ms, grace, sizeof grace);
    effect_log_timeout(l->timeout_ms, l->grace_ms, g_phase == TIMEOUT_KILLED);
    if (g_phase == TIMEOUT_KILLED)
        say("timeout %s%s reached: the command got SIGTERM, then SIGKILL after the %s grace", timeout, at, grace);
    else
        say("timeout %s%s reached: the command got SIGTERM and ended within the %s grace", timeout, at, grace);
    return 137;
}

int report_events(const tp_limits *l, const cgroup_events &ev, int code)
{
    char at[48], size[32];
    if (ev.oom_kills > 0) {
        origin_text(l->memory_max_origin.line, l->memory_max_origin.col, at, sizeof at);
        bytes_text(l->memory_max, size, sizeof size);
        effect_log_memory_limit(l->memory_max, ev.oom_kills, code == 128 + SIGKILL);
        if (code == 128 + SIGKILL) {
            say("memory_max %s%s reached: the kernel's OOM killer ended the command", size, at);
            return 137;
        }
        say("memory_max %s%s reached: the kernel's OOM killer ended %llu process%s in the sandbox", size, at,
            (unsigned long long)ev.oom_kills, ev.oom_kills == 1 ? "" : "es");
    }
    if (ev.pids_refused > 0) {
        origin_text(l->max_processes_origin.line, l->max_processes_origin.col, at, sizeof at);
        effect_log_pids_limit(l->max_processes, ev.pids_refused);
        say("max_processes %llu%s reached: the kernel refused %llu fork%s", (unsigned long long)l->max_processes, at,
            (unsigned long long)ev.pids_refused, ev.pids_refused == 1 ? "" : "s");
    }
    return code;
}

/* Since Linux 5.14 the kernel counts RLIMIT_NPROC per (user namespace, uid): in the sandbox's
 * own user namespace that count holds the sandbox's tasks and nothing else (init, its helpers
 * and the command's tree; a nested namespace's tasks count in its parent's), and a fork past
 * the command's limit fails with EAGAIN whatever the rest of the host runs. The command holds
 * no capability in the initial namespace, so it can neither raise the hard limit nor bypass
 * it. The kernel exempts uid 0 of the host (INIT_USER) and capable tasks: not for root. */
bool nproc_is_exact(const run_ctx *ctx)
{
    return !ctx->caller_is_root && getuid() != 0 && (ctx->clone_flags & CLONE_NEWUSER) != 0;
}

}  // namespace

void limits_prepare(run_ctx *ctx)
{
    const tp_limits *l = ctx->plan->limits;
    run_limits *rl = &g_limits;
    ctx->limits = rl;
    rl->helpers = helper_count(ctx);
    if (l != nullptr) {
        rl->wants.pids_max = l->max_processes ? l->max_processes + rl->helpers : 0;
        rl->wants.memory_max = l->memory_max;
        rl->wants.cpu_quota_us = l->cpu_quota_us;
        rl->wants.cpu_period_us = l->cpu_period_us;
    }
    /* Without a PID namespace nothing ends what the command leaves running: a cgroup can. */
    rl->wants.kill_switch = !ctx->pid_ns;
}

void limits_decide(run_ctx *ctx, limit_lost_fn lost, void *arg)
{
    run_limits *rl = ctx->limits;
    if (!wants_cgroup(rl->wants))
        return;
    cgroup_host host = cgroup_host_default();
    cgroup_probe_host(&host, &rl->probe);
    bool required = ctx->plan->limits && (ctx->plan->limits_section_flags & TP_SECF_REQUIRED);
    if (rl->wants.pids_max && !rl->probe.version[CG_PIDS]) {
        const bool root = ctx->caller_is_root || getuid() == 0;
        rl->nproc = root ? 0 : rl->wants.pids_max;
        rl->wants.pids_max = 0;
        rl->nproc_exact = nproc_is_exact(ctx);
        if (!rl->nproc_exact)
            lost(arg, required, "max_processes", "a cgroup with the pids controller", rl->probe.why_not[CG_PIDS],
                 root ? nullptr : arena_concat3("RLIMIT_NPROC instead (", kNprocWeakness, ")"));
    }
    if (rl->wants.memory_max && !rl->probe.version[CG_MEMORY]) {
        lost(arg, required, "memory_max", "a cgroup with the memory controller", rl->probe.why_not[CG_MEMORY], nullptr);
        rl->wants.memory_max = 0;
    }
    if (rl->wants.cpu_quota_us && !rl->probe.version[CG_CPU]) {
        lost(arg, required, "cpu_max", "a cgroup with the cpu controller", rl->probe.why_not[CG_CPU], nullptr);
        rl->wants.cpu_quota_us = rl->wants.cpu_period_us = 0;
    }
    if (rl->wants.kill_switch && !rl->probe.version[CG_PIDS] && !rl->probe.version[CG_FREEZER] &&
        !rl->wants.memory_max && !rl->wants.cpu_quota_us)
        rl->wants.kill_switch = false; /* init still ends its own children (init.cpp) */
}

void limits_lost_user_namespace(run_ctx *ctx, limit_lost_fn lost, void *arg)
{
    run_limits *rl = ctx->limits;
    if (rl == nullptr || rl->nproc == 0 || !rl->nproc_exact)
        return;
    rl->nproc_exact = false;
    bool required = ctx->plan->limits && (ctx->plan->limits_section_flags & TP_SECF_REQUIRED);
    lost(arg, required, "max_processes", "a cgroup with the pids controller or a user namespace",
         rl->probe.why_not[CG_PIDS], arena_concat3("RLIMIT_NPROC instead (", kNprocWeakness, ")"));
}

void limits_create_cgroup(run_ctx *ctx)
{
    run_limits *rl = ctx->limits;
    if (!wants_cgroup(rl->wants))
        return;
    /* tartaros-proxy joins the cgroup (egress.h): its tasks are the run's, not the command's. */
    if (rl->wants.pids_max)
        rl->wants.pids_max += egress_tasks(ctx);
    cgroup_host host = cgroup_host_default();
    char why[256];
    rl->cgroup = cgroup_create(&host, &rl->probe, &rl->wants, why, sizeof why);
    bool only_kill_switch = !rl->wants.pids_max && !rl->wants.memory_max && !rl->wants.cpu_quota_us;
    if (rl->cgroup == nullptr && !only_kill_switch)
        fail(EXIT_STARTUP, "cannot create the run's cgroup: %s", why);
    if (rl->cgroup == nullptr)
        warn("processes the command leaves running may survive the run: no cgroup (%s)", why);
    else
        cgroup_start_warden(rl->cgroup);
}

bool limits_attach(run_ctx *ctx, pid_t init, char *why, size_t why_size)
{
    run_limits *rl = ctx->limits;
    if (rl->cgroup == nullptr)
        return true;
    return cgroup_attach(rl->cgroup, init, why, why_size);
}

void limits_protect_supervisor(const run_ctx *ctx, pid_t init)
{
    if (ctx->limits->cgroup == nullptr || ctx->limits->wants.memory_max == 0)
        return;
    char path[48];
    size_t at = 0;
    append_text(path, &at, "/proc/");
    append_number(path, &at, (unsigned long)init);
    append_text(path, &at, "/oom_score_adj");
    path[at] = '\0';
    long fd = raw_open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    raw_write((int)fd, "-1000", 5); /* EACCES without CAP_SYS_RESOURCE: stated in docs/enforcement.md */
    raw_close((int)fd);
}

void limits_apply_rlimits(const run_ctx *ctx)
{
    const tp_plan *plan = ctx->plan;
    for (uint32_t i = 0; i < plan->rlimit_count + 1; i++) {
        int resource;
        uint64_t soft, hard;
        if (i < plan->rlimit_count) {
            resource = (int)plan->rlimits[i].resource;
            soft = plan->rlimits[i].soft;
            hard = plan->rlimits[i].hard;
        } else if (ctx->limits->nproc != 0) {
            resource = RLIMIT_NPROC;
            soft = hard = ctx->limits->nproc;
        } else {
            break;
        }
        /* raw: the command still runs on init's memory (raw.h); never raise the hard limit. */
        struct rlimit cur;
        if (raw_syscall4(SYS_prlimit64, 0, resource, 0, (long)&cur) < 0)
            fail(EXIT_STARTUP, "cannot read resource limit %d", resource);
        struct rlimit want;
        want.rlim_max = hard < cur.rlim_max ? hard : cur.rlim_max;
        want.rlim_cur = soft < want.rlim_max ? soft : want.rlim_max;
        long err = raw_syscall4(SYS_prlimit64, 0, resource, (long)&want, 0);
        if (err < 0)
            fail(EXIT_STARTUP, "cannot set resource limit %d: %s", resource, strerror((int)-err));
    }
}

void limits_arm_timeout(const run_ctx *ctx, pid_t init)
{
    const tp_limits *l = ctx->plan->limits;
    if (l == nullptr || l->timeout_ms == 0)
        return;
    g_timeout_target = init;
    g_grace_ms = l->grace_ms;
    struct sigaction sa = {};
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, nullptr);
    g_phase = TIMEOUT_ARMED;
    raw_set_timer(l->timeout_ms);
}

void limits_disarm_timeout()
{
    if (g_phase == TIMEOUT_NONE)
        return;
    raw_set_timer(0);
    sigset_t alarm;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    sigprocmask(SIG_BLOCK, &alarm, nullptr);
}

int limits_finish(const run_ctx *ctx, int code)
{
    run_limits *rl = ctx->limits;
    cgroup_events ev = {};
    if (rl->cgroup != nullptr) {
        cgroup_read_events(rl->cgroup, &ev);
        effect_log_memory_peak(ev.memory_peak);
        cgroup_finish(rl->cgroup);
        rl->cgroup = nullptr;
    }
    const tp_limits *l = ctx->plan->limits;
    if (l == nullptr)
        return code;
    if (g_phase == TIMEOUT_TERMINATED || g_phase == TIMEOUT_KILLED) {
        report_events(l, ev, code);
        return report_timeout(l);
    }
    return report_events(l, ev, code);
}
