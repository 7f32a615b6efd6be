/* enforcer/arena.cpp — bump allocation over anonymous mappings. */
#include "arena.h"

#include <string.h>
#include <sys/mman.h>

#include "report.h"

namespace {

constexpr size_t kChunkSize = 256u << 10;

struct arena_state {
    char *next;
    size_t left;
};
arena_state g_arena;

void *map_chunk(size_t size)
{
    void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        fail(EXIT_STARTUP, "out of memory (%zu bytes)", size);
    return p;
}

}  // namespace

void *arena_alloc(size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    if (size > kChunkSize / 4)
        return map_chunk(size); /* large blocks get their own mapping, already zeroed */
    if (size > g_arena.left) {
        g_arena.next = (char *)map_chunk(kChunkSize);
        g_arena.left = kChunkSize;
    }
    void *p = g_arena.next;
    g_arena.next += size;
    g_arena.left -= size;
    return p;
}

char *arena_strndup(const char *s, size_t len)
{
    char *copy = (char *)arena_alloc(len + 1);
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

char *arena_strdup(const char *s)
{
    return arena_strndup(s, strlen(s));
}

char *arena_concat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *out = (char *)arena_alloc(la + lb + lc + 1);
    memcpy(out, a, la);
    memcpy(out + la, b, lb);
    memcpy(out + la + lb, c, lc);
    out[la + lb + lc] = '\0';
    return out;
}
