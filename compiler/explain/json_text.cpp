// compiler/explain/json_text.cpp — JSON string literals (see json_text.h).
#include "json_text.h"

#include "json_escape.h"

namespace tartaros {

std::string quote(std::string_view s)
{
    std::string out = "\"";
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    for (size_t i = 0; i < s.size();) {
        char esc[8];
        size_t used = 0;
        out.append(esc, json_escape::escape_one(p + i, s.size() - i, esc, &used));
        i += used;
    }
    return out + "\"";
}

std::string quote_list(const std::vector<std::string> &items)
{
    std::string out = "[";
    for (size_t i = 0; i < items.size(); i++)
        out += (i ? "," : "") + quote(items[i]);
    return out + "]";
}

}  // namespace tartaros
