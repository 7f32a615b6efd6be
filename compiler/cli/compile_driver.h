// compiler/cli/compile_driver.h — what tartaros-compile and tartaros share on the command line:
// reading a policy, compiling it, explaining a plan, and reporting the way every TartarOS
// binary does.
//
// Refusal contract (docs/architecture.md, rule 1): exit kExitRefusal and a first stderr line that starts
// "tartaros: ". A policy's diagnostics come after such a line ("tartaros: FILE: N errors"),
// each as `file:line:col: severity: message [rule-id]` with the source line and a caret.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "frontend_dsl.h"
#include "host_view.h"
#include "policy.h"

namespace tartaros {

inline constexpr unsigned kPlanMode = 0644;

// "tartaros: SOURCE: N error(s)", then every diagnostic (notes too); returns kExitRefusal.
int report_diagnostics_failure(const std::string &source, const Diagnostics &diags);

// Reads and parses the policy file `path` (named as given in diagnostics). On failure it has
// already reported (an unreadable file, or the policy's errors) and returns nullopt. With
// `texts`, every file read with its text (frontend_dsl.h).
std::optional<Policy> load_policy_file(const std::string &path, Diagnostics &diags, PolicyTexts *texts = nullptr);

// Lowers and verifies `policy`, asking `host` (null: the real filesystem) what it needs to
// know of the host; on failure reports under `source` and returns an empty plan. Warnings
// (and notes when `verbose`) are left in `diags` for the caller to print.
std::vector<uint8_t> compile_policy(const Policy &policy, const std::string &plan_path, const std::string &source,
                                    Diagnostics &diags, const HostView *host = nullptr);

// POLICY → PLAN written atomically (mode kPlanMode); warnings printed, notes when `verbose`.
int compile_policy_file(const std::string &policy_path, const std::string &plan_path, bool verbose);

// Prints the policy in `policy_path` as normalised .tart text to stdout (print_policy.h), its
// warnings to stderr. A policy with errors prints nothing: half a policy read back would mean
// less than the file says.
int print_policy_file(const std::string &policy_path);

// Prints the plan in `plan_path` as text or JSON to stdout, or its one-screen summary.
int explain_plan_file(const std::string &plan_path, bool json, bool summary = false);

// `tartaros verify`: checks the plan in `plan_path` without its policy (verify_plan_alone,
// verify.h) and prints one line "PLAN: ok: ..." to stdout, or refuses.
int verify_plan_file(const std::string &plan_path);

}  // namespace tartaros
