// compiler/diagnostics.h — the one way the compiler reports a problem in a policy.
//
// Printed as `file:line:col: severity: message [rule-id]`, then the source line and a
// caret under the column, as editors and CI parse them. Rule ids are stable (lint docs and
// tests refer to them); a position with line 0 prints as `file: severity: ...`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

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
    const std::vector<Diagnostic> &all() const { return items_; }

    // Every diagnostic in order, with the source line and a caret when the file is readable.
    void print(std::ostream &out) const;

private:
    std::vector<Diagnostic> items_;
};

// The closest of `candidates` to `word` within a small edit distance, or "" — for
// "did you mean" hints on unknown keys.
std::string closest_match(const std::string &word, const std::vector<std::string> &candidates);

}  // namespace tartaros
