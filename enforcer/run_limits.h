/* enforcer/run_limits.h — the plan's limits at run time (ir/plan.h tp_limits, tp_rlimit).
 *
 * Who carries what:
 *  - max_processes, memory_max, cpu_max: the run's cgroup (enforcer/cgroup.h), decided in
 *    preflight; tartaros-proxy is in it too (egress.h), its tasks added to pids.max. Without a usable pids controller max_processes is RLIMIT_NPROC, which is as
 *    exact as pids.max for an unprivileged caller in the sandbox's own user namespace
 *    (nproc_is_exact in run_limits.cpp); elsewhere it is weaker (kNprocWeakness), so a loss:
 *    a warning, or a refusal under --strict. Memory and CPU have no fallback.
 *  - rlimits: the command sets them before it executes, each lowered to (never above) the
 *    enforcer's own hard limit.
 *  - timeout: the supervisor's interval timer; at the deadline SIGTERM goes to init, which
 *    forwards it to the command; after the grace SIGKILL goes to init, which ends the PID
 *    namespace (and the cgroup is killed at the end of every run).
 *  - The end of the run: the exit status is the command's, except 137 for a timeout or an
 *    OOM kill of the command, with a `tartaros:` line naming the limit; forks refused at
 *    max_processes and OOM kills of other processes get a line too.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"
#include "context.h"

struct run_limits {
    cgroup_probe probe;
    cgroup_wants wants; /* what the cgroup is to carry; all zero = no cgroup */
    cgroup_run *cgroup; /* NULL until created, or when none */
    uint64_t nproc;     /* RLIMIT_NPROC the command sets for max_processes without a cgroup; 0 = none */
    bool nproc_exact;   /* ... counted in the sandbox's own user namespace: the limit holds exactly */
    unsigned helpers;   /* the enforcer's own tasks in the sandbox: init, mediator, socket factory */
};

/* Preflight: the limits this run wants of a cgroup (none when the plan has none and init is
 * PID 1 of its own namespace). Fills ctx->limits. */
void limits_prepare(run_ctx *ctx);

/* Preflight: probes the host when a cgroup is wanted. Calls `lost` for each limit no cgroup
 * can carry here (`instead` names the fallback, or NULL); the caller refuses or warns. */
typedef void (*limit_lost_fn)(void *arg, bool required, const char *what, const char *needs, const char *why,
                              const char *instead);
void limits_decide(run_ctx *ctx, limit_lost_fn lost, void *arg);

/* Preflight's late half: clone refused the user namespace (a degraded run), so RLIMIT_NPROC
 * would count the caller's every process: `lost` is called for max_processes if it rests on it. */
void limits_lost_user_namespace(run_ctx *ctx, limit_lost_fn lost, void *arg);

/* Supervisor, before init is cloned: creates the cgroup (exit 125 when that fails) and
 * starts its warden. */
void limits_create_cgroup(run_ctx *ctx);

/* Supervisor, before init is released: puts init into the cgroup. False with `why` when init
 * could not be moved. */
bool limits_attach(run_ctx *ctx, pid_t init, char *why, size_t why_size);

/* Supervisor, once the command has executed (raw calls: init runs C code on this memory).
 * Init lives in the memory cgroup but shares its address space with the supervisor and the
 * warden, and the OOM killer ends every process that shares its victim's memory: init is
 * made no candidate (oom_score_adj -1000, which needs CAP_SYS_RESOURCE, so root callers
 * only). The command has its own memory by now and keeps its score. */
void limits_protect_supervisor(const run_ctx *ctx, pid_t init);

/* Command, before it executes: the plan's rlimits and the RLIMIT_NPROC fallback. */
void limits_apply_rlimits(const run_ctx *ctx);

/* Supervisor, once init is released: arms the timeout (none without one). */
void limits_arm_timeout(const run_ctx *ctx, pid_t init);

/* Supervisor, once the command's status is known: no more timeout signals. */
void limits_disarm_timeout();

/* Supervisor, after init is gone: reads what the cgroup counted, kills leftovers and removes
 * it, prints the lines for limits that were hit, and returns the run's exit code. */
int limits_finish(const run_ctx *ctx, int code);

/* What RLIMIT_NPROC does not do that a pids cgroup would (for the warning and --explain). */
extern const char kNprocWeakness[];
