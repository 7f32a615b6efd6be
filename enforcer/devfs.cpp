/* enforcer/devfs.cpp — DEV, PROC and TMPFS steps: fresh kernel filesystems for the sandbox.
 *
 * /dev is a tmpfs holding only the host's null, zero, full, random, urandom and tty (bound
 * from clones taken before any step, each read-only so the host inodes cannot be chmod'ed;
 * writing to a character device does not need a writable mount), a private devpts, a
 * private shm and the usual symlinks. Everything else in the sandbox is nodev.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mount_steps.h"
#include "paths.h"
#include "report.h"
#include "stdio_fds.h"
#include "syscalls.h"

namespace {

constexpr const char *kDevNodes[kDevNodeCount] = {"null", "zero", "full", "random", "urandom", "tty"};

struct dev_symlink {
    const char *name;
    const char *target;
};
constexpr dev_symlink kDevSymlinks[] = {
    {"ptmx", "pts/ptmx"},          {"fd", "/proc/self/fd"},       {"stdin", "/proc/self/fd/0"},
    {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"},
};

constexpr uint64_t kNoSuidDevExec = kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV | kuapi::MOUNT_ATTR_NOEXEC;

/* Mounts a new filesystem at `path` (created if it lies in a tmpfs the enforcer made). */
int mount_new_filesystem(mount_tree *t, const char *path, const char *type, const fs_option *options, size_t count,
                         uint64_t attrs)
{
    int target = mountpoint_for(t, path, true);
    if (target < 0)
        return -1;
    int mnt = new_filesystem(type, options, count, attrs);
    if (mnt >= 0 && !attach_mount(mnt, target)) {
        int err = errno;
        close(mnt);
        mnt = -1;
        errno = err;
    }
    int err = errno;
    close(target);
    errno = err;
    return mnt;
}

/* Attaches the detached mount `mnt` on `name` in the new /dev. By name, not through an fd:
 * /dev is a tmpfs only init can see yet, and move_mount never follows a final symlink. */
bool attach_in_dev(int mnt, int dev, const char *name)
{
    return sys_move_mount(mnt, "", dev, name, kuapi::MOVE_MOUNT_F_EMPTY_PATH) == 0;
}

/* Binds a captured device node onto an empty file of the same name in the new /dev
 * (mknodat of a regular file: one call, no fd to close). */
bool bind_dev_node(int dev, const char *name, int node)
{
    return mknodat(dev, name, S_IFREG | 0666, 0) == 0 &&
        set_mount_attrs(node, kuapi::MOUNT_ATTR_RDONLY | kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NOEXEC, true) &&
        attach_in_dev(node, dev, name);
}

/* Mounts `type` on the new directory `name` of the new /dev. */
bool mount_in_dev(int dev, const char *name, mode_t mode, const char *type, const fs_option *options, size_t count,
                  uint64_t attrs)
{
    if (mkdirat(dev, name, mode) != 0)
        return false;
    int mnt = new_filesystem(type, options, count, attrs);
    bool ok = mnt >= 0 && attach_in_dev(mnt, dev, name);
    int err = errno;
    if (mnt >= 0)
        close(mnt);
    errno = err;
    return ok;
}

/* The devpts instance init made for the sandbox's terminal (stdio_fds.h), or a new one. */
bool attach_devpts(int dev, const run_ctx *ctx)
{
    int made = ctx->stdio->devpts >= 0 ? ctx->stdio->devpts : new_devpts();
    bool ok = made >= 0 && mkdirat(dev, "pts", 0755) == 0 && attach_in_dev(made, dev, "pts");
    int err = errno;
    if (made >= 0)
        close(made);
    ctx->stdio->devpts = -1;
    errno = err;
    return ok;
}

/* Fills the new /dev; returns the name of what failed, or NULL. */
const char *fill_dev(int dev, captured_source *c, const run_ctx *ctx)
{
    for (int i = 0; i < kDevNodeCount; i++) {
        if (c->dev_nodes[i] >= 0 && !bind_dev_node(dev, kDevNodes[i], c->dev_nodes[i]))
            return kDevNodes[i];
    }
    if (!attach_devpts(dev, ctx))
        return "pts";
    const fs_option shm_options[] = {{"mode", "1777"}};
    if (!mount_in_dev(dev, "shm", 0755, "tmpfs", shm_options, 1, kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV))
        return "shm";
    for (const dev_symlink &s : kDevSymlinks)
        if (symlinkat(s.target, dev, s.name) != 0)
            return s.name;
    return nullptr;
}

}  // namespace

int new_devpts()
{
    const fs_option options[] = {{"newinstance", nullptr}, {"ptmxmode", "0666"}, {"mode", "0620"}};
    return new_filesystem("devpts", options, 3, kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NOEXEC);
}

void capture_dev_nodes(int (&fds)[kDevNodeCount])
{
    for (int i = 0; i < kDevNodeCount; i++) {
        char path[32];
        strcpy(path, "/dev/");
        strcat(path, kDevNodes[i]);
        fds[i] = sys_open_tree(AT_FDCWD, path, kuapi::OPEN_TREE_CLONE | kuapi::OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    }
}

void step_dev(mount_tree *t, const tp_mount *m, captured_source *c)
{
    const char *path = step_path(t, m);
    const fs_option mode = {"mode", "0755"};
    int dev = mount_new_filesystem(t, path, "tmpfs", &mode, 1, kNoSuidDevExec);
    if (dev < 0) {
        step_failed(t, m, "tmpfs", errno);
        return;
    }
    register_tmpfs(t, path, dev, true);
    const char *failed = fill_dev(dev, c, t->ctx);
    if (failed != nullptr) {
        char what[64];
        strcpy(what, "/dev/");
        strncat(what, failed, sizeof what - 6);
        step_failed(t, m, what, errno);
    }
}

void step_proc(mount_tree *t, const tp_mount *m)
{
    if (!t->ctx->pid_ns) {
        warn("isolate_proc: %s is not replaced: the sandbox has no PID namespace", step_path(t, m));
        return;
    }
    int proc = mount_new_filesystem(t, step_path(t, m), "proc", nullptr, 0, kNoSuidDevExec);
    if (proc < 0)
        step_failed(t, m, "procfs", errno);
    else
        close(proc);
}

void step_tmpfs(mount_tree *t, const tp_mount *m)
{
    const fs_option mode = {"mode", "1777"};
    int tmpfs =
        mount_new_filesystem(t, step_path(t, m), "tmpfs", &mode, 1, kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV);
    if (tmpfs < 0)
        step_failed(t, m, "tmpfs", errno);
    else
        register_tmpfs(t, step_path(t, m), tmpfs, false);
}
