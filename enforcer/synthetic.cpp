/* enforcer/synthetic.cpp — removal of synthetic mountpoints and placeholders after the run. */
#include "synthetic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "syscalls.h"

namespace {

/* Whether the regular file `name` in `dir` holds exactly `want` (`len` bytes). */
bool holds_exactly(int dir, const char *name, const char *want, size_t len)
{
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    char buf[256];
    ssize_t n = len < sizeof buf ? read(fd, buf, sizeof buf) : -1;
    close(fd);
    return n == (ssize_t)len && memcmp(buf, want, len) == 0;
}

/* What the step made still stands there unchanged (fstatat without following). */
bool unchanged(const tp_plan *plan, const synthetic_mountpoint *s, int parent, const char *name, bool *dir)
{
    struct stat st;
    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != s->dev || st.st_ino != s->ino)
        return false;
    const tp_mount *m = s->step != 0 && s->step <= plan->mount_count ? &plan->mounts[s->step - 1] : nullptr;
    *dir = m != nullptr && (m->flags & TP_MNTF_MATERIALIZE_DIR);
    if (*dir)
        return S_ISDIR(st.st_mode); /* rmdir refuses one that is no longer empty */
    if (!S_ISREG(st.st_mode))
        return false;
    if (m == nullptr)
        return st.st_size == 0;
    return st.st_size == (off_t)m->source.len &&
        holds_exactly(parent, name, tp_plan_str(plan, m->source), m->source.len);
}

}  // namespace

void remove_synthetic(const tp_plan *plan, const synthetic_mountpoint *s)
{
    int anchor = open_cloexec(s->anchor, O_PATH | O_DIRECTORY);
    if (anchor < 0)
        return;
    const char *slash = strrchr(s->rel, '/');
    const char *name = slash ? slash + 1 : s->rel;
    int parent = anchor;
    if (slash != nullptr) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - s->rel), s->rel);
        parent = open_beneath(anchor, dir, O_PATH | O_DIRECTORY, 0);
    }
    bool is_dir = false;
    if (parent >= 0 && unchanged(plan, s, parent, name, &is_dir) &&
        unlinkat(parent, name, is_dir ? AT_REMOVEDIR : 0) != 0 && !(is_dir && errno == ENOTEMPTY))
        warn("synthetic mountpoint %s/%s not removed: %s", s->anchor, s->rel, strerror(errno));
    if (parent >= 0 && parent != anchor)
        close(parent);
    close(anchor);
}
