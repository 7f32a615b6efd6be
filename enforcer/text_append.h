/* enforcer/text_append.h — building short paths and lines without libc formatting, for the
 * processes that run on shared memory (raw.h): the mediator and its exec events. The caller
 * sizes `out`; nothing here checks bounds. */
#pragma once

#include <stddef.h>

/* Appends `text` to `out` at `*at`. */
inline void append_text(char *out, size_t *at, const char *text)
{
    while (*text)
        out[(*at)++] = *text++;
}

/* Appends the decimal `v` to `out` at `*at`. */
inline void append_number(char *out, size_t *at, unsigned long v)
{
    char digits[24];
    size_t n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n > 0)
        out[(*at)++] = digits[--n];
}
