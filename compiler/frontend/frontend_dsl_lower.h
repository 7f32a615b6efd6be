// compiler/frontend/frontend_dsl_lower.h — a .tart policy's settings written as one TOML document, for
// the TOML front-end's table readers to check and read (so every value check and message is
// theirs), with a PositionMap from each value's place in the document to its .tart token.
//
// The document: `version = V` first, then one table per block (`[filesystem]`...) holding
// every setting of that block from every statement of every file, in the order keys first
// appear; each list element on its own line; `[[broker.capability]]` tables with
// `name = "NAME"` from `capability NAME { }`. Groups are expanded in place; a relative path
// written in an included file is prefixed with that file's directory (SourceText::prefix).
//
// Errors reported here (the rest are the table readers'): duplicate-setting (a key that takes
// one value set twice, a table entry or map entry named twice, a capability's `name` besides
// its block's), unknown-key (a block other than filesystem, network, process, env, broker),
// dsl-syntax (`capability` outside `broker` or as a setting), unknown-group, group-kind (a
// group where its kind of value does not belong, or where a list cannot stand), group-size,
// wrong-type (an entry without NAME = in a table key), invalid-value (an integer beyond 64
// bits), unsupported-version (an included file's version other than the policy's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "diagnostics.h"
#include "frontend_dsl_resolve.h"
#include "toml_schema.h"

namespace tartaros::dsl {

// The policy file's version when it is not a .tart file (a TOML policy that includes .tart
// files): included files' versions must equal it.
struct RootVersion {
    int64_t value;
    SourcePos pos;
};

struct LoweredDocument {
    std::string text;
    PositionMap map;
};

// `document_path` becomes the map's document path. With `toml_root_version` unset, the
// policy file is program.files[0] and its first `version` statement is the policy's.
LoweredDocument lower_settings(const Program &program, const Groups &groups, const std::string &document_path,
                               const std::optional<RootVersion> &toml_root_version, bool root_is_tart,
                               Diagnostics &diags);

// `text` as a TOML basic string, quotes included: only '"', '\' and control characters other
// than tab are escaped, so a string written without those reads the same in both languages.
std::string toml_string(const std::string &text);

}  // namespace tartaros::dsl
