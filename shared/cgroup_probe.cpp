/* shared/cgroup_probe.cpp — which hierarchy can hold each controller's limit (cgroup_probe.h).
 *
 * Compiled into the compiler library and into the static musl enforcer: libc only, no C++
 * runtime, no allocation (every buffer is on the stack or in the caller's struct).
 */
#include "cgroup_probe.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

namespace {

constexpr const char *kNames[CG_CONTROLLER_COUNT] = {"pids", "memory", "cpu", "freezer"};
constexpr size_t kPath = sizeof(cgroup_probe::parent[0]);
constexpr size_t kWhy = sizeof(cgroup_probe::why_not[0]);

/* Line by line through a file with one fixed buffer; a line longer than it is skipped. */
struct line_reader {
    int fd;
    size_t pos, len;
    bool eof, skipping;
    char buf[8192];
};

bool open_lines(line_reader *r, const char *path)
{
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    r->pos = r->len = 0;
    r->eof = r->skipping = false;
    return r->fd >= 0;
}

/* Refills after moving the unread rest to the front; false at end of file or on an error. */
bool refill(line_reader *r)
{
    memmove(r->buf, r->buf + r->pos, r->len - r->pos);
    r->len -= r->pos;
    r->pos = 0;
    if (r->len == sizeof r->buf - 1) { /* no newline in a full buffer: drop the line */
        r->len = 0;
        r->skipping = true;
    }
    ssize_t n = read(r->fd, r->buf + r->len, sizeof r->buf - 1 - r->len);
    if (n <= 0) {
        r->eof = true;
        return false;
    }
    r->len += (size_t)n;
    return true;
}

/* The next line, NUL-terminated in place without its newline; NULL at the end. */
char *next_line(line_reader *r)
{
    for (;;) {
        char *start = r->buf + r->pos;
        char *nl = (char *)memchr(start, '\n', r->len - r->pos);
        if (nl != nullptr) {
            *nl = '\0';
            r->pos = (size_t)(nl - r->buf) + 1;
            if (r->skipping) {
                r->skipping = false;
                continue;
            }
            return start;
        }
        if (r->eof || !refill(r)) {
            if (r->pos == r->len || r->skipping)
                return nullptr;
            r->buf[r->len] = '\0';
            char *last = r->buf + r->pos;
            r->pos = r->len;
            return last;
        }
    }
}

/* A small whole file (cgroup.controllers and the like), NUL-terminated; false if unreadable. */
bool read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t len = 0;
    for (ssize_t n; len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0;)
        len += (size_t)n;
    close(fd);
    buf[len] = '\0';
    return true;
}

/* Whether `word` is one of the tokens of `list` separated by any of `seps`. */
bool has_token(const char *list, const char *word, const char *seps)
{
    size_t wl = strlen(word);
    for (const char *p = list; *p != '\0';) {
        size_t n = strcspn(p, seps);
        if (n == wl && memcmp(p, word, n) == 0)
            return true;
        p += n;
        p += strspn(p, seps);
    }
    return false;
}

bool copy(char *dst, size_t size, const char *src)
{
    return (size_t)snprintf(dst, size, "%s", src) < size;
}

/* The caller's cgroup in each hierarchy, from /proc/self/cgroup. */
struct self_cgroups {
    char v1[CG_CONTROLLER_COUNT][kPath];
    bool has_v1[CG_CONTROLLER_COUNT];
    char v2[kPath];
    bool has_v2;
};

/* "N:ctrl,ctrl:/path" lines (the path may itself contain ':'). */
void parse_proc_cgroup(const char *file, self_cgroups *self)
{
    line_reader r;
    if (!open_lines(&r, file))
        return;
    for (char *line; (line = next_line(&r)) != nullptr;) {
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : nullptr;
        if (c2 == nullptr)
            continue;
        *c2 = '\0';
        const char *list = c1 + 1, *path = c2 + 1;
        if (*list == '\0' && strncmp(line, "0:", 2) == 0) {
            self->has_v2 = copy(self->v2, kPath, path);
            continue;
        }
        for (int c = 0; c < CG_CONTROLLER_COUNT; c++)
            if (has_token(list, kNames[c], ","))
                self->has_v1[c] = copy(self->v1[c], kPath, path);
    }
    close(r.fd);
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
void unescape(char *s)
{
    char *out = s;
    for (const char *p = s; *p != '\0'; p++) {
        if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' && p[3] >= '0' && p[3] <= '7') {
            *out++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        } else {
            *out++ = *p;
        }
    }
    *out = '\0';
}

bool has_dotdot(const char *path)
{
    for (const char *p = path; (p = strstr(p, "..")) != nullptr; p += 2)
        if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
            return true;
    return false;
}

/* host_root + mount point + the part of `cg` below the mount's root; false when the mount
 * does not show `cg` (another cgroup namespace's view, or a bind mount of a subtree). */
bool map_path(const char *mroot, const char *mpoint, const char *cg, const char *host_root, char *out)
{
    if (has_dotdot(cg))
        return false;
    size_t rl = strcmp(mroot, "/") == 0 ? 0 : strlen(mroot);
    if (strncmp(cg, mroot, rl) != 0 || (cg[rl] != '\0' && cg[rl] != '/'))
        return false;
    const char *rest = strcmp(cg + rl, "/") == 0 ? "" : cg + rl;
    const char *mp = strcmp(mpoint, "/") == 0 ? "" : mpoint;
    return (size_t)snprintf(out, kPath, "%s%s%s", host_root, mp, rest) < kPath;
}

/* Where the caller's cgroup of each hierarchy is, as a directory. */
struct cgroup_dirs {
    bool v1_mounted[CG_CONTROLLER_COUNT];
    bool v1_mapped[CG_CONTROLLER_COUNT];
    char v1[CG_CONTROLLER_COUNT][kPath];
    bool v2_mounted, v2_mapped;
    bool v2_member; /* /proc/self/cgroup has the 0:: line */
    char v2[kPath];
};

/* Splits a mountinfo line: root, mount point, fstype and super options; false if malformed. */
bool split_mountinfo(char *line, char **root, char **mpoint, char **fstype, char **super)
{
    char *field[6];
    char *save = nullptr;
    char *tok = strtok_r(line, " ", &save);
    for (int i = 0; i < 6 && tok != nullptr; i++, tok = strtok_r(nullptr, " ", &save))
        field[i] = tok;
    while (tok != nullptr && strcmp(tok, "-") != 0) /* optional fields */
        tok = strtok_r(nullptr, " ", &save);
    if (tok == nullptr)
        return false;
    *fstype = strtok_r(nullptr, " ", &save);
    char *source = strtok_r(nullptr, " ", &save);
    *super = strtok_r(nullptr, " ", &save);
    if (*fstype == nullptr || source == nullptr || *super == nullptr)
        return false;
    *root = field[3];
    *mpoint = field[4];
    unescape(*root);
    unescape(*mpoint);
    return true;
}

void parse_mountinfo(const cgroup_host *host, const self_cgroups *self, cgroup_dirs *dirs)
{
    dirs->v2_member = self->has_v2;
    line_reader r;
    if (!open_lines(&r, host->mountinfo))
        return;
    for (char *line; (line = next_line(&r)) != nullptr;) {
        char *root, *mpoint, *fstype, *super;
        if (!split_mountinfo(line, &root, &mpoint, &fstype, &super))
            continue;
        if (strcmp(fstype, "cgroup2") == 0) {
            dirs->v2_mounted = true;
            if (!dirs->v2_mapped && self->has_v2)
                dirs->v2_mapped = map_path(root, mpoint, self->v2, host->root, dirs->v2);
            continue;
        }
        if (strcmp(fstype, "cgroup") != 0)
            continue;
        for (int c = 0; c < CG_CONTROLLER_COUNT; c++) {
            if (!has_token(super, kNames[c], ","))
                continue;
            dirs->v1_mounted[c] = true;
            if (!dirs->v1_mapped[c] && self->has_v1[c])
                dirs->v1_mapped[c] = map_path(root, mpoint, self->v1[c], host->root, dirs->v1[c]);
        }
    }
    close(r.fd);
}

bool writable(const char *dir, const char *file)
{
    char path[kPath + 32];
    snprintf(path, sizeof path, "%s%s%s", dir, *file ? "/" : "", file);
    return access(path, W_OK) == 0;
}

/* What the caller's v2 cgroup offers. */
struct v2_view {
    bool usable;           /* mounted and mapped */
    bool is_root;          /* no cgroup.type: the hierarchy's root */
    bool sole;             /* the supervisor is the only process in it */
    bool writable;         /* mkdir in it and write its cgroup.procs */
    bool subtree_writable; /* its cgroup.subtree_control (for the leaf move) */
    char controllers[512];
    char subtree[512];
};

/* True when cgroup.procs lists exactly `self`. */
bool only_process(const char *dir, pid_t self)
{
    char path[kPath + 16], text[64];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    if (!read_small(path, text, sizeof text))
        return false;
    char *end;
    long pid = strtol(text, &end, 10);
    return end != text && pid == (long)self && strspn(end, "\n") == strlen(end);
}

void view_v2(const cgroup_host *host, const cgroup_dirs *dirs, v2_view *v)
{
    v->usable = dirs->v2_mapped;
    if (!v->usable)
        return;
    char path[kPath + 32];
    snprintf(path, sizeof path, "%s/cgroup.controllers", dirs->v2);
    read_small(path, v->controllers, sizeof v->controllers);
    snprintf(path, sizeof path, "%s/cgroup.subtree_control", dirs->v2);
    read_small(path, v->subtree, sizeof v->subtree);
    snprintf(path, sizeof path, "%s/cgroup.type", dirs->v2);
    v->is_root = access(path, F_OK) != 0;
    v->sole = only_process(dirs->v2, host->self);
    v->writable = writable(dirs->v2, "") && writable(dirs->v2, "cgroup.procs");
    v->subtree_writable = writable(dirs->v2, "cgroup.subtree_control");
}

/* A clause of at most kWhy bytes; longer ones are cut. */
__attribute__((format(printf, 2, 3))) void clause(char *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, kWhy, fmt, ap);
    va_end(ap);
}

/* A reason is "trivial" when it only says a hierarchy or controller is absent. */
struct reason {
    char text[kWhy];
    bool trivial;
};

/* v2 for controller c: true, or false with the reason. Sets *enable for the leaf move. */
bool decide_v2(const cgroup_dirs *dirs, const v2_view *v, int c, bool *enable, reason *why)
{
    const char *dir = dirs->v2;
    why->trivial = false;
    if (!v->usable) {
        why->trivial = !dirs->v2_mounted || !dirs->v2_member;
        clause(why->text, why->trivial ? "no cgroup v2" : "cgroup v2 does not show our cgroup");
        return false;
    }
    bool is_freezer = c == CG_FREEZER;
    bool enabled = is_freezer || has_token(v->subtree, kNames[c], " \n");
    if (!is_freezer && !has_token(v->controllers, kNames[c], " \n")) {
        why->trivial = true;
        clause(why->text, "no %s controller in cgroup v2", kNames[c]);
        return false;
    }
    if (!enabled && v->is_root) {
        clause(why->text, "cgroup v2 %s is not enabled at the root %s", kNames[c], dir);
        return false;
    }
    if (!enabled && !v->sole) {
        clause(why->text, "cgroup v2 %s is not enabled in %s, which has other processes", kNames[c], dir);
        return false;
    }
    if (!v->writable || (!enabled && !v->subtree_writable)) {
        clause(why->text, "cgroup v2 %s is not writable by uid %u", dir, (unsigned)getuid());
        return false;
    }
    *enable = !enabled;
    return true;
}

bool decide_v1(const cgroup_dirs *dirs, int c, reason *why)
{
    why->trivial = false;
    if (!dirs->v1_mounted[c]) {
        why->trivial = true;
        clause(why->text, "no v1 hierarchy");
        return false;
    }
    if (!dirs->v1_mapped[c]) {
        clause(why->text, "the cgroup v1 %s mount does not show our cgroup", kNames[c]);
        return false;
    }
    if (!writable(dirs->v1[c], "")) {
        clause(why->text, "cgroup v1 %s at %s is not writable by uid %u", kNames[c], dirs->v1[c], (unsigned)getuid());
        return false;
    }
    return true;
}

/* One clause from both reasons: the informative ones, or both absences together. */
void combine(const reason *v2, const reason *v1, char *out)
{
    if (v2->trivial && !v1->trivial)
        clause(out, "%s", v1->text);
    else if (v1->trivial)
        clause(out, "%s and %s", v2->text, v1->text);
    else
        clause(out, "%s; %s", v2->text, v1->text);
}

}  // namespace

extern "C" struct cgroup_host cgroup_host_default(void)
{
    return {"/proc/self/cgroup", "/proc/self/mountinfo", "", getpid(), nullptr};
}

extern "C" void cgroup_probe_host(const struct cgroup_host *host, struct cgroup_probe *out)
{
    memset(out, 0, sizeof *out);
    self_cgroups self;
    memset(&self, 0, sizeof self);
    parse_proc_cgroup(host->proc_self_cgroup, &self);
    cgroup_dirs dirs;
    memset(&dirs, 0, sizeof dirs);
    parse_mountinfo(host, &self, &dirs);
    v2_view v2;
    memset(&v2, 0, sizeof v2);
    view_v2(host, &dirs, &v2);
    for (int c = 0; c < CG_CONTROLLER_COUNT; c++) {
        reason why2, why1;
        if (decide_v2(&dirs, &v2, c, &out->enable[c], &why2)) {
            out->version[c] = 2;
            copy(out->parent[c], kPath, dirs.v2);
            out->leaf_move = out->leaf_move || out->enable[c];
        } else if (decide_v1(&dirs, c, &why1)) {
            out->version[c] = 1;
            copy(out->parent[c], kPath, dirs.v1[c]);
        } else {
            combine(&why2, &why1, out->why_not[c]);
        }
    }
}

extern "C" const char *cgroup_mechanism(const struct cgroup_probe *probe, enum cgroup_controller c)
{
    static const char *const kText[3][CG_CONTROLLER_COUNT] = {
        {"no cgroup", "no cgroup", "no cgroup", "no cgroup"},
        {"cgroup v1 pids", "cgroup v1 memory", "cgroup v1 cpu", "cgroup v1 freezer"},
        {"cgroup v2 pids", "cgroup v2 memory", "cgroup v2 cpu", "cgroup v2 freezer"}};
    int v = probe->version[c];
    return kText[v >= 0 && v <= 2 ? v : 0][c];
}
