// compiler/frontend_toml.h — the TOML front-end: a policy file into the policy model.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "diagnostics.h"
#include "policy.h"

namespace tartaros {

// Parses and checks `path`. Returns the policy, or nullopt when any error was reported.
// Every problem found is reported (not only the first), each with its position.
std::optional<Policy> parse_toml_policy(const std::string &path, Diagnostics &diags);

// The same from text already in memory; `display_path` names it in diagnostics and is the
// base for relative paths (its directory).
std::optional<Policy> parse_toml_policy_text(const std::string &text, const std::string &display_path,
                                             Diagnostics &diags);

// True for a name [env] accepts: letters, digits and '_', not starting with a digit.
bool is_env_name(std::string_view name);

}  // namespace tartaros
