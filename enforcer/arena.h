/* enforcer/arena.h — the enforcer's only allocator: a bump arena over mmap'd chunks. Nothing
 * is freed; a run allocates a few kilobytes (environment, captured fds, reported paths) and
 * exits. There is no malloc in the enforcer, so a cloned child never touches libc heap state.
 */
#pragma once

#include <stddef.h>

/* `size` zeroed bytes, 16-aligned. Out of memory is a start-up failure (exit 125). */
void *arena_alloc(size_t size);

/* A copy of the first `len` bytes of `s`, NUL-terminated. */
char *arena_strndup(const char *s, size_t len);
char *arena_strdup(const char *s);

/* A string "a" + "b" + "c" (any of them may be ""). */
char *arena_concat3(const char *a, const char *b, const char *c);
