/* proxy/http_util.h — the HTTP/1.1 lexical rules both head parsers (requests and responses)
 * apply, so the broker reads a response exactly as strictly as the proxy reads a request. */
#pragma once

#include <string_view>
#include <vector>

namespace tproxy {

char lower_ascii(char c);
bool iequals(std::string_view a, std::string_view b);
// RFC 9110 token (a method or a field name).
bool is_token(std::string_view s);
bool all_digits(std::string_view s);
// CR only before LF, LF only after CR, and no other control byte but HTAB: the framing every
// parser agrees on. A CR that ends the buffer may still be followed by its LF.
bool clean_bytes(std::string_view s);
// Leading and trailing spaces and tabs removed.
std::string_view trim_ows(std::string_view s);
// Comma-separated tokens of a list header ("Connection: close, x-foo").
std::vector<std::string_view> list_tokens(std::string_view v);

// One "name: value" line (no CRLF) split and checked: no obs-fold, a token name, no
// whitespace before the colon; the value without surrounding whitespace. False if malformed.
bool split_header_line(std::string_view line, std::string_view *name, std::string_view *value);
// The standard reason phrase of a status ("Not Found"), or "" when it has none here.
const char *standard_reason(int status);

}  // namespace tproxy
