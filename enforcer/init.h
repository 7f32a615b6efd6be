/* enforcer/init.h — the sandbox's init: PID 1 of the new PID namespace.
 *
 * Runs on the supervisor's memory (CLONE_VM; raw.h says how the two keep apart). Waits for
 * the supervisor's release (the id maps are written), starts a new session (no controlling
 * terminal; the command inherits it), starts the command early when it is to make the
 * network and IPC namespaces (launch.h), builds the mount tree and the Landlock ruleset,
 * sets the hostname, lets the command run, then drops its own capabilities and only reaps and
 * forwards signals; it posts the command's status (exit_notice.h) and exits with it (128+N
 * for signal N). When it exits, the kernel kills whatever is left in the namespace.
 * PR_SET_PDEATHSIG ties it to the supervisor.
 */
#pragma once

#include "context.h"

[[noreturn]] void init_main(run_ctx *ctx, int release_fd, int status_fd);

/* The exit code for a wait status: the exit status, or 128+N for signal N. */
int exit_code_of(int wait_status);
