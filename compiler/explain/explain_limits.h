// compiler/explain/explain_limits.h — the limits step of --explain: every cgroup limit, the timeout
// and every rlimit, and which mechanism enforces each ON THIS HOST. The mechanism comes from
// the probe the enforcer's preflight uses (shared/cgroup_probe.h), so --explain says what a run
// here would do: a cgroup (v1 or v2, and which file), the RLIMIT_NPROC fallback, or nothing.
// The timeout (the supervisor's timer) and the rlimits (setrlimit before exec) need no cgroup.
#pragma once

#include <ostream>

#include "cgroup_probe.h"
#include "explain_net.h"
#include "explain_seccomp.h"
#include "plan_reader.h"

namespace tartaros {

// Text: "STEP. limits: ..." and its indented details.
void explain_limits_text(const tp_plan &plan, const cgroup_probe &host, int step, const OriginText &origin,
                         std::ostream &out);

// JSON: one object {"step":"limits", ...} (no trailing separator).
void explain_limits_json(const tp_plan &plan, const cgroup_probe &host, const OriginJson &origin, std::ostream &out);

}  // namespace tartaros
