/* enforcer/paths.cpp — openat2 walks: beneath an anchor, never through a symlink. */
#include "paths.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    how.resolve = kuapi::RESOLVE_BENEATH | kuapi::RESOLVE_NO_SYMLINKS | kuapi::RESOLVE_NO_MAGICLINKS |
                  extra_resolve;
    return sys_openat2(dirfd, rel, &how);
}

const char *path_below(const char *path, const char *anchor)
{
    size_t n = strlen(anchor);
    while (n > 0 && anchor[n - 1] == '/')
        n--;  /* "/" itself: everything is below it */
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
