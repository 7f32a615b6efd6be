/* enforcer/plan_guard.cpp — the plan this run reads cannot be modified from inside.
 *
 * The compiler write-denies the plan at its -o path, but the caller may run a copy from
 * anywhere; an agent that rewrites that file weakens its own next run. So after every step,
 * the decision is mechanical: when the file the supervisor read (same device and inode) is
 * reachable at its path in the new tree and its mount is writable (fstatvfs, ST_RDONLY), it
 * is bound read-only onto itself (no write, truncate, unlink or rename over it: EROFS/EBUSY)
 * and every ancestor directory on a writable mount that is not already a mount root is
 * pinned, so no parent can be renamed to swap it out. The path is the kernel's symlink-free
 * name for the file; it is opened again without following any symlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "arena.h"
#include "mount_steps.h"
#include "report.h"
#include "syscalls.h"

namespace {

constexpr uint64_t kReadOnlyFile = kuapi::MOUNT_ATTR_RDONLY | kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV;
constexpr uint64_t kPinDir = kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV;

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

/* Binds the mount tree at `fd` onto itself with `attrs`; the name of the failed call, or NULL. */
const char *rebind(int fd, uint64_t attrs)
{
    int clone = clone_mount(fd);
    if (clone < 0)
        return "open_tree";
    const char *failed = !set_mount_attrs(clone, attrs, true) ? "mount_setattr"
                         : !attach_mount(clone, fd)           ? "move_mount"
                                                              : nullptr;
    int err = errno;
    close(clone);
    errno = err;
    return failed;
}

/* The plan at its path in the new tree, when it is the very file the supervisor read. */
int open_the_plan(const mount_tree *t, const plan_identity &plan)
{
    int fd = open_without_symlinks(t->root, plan.path, 0);
    struct stat st;
    if (fd < 0 || (fstat(fd, &st) == 0 && st.st_dev == plan.dev && st.st_ino == plan.ino))
        return fd;
    close(fd);
    errno = ENOENT;
    return -1;
}

/* Refuses under --strict (nothing has run yet); otherwise one warning line. */
void report(const run_ctx *ctx, const char *what, int err)
{
    if (ctx->strict)
        refuse("the plan %s cannot be made read-only in the sandbox: %s: %s; run without --strict to degrade",
               ctx->plan_file.path, what, strerror(err));
    warn("the plan %s stays writable in the sandbox: %s: %s", ctx->plan_file.path, what, strerror(err));
}

/* Pins the ancestors of `path` from the top down (a pin clones what is below it). */
void pin_writable_ancestors(const mount_tree *t, const char *path)
{
    for (const char *slash = strchr(path + 1, '/'); slash != nullptr; slash = strchr(slash + 1, '/')) {
        int dir = open_without_symlinks(t->root, arena_strndup(path, (size_t)(slash - path)), O_DIRECTORY);
        if (dir < 0) {
            report(t->ctx, "open of a parent directory", errno);
            continue;
        }
        const char *failed = on_writable_mount(dir) && !is_mount_root(dir) ? rebind(dir, kPinDir) : nullptr;
        if (failed != nullptr)
            report(t->ctx, failed, errno);
        close(dir);
    }
}

}  // namespace

void protect_running_plan(mount_tree *t)
{
    const plan_identity &plan = t->ctx->plan_file;
    if (plan.path == nullptr || plan.path[0] != '/')
        return;
    int fd = open_the_plan(t, plan);
    if (fd < 0 && errno == ELOOP)
        report(t->ctx, "a symlink on its path", ELOOP);
    bool writable = fd >= 0 && on_writable_mount(fd);
    if (fd >= 0)
        close(fd);
    if (!writable)
        return;  /* not in the sandbox's view, or read-only there already */
    /* Parents first: a pin clones what lies below it, so the file's bind comes last. */
    pin_writable_ancestors(t, plan.path);
    fd = open_the_plan(t, plan);
    const char *failed = fd < 0 ? "reopen after pinning its directories" : rebind(fd, kReadOnlyFile);
    if (failed != nullptr)
        report(t->ctx, failed, fd < 0 ? ENOENT : errno);
    if (fd >= 0)
        close(fd);
}
