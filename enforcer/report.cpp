/* enforcer/report.cpp — messages on stderr and the status channel (sandbox → supervisor). */
#include "report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "effect_log.h"
#include "raw.h"

namespace {

constexpr char kPrefix[] = "tartaros: ";
constexpr size_t kMaxPayload = 4097; /* a path of TP_MAX_PATH bytes and its NUL */

enum record_kind : uint32_t {
    RECORD_FAILURE = 'F',  /* a = the message; the sandbox side exits with `code`; dev = its container_fix */
    RECORD_SYNTHETIC = 'S' /* a = anchor, b = path below it; dev, ino of the file; code = its step */
};

struct record_header {
    uint32_t kind;
    int32_t code;
    uint64_t dev;
    uint64_t ino;
    uint32_t len_a;
    uint32_t len_b;
};

int g_status_fd = -1;

void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        buf += n;
        len -= (size_t)n;
    }
}

/* Supervisor side, while init runs on the same memory: raw reads (raw.h). */
bool read_all(int fd, void *buf, size_t len)
{
    char *p = (char *)buf;
    while (len > 0) {
        long n = raw_read(fd, p, len);
        if (n == -EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* One line "tartaros: [tag]text\n" written with a single write(2). */
__attribute__((format(printf, 2, 0))) void vprint_line(const char *tag, const char *fmt, va_list ap)
{
    char line[2048];
    int n = snprintf(line, sizeof line, "%s%s", kPrefix, tag);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    write_all(STDERR_FILENO, line, len);
}

__attribute__((format(printf, 2, 3))) void print_line(const char *tag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint_line(tag, fmt, ap);
    va_end(ap);
}

void send_record(const record_header &h, const char *a, const char *b)
{
    static char buf[sizeof(record_header) + 2 * kMaxPayload];
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, a, h.len_a);
    memcpy(buf + sizeof h + h.len_a, b, h.len_b);
    write_all(g_status_fd, buf, sizeof h + h.len_a + h.len_b);
}

[[noreturn]] void fail_v(int code, container_fix fix, const char *fmt, va_list ap)
{
    char message[2048]; /* the supervisor keeps sizeof(sandbox_outcome::message) of a reported one */
    vsnprintf(message, sizeof message, fmt, ap);
    if (g_status_fd < 0) {
        strncat(message, container_hint(fix), sizeof message - strlen(message) - 1);
        print_line("", "%s", message);
        effect_log_exit(code, message); /* the supervisor's run_end; nothing elsewhere */
        _exit(code);
    }
    record_header h = {RECORD_FAILURE, code, (uint64_t)fix, 0, (uint32_t)strlen(message), 0};
    send_record(h, message, "");
    _exit(code);
}

/* Not from the arena, which init is using at the same time: a mapping of its own (raw), for
 * a record that is rare (an absent deny target without materialize). */
void keep_synthetic(sandbox_outcome *out, const record_header &h, const char *payload)
{
    size_t size = sizeof(synthetic_mountpoint) + h.len_a + h.len_b + 2;
    long mem = raw_syscall6(SYS_mmap, 0, (long)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem < 0)
        return; /* out of memory: the synthetic file stays (an empty file) */
    synthetic_mountpoint *s = (synthetic_mountpoint *)mem;
    char *strings = (char *)(s + 1);
    memcpy(strings, payload, h.len_a);
    memcpy(strings + h.len_a + 1, payload + h.len_a, h.len_b);
    strings[h.len_a] = strings[h.len_a + 1 + h.len_b] = '\0';
    s->anchor = strings;
    s->rel = strings + h.len_a + 1;
    s->dev = (dev_t)h.dev;
    s->ino = (ino_t)h.ino;
    s->step = (uint32_t)h.code;
    s->next = out->synthetic;
    out->synthetic = s;
}

void keep_failure(sandbox_outcome *out, const record_header &h, const char *payload)
{
    size_t len = h.len_a < sizeof out->message ? h.len_a : sizeof out->message - 1;
    memcpy(out->message, payload, len);
    out->message[len] = '\0';
    out->failed = true;
    out->code = h.code;
    out->fix = h.dev <= FIX_CGROUPS ? (container_fix)h.dev : FIX_NONE;
}

}  // namespace

void warn(const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    print_line("warning: ", "%s", text);
    effect_log_warning(text);
}

void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint_line("note: ", fmt, ap);
    va_end(ap);
}

void fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(code, FIX_NONE, fmt, ap);
}

void refuse(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(EXIT_REFUSAL, FIX_NONE, fmt, ap);
}

void refuse_for(container_fix fix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(EXIT_REFUSAL, fix, fmt, ap);
}

void report_to_supervisor(int fd)
{
    g_status_fd = fd;
}

int report_fd()
{
    return g_status_fd;
}

void report_synthetic_mountpoint(const char *anchor, const char *rel, dev_t dev, ino_t ino, uint32_t step)
{
    size_t la = strlen(anchor), lb = strlen(rel);
    if (g_status_fd < 0 || la >= kMaxPayload || lb >= kMaxPayload)
        return;
    record_header h = {RECORD_SYNTHETIC, (int)step, (uint64_t)dev, (uint64_t)ino, (uint32_t)la, (uint32_t)lb};
    send_record(h, anchor, rel);
}

void read_sandbox_outcome(int fd, sandbox_outcome *out)
{
    static char payload[2 * kMaxPayload];
    record_header h;
    while (read_all(fd, &h, sizeof h)) {
        if (h.len_a >= kMaxPayload || h.len_b >= kMaxPayload || !read_all(fd, payload, h.len_a + h.len_b))
            return; /* a torn record: the sandbox side died while writing it */
        if (h.kind == RECORD_SYNTHETIC)
            keep_synthetic(out, h, payload);
        else if (h.kind == RECORD_FAILURE)
            keep_failure(out, h, payload);
    }
}

void print_reported_failure(sandbox_outcome *out)
{
    strncat(out->message, container_hint(out->fix), sizeof out->message - strlen(out->message) - 1);
    char line[sizeof out->message + sizeof kPrefix + 1];
    int n = snprintf(line, sizeof line, "%s%s\n", kPrefix, out->message);
    if (n > 0)
        write_all(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

const char *origin_text(uint32_t line, uint32_t col, char *buf, size_t size)
{
    if (line == 0)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, " (policy line %u:%u)", line, col);
    return buf;
}
