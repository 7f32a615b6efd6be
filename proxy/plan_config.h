/* proxy/plan_config.h — the proxy's configuration from the plan (--plan-fd, channel mode).
 *
 * tartaros-exec hands the proxy the plan it runs, in a sealed memfd, and the proxy takes from
 * it everything the plan carries: the HTTP proxy's port, allowed and denied names, pins and
 * destination ports, the relayed local ports, and the broker (port, auth header, allowed
 * hosts, CA file, capabilities). The plan is read with the one validating reader
 * (ir/plan_reader.h), so whatever a verified plan guarantees is not checked again here; what
 * it gives is only converted into the Config the flags fill in standalone use (config.h).
 * The command line keeps what is the run's own: descriptors, the run id, the caps derived
 * from memory, --strict.
 */
#pragma once

#include <string>

#include "config.h"

namespace tproxy {

// Fills the plan-carried fields of `c` from the plan in `fd` (read whole, then closed): "" or
// why not. The broker is configured only when c.broker.secrets_fd is set: tartaros-exec hands
// the secrets over only to a broker the run keeps.
std::string config_from_plan(int fd, Config &c);

}  // namespace tproxy
