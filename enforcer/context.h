/* enforcer/context.h — what one run of tartaros-exec knows: the plan, the options, and the
 * decisions preflight took about what the host can install. Filled by main and preflight in
 * the supervisor; the init and command processes get a copy through clone/fork.
 */
#pragma once

#include <sys/types.h>

#include "plan_reader.h"

struct run_ctx {
    const struct tp_plan *plan;
    const char *plan_path;
    bool strict;           /* --strict: a required guarantee that cannot be installed refuses */
    char *const *argv;     /* the command and its arguments, NULL-terminated */

    uid_t uid;             /* the caller's effective ids: what the user namespace maps */
    gid_t gid;
    bool caller_is_root;

    /* Decisions of preflight (and of the supervisor when clone itself refuses). */
    unsigned long clone_flags;  /* CLONE_NEW* for the init process */
    bool mount_layer;           /* run the plan's mount steps */
    bool pid_ns;                /* init is PID 1 of a new PID namespace */
    unsigned landlock_abi;      /* ABI in use; 0 = Landlock is not applied */

    /* Learned by init before the mount steps replace /proc. */
    int cap_last;
};

/* Whether a guarantee may not degrade: the plan marks it required and the run is --strict. */
inline bool must_not_degrade(const run_ctx *ctx, bool plan_required)
{
    return ctx->strict && plan_required;
}
