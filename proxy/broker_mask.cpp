/* proxy/broker_mask.cpp — starring secrets in broker log text (see broker_mask.h). */
#include "broker_mask.h"

#include <sys/random.h>

#include <algorithm>

#include "broker_reflect.h"
#include "http_util.h"

namespace tproxy {
namespace {

constexpr uint64_t kPrime = (1ull << 61) - 1;
constexpr size_t kMinToken = 16;

uint64_t mulmod(uint64_t a, uint64_t b)
{
    unsigned __int128 x = static_cast<unsigned __int128>(a) * b;
    uint64_t r = static_cast<uint64_t>(x & kPrime) + static_cast<uint64_t>(x >> 61);
    r = (r & kPrime) + (r >> 61);
    return r >= kPrime ? r - kPrime : r;
}

uint64_t addmod(uint64_t a, uint64_t b)
{
    uint64_t r = a + b;
    return r >= kPrime ? r - kPrime : r;
}

uint64_t fingerprint(std::string_view s, uint64_t base)
{
    uint64_t h = 0;
    for (char c : s)
        h = addmod(mulmod(h, base), static_cast<unsigned char>(c));
    return h;
}

void star(std::string &text, size_t at, size_t n)
{
    std::fill_n(text.begin() + static_cast<std::ptrdiff_t>(at), n, '*');
}

// Stars every window whose fingerprint is the token's.
void star_token(std::string &text, const TokenPrint &t)
{
    const size_t n = t.len;
    if (n == 0 || text.size() < n)
        return;
    uint64_t h = fingerprint(std::string_view(text).substr(0, n), t.base);
    for (size_t i = 0;;) {
        if (h == t.hash) {
            star(text, i, n);
            i += n;
            if (i + n > text.size())
                return;
            h = fingerprint(std::string_view(text).substr(i, n), t.base);
            continue;
        }
        if (i + n >= text.size())
            return;
        uint64_t leaving = mulmod(static_cast<unsigned char>(text[i]), t.top);
        h = addmod(mulmod(addmod(h, kPrime - leaving), t.base), static_cast<unsigned char>(text[i + n]));
        i++;
    }
}

void star_value(std::string &text, std::string_view value)
{
    if (value.empty())
        return;
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(), lower_ascii);
    std::string needle(value);
    std::transform(needle.begin(), needle.end(), needle.begin(), lower_ascii);
    for (size_t at = lower.find(needle); at != std::string::npos; at = lower.find(needle, at + needle.size()))
        star(text, at, needle.size());
    wipe_string(needle);
    wipe_string(lower);
    if (ValueFinder(value).found_in(text))
        star(text, 0, text.size());
}

bool credential_name(std::string_view name)
{
    static constexpr std::string_view kWords[] = {"token", "key", "secret",  "passw",      "pwd",
                                                  "auth",  "sig", "session", "credential", "jwt"};
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), lower_ascii);
    return std::any_of(std::begin(kWords), std::end(kWords),
                       [&](std::string_view w) { return lower.find(w) != std::string::npos; });
}

// Stars the value of each credential-like `name=value` after '?', '&' or ';'.
void star_parameters(std::string &text)
{
    for (size_t at = text.find_first_of("?&;"); at != std::string::npos; at = text.find_first_of("?&;", at + 1)) {
        size_t end = text.find_first_of("?&;/#", at + 1);
        size_t eq = text.find('=', at + 1);
        if (eq == std::string::npos || eq > end)
            continue;
        size_t stop = end == std::string::npos ? text.size() : end;
        if (credential_name(std::string_view(text).substr(at + 1, eq - at - 1)))
            star(text, eq + 1, stop - eq - 1);
    }
}

}  // namespace

TokenPrint token_print(std::string_view token)
{
    TokenPrint t;
    uint64_t random = 0;
    if (token.size() < kMinToken || getrandom(&random, sizeof random, 0) != sizeof random)
        return t;
    t.base = (1ull << 20) + random % (kPrime - 1 - (1ull << 20));
    t.hash = fingerprint(token, t.base);
    t.top = 1;
    for (size_t i = 1; i < token.size(); i++)
        t.top = mulmod(t.top, t.base);
    t.len = token.size();
    return t;
}

std::string mask_for_log(std::string_view text, const BrokerSecrets &s)
{
    std::string out(text);
    star_token(out, s.token_print);
    for (const Secret &v : s.values)
        star_value(out, v.view());
    star_parameters(out);
    return out;
}

}  // namespace tproxy
