// compiler/lint/lint_rules.h — the rule registry and the lint rules that go beyond the front-end,
// the lowering and the verifier (docs/lint-rules.md has one section per rule id).
//
// The lint pipeline (lint.h) runs the front-end, then the lowering and the verifier, then
// lint_policy_rules. Those rules never repeat what the earlier passes report (unknown keys,
// types, globs, duplicates, domain syntax, write denies outside the roots...): they need the
// whole policy at once, the raw text (positions of paths as written, comments), or the
// files next to the policy.
//
// Invariants:
//  - every rule id the compiler can emit is in lint_rule_registry() exactly once, with the
//    severity it is emitted with (tests/compiler/golden/lint/check.sh checks the compiler's sources
//    and docs/lint-rules.md against it);
//  - ids are stable kebab-case names: docs, SARIF help links and users' tooling refer to them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "policy.h"

namespace tartaros {

// Every rule id the compiler can emit (front-end, lowering, verifier, lint rules), with its
// default severity and a one-line summary; ids are stable.
struct LintRule {
    std::string_view id;
    Severity severity;
    std::string_view summary;
};
const std::vector<LintRule> &lint_rule_registry();

// The rules that need the whole policy or its raw text. `policy` is null when the
// front-end failed (then only the text rules, such as secrets, run). `text` is the file's
// content, `file` its name as given.
void lint_policy_rules(const std::string &text, const std::string &file, const Policy *policy, Diagnostics &diags);

// The rules on paths as written (path-leaves-policy-dir), alone, on `text`: the document the
// .tart files a TOML policy includes were lowered to, which lint_policy_rules does not see.
void lint_written_paths(const std::string &text, const std::string &file, const Policy &policy, Diagnostics &diags);

}  // namespace tartaros
