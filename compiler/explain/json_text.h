// compiler/explain/json_text.h — JSON string literals for --explain's JSON output.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tartaros {

// A JSON string literal. Bytes that are not valid UTF-8 (paths are bytes) become \u00XX.
std::string quote(std::string_view s);

// A JSON array of string literals.
std::string quote_list(const std::vector<std::string> &items);

}  // namespace tartaros
