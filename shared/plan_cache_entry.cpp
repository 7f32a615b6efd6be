/* shared/plan_cache_entry.cpp — see plan_cache_entry.h. */
#include "plan_cache_entry.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan_reader.h"

namespace {

void put_u32(struct th_text *out, uint32_t v)
{
    th_append(out, &v, sizeof v);
}

void put_bytes(struct th_text *out, const void *bytes, size_t n)
{
    put_u32(out, (uint32_t)n);
    th_append(out, bytes, n);
}

void put_str(struct th_text *out, const char *s)
{
    put_bytes(out, s, strlen(s));
}

// A cursor over an entry's bytes; `ok` drops to 0 at the first read past the end.
struct cursor {
    const uint8_t *at, *end;
    int ok;
};

uint32_t get_u32(struct cursor *c)
{
    uint32_t v = 0;
    if ((size_t)(c->end - c->at) < sizeof v) {
        c->ok = 0;
        return 0;
    }
    memcpy(&v, c->at, sizeof v);
    c->at += sizeof v;
    return v;
}

struct tc_bytes get_bytes(struct cursor *c)
{
    struct tc_bytes b = {NULL, 0};
    const uint32_t n = get_u32(c);
    if (!c->ok || (size_t)(c->end - c->at) < n) {
        c->ok = 0;
        return b;
    }
    b.data = c->at;
    b.len = n;
    c->at += n;
    return b;
}

// Only the caller can have written what `st` describes.
int callers_own(const struct stat *st)
{
    return st->st_uid == geteuid() && (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

int read_trusted_file(int dir, const char *name, struct th_text *file)
{
    const int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && callers_own(&st) && st.st_nlink == 1 &&
        st.st_size >= TC_HEADER_SIZE && (size_t)st.st_size <= TC_MAX_ENTRY;
    size_t left = ok ? (size_t)st.st_size : 0;
    while (ok && left > 0) {
        char buf[65536];
        const ssize_t n = read(fd, buf, left < sizeof buf ? left : sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;  // shorter than its size said: being replaced, or damaged
        if (ok) {
            th_append(file, buf, (size_t)n);
            left -= (size_t)n;
        }
    }
    close(fd);
    return ok && !file->failed;
}

int inputs_unchanged(const struct tc_entry *entry)
{
    const uint8_t *at = entry->inputs;
    int same = 1;
    uint32_t checked = 0;
    struct th_text path = {}, now = {};
    for (; same && checked < entry->input_count; ++checked) {
        struct tc_input in;
        at = tc_next_input(entry, at, &in);
        path.len = now.len = 0;
        th_append(&path, in.path.data, in.path.len);
        if (path.failed || (path.len > 0 && memchr(path.data, '\0', path.len) != NULL))
            break;  // not a path any compile asked about
        th_answer((enum th_question)in.question, path.data, &now);
        same =
            !now.failed && now.len == in.answer.len && (now.len == 0 || memcmp(now.data, in.answer.data, now.len) == 0);
    }
    th_free(&path);
    th_free(&now);
    return same && checked == entry->input_count;
}

}  // namespace

int tc_trusted_directory(int dir)
{
    struct stat st;
    return fstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && callers_own(&st);
}

int tc_cache_directory(const char *xdg, const char *home, struct th_text *out)
{
    struct th_text raw = {};
    if (xdg != NULL && xdg[0] == '/') {
        th_append_str(&raw, xdg);
        th_append_str(&raw, "/tartaros");
    } else if (home != NULL && home[0] == '/') {
        th_append_str(&raw, home);
        th_append_str(&raw, "/.cache/tartaros");
    }
    const int found = raw.len > 0 && !raw.failed;
    if (found)
        th_normalize_absolute(raw.data, raw.len, out);
    th_free(&raw);
    return found;
}

void tc_run_key(struct th_text *out, const char *version, const char *compiler, const char *home, const char *cwd,
                const struct tr_run_line *line)
{
    put_str(out, TC_MAGIC);
    put_str(out, version);
    struct th_text identity = {};
    th_answer(TH_IDENTITY, compiler, &identity);
    put_bytes(out, identity.data, identity.len);
    if (identity.failed)
        out->failed = 1;
    th_free(&identity);
    char ids[48];
    put_bytes(out, ids, (size_t)snprintf(ids, sizeof ids, "%u:%u", (unsigned)getuid(), (unsigned)geteuid()));
    if (home != NULL)
        put_str(out, home);
    else
        put_bytes(out, "\0none", 5);
    put_str(out, cwd);
    put_str(out, line->config != NULL ? line->config : "");
    for (size_t i = 0; i < line->flag_count; ++i) {
        put_u32(out, (uint32_t)line->flags[i].flag);
        put_str(out, line->flags[i].value);
    }
}

void tc_file_name(const char *key, size_t key_len, char name[32])
{
    const uint64_t hash = tp_checksum((const uint8_t *)key, (uint32_t)key_len, UINT32_MAX);
    snprintf(name, 32, "%016llx" TC_SUFFIX, (unsigned long long)hash);
}

int tc_entry_parse(const uint8_t *bytes, size_t len, struct tc_entry *out)
{
    if (len < TC_HEADER_SIZE || len > TC_MAX_ENTRY || memcmp(bytes, TC_MAGIC, TC_MAGIC_SIZE) != 0)
        return 0;
    uint64_t checksum = 0;
    memcpy(&checksum, bytes + TC_CHECKSUM_OFFSET, sizeof checksum);
    if (checksum != tp_checksum(bytes, (uint32_t)len, TC_CHECKSUM_OFFSET))
        return 0;
    struct cursor c = {bytes + TC_HEADER_SIZE, bytes + len, 1};
    out->key = get_bytes(&c);
    out->warnings = get_bytes(&c);
    out->input_count = get_u32(&c);
    out->inputs = c.at;
    for (uint32_t i = 0; c.ok && i < out->input_count; ++i) {
        const uint32_t question = get_u32(&c);
        get_bytes(&c);
        get_bytes(&c);
        if (question < TH_CONTENT || question > TH_IDENTITY)
            return 0;
    }
    out->inputs_end = c.at;
    out->plan = get_bytes(&c);
    return c.ok && c.at == c.end;
}

const uint8_t *tc_next_input(const struct tc_entry *entry, const uint8_t *at, struct tc_input *in)
{
    struct cursor c = {at, entry->inputs_end, 1};
    in->question = get_u32(&c);
    in->path = get_bytes(&c);
    in->answer = get_bytes(&c);
    return c.at;
}

int tc_lookup(const char *directory, const char *key, size_t key_len, struct th_text *file, struct tc_entry *out)
{
    const int dir = open(directory, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0)
        return 0;
    char name[32];
    tc_file_name(key, key_len, name);
    const int trusted = tc_trusted_directory(dir) && read_trusted_file(dir, name, file);
    close(dir);
    return trusted && tc_entry_parse((const uint8_t *)file->data, file->len, out) && out->key.len == key_len &&
        memcmp(out->key.data, key, key_len) == 0 && inputs_unchanged(out);
}
