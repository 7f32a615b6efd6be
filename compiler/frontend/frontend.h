// compiler/frontend/frontend.h — the one way into the policy model from a policy file's text: by its
// name, a `.tart` file through the DSL front-end (frontend_dsl.h), anything else as TOML
// (frontend_toml.h). tartaros-compile, tartaros and lint all read policies through here, so
// both languages are accepted everywhere a policy is.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "diagnostics.h"
#include "frontend_dsl.h"
#include "policy.h"

namespace tartaros {

// True for a name ending in ".tart".
bool is_tart_path(std::string_view path);

// Parses and checks the policy `text` named `display_path` (see parse_dsl_policy_text and
// parse_toml_policy_text); both fill Policy::sources. With `texts`, lint's extra inputs.
std::optional<Policy> parse_policy_text(const std::string &text, const std::string &display_path, Diagnostics &diags,
                                        PolicyTexts *texts = nullptr);

}  // namespace tartaros
