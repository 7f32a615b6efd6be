/* enforcer/mediator.h — connect() mediation: the host's unix sockets wherever they are.
 *
 * A pathname unix socket can be connected to through a read-only mount, and Landlock (ABI 7)
 * has no right for connect(): the implied masks of /run and /tmp hide the usual places, but a
 * socket anywhere else readable (~/.docker/run, /var/lib/..., a directory the host shares, the
 * workspace itself) would stay in reach. So every connect(), bind(), sendmsg(), sendmmsg() and
 * sendto() with an address of the command goes through a mediator (the rules: ir/bpf_listen.h):
 *  - the command installs the rules as a filter (those calls -> user notification): when it
 *    is started early (launch.h), while it waits for init, so the listener lands in the fd
 *    table it shares with init; otherwise just before the plan's filter, and the mediator,
 *    already running, takes the listener from it (pidfd_getfd) through a hand-off socketpair;
 *  - the mediator, a child of init inside the sandbox's mount and PID namespaces, takes a
 *    duplicate of the command's socket (pidfd_getfd), copies the address once, and makes the
 *    call itself (socket_calls.h: a unix pathname socket is the sandbox's only on the private
 *    /tmp or /dev/shm; a stream connect is made on a socket of its own and installed over the
 *    command's descriptor once its peer is known to be the sandbox's; a send that must wait for
 *    room is held while the mediator answers others, send_calls.h), answering the command
 *    with its result;
 *  - without the network namespace, TCP and abstract unix addresses are refused, as Landlock's
 *    TCP layer and abstract-socket scope would have.
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE is never used for these calls: the kernel would read the
 * address and the descriptor again, after a thread could have rewritten or swapped them.
 * With the effect log the filter has two more rules, execve and execveat -> user
 * notification, and the mediator writes an exec event for each and lets the kernel go on
 * (exec_events.h); it then starts before the command's own execve, which it answers too.
 * With denied-syscall events too (deny_events.h), the command loads one listener program in
 * place of both that filter and the plan's (ir/bpf_listen.h), as its very last step, and hands
 * the listener over on both paths; the mediator answers each denial with the plan's errno.
 * Limits (docs/limits.md): a mediated unix connection's peer credentials, and those a mediated
 * send attaches, name the mediator (same uid and gid); a blocking connect holds the calls
 * behind it; every sendmsg() is a round trip to the mediator (send() and write() are not).
 */
#pragma once

#include "context.h"

/* Preflight: whether the kernel has user notification and pidfd_getfd (Linux 5.6), or why not. */
const char *mediator_unavailable_reason();

/* The early command, while init builds the sandbox (raw calls only): installs the filter. */
void mediator_install_early(const run_ctx *ctx);

/* Init, once the mount tree is built and before the command starts. `early`: the command was
 * started early and installs the filter itself; otherwise makes the hand-off and leaves the
 * command's end in ctx->mediator_fd. */
void mediator_prepare(run_ctx *ctx, bool early);

/* Init, once the command has executed, while init still holds its capabilities: starts the
 * mediator, off the command's start-up path, and closes init's copy of the listener or the
 * hand-off. A connect() made before the mediator runs waits for it. */
void mediator_start(const run_ctx *ctx);

/* Init, just before it lets the command run (launch.cpp). The mediator starts here, and
 * mediator_start does nothing, when it must exist before the command: with a hand-off (the
 * command waits for the mediator to take its listener); with exec events (the
 * effect log) the filter also stops the command's own execve, which the mediator answers;
 * with max_processes the mediator is one of the tasks the limit counts (run_limits.h), and
 * started later it could find its slot taken by the command's first forks. */
void mediator_start_before_command(const run_ctx *ctx);

/* The command, after no_new_privs and Landlock, before the plan's filter: unless the early
 * command did, installs the connect filter (with denied-syscall events: the listener program,
 * which holds the plan's filter) and waits while the mediator takes its listener; refuses to
 * go on (125) when the filter could not be installed or handed over. */
void mediator_attach(const run_ctx *ctx);

/* Init, for each child it reaps while the command runs: notes a mediator killed by a signal. */
void mediator_reaped(pid_t pid, int wait_status);

/* The supervisor, once the command is over: a warning when the mediator stopped while the
 * command could still call it (its calls then fail with ENOSYS, which is closed but silent). */
void mediator_report_end();
