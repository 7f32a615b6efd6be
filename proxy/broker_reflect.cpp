/* proxy/broker_reflect.cpp — finding the injected value in response text (see broker_reflect.h). */
#include "broker_reflect.h"

#include <algorithm>

#include "broker_secrets.h"
#include "http_util.h"

namespace tproxy {
namespace {

constexpr size_t kMinFragment = 8;
constexpr int kMaxDecodes = 3;

std::string lowered(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), lower_ascii);
    return out;
}

std::string base64(std::string_view bytes, const char *alphabet)
{
    std::string out;
    for (size_t i = 0; i + 3 <= bytes.size(); i += 3) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8 |
            static_cast<unsigned char>(bytes[i + 2]);
        for (int shift = 18; shift >= 0; shift -= 6)
            out.push_back(alphabet[v >> shift & 63]);
    }
    return out;
}

int hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = lower_ascii(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// One round of %XX decoding; a malformed escape stays as it is.
std::string percent_decoded(std::string_view s)
{
    std::string out;
    for (size_t i = 0; i < s.size(); i++) {
        if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
            i += 2;
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

}  // namespace

ValueFinder::ValueFinder(std::string_view value) : value_(lowered(value))
{
    static const char *kAlphabets[] = {
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
    };
    // The value starts at offset 0, 1 or 2 of a 3-byte group; skipping 0, 2 or 1 of its bytes
    // reaches the first group made of value bytes only.
    for (size_t skip : {0, 1, 2}) {
        if (value.size() < skip)
            break;
        for (const char *alphabet : kAlphabets) {
            std::string f = base64(value.substr(skip), alphabet);
            if (f.size() >= kMinFragment)
                base64_.push_back(lowered(f));
            wipe_string(f);
        }
    }
}

ValueFinder::~ValueFinder()
{
    wipe_string(value_);
    for (std::string &f : base64_)
        wipe_string(f);
}

bool ValueFinder::found_in(std::string_view text) const
{
    if (value_.empty())
        return false;
    std::string form = lowered(text);
    bool found = false;
    for (int round = 0; !found; round++) {
        found = form.find(value_) != std::string::npos ||
            std::any_of(base64_.begin(), base64_.end(),
                        [&](const std::string &f) { return form.find(f) != std::string::npos; });
        if (found || round == kMaxDecodes || form.find('%') == std::string::npos)
            break;
        std::string next = percent_decoded(form);
        wipe_string(form);
        form = lowered(next);
        wipe_string(next);
    }
    wipe_string(form);
    return found;
}

}  // namespace tproxy
