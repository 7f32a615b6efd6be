// compiler/explain/explain_seccomp.h — the seccomp step of --explain: the profile, the per-syscall
// action table, the policy's own syscall rules with their origins (after the baseline and
// hardening ones), what the filter costs (longest allowed path, frequency-weighted mean), the
// kernel's limits, and the disassembly. The profile is rebuilt from the plan's tp_seccomp flags
// and syscall rule sections (seccomp_rules.h), the numbers are measured on the plan's own
// program.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "plan_reader.h"

namespace tartaros {

// Formats a policy position ("agent.toml:12:1" or "(default)").
using OriginText = std::function<std::string(tp_origin)>;

// Text: "STEP. seccomp: ..." and its indented details. Requires plan.seccomp != nullptr.
void explain_seccomp_text(const tp_plan &plan, int step, const OriginText &origin, std::ostream &out);

// JSON: one object {"step":"seccomp", ...} (no trailing separator); `origin` writes a
// position as the other steps do.
using OriginJson = std::function<void(std::ostream &, tp_origin)>;
void explain_seccomp_json(const tp_plan &plan, const OriginJson &origin, std::ostream &out);

}  // namespace tartaros
