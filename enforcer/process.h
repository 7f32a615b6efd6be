/* enforcer/process.h — the command process (PID 2) and the credentials every sandboxed
 * process gives up.
 *
 * Order in the command, after init started it: parent-death signal, environment, inherited
 * fds marked close-on-exec, capabilities dropped, no_new_privs, Landlock restrict_self (the
 * ruleset init built), the plan's seccomp filter, exec with a PATH search. The early command
 * (launch.h) takes the steps that need no C code before init lets it go: the bounding set and
 * securebits, no_new_privs, and the filter when it admits the rest (setup_calls.h).
 */
#pragma once

#include <sys/types.h>

#include "context.h"

/* Closes every fd from 3 up except `keep_a` and `keep_b` (-1: none). */
void close_fds_except(int keep_a, int keep_b);

/* The command: no fd from 3 up reaches what it executes; `keep_a`/`keep_b` are still needed
 * until then (the status pipe and the Landlock ruleset, both close-on-exec). */
void close_inherited_fds_at_exec(int keep_a, int keep_b);

/* Drops every capability: ambient, effective, permitted and inheritable, and — when the
 * process will exec — the bounding set, with SECBIT_NOROOT and friends locked so that exec
 * cannot regain any. Init never executes anything, so it skips the bounding set (a syscall per
 * capability). Fails (125) when a capability is still held afterwards. */
void drop_capabilities(bool before_exec);

/* The early command while it waits for init, raw (raw.h): bounding set and securebits,
 * no_new_privs, the plan's filter (seccomp_enforce_early). Failures are reported by
 * command_main, at the step they stand for. */
void command_confine_early(const run_ctx *ctx);

/* Runs in the child init started; `init_pid` is init's pid as the child sees its parent,
 * `ruleset` the Landlock ruleset to enforce (-1: none). */
[[noreturn]] void command_main(const run_ctx *ctx, pid_t init_pid, int ruleset);
