/* shared/cgroup_probe.h — which cgroup hierarchy can hold each controller's limit on this host.
 *
 * Shared by the enforcer (preflight decides, enforcer/cgroup.h creates) and the compiler's
 * --explain (which says what would enforce each limit here). Plain C, libc only, no
 * allocation beyond the caller's struct: the static musl enforcer includes it.
 *
 * The decision reads /proc/self/cgroup (the caller's cgroup per hierarchy), /proc/self/mountinfo
 * (where each hierarchy is mounted, and its root) and the cgroup directories themselves
 * (cgroup.controllers, cgroup.subtree_control, cgroup.procs, write access). It creates nothing.
 * Per controller v2 is preferred when the controller is enabled in, or can be enabled from,
 * the caller's v2 cgroup (see enforcer/cgroup.h for the leaf move); else v1.
 *
 * CG_FREEZER stands for the kill switch. On v2 it is not a controller but the core files
 * cgroup.kill / cgroup.freeze of every non-root cgroup, so it needs only a writable v2 cgroup
 * (on a hybrid host such as this machine it is v2 while the limits are v1). At the v2
 * hierarchy's root (no cgroup.type file) a controller counts only when the root's
 * subtree_control already enables it: the caller's cgroup is never written, and the leaf move
 * is not for the root.
 */
#ifndef TARTAROS_IR_CGROUP_PROBE_H
#define TARTAROS_IR_CGROUP_PROBE_H

#include <stdbool.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where the kernel's files are: the real ones, or a fake tree in tests. */
struct cgroup_host {
    const char *proc_self_cgroup; /* "/proc/self/cgroup" */
    const char *mountinfo;        /* "/proc/self/mountinfo" */
    const char *root;             /* prepended to every mount point: "" on a host, a temp dir in tests */
    pid_t self;                   /* the supervisor's pid */
    /* Tests only (NULL on a host): the tree is plain directories, so cgroup_create gives each
     * directory it makes these files ("name" or "name=initial content"), as cgroupfs would,
     * and removing a cgroup unlinks them before the rmdir. */
    const char *const *fake_files;
};

/* The host's files (the production cgroup_host). */
struct cgroup_host cgroup_host_default(void);

enum cgroup_controller { CG_PIDS = 0, CG_MEMORY = 1, CG_CPU = 2, CG_FREEZER = 3, CG_CONTROLLER_COUNT = 4 };

/* Preflight's view of this host, per controller. */
struct cgroup_probe {
    int version[CG_CONTROLLER_COUNT];       /* 0 = not available, 1 = v1, 2 = v2 */
    char why_not[CG_CONTROLLER_COUNT][320]; /* when 0: one clause saying why */
    char parent[CG_CONTROLLER_COUNT][512];  /* when not 0: the directory the cgroup goes in */
    bool enable[CG_CONTROLLER_COUNT];       /* v2 controller not yet in parent's
                                                   cgroup.subtree_control: enabled with the leaf move */
    bool leaf_move;                         /* some enable[] is set: the leaf move is needed */
};

/* Reads the layout and permissions; creates and writes nothing. Every controller is probed
 * (wanted or not), so --explain-style messages can name the mechanism. */
void cgroup_probe_host(const struct cgroup_host *host, struct cgroup_probe *out);

/* For messages: "cgroup v2 pids", "cgroup v1 memory", "cgroup v2 freezer" (cgroup.kill), or
 * "no cgroup". */
const char *cgroup_mechanism(const struct cgroup_probe *probe, enum cgroup_controller c);

#ifdef __cplusplus
}
#endif

#endif /* TARTAROS_IR_CGROUP_PROBE_H */
