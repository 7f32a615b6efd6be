/* enforcer/cgroup.h — the run's own cgroup: the limits of tp_limits, and the kill switch for
 * whatever the sandbox leaves behind.
 *
 * Invariants:
 *  - A cgroup is only ever created beneath the supervisor's own cgroup of that hierarchy (as
 *    /proc/self/cgroup names it, found through /proc/self/mountinfo), named
 *    tartaros-<supervisor pid>; an existing directory of that name is never reused.
 *  - The caller's cgroup is never written and no process of the caller is moved, with one
 *    exception (v2, the leaf move): when the supervisor is the only process of its v2 cgroup
 *    (a cgroup made for this run, e.g. by `systemd-run --scope -p Delegate=yes`) and the
 *    controllers it needs are available but not enabled there, it moves itself into the leaf
 *    tartaros-<pid>.supervisor, enables them in its cgroup's subtree_control, and undoes both
 *    at the end (cgroup_finish, or the warden).
 *  - Per controller, v2 is preferred; v1 (`/sys/fs/cgroup/<controller>` on this machine kind)
 *    is the fallback. Whenever any cgroup is made, the kill switch is made too when the probe
 *    found one (CG_FREEZER): a v2 cgroup (cgroup.kill; on a hybrid host such as this machine
 *    it sits in the cgroup2 hierarchy next to the v1 limits) or else a v1 freezer cgroup.
 *  - Nothing is half-made: cgroup_create either returns every cgroup the probe chose, limits
 *    written, or removes what it made and reports why.
 *
 * Who calls what: preflight probes (creates nothing); the supervisor creates before init is
 * cloned (and, when probe->leaf_move, before it starts any other process: its later children
 * are born in the leaf), starts the warden right away, attaches init before releasing it,
 * reads the events and finishes after init is gone. The warden is a process outside the
 * sandbox that, should the supervisor die without finishing (SIGKILL), kills what is left in
 * the cgroups and removes them (cgroup_warden.cpp).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup_probe.h"

/* What the run wants of cgroups. */
struct cgroup_wants {
    uint64_t pids_max;     /* tasks, the enforcer's helpers included; 0 = no limit */
    uint64_t memory_max;   /* bytes; 0 = no limit */
    uint32_t cpu_quota_us; /* 0 = no limit */
    uint32_t cpu_period_us;
    bool kill_switch; /* a cgroup even without limits: no PID namespace ends leftovers */
};

/* The run's cgroups once created. */
struct cgroup_run;

/* Supervisor, before init is cloned: creates the cgroups for the wanted limits (and the kill
 * switch when available), writes the limits. NULL with `why` filled when any wanted limit (or
 * the kill switch) could not be set up; then nothing is left behind. With nothing wanted, an
 * empty run on which the other calls do nothing. Allocates from the arena. */
cgroup_run *cgroup_create(const cgroup_host *host, const cgroup_probe *probe, const cgroup_wants *wants, char *why,
                          size_t why_size);

/* Supervisor: moves `pid` (init, still waiting for its release) into every run cgroup. */
bool cgroup_attach(cgroup_run *run, pid_t pid, char *why, size_t why_size);

/* A child of the supervisor that shares its memory (tartaros-proxy before it executes): moves
 * itself into every run cgroup, raw calls only. 0 or -errno. */
long cgroup_attach_self(const cgroup_run *run);

/* Supervisor, right after cgroup_create (no window in which a killed supervisor leaves the
 * cgroups behind): starts the warden (see the top). Raw calls only in it. It closes every fd
 * it inherits but a pidfd of the supervisor. One warden per process (its stack is static);
 * warns when it cannot be started. */
void cgroup_start_warden(cgroup_run *run);

/* What the kernel counted in the run's cgroups; read before cgroup_finish removes them. */
struct cgroup_events {
    uint64_t oom_kills;    /* processes the OOM killer ended (memory.events / memory.oom_control) */
    uint64_t pids_refused; /* forks refused at pids.max (pids.events "max") */
    uint64_t memory_peak;  /* bytes (memory.peak / memory.max_usage_in_bytes); 0 = unknown */
};
void cgroup_read_events(const cgroup_run *run, cgroup_events *out);

/* Kills every process still in the run's cgroups (v2: cgroup.kill; v1: freeze, SIGKILL each,
 * thaw), waits until they are empty (at most ~2 s), removes them, undoes the leaf move, and
 * tells the warden it is done. A second call does nothing; NULL is allowed. Warns (never
 * fails) when something stays behind, and then leaves the warden to try again once the
 * supervisor has exited. */
void cgroup_finish(cgroup_run *run);
