/* shared/broker_rules.h — the rules a broker's names and values keep, written once for the
 * compiler (which explains a violation), the plan reader (which refuses a plan that breaks
 * one) and tartaros-proxy (which reads them from the plan or, standalone, from its flags).
 *
 * Freestanding: inline, no allocation, no C++ runtime, so the static musl enforcer compiles
 * it with the plan reader. The limits are the plan format's (ir/plan.h).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "plan.h"

namespace tbr {

inline char ascii_lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

inline bool ascii_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Whether a and b are the same header name (names compare without case). */
inline bool same_header(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen != blen)
        return false;
    for (size_t i = 0; i < alen; i++)
        if (ascii_lower(a[i]) != ascii_lower(b[i]))
            return false;
    return true;
}

/* An RFC 9110 token: what a header's name may be (any length; header_name adds the limit). */
inline bool http_token(const char *s, size_t len)
{
    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!ascii_alnum(s[i]) && memchr("!#$%&'*+-.^_`|~", s[i], 15) == nullptr)
            return false;
    return true;
}

/* Header names the broker sets, reads or relies on to frame and route a message: injecting
 * one of them would smuggle a second request or reroute this one. Compared without case;
 * every name starting with "proxy-" is reserved too. */
inline constexpr const char *kReservedHeaders[] = {
    "host", "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade", "expect"};

inline bool reserved_header(const char *s, size_t len)
{
    if (len >= 6 && same_header(s, 6, "proxy-", 6))
        return true;
    for (const char *r : kReservedHeaders)
        if (same_header(s, len, r, strlen(r)))
            return true;
    return false;
}

/* A header the broker may write or read: a token within the format's limit, not reserved. */
inline bool header_name(const char *s, size_t len)
{
    return len <= TP_BROKER_MAX_HEADER_NAME && http_token(s, len) && !reserved_header(s, len);
}

/* A capability's name, the first path segment of a broker request: 1..64 of [A-Za-z0-9._-]. */
inline bool capability_name(const char *s, size_t len)
{
    if (len == 0 || len > TP_BROKER_MAX_CAP_NAME)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!ascii_alnum(s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-')
            return false;
    return true;
}

/* A POSIX-portable environment variable name, within the format's limit. */
inline bool env_name(const char *s, size_t len)
{
    if (len == 0 || len > TP_BROKER_MAX_ENV_NAME || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < len; i++)
        if (!ascii_alnum(s[i]) && s[i] != '_')
            return false;
    return true;
}

/* A header value with the secret in it: printable ASCII (spaces allowed, no other
 * whitespace), "{value}" exactly once, within the format's limit. */
inline bool value_format(const char *s, size_t len)
{
    size_t found = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < 0x20 || s[i] > 0x7e)
            return false;
        found += len - i >= 7 && memcmp(s + i, "{value}", 7) == 0;
    }
    return found == 1 && len <= TP_BROKER_MAX_FORMAT;
}

inline bool method_item(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!(s[i] >= 'A' && s[i] <= 'Z'))
            return false;
    return len <= TP_BROKER_MAX_METHOD;
}

inline bool prefix_item(const char *s, size_t len)
{
    return s[0] == '/' && len <= TP_BROKER_MAX_PREFIX;
}

/* Printable ASCII with single spaces between items: no control byte, no leading, trailing or
 * double space; every item passes `item`. How the plan stores methods and path prefixes. */
inline bool spaced_list(const char *s, size_t len, bool (*item)(const char *, size_t))
{
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != ' ') {
            if (s[i] < 0x21 || s[i] > 0x7e)
                return false;
            continue;
        }
        if (i == start || !item(s + start, i - start))
            return false;
        start = i + 1;
    }
    return true;
}

}  // namespace tbr
