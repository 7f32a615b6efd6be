/* shared/json_escape.h — how every JSON string TartarOS writes escapes its text: the effect
 * log's lines (jsonl.h, in tartaros-exec and tartaros-proxy) and the compiler's JSON output
 * (--explain --json, lint). One escaper, so a path or a name reads the same in each.
 *
 * The output is always valid UTF-8 whatever the input (paths are bytes): '"' and '\\' are
 * escaped, control characters and DEL become \n, \t, \r or \u00XX, and every byte that is
 * not part of a well-formed UTF-8 sequence (overlong forms, surrogates and code points above
 * U+10FFFF included) becomes U+FFFD.
 *
 * Freestanding: no libc call, no allocation, no errno, so tartaros-exec's connect mediator can
 * use it while other processes run C code on the same memory (enforcer/raw.h).
 */
#pragma once

#include <stddef.h>

namespace json_escape {

/* The length of the well-formed UTF-8 sequence at `p` (n bytes left, n > 0), or 0. */
inline size_t utf8_sequence(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    /* No overlong form, no surrogate, nothing above U+10FFFF. */
    if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0) || (c == 0xf0 && p[1] < 0x90) ||
        (c == 0xf4 && p[1] >= 0x90))
        return 0;
    return len;
}

/* How one input character is written: its escape in `out` (the return value is its length),
 * and in *used the input bytes it takes (n > 0 left at p). */
inline size_t escape_one(const unsigned char *p, size_t n, char out[8], size_t *used)
{
    static const char kHex[] = "0123456789abcdef";
    size_t len = utf8_sequence(p, n);
    unsigned char c = p[0];
    *used = len ? len : 1;
    if (len == 0) {
        const char repl[] = "\\ufffd";
        for (size_t i = 0; i < 6; i++)
            out[i] = repl[i];
        return 6;
    }
    if (c == '"' || c == '\\') {
        out[0] = '\\';
        out[1] = (char)c;
        return 2;
    }
    if (c < 0x20 || c == 0x7f) {
        const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : nullptr;
        if (named != nullptr) {
            out[0] = named[0];
            out[1] = named[1];
            return 2;
        }
        const char u[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        for (size_t i = 0; i < 6; i++)
            out[i] = u[i];
        return 6;
    }
    for (size_t i = 0; i < len; i++)
        out[i] = (char)p[i];
    return len;
}

}  // namespace json_escape
