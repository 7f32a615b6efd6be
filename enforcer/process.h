/* enforcer/process.h — the command process (PID 2) and the credentials every sandboxed
 * process gives up.
 *
 * Order in the command, after init forked it: parent-death signal, environment, inherited
 * fds closed, Landlock ruleset built (paths opened while the caller's access still holds),
 * capabilities dropped, no_new_privs, Landlock restrict_self, exec with a PATH search.
 */
#pragma once

#include <sys/types.h>

#include "context.h"

/* The value of /proc/sys/kernel/cap_last_cap (read before /proc is replaced). */
int read_cap_last();

/* Drops every capability: bounding set, ambient set, then effective/permitted/inheritable,
 * with SECBIT_NOROOT and friends locked so that exec cannot regain any. Fails (125) when a
 * capability is still held afterwards. */
void drop_capabilities(int cap_last);

/* Runs in the child init forked; `init_pid` is init's pid as the child sees its parent. */
[[noreturn]] void command_main(const run_ctx *ctx, pid_t init_pid);
