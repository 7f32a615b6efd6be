// compiler/explain/json_text.h — JSON string literals for --explain's JSON output.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tartaros {

// A JSON string literal, escaped as every JSON TartarOS writes (shared/json_escape.h): valid
// UTF-8 whatever the input, a byte that is not part of a well-formed sequence being U+FFFD.
std::string quote(std::string_view s);

// A JSON array of string literals.
std::string quote_list(const std::vector<std::string> &items);

}  // namespace tartaros
