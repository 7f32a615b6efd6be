// compiler/frontend/frontend_toml.h — the TOML front-end: a policy file into the policy model.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "diagnostics.h"
#include "frontend_dsl.h"
#include "policy.h"
#include "toml_schema.h"

namespace tartaros {

// Parses and checks `path`. Returns the policy, or nullopt when any error was reported.
// Every problem found is reported (not only the first), each with its position.
std::optional<Policy> parse_toml_policy(const std::string &path, Diagnostics &diags);

// The same from text already in memory; `display_path` names it in diagnostics and is the
// base for relative paths (its directory). A top-level `include = ["rules.tart", ...]` reads
// those .tart files (frontend_dsl.h) and adds their settings to the document's. With `texts`,
// what lint needs of the files read is left there.
std::optional<Policy> parse_toml_policy_text(const std::string &text, const std::string &display_path,
                                             Diagnostics &diags);
std::optional<Policy> parse_toml_policy_text(const std::string &text, const std::string &display_path,
                                             Diagnostics &diags, PolicyTexts *texts);

// The table readers over a document already parsed: a TOML policy's own (with its includes
// merged in), or the one the .tart front-end lowers its settings into, whose positions `map`
// turns into .tart positions. `policy.source_path` must be set: relative paths resolve against
// its directory. Returns false when it reported an error.
bool read_policy_document(const toml::table &root, const std::string &display_path, const PositionMap *map,
                          Policy &policy, Diagnostics &diags);

// True for a name [env] accepts: letters, digits and '_', not starting with a digit.
bool is_env_name(std::string_view name);

}  // namespace tartaros
