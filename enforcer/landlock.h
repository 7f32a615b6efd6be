/* enforcer/landlock.h — the Landlock layer (the allow-list), installed by the command process.
 *
 * The plan's rights are ABI 7 numbering; they are masked to the running ABI (preflight
 * decided whether what is lost may degrade). Rules are opened O_PATH; a directory listed
 * with TP_LL_EXPAND gets one rule per entry (except the named ones) at run time.
 */
#pragma once

#include <stdint.h>

#include "context.h"

/* The highest ABI this enforcer knows (the plan format's numbering). */
constexpr unsigned kLandlockMaxAbi = 7;

/* The kernel's Landlock ABI, or 0 when the kernel has none (errno says why). */
unsigned landlock_probe_abi();

/* Filesystem rights the given ABI knows. */
uint64_t landlock_fs_rights(unsigned abi);

/* Init, before anything irreversible: refuses when a non-optional rule path is absent. */
void landlock_check_paths(const run_ctx *ctx);

/* Init, once the mount tree is final: creates the ruleset and adds every rule (before any
 * capability is dropped, so the rule paths are opened with the caller's full access). Returns
 * the ruleset fd, which the command inherits, or -1 when Landlock is not applied. Refuses
 * (78) when a rule cannot be added, but for an expansion the caller cannot list, which is
 * left out (reach.h). */
int landlock_build(const run_ctx *ctx);

/* Command: landlock_restrict_self (no_new_privs must be set already). */
void landlock_enforce(int ruleset_fd);

/* The command, after no_new_privs: when the plan wanted a private network namespace and the
 * host refused it (no --strict), a second Landlock layer handles TCP bind and connect and
 * grants neither, so nothing of the host's network is reachable over TCP (ABI 4; UDP and
 * other protocols are not covered: docs/limits.md). With the namespace there is nothing for
 * it to stop, and the agent's own loopback servers keep working. */
void landlock_deny_tcp_without_netns(const run_ctx *ctx);
