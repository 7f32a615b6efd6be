/* shared/plan_cache_entry.h — `tartaros run`'s plan cache as both its readers see it: where
 * it is, the key of a command line, an entry's bytes, and the lookup with its trust rules.
 * The compiler's `tartaros-cli` writes entries (compiler/cli/plan_cache.h) and looks them up
 * here; the `tartaros` launcher (front/) looks them up here too, so that a hit starts the
 * plan without the compiler.
 *
 * An entry (native byte order: the cache never leaves its machine), after a 24-byte header
 * (TC_MAGIC, then at TC_CHECKSUM_OFFSET tp_checksum of the whole entry with those 8 bytes read
 * as zero), is: key, warnings, a count of inputs, each input as u32 question (host_answer.h),
 * path, answer, and last the plan; every string is a u32 length and its bytes.
 *
 * A lookup hits only when every rule below holds (docs/tartaros-run.md, "The plan cache"):
 *  - the directory is not a symlink, is the caller's (euid) and not writable by group or
 *    others; the entry is a regular file opened without following a symlink, with the same
 *    owner and modes and one link, and no larger than TC_MAX_ENTRY;
 *  - its magic and checksum hold and it parses to its last byte;
 *  - its key equals the command line's byte for byte, and every input answers as recorded.
 * Anything else is a miss, never an error.
 * Plain C over the C library only: the static musl launcher compiles it too. */
#ifndef TARTAROS_SHARED_PLAN_CACHE_ENTRY_H
#define TARTAROS_SHARED_PLAN_CACHE_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "host_answer.h"
#include "run_line.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TC_MAGIC           "tartaros-cache1\n" /* the format: a new one misses every old entry */
#define TC_MAGIC_SIZE      16
#define TC_CHECKSUM_OFFSET 16
#define TC_HEADER_SIZE     24
#define TC_MAX_ENTRY       ((size_t)64 << 20)
#define TC_SUFFIX          ".plan"

/* Appends the cache directory: $XDG_CACHE_HOME/tartaros when `xdg` is absolute (the XDG base
 * directory specification ignores a relative one), else `home`/.cache/tartaros, normalised.
 * Returns 0 (nothing appended) when neither gives an absolute path. */
int tc_cache_directory(const char *xdg, const char *home, struct th_text *out);

/* Appends the key of `line`: what decides its plan besides the inputs an entry records. The
 * format; `version` (the compiler's version line); the identity (host_answer.h) of `compiler`,
 * the compiler's binary, so a rebuilt compiler of the same version misses; the real and
 * effective uid; `home` (what ~ is: NULL when there is none); `cwd`; --config as written; and
 * each policy flag with its value, in order. The launcher's own options and the command are
 * not in it: they do not change the plan. */
void tc_run_key(struct th_text *out, const char *version, const char *compiler, const char *home, const char *cwd,
                const struct tr_run_line *line);

/* 1 when the directory `dir` is one only the caller can have written (the rules above). */
int tc_trusted_directory(int dir);

/* The entry's file name in the cache directory: the key's hash in hex, then TC_SUFFIX. */
void tc_file_name(const char *key, size_t key_len, char name[32]);

struct tc_bytes {
    const uint8_t *data;
    uint32_t len;
};

struct tc_input {
    uint32_t question; /* enum th_question */
    struct tc_bytes path, answer;
};

/* An entry, parsed: every field points into the caller's bytes. */
struct tc_entry {
    struct tc_bytes key, warnings, plan;
    uint32_t input_count;
    const uint8_t *inputs, *inputs_end; /* the inputs' bytes, for tc_next_input */
};

/* 1 when `bytes` is an undamaged entry of this format (magic, checksum, lengths within it,
 * known questions, nothing left over), filled into `out`; 0 otherwise. */
int tc_entry_parse(const uint8_t *bytes, size_t len, struct tc_entry *out);

/* Reads the input at `at` (entry->inputs, then what the last call returned) of an entry
 * tc_entry_parse accepted; returns where the next one starts. */
const uint8_t *tc_next_input(const struct tc_entry *entry, const uint8_t *at, struct tc_input *in);

/* 1 when the entry of `key` in `directory` is trusted, undamaged, has that key and every one
 * of its inputs answers as recorded: `out` then points into `file`, which holds the entry's
 * bytes (th_free it either way). */
int tc_lookup(const char *directory, const char *key, size_t key_len, struct th_text *file, struct tc_entry *out);

#ifdef __cplusplus
}
#endif

#endif
