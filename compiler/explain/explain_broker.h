// compiler/explain/explain_broker.h — the broker step of --explain: where the agent finds the broker
// and its token, each capability (name, upstream URL, header, the *name* of the variable that
// holds its value, methods, path prefixes), the allowed hosts, the internal-address rule, the
// trusted CAs, and what the broker leaves open. Printed only when the plan has a broker; it
// never holds a secret to print (the plan carries variable names only).
#pragma once

#include <ostream>

#include "explain_net.h"
#include "plan_reader.h"

namespace tartaros {

// Text: "STEP. broker: ..." and its indented details.
void explain_broker_text(const tp_plan &plan, int step, const OriginText &origin, std::ostream &out);

// JSON: one object {"step":"broker", ...} (no trailing separator).
void explain_broker_json(const tp_plan &plan, const OriginJson &origin, std::ostream &out);

}  // namespace tartaros
