/* enforcer/launch.h — how init starts the command, and where the network and IPC namespaces
 * are made.
 *
 * Creating a network namespace is the most expensive step of start-up (a loopback device and
 * its sysctl tables: about as long as the whole mount tree), an IPC namespace the next most,
 * and nothing in the mount tree depends on either. So the supervisor clones init without
 * them (kLateNamespaces), and when the run wants them, init starts the command right after
 * the release: the command unshares them on the other CPU and waits while init builds the
 * mount tree and the Landlock ruleset; init then joins them through the command's pidfd
 * (setns), so /proc/1/net shows nothing of the host, and lets the command go. Otherwise (no
 * PID namespace to clean up after a failure, or a kernel without CLONE_PIDFD) init starts the
 * command once the tree is built and unshares them itself first.
 *
 * Either way the command shares init's memory until it executes (CLONE_VM, posix_spawn
 * style: no page tables copied), runs on its own stack, and init sleeps until it has executed
 * or exited, so the two never run at once on shared memory except while the waiting command
 * makes raw system calls only.
 */
#pragma once

#include <sched.h>
#include <sys/types.h>

#include "context.h"

/* The namespaces init makes after the clone (launch.h); the supervisor's clone leaves them out. */
constexpr unsigned long kLateNamespaces = CLONE_NEWNET | CLONE_NEWIPC;

struct command_launch {
    pid_t pid; /* > 0: the command was started early and is waiting */
    int pidfd;
};

/* Init, right after the release. */
command_launch launch_early(const run_ctx *ctx);

/* Init, once the mount tree and `ruleset` (-1: none) are ready and the working directory
 * `cwd` (NULL: "/") is set: enters the new network namespace, lets the command run (or
 * starts it) and returns its pid once it has executed or exited. */
pid_t launch_command(run_ctx *ctx, command_launch *launch, int ruleset, const char *cwd);
