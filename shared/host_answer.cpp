/* shared/host_answer.cpp — see host_answer.h. */
#include "host_answer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void th_append(struct th_text *t, const void *bytes, size_t n)
{
    if (t->failed)
        return;
    if (t->cap - t->len < n + 1) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap - t->len < n + 1)
            cap *= 2;
        char *grown = (char *)realloc(t->data, cap);
        if (grown == NULL) {
            t->failed = 1;
            return;
        }
        t->data = grown;
        t->cap = cap;
    }
    if (n > 0)
        memcpy(t->data + t->len, bytes, n);
    t->len += n;
    t->data[t->len] = '\0';  // a text of names stays usable as a C string
}

void th_append_str(struct th_text *t, const char *s)
{
    th_append(t, s, strlen(s));
}

void th_free(struct th_text *t)
{
    free(t->data);
    t->data = NULL;
    t->len = t->cap = 0;
    t->failed = 0;
}

enum th_kind th_kind(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return TH_ABSENT;
    if (S_ISLNK(st.st_mode))
        return TH_SYMLINK;
    if (S_ISDIR(st.st_mode))
        return TH_DIRECTORY;
    if (S_ISREG(st.st_mode))
        return TH_FILE;
    return TH_OTHER;
}

namespace {

void append_decimal(struct th_text *out, long long v)
{
    char digits[24];
    th_append(out, digits, (size_t)snprintf(digits, sizeof digits, "%lld", v));
}

void append_unsigned(struct th_text *out, unsigned long long v)
{
    char digits[24];
    th_append(out, digits, (size_t)snprintf(digits, sizeof digits, "%llu", v));
}

void append_content(const char *path, struct th_text *out)
{
    static const char unreadable[] = "\0unreadable";
    const size_t start = out->len;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buffer[65536];
        for (;;) {
            ssize_t got = read(fd, buffer, sizeof buffer);
            if (got < 0 && errno == EINTR)
                continue;
            if (got == 0) {
                close(fd);
                return;
            }
            if (got < 0 || out->len - start + (size_t)got > TH_MAX_CONTENT)
                break;
            th_append(out, buffer, (size_t)got);
        }
        close(fd);
    }
    out->len = start;
    th_append(out, unreadable, sizeof unreadable - 1);
}

void append_link_target(const char *path, struct th_text *out)
{
    char buf[4096];
    ssize_t n = readlink(path, buf, sizeof buf);
    if (n > 0 && (size_t)n < sizeof buf)
        th_append(out, buf, (size_t)n);
}

int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);  // strcmp orders by unsigned byte
}

void append_entries(const char *path, struct th_text *out)
{
    DIR *dir = opendir(path);
    if (dir == NULL)
        return;
    struct th_text names = {};
    size_t count = 0;
    while (const struct dirent *e = readdir(dir)) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        th_append(&names, e->d_name, strlen(e->d_name) + 1);
        ++count;
    }
    closedir(dir);
    const char **sorted = names.failed || count == 0 ? NULL : (const char **)malloc(count * sizeof *sorted);
    if (sorted == NULL) {
        if (count > 0)
            out->failed = 1;
        th_free(&names);
        return;
    }
    const char *at = names.data;
    for (size_t i = 0; i < count; ++i, at += strlen(at) + 1)
        sorted[i] = at;
    qsort(sorted, count, sizeof *sorted, compare_names);
    for (size_t i = 0; i < count; ++i)
        th_append(out, sorted[i], strlen(sorted[i]) + 1);
    free(sorted);
    th_free(&names);
}

// Changes to a file's bytes change its size or mtime, and any change its ctime, which no
// unprivileged caller can set back.
void append_identity(const char *path, struct th_text *out)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        th_append_str(out, "absent");
        return;
    }
    append_unsigned(out, st.st_dev);
    th_append(out, ":", 1);
    append_unsigned(out, st.st_ino);
    th_append(out, ":", 1);
    append_unsigned(out, st.st_mode);
    th_append(out, ":", 1);
    append_decimal(out, st.st_size);
    th_append(out, ":", 1);
    append_decimal(out, st.st_mtim.tv_sec);
    th_append(out, ".", 1);
    append_decimal(out, st.st_mtim.tv_nsec);
    th_append(out, ":", 1);
    append_decimal(out, st.st_ctim.tv_sec);
    th_append(out, ".", 1);
    append_decimal(out, st.st_ctim.tv_nsec);
}

}  // namespace

void th_answer(enum th_question question, const char *path, struct th_text *out)
{
    switch (question) {
    case TH_CONTENT: append_content(path, out); return;
    case TH_KIND: append_decimal(out, th_kind(path)); return;
    case TH_LINK_TARGET: append_link_target(path, out); return;
    case TH_ENTRIES: append_entries(path, out); return;
    case TH_IDENTITY: append_identity(path, out); return;
    }
    out->failed = 1;  // not a question: answers nothing any record holds
}

void th_normalize_absolute(const char *path, size_t len, struct th_text *out)
{
    const size_t base = out->len;
    size_t start = 0;
    while (start <= len) {
        const char *slash = (const char *)memchr(path + start, '/', len - start);
        const size_t end = slash ? (size_t)(slash - path) : len;
        const char *part = path + start;
        const size_t n = end - start;
        if (n == 2 && part[0] == '.' && part[1] == '.') {
            while (out->len > base && out->data[out->len - 1] != '/')
                --out->len;
            if (out->len > base)
                --out->len;  // the '/' before the dropped part
        } else if (n > 0 && !(n == 1 && part[0] == '.')) {
            th_append(out, "/", 1);
            th_append(out, part, n);
        }
        start = end + 1;
    }
    if (out->len == base)
        th_append(out, "/", 1);
    else if (!out->failed)
        out->data[out->len] = '\0';
}
