/* enforcer/plan_guard.cpp — files of this run the sandbox must not touch: the plan it reads
 * (kept readable, made read-only) and the effect log (hidden).
 *
 * The compiler write-denies the plan at its -o path, but the caller may run a copy from
 * anywhere; an agent that rewrites that file weakens its own next run. The effect log is the
 * record of what the agent did, so it may not even read it. After every step the decision is
 * mechanical: when the file the supervisor opened (same device and inode) is reachable at its
 * path in the new tree,
 *  - the plan, if its mount is writable (fstatvfs, ST_RDONLY), is bound read-only onto itself
 *    (no write, truncate, unlink or rename over it: EROFS/EBUSY);
 *  - the log, wherever it is, is covered by /dev/null on a read-only, nodev mount (every open
 *    fails with EACCES; unlink, rename over it: EBUSY);
 * and, when the file's mount is writable, every ancestor directory on a writable mount that
 * is not already a mount root is pinned first, so no parent can be renamed to swap it out.
 * The path is the kernel's symlink-free name for the file; it is opened again without
 * following any symlink. Another name of the same file (a hard link) is not covered: the
 * supervisor refuses a log with more than one link (effect_log.cpp).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "arena.h"
#include "denies.h"
#include "effect_log.h"
#include "mount_steps.h"
#include "report.h"
#include "syscalls.h"

namespace {

constexpr uint64_t kReadOnlyFile = kuapi::MOUNT_ATTR_RDONLY | kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV;
constexpr uint64_t kPinDir = kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV;

/* One file to guard, and how. */
struct guarded_file {
    const char *name; /* "the plan", "the effect log" */
    const plan_identity *file;
    bool hide;            /* cover it with /dev/null (the log); else bind it read-only */
    const char *refusal;  /* under --strict: "<name> <path> <refusal>: what: why" */
    const char *degraded; /* otherwise a warning: "<name> <path> <degraded>: what: why" */
};

int open_without_symlinks(int root, const char *path, int flags)
{
    kuapi::open_how how = {};
    how.flags = (uint64_t)(flags | O_PATH | O_NOFOLLOW | O_CLOEXEC);
    how.resolve = kuapi::RESOLVE_IN_ROOT | kuapi::RESOLVE_NO_SYMLINKS | kuapi::RESOLVE_NO_MAGICLINKS;
    return sys_openat2(root, path, &how);
}

bool on_writable_mount(int fd)
{
    struct statvfs sv;
    return fstatvfs(fd, &sv) == 0 && !(sv.f_flag & ST_RDONLY);
}

/* Clones the mount tree at `source`, sets `attrs` on the clone and attaches it over `target`;
 * the name of the failed call, or NULL. */
const char *cover(int source, int target, uint64_t attrs)
{
    int clone = clone_mount(source);
    if (clone < 0)
        return "open_tree";
    const char *failed = !set_mount_attrs(clone, attrs, true) ? "mount_setattr"
        : !attach_mount(clone, target)                        ? "move_mount"
                                                              : nullptr;
    int err = errno;
    close(clone);
    errno = err;
    return failed;
}

/* The file at its path in the new tree, when it is the very file the supervisor opened. */
int open_the_file(const mount_tree *t, const plan_identity &file)
{
    int fd = open_without_symlinks(t->root, file.path, 0);
    struct stat st;
    if (fd < 0 || (fstat(fd, &st) == 0 && st.st_dev == file.dev && st.st_ino == file.ino))
        return fd;
    close(fd);
    errno = ENOENT;
    return -1;
}

/* Refuses under --strict (nothing has run yet); otherwise one warning line. */
void report(const mount_tree *t, const guarded_file &g, const char *what, int err)
{
    if (t->ctx->strict)
        refuse("%s %s %s: %s: %s; run without --strict to degrade", g.name, g.file->path, g.refusal, what,
               strerror(err));
    warn("%s %s %s: %s: %s", g.name, g.file->path, g.degraded, what, strerror(err));
}

/* Pins the ancestors of the file from the top down (a pin clones what is below it). */
void pin_writable_ancestors(const mount_tree *t, const guarded_file &g)
{
    const char *path = g.file->path;
    for (const char *slash = strchr(path + 1, '/'); slash != nullptr; slash = strchr(slash + 1, '/')) {
        int dir = open_without_symlinks(t->root, arena_strndup(path, (size_t)(slash - path)), O_DIRECTORY);
        if (dir < 0) {
            report(t, g, "open of a parent directory", errno);
            continue;
        }
        const char *failed = on_writable_mount(dir) && !is_mount_root(dir) ? cover(dir, dir, kPinDir) : nullptr;
        if (failed != nullptr)
            report(t, g, failed, errno);
        close(dir);
    }
}

void guard(const mount_tree *t, const guarded_file &g)
{
    if (g.file == nullptr || g.file->path == nullptr || g.file->path[0] != '/')
        return;
    int fd = open_the_file(t, *g.file);
    if (fd < 0 && errno == ELOOP)
        report(t, g, "a symlink on its path", ELOOP);
    bool writable = fd >= 0 && on_writable_mount(fd);
    bool visible = fd >= 0;
    if (fd >= 0)
        close(fd);
    if (!writable && !(visible && g.hide))
        return; /* not in the sandbox's view, or (the plan) read-only there already */
    /* Parents first: a pin clones what is below it, so the file's own mount comes last. */
    if (writable)
        pin_writable_ancestors(t, g);
    fd = open_the_file(t, *g.file);
    const char *failed = fd < 0 ? "reopen after pinning its directories"
        : g.hide                ? cover(t->devnull, fd, kSealedFile)
                                : cover(fd, fd, kReadOnlyFile);
    if (failed != nullptr)
        report(t, g, failed, fd < 0 ? ENOENT : errno);
    if (fd >= 0)
        close(fd);
}

}  // namespace

void protect_running_plan(mount_tree *t)
{
    guard(t,
          {"the plan", &t->ctx->plan_file, false, "cannot be made read-only in the sandbox",
           "stays writable in the sandbox"});
}

void protect_effect_log(mount_tree *t)
{
    guard(t,
          {"the effect log", effect_log_file(), true, "cannot be hidden in the sandbox",
           "stays reachable in the sandbox"});
}
