/* shared/jsonl.h — one JSON object per line, built in the caller's buffer (the effect log,
 * docs/effect-log.md). Shared by tartaros-exec (its supervisor and its connect mediator) and
 * tartaros-proxy, so every writer escapes text the same way.
 *
 * Freestanding: no libc call, no allocation, no errno, so the mediator can use it while other
 * processes run C code on the same memory (enforcer/raw.h).
 *
 * Invariants of a line built here, whatever its input:
 *  - it is valid JSON followed by one '\n', and never longer than the buffer;
 *  - strings are escaped by json_escape.h, so they are valid UTF-8 whatever the input;
 *  - when something does not fit, the string being written is cut at a character boundary,
 *    every later field or item is dropped, the open arrays and objects are closed, and the
 *    line ends with "truncated":true.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "json_escape.h"

namespace jsonl {

constexpr int kMaxDepth = 8;
/* Kept free for the closers and the truncation marker. */
constexpr size_t kReserve = kMaxDepth + sizeof ",\"truncated\":true}\n";

struct line {
    char *buf;
    size_t cap;
    size_t len;
    bool cut;        /* something did not fit: later fields are dropped */
    bool need_comma; /* a value was written at this level */
    int depth;
    char closers[kMaxDepth]; /* ']' or '}' for each open level; 0 for one not opened */
};

namespace detail {

inline bool fits(const line &l, size_t n)
{
    return !l.cut && l.len + n + kReserve <= l.cap;
}

inline void put(line &l, char c)
{
    l.buf[l.len++] = c;
}

inline size_t cstr_len(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    return n;
}

inline void put_text(line &l, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(l, s[i]);
}

/* A comma when a value precedes at this level. */
inline void separate(line &l)
{
    if (l.need_comma)
        put(l, ',');
}

/* A string value; cut (and the line marked) where the room ends. The caller made room for
 * the two quotes. */
inline void put_string(line &l, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    put(l, '"');
    size_t i = 0;
    while (i < n) {
        char out[8];
        size_t used;
        size_t w = json_escape::escape_one(p + i, n - i, out, &used);
        if (l.len + w + 1 + kReserve > l.cap) {
            l.cut = true;
            break;
        }
        put_text(l, out, w);
        i += used;
    }
    put(l, '"');
}

/* `,"key":` when there is room for it and `min_value` more bytes; false otherwise (and then
 * the line is cut). */
inline bool key(line &l, const char *k, size_t min_value)
{
    size_t n = cstr_len(k);
    if (!fits(l, n + 4 + min_value)) {
        l.cut = true;
        return false;
    }
    separate(l);
    put(l, '"');
    put_text(l, k, n);
    put(l, '"');
    put(l, ':');
    l.need_comma = false;
    return true;
}

inline void put_u64(line &l, uint64_t v)
{
    char digits[24];
    size_t n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n > 0)
        put(l, digits[--n]);
}

inline void put_fixed(line &l, uint64_t v, int width)
{
    char digits[24];
    for (int i = width - 1; i >= 0; i--) {
        digits[i] = (char)('0' + v % 10);
        v /= 10;
    }
    put_text(l, digits, (size_t)width);
}

/* Days since 1970-01-01 to a civil date (H. Hinnant's algorithm, proleptic Gregorian). */
inline void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

}  // namespace detail

/* Starts the line with '{'. `cap` must exceed kReserve by what the fields need. */
inline void begin(line &l, char *buf, size_t cap)
{
    l.buf = buf;
    l.cap = cap;
    l.len = 0;
    l.cut = false;
    l.need_comma = false;
    l.depth = 1;
    l.closers[0] = '}';
    detail::put(l, '{');
}

inline void field_str(line &l, const char *k, const char *s, size_t n)
{
    if (!detail::key(l, k, 2))
        return;
    detail::put_string(l, s, n);
    l.need_comma = true;
}

inline void field_str(line &l, const char *k, const char *s)
{
    field_str(l, k, s, detail::cstr_len(s));
}

inline void field_u64(line &l, const char *k, uint64_t v)
{
    if (!detail::key(l, k, 20))
        return;
    detail::put_u64(l, v);
    l.need_comma = true;
}

inline void field_i64(line &l, const char *k, int64_t v)
{
    if (!detail::key(l, k, 21))
        return;
    if (v < 0)
        detail::put(l, '-');
    detail::put_u64(l, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
    l.need_comma = true;
}

inline void field_bool(line &l, const char *k, bool v)
{
    if (!detail::key(l, k, 5))
        return;
    detail::put_text(l, v ? "true" : "false", v ? 4 : 5);
    l.need_comma = true;
}

inline void field_null(line &l, const char *k)
{
    if (!detail::key(l, k, 4))
        return;
    detail::put_text(l, "null", 4);
    l.need_comma = true;
}

/* "YYYY-MM-DDTHH:MM:SS.uuuuuuZ" (UTC, microseconds) for a CLOCK_REALTIME reading. */
inline void field_time(line &l, const char *k, int64_t sec, long nsec)
{
    if (!detail::key(l, k, 30))
        return;
    int64_t days = (sec >= 0 ? sec : sec - 86399) / 86400;
    int64_t secs = sec - days * 86400;
    int64_t year;
    unsigned month, day;
    detail::civil_from_days(days, &year, &month, &day);
    detail::put(l, '"');
    detail::put_fixed(l, (uint64_t)(year < 0 ? 0 : year), 4);
    detail::put(l, '-');
    detail::put_fixed(l, month, 2);
    detail::put(l, '-');
    detail::put_fixed(l, day, 2);
    detail::put(l, 'T');
    detail::put_fixed(l, (uint64_t)(secs / 3600), 2);
    detail::put(l, ':');
    detail::put_fixed(l, (uint64_t)(secs / 60 % 60), 2);
    detail::put(l, ':');
    detail::put_fixed(l, (uint64_t)(secs % 60), 2);
    detail::put(l, '.');
    detail::put_fixed(l, (uint64_t)nsec / 1000, 6);
    detail::put(l, 'Z');
    detail::put(l, '"');
    l.need_comma = true;
}

/* Opens an array or object value under key `k` (NULL: an item of the enclosing array). */
inline void open(line &l, const char *k, char bracket)
{
    if (l.depth >= kMaxDepth) {
        l.cut = true;
        return;
    }
    bool ok = k != nullptr ? detail::key(l, k, 2) : detail::fits(l, 3);
    if (ok && k == nullptr)
        detail::separate(l);
    l.closers[l.depth++] = ok ? (bracket == '[' ? ']' : '}') : 0;
    if (!ok) {
        l.cut = true;
        return;
    }
    detail::put(l, bracket);
    l.need_comma = false;
}

/* Closes the innermost level opened by open(); uses the reserved room, so it always fits. */
inline void close(line &l)
{
    if (l.depth <= 1)
        return;
    char c = l.closers[--l.depth];
    if (c != 0) {
        detail::put(l, c);
        l.need_comma = true;
    }
}

inline void item_str(line &l, const char *s, size_t n)
{
    if (!detail::fits(l, 3)) {
        l.cut = true;
        return;
    }
    detail::separate(l);
    detail::put_string(l, s, n);
    l.need_comma = true;
}

inline void item_str(line &l, const char *s)
{
    item_str(l, s, detail::cstr_len(s));
}

/* Closes every open level, marks a cut line, ends it with '\n'; the length to write. */
inline size_t finish(line &l)
{
    while (l.depth > 1)
        close(l);
    if (l.cut) {
        const char mark[] = "\"truncated\":true";
        detail::separate(l);
        detail::put_text(l, mark, sizeof mark - 1);
    }
    detail::put(l, '}');
    detail::put(l, '\n');
    return l.len;
}

}  // namespace jsonl
