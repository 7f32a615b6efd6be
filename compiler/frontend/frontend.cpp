// compiler/frontend/frontend.cpp — see frontend.h.
#include "frontend.h"

#include "frontend_toml.h"

namespace tartaros {

bool is_tart_path(std::string_view path)
{
    return path.ends_with(".tart");
}

std::optional<Policy> parse_policy_text(const std::string &text, const std::string &display_path, Diagnostics &diags,
                                        PolicyTexts *texts)
{
    if (is_tart_path(display_path))
        return parse_dsl_policy_text(text, display_path, diags, texts);
    return parse_toml_policy_text(text, display_path, diags, texts);
}

}  // namespace tartaros
