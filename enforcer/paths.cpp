/* enforcer/paths.cpp — openat2 walks: beneath an anchor, never through a symlink. */
#include "paths.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "syscalls.h"

namespace {

/* Copies the next component of *p into name and advances *p past it. False at the end,
 * or with errno = ENAMETOOLONG for a component longer than NAME_MAX. */
bool next_component(const char **p, char (&name)[NAME_MAX + 1])
{
    const char *s = *p;
    while (*s == '/')
        s++;
    if (*s == '\0') {
        *p = s;
        errno = 0;
        return false;
    }
    const char *end = strchrnul(s, '/');
    size_t len = (size_t)(end - s);
    if (len > NAME_MAX) {
        errno = ENAMETOOLONG;
        return false;
    }
    memcpy(name, s, len);
    name[len] = '\0';
    *p = end;
    return true;
}

bool more_components(const char *p)
{
    while (*p == '/')
        p++;
    return *p != '\0';
}

int dup_fd(int fd)
{
    return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

walk_result walk_stop(walk_end end, int fd, const char *rel, const char *p, const char *name)
{
    walk_result r = {};
    r.end = end;
    r.fd = fd;
    r.prefix_len = (size_t)(p - rel);
    strcpy(r.name, name);
    return r;
}

walk_result walk_error(int cur)
{
    walk_result r = {};
    r.end = WALK_FAILED;
    r.fd = -1;
    r.error = errno;
    if (cur >= 0)
        close(cur);
    return r;
}

/* Opens the existing component `name` of `cur`, or creates it first. */
int open_or_create(int cur, const char *name, bool as_dir, uint64_t extra_resolve)
{
    int fd = open_beneath(cur, name, O_PATH | O_NOFOLLOW, extra_resolve);
    if (fd >= 0 || errno != ENOENT)
        return fd;
    if (as_dir) {
        if (mkdirat(cur, name, 0755) != 0 && errno != EEXIST)
            return -1;
    } else if (!create_empty_file(cur, name, 0644) && errno != EEXIST) {
        return -1;
    }
    return open_beneath(cur, name, O_PATH | O_NOFOLLOW, extra_resolve);
}

/* The state of follow_beneath: the directory reached so far and what is left to resolve. */
struct follower {
    int anchor;
    int cur;              /* O_PATH of the directory `canon` */
    char canon[PATH_MAX]; /* symlink-free path of `cur` below the anchor */
    size_t canon_len;
    char todo[PATH_MAX]; /* the rest of the path, after the symlinks spliced in so far */
    followed_path out;
};

bool append_component(char *buf, size_t *len, const char *name)
{
    size_t n = strlen(name);
    if (*len + 1 + n >= PATH_MAX) {
        errno = ENAMETOOLONG;
        return false;
    }
    if (*len > 0)
        buf[(*len)++] = '/';
    memcpy(buf + *len, name, n + 1);
    *len += n;
    return true;
}

/* Ends the walk: the result is in f->out. Returns NULL, "no place to go on". */
const char *follow_stop(follower *f, follow_end end, const char *why)
{
    f->out.end = end;
    f->out.why = why;
    f->out.error = end == FOLLOW_FAILED ? errno : 0;
    if (f->cur >= 0)
        close(f->cur);
    f->cur = -1;
    return nullptr;
}

/* ".." from `canon`: the parent, reopened from the anchor; never above the anchor. */
bool follow_dotdot(follower *f)
{
    if (f->canon_len == 0) {
        follow_stop(f, FOLLOW_OUTSIDE, "\"..\" leads above the writable root");
        return false;
    }
    char *slash = strrchr(f->canon, '/');
    f->canon_len = slash ? (size_t)(slash - f->canon) : 0;
    f->canon[f->canon_len] = '\0';
    close(f->cur);
    f->cur = f->canon_len ? open_beneath(f->anchor, f->canon, O_PATH | O_DIRECTORY, 0) : dup_fd(f->anchor);
    if (f->cur < 0)
        follow_stop(f, FOLLOW_FAILED, nullptr);
    return f->cur >= 0;
}

/* Records the symlink `name` of `cur` (open as `fd`, closed here) and puts its target in
 * front of `rest`. Returns where to go on (f->todo), or NULL when the result is in f->out. */
const char *follow_symlink(follower *f, int fd, const char *name, const char *rest)
{
    char target[PATH_MAX];
    ssize_t n = f->out.link_count < kMaxFollowedSymlinks ? readlinkat(fd, "", target, sizeof target) : 0;
    int err = errno;
    close(fd);
    errno = err;
    if (n < 0)
        return follow_stop(f, FOLLOW_FAILED, nullptr);
    if (f->out.link_count == kMaxFollowedSymlinks || n == (ssize_t)sizeof target)
        return follow_stop(f, FOLLOW_OUTSIDE, n ? "its target is too long" : "too many symlinks");
    target[n] = '\0';
    met_symlink *link = &f->out.links[f->out.link_count++];
    link->path = f->canon_len ? arena_concat3(f->canon, "/", name) : arena_strdup(name);
    link->target = arena_strdup(target);
    size_t rest_len = strlen(rest);
    if (target[0] == '/' || (size_t)n + 1 + rest_len >= sizeof f->todo)
        return follow_stop(f, FOLLOW_OUTSIDE, target[0] == '/' ? "its target is absolute" : "the path is too long");
    memmove(f->todo + n + 1, rest, rest_len + 1);
    memcpy(f->todo, target, (size_t)n);
    f->todo[n] = '/';
    return f->todo;
}

/* `name` is missing in `canon`: the object's path is canon/name/rest, unless the rest
 * needs more than a plain walk down. */
const char *follow_missing(follower *f, const char *name, const char *rest)
{
    char path[PATH_MAX];
    size_t len = f->canon_len;
    memcpy(path, f->canon, len + 1);
    char component[NAME_MAX + 1];
    bool ok = append_component(path, &len, name);
    while (ok && next_component(&rest, component)) {
        if (strcmp(component, ".") == 0 || strcmp(component, "..") == 0)
            return follow_stop(f, FOLLOW_OUTSIDE, "a missing directory is followed by \".\" or \"..\"");
        ok = append_component(path, &len, component);
    }
    if (!ok || errno == ENAMETOOLONG)
        return follow_stop(f, FOLLOW_FAILED, nullptr);
    f->out.path = arena_strdup(path);
    f->out.existing_len = f->canon_len;
    return follow_stop(f, FOLLOW_MISSING, nullptr);
}

/* The kernel must reach the same object: openat2(RESOLVE_BENEATH) is the reference. */
const char *follow_found(follower *f, const char *rel)
{
    kuapi::open_how how = {};
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = kuapi::RESOLVE_BENEATH | kuapi::RESOLVE_NO_MAGICLINKS;
    int kernel = sys_openat2(f->anchor, rel[0] ? rel : ".", &how);
    int ours = f->canon_len ? open_beneath(f->anchor, f->canon, O_PATH | O_NOFOLLOW, 0) : dup_fd(f->anchor);
    struct stat a, b;
    bool same = kernel >= 0 && ours >= 0 && fstat(kernel, &a) == 0 && fstat(ours, &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino;
    int err = kernel < 0 || ours < 0 ? errno : ESTALE;
    if (kernel >= 0)
        close(kernel);
    if (ours >= 0)
        close(ours);
    if (!same) {
        errno = err;
        return follow_stop(f, FOLLOW_FAILED, nullptr);
    }
    f->out.path = arena_strdup(f->canon);
    return follow_stop(f, FOLLOW_FOUND, nullptr);
}

/* A directory or a file reached at `name` (open as `fd`): descend, or end the walk there. */
const char *follow_entry(follower *f, int fd, bool is_dir, const char *name, const char *rest, const char *rel)
{
    if (!append_component(f->canon, &f->canon_len, name)) {
        close(fd);
        return follow_stop(f, FOLLOW_FAILED, nullptr);
    }
    if (is_dir) {
        close(f->cur);
        f->cur = fd;
        return rest;
    }
    close(fd);
    if (more_components(rest))
        return follow_stop(f, FOLLOW_OUTSIDE, "a file on the way is not a directory");
    return follow_found(f, rel);
}

/* Follows one component `name`, `rest` being what comes after it. Returns where to go on,
 * or NULL when the result is in f->out. */
const char *follow_component(follower *f, const char *name, const char *rest, const char *rel)
{
    if (strcmp(name, ".") == 0)
        return rest;
    if (strcmp(name, "..") == 0)
        return follow_dotdot(f) ? rest : nullptr;
    int fd = open_beneath(f->cur, name, O_PATH | O_NOFOLLOW, 0);
    if (fd < 0 && errno == ENOENT)
        return follow_missing(f, name, rest);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        errno = err;
        return follow_stop(f, FOLLOW_FAILED, nullptr);
    }
    if (S_ISLNK(st.st_mode))
        return follow_symlink(f, fd, name, rest);
    return follow_entry(f, fd, S_ISDIR(st.st_mode), name, rest, rel);
}

}  // namespace

int open_in_root(int root_fd, const char *path, int flags)
{
    kuapi::open_how how = {};
    how.flags = (uint64_t)(flags | O_CLOEXEC);
    how.resolve = kuapi::RESOLVE_IN_ROOT | kuapi::RESOLVE_NO_MAGICLINKS;
    return sys_openat2(root_fd, path, &how);
}

int open_beneath(int dirfd, const char *rel, int flags, uint64_t extra_resolve)
{
    kuapi::open_how how = {};
    how.flags = (uint64_t)(flags | O_CLOEXEC);
    how.resolve = kuapi::RESOLVE_BENEATH | kuapi::RESOLVE_NO_SYMLINKS | kuapi::RESOLVE_NO_MAGICLINKS | extra_resolve;
    return sys_openat2(dirfd, rel, &how);
}

const char *path_below(const char *path, const char *anchor)
{
    size_t n = strlen(anchor);
    while (n > 0 && anchor[n - 1] == '/')
        n--; /* "/" itself: everything is below it */
    if (strncmp(path, anchor, n) != 0)
        return nullptr;
    if (path[n] == '\0')
        return path + n;
    if (path[n] != '/')
        return nullptr;
    return path + n + 1;
}

bool path_has_dot_component(const char *path)
{
    const char *p = path;
    char name[NAME_MAX + 1];
    while (next_component(&p, name))
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            return true;
    return false;
}

walk_result walk_beneath(int anchor_fd, const char *rel)
{
    int cur = dup_fd(anchor_fd);
    if (cur < 0)
        return walk_error(-1);
    const char *p = rel;
    char name[NAME_MAX + 1] = "";
    while (next_component(&p, name)) {
        int fd = open_beneath(cur, name, O_PATH | O_NOFOLLOW, 0);
        if (fd < 0 && errno == ENOENT)
            return walk_stop(WALK_MISSING, cur, rel, p, name);
        if (fd < 0)
            return walk_error(cur);
        close(cur);
        cur = fd;
        struct stat st;
        if (fstat(cur, &st) != 0)
            return walk_error(cur);
        if (S_ISLNK(st.st_mode))
            return walk_stop(WALK_SYMLINK, cur, rel, p, name);
        if (!S_ISDIR(st.st_mode) && more_components(p))
            return walk_stop(WALK_NOT_DIR, cur, rel, p, name);
    }
    if (errno == ENAMETOOLONG)
        return walk_error(cur);
    return walk_stop(WALK_FOUND, cur, rel, p, name);
}

int create_beneath(int dirfd, const char *rel, bool last_is_dir, uint64_t extra_resolve)
{
    int cur = dup_fd(dirfd);
    const char *p = rel;
    char name[NAME_MAX + 1];
    while (cur >= 0 && next_component(&p, name)) {
        bool last = !more_components(p);
        int fd = open_or_create(cur, name, !last || last_is_dir, extra_resolve);
        close(cur);
        cur = fd;
        struct stat st;
        if (cur >= 0 && !last && (fstat(cur, &st) != 0 || !S_ISDIR(st.st_mode))) {
            close(cur);
            errno = ENOTDIR;
            return -1;
        }
    }
    if (cur >= 0 && errno == ENAMETOOLONG) {
        close(cur);
        return -1;
    }
    return cur;
}

bool create_empty_file(int dirfd, const char *name, mode_t mode)
{
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

followed_path follow_beneath(int anchor_fd, const char *rel)
{
    static follower f; /* 8 KiB of buffers: not on init's stack */
    f = {};
    f.anchor = anchor_fd;
    f.cur = dup_fd(anchor_fd);
    if (f.cur < 0 || strlen(rel) >= sizeof f.todo) {
        errno = f.cur < 0 ? errno : ENAMETOOLONG;
        follow_stop(&f, FOLLOW_FAILED, nullptr);
        return f.out;
    }
    strcpy(f.todo, rel);
    const char *p = f.todo;
    char name[NAME_MAX + 1];
    while (p != nullptr && next_component(&p, name))
        p = follow_component(&f, name, p, rel);
    if (p != nullptr && errno == ENAMETOOLONG)
        follow_stop(&f, FOLLOW_FAILED, nullptr);
    else if (p != nullptr)
        follow_found(&f, rel);
    return f.out;
}
