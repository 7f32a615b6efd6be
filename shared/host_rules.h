/* shared/host_rules.h — what a normalised host name, IP literal or pattern is (shared/names.h),
 * written once for tartaros-proxy's normaliser (names.cpp) and the plan reader, which refuses a
 * plan whose names the proxy could not take (ir/plan_reader.cpp; the compiler writes only
 * normalised names, so nothing it writes is refused).
 *
 * Freestanding: inline, no allocation, no libc, no C++ runtime, so the static musl enforcer
 * compiles it with the plan reader.
 *  - a name: labels of 1..63 bytes of [a-z0-9_-], none starting or ending with '-', 253 bytes
 *    at most, no trailing dot, and a last label that does not look numeric (all digits, or
 *    "0x…"), which only an IPv4 literal may have;
 *  - an IPv4 literal: the strict dotted quad, no leading zero ("010.0.0.1" is octal to some);
 *  - an IPv6 literal: what inet_pton(AF_INET6) accepts, in lower case (glibc's algorithm: hex
 *    groups of 1..4 digits, one "::" at most, an IPv4 dotted quad as its last 32 bits);
 *    normalize_host prints it canonically, but any valid form names the same address;
 *  - a pattern: one of those, or "*." followed by a name.
 */
#ifndef TARTAROS_SHARED_HOST_RULES_H
#define TARTAROS_SHARED_HOST_RULES_H

#include <stddef.h>

namespace thr {

inline bool label_char(char c)
{
    /* '_' appears in real names (SRV-style, some CDNs); it cannot confuse any parser here. */
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* A label an IPv4 literal ends with: all digits, or "0x" and more (hex to some parsers). */
inline bool looks_numeric(const char *s, size_t len)
{
    if (len > 2 && s[0] == '0' && s[1] == 'x')
        return true;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return len > 0;
}

/* The labels of a name (in lower case, without a trailing dot). */
inline bool name_labels(const char *s, size_t len)
{
    if (len == 0 || len > 253)
        return false;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != '.') {
            if (!label_char(s[i]))
                return false;
            continue;
        }
        const size_t n = i - start;
        if (n == 0 || n > 63 || s[start] == '-' || s[i - 1] == '-')
            return false;
        start = i + 1;
    }
    return true;
}

/* The start of the last label of `s`. */
inline size_t last_label(const char *s, size_t len)
{
    size_t i = len;
    while (i > 0 && s[i - 1] != '.')
        i--;
    return i;
}

inline bool name(const char *s, size_t len)
{
    const size_t last = last_label(s, len);
    return name_labels(s, len) && !looks_numeric(s + last, len - last);
}

/* A strict dotted quad: four decimal numbers 0..255 without leading zeros. */
inline bool ipv4_literal(const char *s, size_t len)
{
    unsigned parts = 0, digits = 0, value = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] >= '0' && s[i] <= '9') {
            if (digits > 0 && value == 0)
                return false; /* a leading zero */
            value = value * 10 + (unsigned)(s[i] - '0');
            if (++digits > 3 || value > 255)
                return false;
            continue;
        }
        if (digits == 0 || (i < len && s[i] != '.') || ++parts > 4)
            return false;
        digits = value = 0;
    }
    return parts == 4;
}

inline int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* What glibc's inet_pton(AF_INET6) accepts, lower-case hex only (its algorithm, step by step). */
inline bool ipv6_literal(const char *s, size_t len)
{
    size_t i = 0, bytes = 0, token = 0, digits = 0;
    bool gap = false;
    if (len > 0 && s[0] == ':' && (len < 2 || s[1] != ':'))
        return false;
    if (len > 0 && s[0] == ':')
        i = 1;
    for (; i < len; i++) {
        const char c = s[i];
        if (hex_digit(c) >= 0) {
            if (++digits > 4)
                return false;
            continue;
        }
        if (c == ':') {
            token = i + 1;
            if (digits == 0) {
                if (gap)
                    return false;
                gap = true;
                continue;
            }
            if (i + 1 == len || bytes + 2 > 16)
                return false;
            bytes += 2;
            digits = 0;
            continue;
        }
        if (c == '.' && bytes + 4 <= 16 && ipv4_literal(s + token, len - token)) {
            bytes += 4;
            digits = 0;
            i = len;
            break;
        }
        return false;
    }
    if (digits > 0) {
        if (bytes + 2 > 16)
            return false;
        bytes += 2;
    }
    return gap ? bytes < 16 : bytes == 16;
}

/* A host as shared/names.h's normalize_host leaves it (an IPv6 literal in any valid form). */
inline bool host(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] == ':')
            return ipv6_literal(s, len);
    const size_t last = last_label(s, len);
    return looks_numeric(s + last, len - last) ? ipv4_literal(s, len) : name_labels(s, len);
}

/* A policy pattern as normalize_pattern leaves it: "*." and a name, or a host. */
inline bool pattern(const char *s, size_t len)
{
    if (len > 2 && s[0] == '*' && s[1] == '.')
        return name(s + 2, len - 2);
    return host(s, len);
}

} /* namespace thr */

#endif /* TARTAROS_SHARED_HOST_RULES_H */
