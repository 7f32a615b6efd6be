// compiler/lint/lint.h — the one lint pipeline behind `tartaros lint` and `tartaros-compile --lint`.
//
// Per file: the front-end (parse_policy_text: .tart or TOML); when it parsed, the lowering and
// the verifier exactly as a compile runs them (nothing is written); then the lint rules of
// lint_rules.h (the text rules even when the front-end failed; for a .tart policy, on the TOML
// its settings were lowered to, and the secret rule on the text of every file it includes).
// Every file is read before any is checked, so an unreadable file is a refusal with nothing on
// the output.
//
// Exit codes: kExitOk (0) clean; kExitLintFindings (1) an error in some file, or a warning
// with --werror; kExitRefusal (78) an unreadable file or bad usage, each reported on stderr
// as a line starting "tartaros:" (the first line of stderr). Notes are never reported: they
// are facts about how a rule is enforced, not problems.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "diagnostics.h"

namespace tartaros {

inline constexpr int kExitLintFindings = 1;

enum class LintFormat { Text, Json, Sarif };

struct LintOptions {
    LintFormat format = LintFormat::Text;
    bool werror = false;  // warnings count as failures (exit 1); they still print as warnings
};

// Parses lint's own arguments (`--format F`, `--format=F`, `--werror`, `--` ending the
// options, then files) into `options` and `files`. Returns what is wrong, if anything, worded
// to follow "usage: ". At least one file is required.
Failure parse_lint_arguments(std::span<const std::string> args, LintOptions &options, std::vector<std::string> &files);

// Lints `files` (named as given in every report) and writes the report in `options.format`
// to `out`; refusals go to stderr. Returns the exit code above.
int run_lint(const std::vector<std::string> &files, const LintOptions &options, std::ostream &out);

}  // namespace tartaros
