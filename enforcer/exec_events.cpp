/* enforcer/exec_events.cpp — see exec_events.h. Runs in the mediator: raw calls only, on the
 * mediator's own static buffers (raw.h).
 */
#include "exec_events.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "effect_log.h"
#include "raw.h"
#include "text_append.h"

namespace {

constexpr size_t kLineBytes = 64u << 10;   /* one exec line at most; longer argv is cut */
constexpr size_t kStringBytes = 32u << 10; /* one path or argument at most */
constexpr size_t kMaxArgs = 4096;
constexpr uint64_t kPage = 4096; /* x86_64, the only architecture of the plan */
constexpr int kAtFdcwd = -100;

char g_line[kLineBytes];
char g_text[kStringBytes];
char g_where[4096];

/* A PATH search (execvp, env, a shell without a hash) calls execve once per candidate until
 * one runs. The event of its first missing candidate says where the search ends (path_search
 * below); the calls for the candidates it named then are the ones expected next from that
 * caller, with the same argv, and make no event of their own. */
constexpr size_t kPathBytes = 4096;
struct {
    uint32_t pid;     /* 0: no search expected */
    size_t next, end; /* the expected candidates: NUL-separated, g_expected[next, end) */
    size_t argv_len;  /* the event's argv field, as written, in g_search_argv */
} g_search;
char g_expected[kStringBytes];
char g_search_argv[kLineBytes];
char g_first[kPathBytes]; /* the missing candidate the search starts from */
char g_path_var[kStringBytes];
char g_candidate[kPathBytes];
/* exec_events_hide: the token's fingerprint, never the token (the supervisor, which shares
 * this memory, forgets the token once init has written it). A Rabin-Karp hash modulo the
 * Mersenne prime 2^61-1 with a random base: 61 bits of a 256-bit token are no copy of it, and
 * a window of an argument that matches by chance (probability ~2^-61 per window) only gets
 * starred. */
constexpr uint64_t kPrime = (1ull << 61) - 1;
struct {
    uint64_t hash; /* of the token */
    uint64_t base; /* random, in [2^20, 2^61 - 2] */
    uint64_t top;  /* base^(len-1) mod kPrime: what the byte leaving the window weighs */
    size_t len;    /* 0: nothing hidden */
} g_hidden;

long rsys(long nr, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0)
{
    return raw_syscall6(nr, a, b, c, d, e, f);
}

uint64_t mulmod(uint64_t a, uint64_t b)
{
    unsigned __int128 x = (unsigned __int128)a * b;
    uint64_t r = (uint64_t)(x & kPrime) + (uint64_t)(x >> 61); /* < 2^62: one more fold */
    r = (r & kPrime) + (r >> 61);
    return r >= kPrime ? r - kPrime : r;
}

uint64_t addmod(uint64_t a, uint64_t b)
{
    uint64_t r = a + b; /* both < 2^61: no overflow */
    return r >= kPrime ? r - kPrime : r;
}

/* Hash of `len` bytes at `s`. */
uint64_t fingerprint(const char *s, size_t len)
{
    uint64_t h = 0;
    for (size_t i = 0; i < len; i++)
        h = addmod(mulmod(h, g_hidden.base), (unsigned char)s[i]);
    return h;
}

/* Stars over every window of g_text[0, len) whose fingerprint is the token's. */
void hide_token(size_t len)
{
    const size_t n = g_hidden.len;
    if (n == 0 || len < n)
        return;
    uint64_t h = fingerprint(g_text, n);
    size_t i = 0; /* the window is g_text[i, i + n) */
    for (;;) {
        if (h == g_hidden.hash) {
            for (size_t k = 0; k < n; k++)
                g_text[i + k] = '*';
            i += n;
            if (i + n > len)
                return;
            h = fingerprint(g_text + i, n);
            continue;
        }
        if (i + n >= len)
            return;
        uint64_t leaving = mulmod((unsigned char)g_text[i], g_hidden.top);
        h = addmod(mulmod(addmod(h, kPrime - leaving), g_hidden.base), (unsigned char)g_text[i + n]);
        i++;
    }
}

/* `len` bytes of process `pid` at `remote`, never across a page the caller did not ask for
 * (process_vm_readv does not split one iovec); the bytes read or -errno. */
long read_remote(uint32_t pid, void *local, uint64_t remote, size_t len)
{
    struct iovec to = {local, len}, from = {(void *)remote, len};
    return rsys(SYS_process_vm_readv, pid, (long)&to, 1, (long)&from, 1, 0);
}

/* The NUL-terminated string at `remote`, page by page (it may end just before an unmapped
 * page), into g_text; its length (at most kStringBytes: cut), or -1 when unreadable. */
long read_string(uint32_t pid, uint64_t remote)
{
    size_t got = 0;
    while (got < kStringBytes) {
        size_t in_page = (size_t)(kPage - ((remote + got) & (kPage - 1)));
        size_t want = in_page < kStringBytes - got ? in_page : kStringBytes - got;
        long n = read_remote(pid, g_text + got, remote + got, want);
        if (n <= 0)
            return -1;
        for (size_t i = got; i < got + (size_t)n; i++)
            if (g_text[i] == '\0') {
                hide_token(i);
                return (long)i;
            }
        got += (size_t)n;
    }
    hide_token(got);
    return (long)got;
}

/* Pointer `index` of the argv array at `argv`, or false when unreadable. */
bool read_pointer(uint32_t pid, uint64_t argv, size_t index, uint64_t *out)
{
    return read_remote(pid, out, argv + index * sizeof *out, sizeof *out) == (long)sizeof *out;
}

/* The target of /proc/PID/LINK (cwd, or fd/N) as a field `key`; nothing when unreadable. */
void proc_link_field(jsonl::line &l, const char *key, uint32_t pid, const char *link, long fd)
{
    char path[64];
    size_t at = 0;
    append_text(path, &at, "/proc/");
    append_number(path, &at, pid);
    append_text(path, &at, "/");
    append_text(path, &at, link);
    if (fd >= 0)
        append_number(path, &at, (unsigned long)fd);
    path[at] = '\0';
    long n = rsys(SYS_readlinkat, AT_FDCWD, (long)path, (long)g_where, sizeof g_where);
    if (n > 0)
        jsonl::field_str(l, key, g_where, (size_t)n);
}

/* Whether g_text (the path, `len` bytes) names an existing file where the caller starts
 * from: its working directory or `dirfd` for a relative path. A hint for readers (a PATH
 * search logs every candidate it tries), not a verdict: the file can appear or go before the
 * kernel looks, and a caller in a mount namespace of its own sees other files. Nothing when
 * it cannot be told (an unreadable directory, /proc not the sandbox's). */
void found_field(jsonl::line &l, uint32_t pid, long len, long dirfd, bool proc_shows_sandbox)
{
    if (len == 0) {
        jsonl::field_bool(l, "found", dirfd >= 0); /* fexecve: the descriptor is the file */
        return;
    }
    long base = AT_FDCWD;
    if (g_text[0] != '/') {
        if (!proc_shows_sandbox)
            return;
        char path[64];
        size_t at = 0;
        append_text(path, &at, "/proc/");
        append_number(path, &at, pid);
        append_text(path, &at, dirfd == kAtFdcwd ? "/cwd" : "/fd/");
        if (dirfd != kAtFdcwd)
            append_number(path, &at, (unsigned long)dirfd);
        path[at] = '\0';
        base = rsys(SYS_openat, AT_FDCWD, (long)path, O_PATH | O_CLOEXEC);
        if (base < 0)
            return;
    }
    long ret = rsys(SYS_faccessat, base, (long)g_text, F_OK);
    if (base != AT_FDCWD)
        raw_close((int)base);
    if (ret == 0 || ret == -ENOENT || ret == -ENOTDIR)
        jsonl::field_bool(l, "found", ret == 0);
}

/* argv as an array; false when a pointer or a string could not be read. */
bool argv_field(jsonl::line &l, uint32_t pid, uint64_t argv)
{
    jsonl::open(l, "argv", '[');
    bool readable = true;
    for (size_t i = 0; argv != 0; i++) {
        uint64_t p = 0;
        if (!read_pointer(pid, argv, i, &p)) {
            readable = false;
            break;
        }
        if (p == 0)
            break;
        if (i == kMaxArgs) {
            l.cut = true;
            break;
        }
        long n = read_string(pid, p);
        if (n < 0) {
            readable = false;
            break;
        }
        jsonl::item_str(l, g_text, (size_t)n);
    }
    jsonl::close(l);
    return readable;
}

/* The value of the caller's PATH (from `envp`, its execve's environment) into g_path_var;
 * its length, or -1 when it has none or it cannot be read. Clobbers g_text. */
long read_path_var(uint32_t pid, uint64_t envp)
{
    for (size_t i = 0; envp != 0 && i < kMaxArgs; i++) {
        uint64_t p = 0;
        if (!read_pointer(pid, envp, i, &p) || p == 0)
            return -1;
        long n = read_string(pid, p);
        if (n < 5 || g_text[0] != 'P' || g_text[1] != 'A' || g_text[2] != 'T' || g_text[3] != 'H' || g_text[4] != '=')
            continue;
        for (long k = 5; k < n; k++)
            g_path_var[k - 5] = g_text[k];
        return n - 5;
    }
    return -1;
}

bool same_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen != blen)
        return false;
    for (size_t i = 0; i < alen; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* g_candidate = DIR + "/" + NAME; false when it does not fit or DIR is not absolute. */
bool make_candidate(const char *dir, size_t dir_len, const char *name, size_t name_len)
{
    if (dir_len == 0 || dir[0] != '/' || dir_len + 1 + name_len + 1 > kPathBytes)
        return false;
    size_t at = 0;
    for (size_t i = 0; i < dir_len; i++)
        g_candidate[at++] = dir[i];
    g_candidate[at++] = '/';
    for (size_t i = 0; i < name_len; i++)
        g_candidate[at++] = name[i];
    g_candidate[at] = '\0';
    return true;
}

/* For a missing absolute candidate `first` (`len` bytes, in g_first) of the caller's PATH
 * search: walks PATH on from the candidate's directory, as execvp does, to the first file
 * that exists. Writes `path` (that file, or the last candidate), `found` and `tried` (the
 * missing candidates before it, `first` included) into `l`, and expects the calls for the
 * candidates after `first`. False, with nothing written, when `first` is not a candidate of
 * PATH, is PATH's last one, or the walk meets a relative entry (whose base the mediator
 * does not share). */
bool path_search(jsonl::line &l, uint32_t pid, uint64_t envp, size_t len)
{
    size_t slash = len;
    while (slash > 0 && g_first[slash - 1] != '/')
        slash--;
    if (slash <= 1 || slash == len)
        return false;
    const char *name = g_first + slash;
    const size_t name_len = len - slash, dir_len = slash - 1;
    long var_len = read_path_var(pid, envp);
    if (var_len <= 0)
        return false;
    size_t start = 0, end = 0, expected = 0;
    bool after_first = false, found = false;
    for (; start <= (size_t)var_len && !found; start = end + 1) {
        end = start;
        while (end < (size_t)var_len && g_path_var[end] != ':')
            end++;
        if (!after_first) {
            after_first = same_bytes(g_path_var + start, end - start, g_first, dir_len);
            continue;
        }
        if (!make_candidate(g_path_var + start, end - start, name, name_len))
            return false;
        const size_t candidate_len = jsonl::detail::cstr_len(g_candidate);
        if (candidate_len + 1 > kStringBytes - expected)
            return false;
        found = rsys(SYS_faccessat, AT_FDCWD, (long)g_candidate, F_OK) == 0;
        for (size_t i = 0; i <= candidate_len; i++)
            g_expected[expected++] = g_candidate[i];
    }
    if (expected == 0)
        return false;
    /* The last expected candidate is the event's path; the ones before it were tried. */
    size_t last = expected - 1;
    while (last > 0 && g_expected[last - 1] != '\0')
        last--;
    jsonl::field_str(l, "path", g_expected + last, expected - 1 - last);
    jsonl::field_bool(l, "found", found);
    jsonl::open(l, "tried", '[');
    jsonl::item_str(l, g_first, len);
    for (size_t at = 0; at < last; at += jsonl::detail::cstr_len(g_expected + at) + 1)
        jsonl::item_str(l, g_expected + at);
    jsonl::close(l);
    g_search.pid = pid;
    g_search.next = 0;
    g_search.end = expected;
    return true;
}

/* Whether the call for `path` (`len` bytes) by `pid` is the search's next expected candidate;
 * then it is taken off the list. */
bool expected_candidate(uint32_t pid, const char *path, long len)
{
    if (g_search.pid == 0 || pid != g_search.pid || len < 0)
        return false;
    const char *next = g_expected + g_search.next;
    const size_t next_len = jsonl::detail::cstr_len(next);
    if (!same_bytes(next, next_len, path, (size_t)len)) {
        g_search.pid = 0; /* the caller went another way: back to one event per call */
        return false;
    }
    g_search.next += next_len + 1;
    return true;
}

}  // namespace

void exec_events_hide(const char *token, size_t len)
{
    uint64_t random = 0;
    if (token == nullptr || len < 16 || rsys(SYS_getrandom, (long)&random, sizeof random, 0) != (long)sizeof random)
        return;
    g_hidden.base = (1ull << 20) + random % (kPrime - 1 - (1ull << 20));
    g_hidden.hash = fingerprint(token, len);
    g_hidden.top = 1;
    for (size_t i = 1; i < len; i++)
        g_hidden.top = mulmod(g_hidden.top, g_hidden.base);
    g_hidden.len = len;
}

bool exec_event_syscall(int nr)
{
    return nr == SYS_execve || nr == SYS_execveat;
}

void exec_event_record(int listener, const kuapi::seccomp_notif &n, bool proc_shows_sandbox)
{
    const bool at = n.data.nr == SYS_execveat;
    const uint64_t *args = n.data.args;
    const long dirfd = at ? (long)(int)args[0] : kAtFdcwd;
    jsonl::line l;
    effect_log_begin(l, g_line, sizeof g_line, "mediator", "exec");
    jsonl::field_u64(l, "pid", n.pid);
    jsonl::field_str(l, "syscall", at ? "execveat" : "execve");
    if (at) {
        jsonl::field_i64(l, "dirfd", dirfd);
        jsonl::field_u64(l, "flags", (uint32_t)args[4]);
    }
    long len = read_string(n.pid, args[at ? 1 : 0]);
    const bool candidate = expected_candidate(n.pid, g_text, len);
    bool searched = false;
    if (!candidate && !at && len > 0 && g_text[0] == '/' && (size_t)len < kPathBytes &&
        rsys(SYS_faccessat, AT_FDCWD, (long)g_text, F_OK) == -ENOENT) {
        for (long i = 0; i < len; i++)
            g_first[i] = g_text[i];
        searched = path_search(l, n.pid, args[2], (size_t)len);
        for (long i = 0; i < len; i++) /* read_path_var used g_text */
            g_text[i] = g_first[i];
    }
    if (!searched) {
        if (len >= 0)
            jsonl::field_str(l, "path", g_text, (size_t)len);
        else
            jsonl::field_null(l, "path");
        if (len >= 0 && len < (long)kStringBytes)
            found_field(l, n.pid, len, dirfd, proc_shows_sandbox);
    }
    /* Where a relative path (or fexecve's empty one) starts from. */
    if (proc_shows_sandbox && len >= 0 && (len == 0 || g_text[0] != '/')) {
        if (dirfd == kAtFdcwd)
            proc_link_field(l, "cwd", n.pid, "cwd", -1);
        else
            proc_link_field(l, "dir", n.pid, "fd/", dirfd);
    }
    const size_t argv_at = l.len;
    bool argv_ok = argv_field(l, n.pid, args[at ? 2 : 1]);
    if (candidate) {
        const bool same = argv_ok && same_bytes(l.buf + argv_at, l.len - argv_at, g_search_argv, g_search.argv_len);
        if (!same || g_search.next >= g_search.end)
            g_search.pid = 0;
        if (same)
            return; /* the search's event names this call already */
    }
    if (len < 0 || !argv_ok)
        jsonl::field_str(l, "unreadable", len < 0 ? "path" : "argv");
    /* Read by pid: the line is the caller's only if its notification is still pending. */
    if (rsys(SYS_ioctl, listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_ID_VALID, (long)&n.id) != 0) {
        g_search.pid = 0;
        return;
    }
    if (searched) {
        g_search.argv_len = l.len - argv_at;
        for (size_t i = 0; i < g_search.argv_len; i++)
            g_search_argv[i] = l.buf[argv_at + i];
        if (!argv_ok)
            g_search.pid = 0;
    }
    effect_log_write(l);
}
