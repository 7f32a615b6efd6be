/* enforcer/preflight.cpp — plan consistency, kernel probes, strict/degrade decisions. */
#include "preflight.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena.h"
#include "deny_events.h"
#include "effect_log.h"
#include "landlock.h"
#include "mediator.h"
#include "mount_tree.h"
#include "paths.h"
#include "reach.h"
#include "report.h"
#include "run_limits.h"
#include "seccomp.h"
#include "secrets.h"
#include "syscalls.h"

namespace {

constexpr size_t kHostNameMax = 64;

/* A guarantee this host cannot install. */
struct loss {
    bool required;
    const char *what;    /* the policy field, e.g. "write_denies" */
    const char *needs;   /* the kernel feature it needs */
    const char *why;     /* why this host refuses it */
    const char *instead; /* a weaker mechanism that carries it instead, or NULL */
    container_fix fix;   /* the container option that lifts the cause (container.h), or FIX_NONE */
};

struct loss_list {
    loss items[48];
    int count;
};

void add_loss(loss_list *list, bool required, const char *what, const char *needs, const char *why,
              const char *instead = nullptr, container_fix fix = FIX_NONE)
{
    for (int i = 0; i < list->count; i++) {
        if (strcmp(list->items[i].what, what) == 0) {
            list->items[i].required |= required; /* one line per guarantee */
            return;
        }
    }
    if (list->count < (int)(sizeof list->items / sizeof list->items[0]))
        list->items[list->count++] = {required, what, needs, why, instead, fix};
}

/* Refuses on the first loss that may not degrade; only then warns: one line per cause,
 * naming every guarantee lost to it. */
void settle(const run_ctx *ctx, const loss_list *list)
{
    for (int i = 0; i < list->count; i++)
        effect_log_loss(list->items[i].what, list->items[i].needs, list->items[i].why, list->items[i].instead);
    for (int i = 0; i < list->count; i++) {
        const loss &l = list->items[i];
        if (must_not_degrade(ctx, l.required))
            refuse_for(
                l.fix,
                "%s cannot be enforced without %s, which this host refuses (%s); run without --strict to degrade",
                l.what, l.needs, l.why);
    }
    bool warned[sizeof list->items / sizeof list->items[0]] = {};
    for (int i = 0; i < list->count; i++) {
        const loss &l = list->items[i];
        if (l.instead == nullptr)
            continue;
        warned[i] = true;
        warn("weakened: %s (%s): %s", l.what, l.why, l.instead);
    }
    for (int i = 0; i < list->count; i++) {
        if (warned[i])
            continue;
        char names[1024] = "";
        for (int j = i; j < list->count; j++) {
            if (warned[j] || strcmp(list->items[j].why, list->items[i].why) != 0)
                continue;
            warned[j] = true;
            if (names[0] != '\0')
                strncat(names, ", ", sizeof names - strlen(names) - 1);
            strncat(names, list->items[j].what, sizeof names - strlen(names) - 1);
        }
        warn("not enforced: %s (%s)", names, list->items[i].why);
    }
}

[[noreturn]] __attribute__((format(printf, 2, 3))) void invalid_plan(const run_ctx *ctx, const char *fmt, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    refuse("invalid plan %s: %s", ctx->plan_path, reason);
}

void check_mount_step(const run_ctx *ctx, uint32_t i)
{
    const tp_plan *plan = ctx->plan;
    const tp_mount *m = &plan->mounts[i];
    const char *path = tp_plan_str(plan, m->path);
    if (path_has_dot_component(path))
        invalid_plan(ctx, "mount %u: path %s has a \".\" or \"..\" component", i, path);
    if ((m->op == TP_MNT_ROOT_READONLY || m->op == TP_MNT_ROOT_EMPTY) && i != 0)
        invalid_plan(ctx, "mount %u: the root step must be the first", i);
    if (m->anchor.len == 0)
        return;
    const char *anchor = tp_plan_str(plan, m->anchor);
    if (path_has_dot_component(anchor) || path_below(path, anchor) == nullptr)
        invalid_plan(ctx, "mount %u: %s does not lie beneath its anchor %s", i, path, anchor);
}

void check_plan(const run_ctx *ctx)
{
    const tp_plan *plan = ctx->plan;
    for (uint32_t i = 0; i < plan->mount_count; i++)
        check_mount_step(ctx, i);
    if (plan->mount_count > 0 && !(plan->ns && (plan->ns->flags & TP_NS_MOUNT)))
        invalid_plan(ctx, "%u mount steps but no mount namespace", plan->mount_count);
    if (plan->broker && !(plan->ns && (plan->ns->flags & TP_NS_NET)))
        invalid_plan(ctx, "a credential broker but no network namespace");
    if (plan->ns && plan->ns->hostname.len > kHostNameMax)
        invalid_plan(ctx, "hostname longer than %zu bytes", kHostNameMax);
    for (uint32_t i = 0; i < plan->landlock_path_count; i++) {
        const char *path = tp_plan_str(plan, plan->landlock_paths[i].path);
        if (path_has_dot_component(path))
            invalid_plan(ctx, "landlock rule %u: path %s has a \".\" or \"..\" component", i, path);
    }
}

bool landlock_required(const tp_plan *plan)
{
    return (plan->landlock_section_flags & TP_SECF_REQUIRED) || (plan->landlock->flags & TP_MNTF_REQUIRED);
}

const char *landlock_absent_reason(int err)
{
    if (err == ENOSYS)
        return "the kernel has no Landlock";
    if (err == EOPNOTSUPP)
        return "Landlock is disabled at boot (lsm=)";
    return arena_strdup(strerror(err));
}

/* Names of the rights the plan handles that `abi` lacks, or NULL when none are lost. */
const char *lost_landlock_rights(const tp_landlock_ruleset *rs, unsigned abi)
{
    uint64_t fs = rs->handled_access_fs & ~landlock_fs_rights(abi);
    char names[160] = "";
    if (fs & TP_LL_FS_REFER)
        strcat(names, " refer");
    if (fs & TP_LL_FS_TRUNCATE)
        strcat(names, " truncate");
    if (fs & TP_LL_FS_IOCTL_DEV)
        strcat(names, " ioctl_dev");
    if (abi < 4 && rs->handled_access_net)
        strcat(names, " tcp_bind/tcp_connect");
    if (abi < 6 && rs->scoped)
        strcat(names, " scopes");
    return names[0] ? arena_concat3("the Landlock rights", names, "") : nullptr;
}

void decide_landlock(run_ctx *ctx, loss_list *losses)
{
    const tp_plan *plan = ctx->plan;
    ctx->landlock_abi = 0;
    if (plan->landlock == nullptr)
        return;
    unsigned abi = landlock_probe_abi();
    if (abi == 0) {
        int err = errno; /* EPERM: a filter refused the call (an older container profile) */
        add_loss(losses, landlock_required(plan), "the Landlock allow-list", "Landlock", landlock_absent_reason(err),
                 nullptr, err == EPERM ? FIX_SECCOMP : FIX_NONE);
        return;
    }
    ctx->landlock_abi = abi < kLandlockMaxAbi ? abi : kLandlockMaxAbi;
    const char *lost = lost_landlock_rights(plan->landlock, ctx->landlock_abi);
    if (lost == nullptr && ctx->landlock_abi >= plan->header->min_landlock_abi)
        return;
    char needs[48], why[48];
    snprintf(needs, sizeof needs, "Landlock ABI %u", plan->header->min_landlock_abi);
    snprintf(why, sizeof why, "the kernel has ABI %u", abi);
    add_loss(losses, landlock_required(plan), lost ? lost : "part of the Landlock allow-list", arena_strdup(needs),
             arena_strdup(why));
}

struct ns_kind {
    uint32_t plan_flag;
    unsigned long clone_flag;
    const char *what; /* the guarantee the namespace carries */
    const char *needs;
};
constexpr ns_kind kNamespaces[] = {
    {TP_NS_MOUNT, CLONE_NEWNS, "mount isolation", "a mount namespace"},
    {TP_NS_PID, CLONE_NEWPID, "isolate_pids", "a PID namespace"},
    {TP_NS_NET, CLONE_NEWNET, "network isolation", "a network namespace"},
    {TP_NS_IPC, CLONE_NEWIPC, "IPC isolation", "an IPC namespace"},
    {TP_NS_UTS, CLONE_NEWUTS, "the sandbox hostname", "a UTS namespace"},
    {TP_NS_CGROUP, CLONE_NEWCGROUP, "cgroup isolation", "a cgroup namespace"},
    {TP_NS_USER, CLONE_NEWUSER, "locked mounts", "a user namespace"},
};

bool ns_required(const tp_plan *plan, uint32_t flag)
{
    return plan->ns && ((plan->ns->required & flag) || (plan->ns_section_flags & TP_SECF_REQUIRED));
}

/* The effect log's events the mediator writes: one loss line whichever way they are lost. */
constexpr const char *kMediatedEvents = "exec and denied-syscall events in the effect log";

/* What the effect log loses with the mount layer (effect_log.h): its file can no longer be
 * hidden, and connect mediation, which carries the exec events, needs the mount layer too.
 * Required: under --strict a log the sandbox could reach is no log. */
void lose_effect_log_guarantees(const run_ctx *ctx, loss_list *losses, const char *why)
{
    if (ctx->log_path == nullptr)
        return;
    add_loss(losses, true, "the effect log's protection", "the mount layer", why);
    add_loss(losses, true, kMediatedEvents, "connect mediation", why);
}

bool broker_required(const tp_plan *plan)
{
    return (plan->broker_section_flags & TP_SECF_REQUIRED) || ns_required(plan, TP_NS_NET);
}

/* The broker runs only with both of what it stands on: its listener is inside the network
 * namespace and its token reaches the agent only through the credentials directory, a mount.
 * Lost here, it is not started and its secrets are never read (secrets.h); lost once the
 * proxy has them (clone refused the namespaces, or init's unshare failed), the proxy gets no
 * listener and exits, and no credentials directory is made. */
void lose_broker(run_ctx *ctx, loss_list *losses, const char *needs, const char *why)
{
    if (!ctx->broker)
        return;
    add_loss(losses, broker_required(ctx->plan), "the credential broker", needs, why);
    ctx->broker = false;
}

/* One loss per kind of mount step: the mount layer is gone as a whole. */
void lose_mount_layer(run_ctx *ctx, loss_list *losses, const char *why)
{
    const tp_plan *plan = ctx->plan;
    for (uint32_t i = 0; i < plan->mount_count; i++) {
        const tp_mount *m = &plan->mounts[i];
        add_loss(losses, mount_step_required(plan, m), mount_step_label(ctx->plan, m), "a mount namespace", why);
    }
    lose_effect_log_guarantees(ctx, losses, why);
    lose_broker(ctx, losses, "a mount namespace", why);
    ctx->mount_layer = false;
}

void lose_namespaces(run_ctx *ctx, loss_list *losses, unsigned long lost, const char *why)
{
    const tp_plan *plan = ctx->plan;
    /* The policy's own fields first: a refusal names the first loss. */
    if ((lost & CLONE_NEWNS) && ctx->mount_layer)
        lose_mount_layer(ctx, losses, why);
    for (const ns_kind &ns : kNamespaces)
        if ((lost & ns.clone_flag) && plan->ns && (plan->ns->flags & ns.plan_flag))
            add_loss(losses, ns_required(plan, ns.plan_flag), ns.what, ns.needs, why);
    if (lost & CLONE_NEWNET)
        lose_broker(ctx, losses, "a network namespace", why);
    ctx->clone_flags &= ~lost;
    ctx->pid_ns = (ctx->clone_flags & CLONE_NEWPID) != 0;
}

bool read_sysctl_is_zero(const char *path)
{
    int fd = open_cloexec(path, O_RDONLY);
    if (fd < 0)
        return false;
    char c = 0;
    bool zero = read(fd, &c, 1) == 1 && c == '0';
    close(fd);
    return zero;
}

const char *userns_unavailable_reason(const run_ctx *ctx)
{
    if (read_sysctl_is_zero("/proc/sys/user/max_user_namespaces"))
        return "user namespaces disabled: /proc/sys/user/max_user_namespaces is 0";
    if (!ctx->caller_is_root && read_sysctl_is_zero("/proc/sys/kernel/unprivileged_userns_clone"))
        return "unprivileged user namespaces disabled: /proc/sys/kernel/unprivileged_userns_clone is 0";
    return nullptr;
}

/* openat2 (5.6) and mount_setattr (5.12): ENOSYS means the mount layer cannot be built. */
bool kernel_has_mount_api()
{
    bool openat2 = syscall(SYS_openat2, -1, "", nullptr, 0) == 0 || errno != ENOSYS;
    bool setattr = syscall(SYS_mount_setattr, -1, "", 0, nullptr, 0) == 0 || errno != ENOSYS;
    return openat2 && setattr;
}

void decide_namespaces(run_ctx *ctx, loss_list *losses)
{
    const tp_plan *plan = ctx->plan;
    uint32_t want = plan->ns ? plan->ns->flags : 0;
    ctx->clone_flags = 0;
    for (const ns_kind &ns : kNamespaces)
        if (want & ns.plan_flag)
            ctx->clone_flags |= ns.clone_flag;
    if (!ctx->caller_is_root && ctx->clone_flags != 0)
        ctx->clone_flags |= CLONE_NEWUSER; /* an unprivileged caller needs it for any other */
    ctx->mount_layer = (ctx->clone_flags & CLONE_NEWNS) && plan->mount_count > 0;
    ctx->pid_ns = (ctx->clone_flags & CLONE_NEWPID) != 0;
    ctx->broker = plan->broker != nullptr; /* check_plan: with its network namespace */
    /* Whether user namespaces are allowed is learned from clone itself (degrade_namespaces):
     * the sysctls are read only to explain a refusal. */
    if (ctx->mount_layer && !kernel_has_mount_api())
        lose_mount_layer(ctx, losses, "the kernel lacks openat2 or mount_setattr (Linux 5.12 or later)");
}

void decide_seccomp(run_ctx *ctx, loss_list *losses)
{
    const tp_plan *plan = ctx->plan;
    ctx->seccomp = plan->seccomp != nullptr;
    if (!ctx->seccomp)
        return;
    const char *why = seccomp_unavailable_reason(plan);
    if (why == nullptr)
        return;
    ctx->seccomp = false;
    add_loss(losses, (plan->seccomp_section_flags & TP_SECF_REQUIRED) != 0, "the seccomp filter", "seccomp", why);
}

/* connect() mediation (mediator.h) rides on the seccomp filter and the mount namespace: it is
 * required with the filter, and lost without comment when the mount layer is (that loss is
 * already reported, and /run and /tmp go with it). */
void decide_mediation(run_ctx *ctx, loss_list *losses)
{
    ctx->mediate_connect = ctx->seccomp && ctx->mount_layer;
    if (!ctx->mediate_connect)
        return;
    const char *why = mediator_unavailable_reason();
    if (why == nullptr)
        return;
    ctx->mediate_connect = false;
    add_loss(losses, (ctx->plan->seccomp_section_flags & TP_SECF_REQUIRED) != 0,
             "host unix sockets outside /run and /tmp", "seccomp user notification", why);
}

/* After mediation: a plan without mount steps (or a host without the mount API, already
 * reported through lose_mount_layer) cannot hide the log; without mediation there are no
 * exec or denied-syscall events. */
void decide_effect_log(run_ctx *ctx, loss_list *losses)
{
    if (ctx->log_path == nullptr)
        return;
    if (!ctx->mount_layer)
        lose_effect_log_guarantees(ctx, losses, "the plan builds no mount tree");
    if (!ctx->mediate_connect) {
        add_loss(losses, true, kMediatedEvents, "connect mediation",
                 ctx->seccomp ? "connect mediation is unavailable on this host"
                              : "the seccomp filter is not installed");
        return;
    }
    const char *why = deny_events_unavailable_reason(ctx->plan);
    ctx->deny_events = why == nullptr;
    if (why != nullptr)
        add_loss(losses, true, "denied-syscall events in the effect log", "the listener program", why);
}

/* After the effect log: with denied-syscall events the filter goes into the listener program. */
void decide_early_filter(run_ctx *ctx)
{
    ctx->seccomp_early = seccomp_may_load_early(ctx);
}

void lose_limit(void *arg, bool required, const char *what, const char *needs, const char *why, const char *instead)
{
    add_loss((loss_list *)arg, required, what, needs, why, instead);
}

/* Every loss from `first` on has one cause, which `fix` lifts in a container. */
void mark_fix(loss_list *losses, int first, container_fix fix)
{
    for (int i = first; i < losses->count; i++)
        losses->items[i].fix = fix;
}

/* After the namespaces: without a PID namespace the cgroup is also the kill switch. A limit
 * lost in a container is lost to its read-only cgroup tree (container_hint checks that). */
void decide_limits(run_ctx *ctx, loss_list *losses)
{
    int first = losses->count;
    limits_prepare(ctx);
    limits_decide(ctx, lose_limit, losses);
    mark_fix(losses, first, FIX_CGROUPS);
}

/* EPERM (or a filter's ENOSYS) from clone or unshare where the sysctls allow user namespaces:
 * a seccomp filter of the runtime's refused the call (container_hint checks that one is
 * installed). */
container_fix namespaces_fix(int err, bool sysctl_explains)
{
    return (err == EPERM || err == ENOSYS) && !sysctl_explains ? FIX_SECCOMP : FIX_NONE;
}

}  // namespace

void preflight(run_ctx *ctx)
{
    check_plan(ctx);
    loss_list losses = {};
    decide_landlock(ctx, &losses);
    decide_seccomp(ctx, &losses);
    decide_namespaces(ctx, &losses);
    decide_mediation(ctx, &losses);
    decide_effect_log(ctx, &losses);
    decide_early_filter(ctx);
    decide_limits(ctx, &losses);
    reach_check_grants(ctx); /* a grant that cannot work refuses before any warning */
    secrets_read(ctx);       /* refuses a bad variable before any warning is printed */
    settle(ctx, &losses);
}

void degrade_namespaces(run_ctx *ctx, int err, const char *reason)
{
    loss_list losses = {};
    const char *sysctl = (ctx->clone_flags & CLONE_NEWUSER) ? userns_unavailable_reason(ctx) : nullptr;
    const char *why = sysctl ? sysctl : arena_strdup(reason);
    bool root_keeps_others = ctx->caller_is_root && (ctx->clone_flags & CLONE_NEWUSER);
    lose_namespaces(ctx, &losses, root_keeps_others ? CLONE_NEWUSER : ctx->clone_flags, why);
    limits_lost_user_namespace(ctx, lose_limit, &losses);
    mark_fix(&losses, 0, namespaces_fix(err, sysctl != nullptr));
    settle(ctx, &losses);
}

void degrade_namespaces_late(run_ctx *ctx, unsigned long lost, int err, const char *reason)
{
    loss_list losses = {};
    lose_namespaces(ctx, &losses, lost, arena_strdup(reason));
    mark_fix(&losses, 0, namespaces_fix(err, false));
    settle(ctx, &losses);
}
