/* enforcer/egress.h — the supervisor's half of what crosses the sandbox's network namespace:
 * the channel to tartaros-proxy, the host listeners of exposed ports, and the proxy itself.
 *
 * The proxy runs on the host side, as the supervisor's child in a session of its own, with an
 * empty environment; it dies with the supervisor (PDEATHSIG) and exits by itself when the
 * sandbox side of the channel closes. It is started before the sandbox so that its start-up
 * (dynamic loading, its own Landlock and seccomp) runs on the other CPU while init builds the
 * mount tree; init's half (listeners.h) hands it the listeners and waits for its "ready".
 * When the run has a cgroup the proxy is in it, from before it executes: its memory, tasks and
 * CPU (TLS included) count against the run's limits, and its connection caps follow
 * memory_max (--max-connections, --max-exchanges; shared/net_channel.h). The sandbox cannot
 * write cgroup files, and the supervisor ends the proxy before it kills the cgroup.
 * Protocol: shared/net_channel.h. The proxy takes its configuration from the plan, which it
 * inherits as a sealed memfd (--plan-fd) and reads with the same validating reader; its command
 * line holds only what is this run's own (descriptors, caps, the run id). With the credential
 * broker, it also inherits the sealed memfd of the secrets (secrets.h,
 * shared/broker_secrets_wire.h).
 */
#pragma once

#include "context.h"

/* Supervisor, before init is cloned. With a network section in the plan and a network
 * namespace to put it in: finds tartaros-proxy (next to tartaros-exec, else in the installed
 * helper directory relative to it; never through $PATH: docs/install.md), makes the channel
 * (ctx->net_channel: init's end), listens on the host's 127.0.0.1:PORT for each exposed port
 * and starts the proxy (not when the broker, lost, was all there was to serve). Any failure
 * is a start-up failure (125) before anything else ran. */
void egress_start(run_ctx *ctx);

/* Supervisor, once init is cloned: its copy of init's end must go, or the proxy would never
 * see the sandbox end. */
void egress_release_sandbox_end(run_ctx *ctx);

/* Preflight and supervisor: the tasks the proxy will add to the run's cgroup (pids.max), 0
 * when no proxy runs. */
unsigned egress_tasks(const run_ctx *ctx);

/* Supervisor, once the run is over and the command's output is relayed (relay_finish): asks
 * the proxy to stop (SIGTERM), copies its end-of-run notes to stderr (one `tartaros: note:`
 * line per distinct refusal; bounded wait), then kills and reaps it, so no process of the run
 * outlives it and it is gone before the run's cgroup is killed. Raw calls only (raw.h). */
void egress_stop();
