/* enforcer/egress.h — the supervisor's half of what crosses the sandbox's network namespace:
 * the channel to tartaros-proxy, the host listeners of exposed ports, and the proxy itself.
 *
 * The proxy runs on the host side, as the supervisor's child in a session of its own, with an
 * empty environment; it dies with the supervisor (PDEATHSIG) and exits by itself when the
 * sandbox side of the channel closes. It is started before the sandbox so that its start-up
 * (dynamic loading, its own Landlock and seccomp) runs on the other CPU while init builds the
 * mount tree; init's half (listeners.h) hands it the listeners and waits for its "ready".
 * Protocol: ir/net_channel.h. With the credential broker, the proxy also inherits the sealed
 * memfd of its secrets (secrets.h, ir/broker_secrets.h); its command line holds only names.
 */
#pragma once

#include "context.h"

/* Supervisor, before init is cloned. With a network section in the plan and a network
 * namespace to put it in: finds tartaros-proxy next to tartaros-exec, makes the channel
 * (ctx->net_channel: init's end), listens on the host's 127.0.0.1:PORT for each exposed port
 * and starts the proxy (not when the broker, lost, was all there was to serve). Any failure
 * is a start-up failure (125) before anything else ran. */
void egress_start(run_ctx *ctx);

/* Supervisor, once init is cloned: its copy of init's end must go, or the proxy would never
 * see the sandbox end. */
void egress_release_sandbox_end(run_ctx *ctx);

/* Supervisor, once the run is over (init has posted the command's status or is gone): ends
 * the proxy and reaps it, so no process of the run outlives it. Raw calls only (raw.h). */
void egress_stop();
