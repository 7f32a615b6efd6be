/* enforcer/listeners.h — init's half of what crosses the network namespace (egress.h has the
 * supervisor's): the listeners inside, the proxy's "ready", and the socket factory.
 *
 * Only init can make sockets in the sandbox's namespace before the command runs, and only a
 * process inside it can make one later: tartaros-proxy, on the host side, gets its listeners
 * and, for each connection into an exposed port, a fresh socket from here (shared/net_channel.h).
 */
#pragma once

#include "context.h"

/* Init, in the private network namespace with its loopback up, before the command runs:
 * binds 127.0.0.1:PORT for the proxy, the broker and each local port, hands the listeners to
 * the proxy, waits for its answer (a refusal it reports is exit 78, any other failure 125),
 * and starts the socket factory when the plan exposes ports. Without a proxy: nothing. */
void listeners_hand_over(const run_ctx *ctx);

/* Init, when the network namespace was lost: closes its end of the channel, so the proxy,
 * which never got a listener, exits. */
void listeners_abandon(run_ctx *ctx);
