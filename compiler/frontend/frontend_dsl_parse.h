// compiler/frontend/frontend_dsl_parse.h — one .tart file's text into its syntax tree
// (frontend_dsl_ast.h).
//
// Errors, all `dsl-syntax`: text that is not UTF-8 (the first bad byte); the first character
// the language does not use, string without its closing quote, or brace nested deeper than
// kMaxNesting (so no input can exhaust the parser's stack), and then the parser does not run:
// every later error would be a consequence; the first thing the parser cannot read
// (frontend_dsl_errors.h); each invalid escape or control character in a string.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "diagnostics.h"
#include "frontend_dsl_ast.h"

namespace tartaros::dsl {

inline constexpr size_t kMaxNesting = 32;

// `display` names the file in positions; `file_index` is stored in every Value (which file
// of the policy wrote it). Nullopt when any error was reported.
std::optional<File> parse_tart_file(const std::string &text, const std::string &display, size_t file_index,
                                    Diagnostics &diags);

// A TOML basic string's content (between the quotes) decoded; on a bad escape or control
// character, nullopt after an error whose column counts from `at` (the opening quote).
std::optional<std::string> decode_string(const std::string &content, const SourcePos &at, Diagnostics &diags);

}  // namespace tartaros::dsl
