// compiler/explain/explain.h — any plan as text or JSON, every step in execution order with the
// policy line that caused it, then the limits that hold for the whole run (explain_limits.h).
// Reads plans only through ir/plan_reader.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cgroup_probe.h"

namespace tartaros {

// Prints `plan`; the limits step says what enforces each limit on this host (it probes the
// cgroups, shared/cgroup_probe.h). Returns false with a one-line reason in `err` when the plan is
// invalid.
bool explain_plan(const std::vector<uint8_t> &plan, bool json, std::ostream &out, std::string &err);

// The same with the cgroup layout given (tests).
bool explain_plan(const std::vector<uint8_t> &plan, bool json, const cgroup_probe &host, std::ostream &out,
                  std::string &err);

}  // namespace tartaros
