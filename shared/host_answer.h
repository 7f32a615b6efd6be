/* shared/host_answer.h — the questions a compile asks the host, and the bytes of each answer
 * as `tartaros run`'s plan cache records them (shared/plan_cache_entry.h).
 *
 * A compile depends on the host only through these answers (the lowering's HostView, the
 * policy files' bytes, the identity of the public suffix list and of a CA file). The compiler
 * answers through these functions while it compiles, and a lookup of the plan cache asks them
 * again: in the compiler's `tartaros-cli` and in the `tartaros` launcher, which answers a
 * cache hit without the compiler. One implementation, so an answer given at a lookup is
 * computed exactly as the one recorded.
 *
 * Invariant: an answer is a pure function of the host's state when it is asked.
 * Plain C over the C library only: the static musl launcher compiles it too. */
#ifndef TARTAROS_SHARED_HOST_ANSWER_H
#define TARTAROS_SHARED_HOST_ANSWER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A growable byte string on the heap. `failed` is set once an allocation failed; the text is
 * then unusable (every answer built in it is treated as different from any recorded one). */
struct th_text {
    char *data;
    size_t len;
    size_t cap;
    int failed;
};

void th_append(struct th_text *t, const void *bytes, size_t n);
void th_append_str(struct th_text *t, const char *s);
void th_free(struct th_text *t);

/* What is asked about a path. The numbers are the plan cache's format: never renumber. */
enum th_question {
    TH_CONTENT = 1,     /* a policy file's bytes; "\0unreadable" (11 bytes) when it cannot be read */
    TH_KIND = 2,        /* lstat, never following: th_kind's number in decimal */
    TH_LINK_TARGET = 3, /* readlink; "" when it is not a symlink or its target is 4096 bytes or longer */
    TH_ENTRIES = 4,     /* the names in a directory but . and .., sorted by byte, each followed by a NUL */
    TH_IDENTITY = 5     /* stat, following: "dev:ino:mode:size:mtime:ctime" (times as s.ns); "absent" */
};

/* What lstat says `path` is. The order is the compiler's HostKind (compiler/model/host_view.h). */
enum th_kind { TH_ABSENT, TH_DIRECTORY, TH_FILE, TH_SYMLINK, TH_OTHER };

enum th_kind th_kind(const char *path);

/* Appends the answer `path` gives to `question` now. */
void th_answer(enum th_question question, const char *path, struct th_text *out);

/* The most a policy file may hold, in bytes (larger: unreadable). */
#define TH_MAX_CONTENT ((size_t)64 << 20)

/* Appends `path` (absolute) made lexical: repeated '/' collapsed, "." dropped, ".." resolved
 * (never above "/"), no trailing '/'; "/" at least. */
void th_normalize_absolute(const char *path, size_t len, struct th_text *out);

#ifdef __cplusplus
}

/* A th_text freed at the end of its scope. */
struct th_owned_text : th_text {
    th_owned_text() : th_text{} {}
    ~th_owned_text() { th_free(this); }
    th_owned_text(const th_owned_text &) = delete;
    th_owned_text &operator=(const th_owned_text &) = delete;
};
#endif

#endif
