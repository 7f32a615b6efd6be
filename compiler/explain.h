// compiler/explain.h — any plan as text or JSON, every step in execution order with the
// policy line that caused it. Reads plans only through ir/plan_reader.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace tartaros {

// Prints `plan`. Returns false with a one-line reason in `err` when the plan is invalid.
bool explain_plan(const std::vector<uint8_t> &plan, bool json, std::ostream &out, std::string &err);

}  // namespace tartaros
