// compiler/lint/lint_report.h — a lint run's diagnostics as text, JSON or SARIF 2.1.0.
//
// The three renderings report the same diagnostics: every error and warning of every file,
// in file order and, within a file, in the order they were found; notes are left out.
//  - text: Diagnostics::print per file (`file:line:col: severity: message [rule-id]`, the
//    source line, a caret), then "N file(s), N error(s), N warning(s)".
//  - JSON: one object {tool, version, files, errors, warnings, diagnostics: [{file, line,
//    column, severity, rule, message}]}; line and column are 0 for a diagnostic about the
//    whole file. Strings are UTF-8; bytes that are not become \u00XX (json_text.h).
//  - SARIF 2.1.0: one run whose tool.driver.rules is the rule registry given, each rule's
//    helpUri pointing into docs/lint-rules.md; a result's location has a region only when
//    the diagnostic has a line. Artifact URIs are the paths as given, percent-encoded.
#pragma once

#include <cstddef>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "lint_rules.h"

namespace tartaros {

// One linted file: its name as given and everything the checks reported about it.
struct LintedFile {
    std::string file;
    Diagnostics diags;
};

struct LintCounts {
    size_t files = 0;
    size_t errors = 0;
    size_t warnings = 0;
};

LintCounts count_lint_findings(std::span<const LintedFile> files);

void render_lint_text(std::span<const LintedFile> files, std::ostream &out);
void render_lint_json(std::span<const LintedFile> files, std::ostream &out);

// `docs_url` is the absolute URI that docs/lint-rules.md is relative to (ends with '/'); it
// is also the driver's informationUri.
void render_lint_sarif(std::span<const LintedFile> files, std::span<const LintRule> rules, std::string_view docs_url,
                       std::ostream &out);

// A file path as a URI reference: unreserved bytes and '/' as they are, every other byte
// percent-encoded; an absolute path becomes a file:// URI.
std::string path_to_uri(std::string_view path);

}  // namespace tartaros
