/* enforcer/preflight.h — everything that can refuse, before anything is created.
 *
 * Checks what the plan reader cannot (path shapes, step order, consistency), then probes the
 * kernel (Landlock ABI, the mount API) and decides per guarantee what this host can install;
 * whether it allows user namespaces is learned from clone itself (degrade_namespaces). A guarantee that cannot be installed refuses the run (78, one line)
 * when the plan marks it required and the run is --strict; otherwise each one lost is a
 * `tartaros: warning:` line. Warnings come only after every refusal check has passed.
 */
#pragma once

#include "context.h"

void preflight(run_ctx *ctx);

/* The kernel refused the namespaces in ctx->clone_flags with `err` because of `reason`: a
 * root caller loses only the user namespace, anyone else every namespace (and with them the
 * mount layer). Refuses or warns like preflight; an EPERM in a container names the option
 * that lets its seccomp profile allow them (container.h). */
void degrade_namespaces(run_ctx *ctx, int err, const char *reason);

/* Init could not create the namespaces `lost` (network, IPC) with `err` for `reason`:
 * refuses when one is required and the run is --strict, otherwise warns that its isolation
 * is lost. */
void degrade_namespaces_late(run_ctx *ctx, unsigned long lost, int err, const char *reason);
