// compiler/explain/explain_summary.h — a plan on one screen (`--explain --summary`): what the
// sandbox may read, write and reach, its filter, namespaces, limits and environment, a line
// each, with the first few names of every list. The full --explain (explain.h) gives every
// step with its policy line; this answers "what does this plan let an agent do" at a glance.
// Reads the plan only through ir/plan_reader.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace tartaros {

// Prints the summary of `plan`; false with a one-line reason in `err` when the plan is invalid.
bool explain_plan_summary(const std::vector<uint8_t> &plan, std::ostream &out, std::string &err);

}  // namespace tartaros
