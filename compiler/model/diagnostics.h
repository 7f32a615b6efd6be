// compiler/model/diagnostics.h — the one way the compiler reports a problem in a policy.
//
// Printed as `file:line:col: severity: message [rule-id]`, then the source line (its 200
// characters around the column, when longer) and a caret under the column, as editors and CI
// parse them. Rule ids are stable (lint docs and
// tests refer to them); a position with line 0 prints as `file: severity: ...`.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "exit_codes.h"
#include "policy.h"

namespace tartaros {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
    Severity severity = Severity::Error;
    SourcePos pos;
    std::string message;
    std::string rule_id;
};

class Diagnostics {
public:
    void error(const SourcePos &pos, std::string message, std::string rule_id);
    void warning(const SourcePos &pos, std::string message, std::string rule_id);
    void note(const SourcePos &pos, std::string message, std::string rule_id);

    bool has_errors() const;
    size_t error_count() const;
    size_t warning_count() const;
    const std::vector<Diagnostic> &all() const { return items_; }

    // Gives the text of `file` to print(), so it shows source lines without reading the file
    // again (the text a front-end parsed, which may never have been a file).
    void add_source(const std::string &file, const std::string &text);

    // Line `line` of `file` holds a secret at column `col`: every diagnostic that shows that
    // line (whatever its rule) shows the secret as one '*' per character (so every caret stays
    // in place): from a quote up to the closing quote, else up to a quote, blank, ',', ';', '}'
    // or ']'. A lint run in CI does not copy the secret into its log.
    void redact(const std::string &file, uint32_t line, uint32_t col);

    // Every diagnostic in order, with the source line and a caret when the file is readable;
    // notes (facts about how a rule is enforced, not problems) only when asked.
    void print(std::ostream &out, bool include_notes = true) const;

private:
    const std::vector<std::string> *lines_of(const std::string &file) const;

    std::vector<Diagnostic> items_;
    mutable std::map<std::string, std::vector<std::string>> lines_;               // file → its lines, read once
    std::map<std::pair<std::string, uint32_t>, std::vector<uint32_t>> redacted_;  // (file, line) → secrets' columns
};

// "file:line:col": how a message names another place in the policy.
std::string position_text(const SourcePos &pos);

// "line 4", or "common.tart:4" when `pos` is in another file than `here`, the position of the
// diagnostic that names it (a .tart policy's settings come from every file it includes).
std::string line_of(const SourcePos &pos, const SourcePos &here);

// The closest of `candidates` to `word` within a small edit distance, or "" — for
// "did you mean" hints on unknown keys.
std::string closest_match(const std::string &word, const std::vector<std::string> &candidates);

// The verdict of a check that is not a policy diagnostic (the verifier, translation
// validation, a plan read back): std::nullopt when it holds, else what is wrong, one line.
// The compiler's one convention for such checks (docs/architecture.md, "Errors").
using Failure = std::optional<std::string>;

// The refusal contract of every TartarOS binary (docs/architecture.md, rule 1): exit
// kExitRefusal with a first stderr line that starts "tartaros: ".
inline constexpr int kExitOk = 0;
inline constexpr int kExitRefusal = EXIT_REFUSAL;
inline constexpr int kExitStartup = EXIT_STARTUP;

// Prints "tartaros: LINE" to stderr and returns kExitRefusal.
int print_refusal(const std::string &line);

}  // namespace tartaros
