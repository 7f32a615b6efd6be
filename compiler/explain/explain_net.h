// compiler/explain/explain_net.h — the network step of --explain: the mode(s), what crosses the
// private namespace and how, the proxy's names and ports, and what the kernel leaves open.
#pragma once

#include <ostream>

#include "explain_seccomp.h"
#include "plan_reader.h"

namespace tartaros {

// Text: "STEP. network: ..." and its indented details.
void explain_network_text(const tp_plan &plan, int step, const OriginText &origin, std::ostream &out);

// JSON: one object {"step":"network", ...} (no trailing separator); `origin` writes a
// position as the other steps do (OriginJson: explain_seccomp.h).
void explain_network_json(const tp_plan &plan, const OriginJson &origin, std::ostream &out);

}  // namespace tartaros
