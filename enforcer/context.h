/* enforcer/context.h — what one run of tartaros-exec knows: the plan, the options, and the
 * decisions preflight took about what the host can install. Filled by main and preflight in
 * the supervisor; init gets a copy through clone, and the command shares init's memory until
 * it executes.
 */
#pragma once

#include <sys/types.h>

#include "plan_reader.h"

/* The plan file the run reads, so the sandbox cannot modify it for the next run. */
struct plan_identity {
    const char *path; /* absolute, symlink-free (as the kernel names the opened file) */
    dev_t dev;
    ino_t ino;
};

struct run_limits;
struct stdio_setup;

struct run_ctx {
    const struct tp_plan *plan;
    const char *plan_path; /* as the caller gave it, for messages */
    plan_identity plan_file;
    bool strict;          /* --strict: a required guarantee that cannot be installed refuses */
    char *const *argv;    /* the command and its arguments, NULL-terminated */
    const char *log_path; /* --log: the effect log (effect_log.h), or NULL */

    uid_t uid; /* the caller's effective ids: what the user namespace maps */
    gid_t gid;
    bool caller_is_root;

    /* Decisions of preflight (and of the supervisor when clone itself refuses). */
    unsigned long clone_flags; /* CLONE_NEW* for the init process */
    bool mount_layer;          /* run the plan's mount steps */
    bool pid_ns;               /* init is PID 1 of a new PID namespace */
    unsigned landlock_abi;     /* ABI in use; 0 = Landlock is not applied */
    bool seccomp;              /* load the plan's seccomp filter */
    bool seccomp_early;        /* ... and the early command may load it (seccomp.h) */
    bool mediate_connect;      /* mediate the command's connect() calls (mediator.h) */
    bool deny_events;          /* the effect log records denied system calls (deny_events.h) */
    bool broker;               /* the credential broker runs: it needs the network namespace
                                   and the mount layer (its credentials directory) */
    run_limits *limits;        /* cgroup, rlimits and timeout of the run (run_limits.h) */
    stdio_setup *stdio;        /* what the command gets as fds 0-2 (stdio_fds.h) */

    struct exit_notice *exit_notice; /* shared by the supervisor and init; NULL = none */
    int net_channel;                 /* init's end of the channel to tartaros-proxy (egress.h); -1 = none */
    int mediator_fd;                 /* the command's end of the hand-off to the connect mediator; -1 = none */
};

/* Whether a guarantee may not degrade: the plan marks it required and the run is --strict. */
inline bool must_not_degrade(const run_ctx *ctx, bool plan_required)
{
    return ctx->strict && plan_required;
}
