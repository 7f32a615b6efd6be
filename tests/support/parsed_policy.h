// tests/support/parsed_policy.h — what the TOML front-end tests look at: a parsed policy and its
// diagnostics, one line each.
#pragma once

#include <optional>
#include <string>

#include "diagnostics.h"
#include "policy.h"

namespace tartaros {

struct Parsed {
    std::optional<Policy> policy;
    Diagnostics diags;
};

// Every diagnostic as `line:col: severity: message [rule]`, one per line.
inline std::string summary(const Diagnostics &diags)
{
    std::string out;
    for (const Diagnostic &d : diags.all()) {
        const char *severity = d.severity == Severity::Error ? "error"
            : d.severity == Severity::Warning                ? "warning"
                                                             : "note";
        out += std::to_string(d.pos.line) + ":" + std::to_string(d.pos.col) + ": " + severity + ": " + d.message +
            " [" + d.rule_id + "]\n";
    }
    return out;
}

}  // namespace tartaros
