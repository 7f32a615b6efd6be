/* enforcer/mounts.cpp — the mount layer's order of work: capture, materialize, the plan's
 * steps in order, seal, enter the new root. The deny steps live in denies.cpp, the kernel
 * filesystems in devfs.cpp.
 */
#include "mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "mount_steps.h"
#include "paths.h"
#include "reach.h"
#include "report.h"
#include "syscalls.h"

namespace {

/* Where ROOT_EMPTY assembles the new root: an existing directory of the host, covered by
 * the staging tmpfs only inside this private mount namespace (sources are captured already). */
constexpr const char *kStagingDirs[] = {"/tmp", "/mnt", "/run", "/var/tmp"};

void capture_bind_source(const run_ctx *ctx, const tp_mount *m, captured_source *c)
{
    const char *source = tp_plan_str(ctx->plan, m->source);
    c->fd = sys_open_tree(AT_FDCWD, source, kuapi::OPEN_TREE_CLONE | kuapi::OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    int err = errno;
    if (c->fd >= 0 || (err == ENOENT && (m->flags & TP_MNTF_OPTIONAL)))
        return;
    char origin[64];
    refuse("%s %s%s: cannot use %s: %s", mount_step_label(ctx->plan, m), tp_plan_str(ctx->plan, m->path),
           origin_text(m->origin.line, m->origin.col, origin, sizeof origin), source, strerror(err));
}

void capture_sources(mount_tree *t)
{
    const tp_plan *plan = t->ctx->plan;
    t->captured = (captured_source *)arena_alloc(plan->mount_count * sizeof(captured_source));
    for (uint32_t i = 0; i < plan->mount_count; i++) {
        captured_source *c = &t->captured[i];
        c->fd = -1;
        for (int &fd : c->dev_nodes)
            fd = -1;
        if (plan->mounts[i].op == TP_MNT_BIND)
            capture_bind_source(t->ctx, &plan->mounts[i], c);
        else if (plan->mounts[i].op == TP_MNT_DEV)
            capture_dev_nodes(c->dev_nodes);
    }
}

void step_root_readonly(mount_tree *t, const tp_mount *m)
{
    uint64_t attrs = kuapi::MOUNT_ATTR_RDONLY | kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV;
    if (!set_mount_attrs(t->root, attrs, true))
        step_failed(t, m, "mount_setattr(/, read-only, recursive)", errno);
}

int open_staging_dir(const mount_tree *t)
{
    for (const char *dir : kStagingDirs) {
        int fd = open_in_root(t->host_root, dir, O_PATH | O_DIRECTORY);
        if (fd >= 0)
            return fd;
    }
    return -1;
}

void step_root_empty(mount_tree *t, const tp_mount *m)
{
    int staging = open_staging_dir(t);
    if (staging < 0) {
        step_failed(t, m, "no directory to assemble the new root in (/tmp, /mnt, /run, /var/tmp)", ENOENT);
        step_root_readonly(t, m);
        return;
    }
    fs_option mode = {"mode", "0755"};
    int root = new_filesystem("tmpfs", &mode, 1, kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV);
    if (root < 0 || !attach_mount(root, staging)) {
        step_failed(t, m, "tmpfs for the new root", errno);
        step_root_readonly(t, m);
    } else {
        t->root = root;
        t->staged = true;
        register_tmpfs(t, "/", root, true);
    }
    close(staging);
}

void step_bind(mount_tree *t, const tp_mount *m, captured_source *c)
{
    if (c->fd < 0)
        return; /* optional source absent on this host */
    struct stat st;
    if (fstat(c->fd, &st) != 0) {
        step_failed(t, m, "fstat of the captured source", errno);
        return;
    }
    uint64_t attrs = kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV;
    if (m->flags & TP_MNTF_RDONLY)
        attrs |= kuapi::MOUNT_ATTR_RDONLY;
    /* Attributes first, on the detached clone: it is never visible writable by mistake. */
    if (!set_mount_attrs(c->fd, attrs, true)) {
        step_failed(t, m, "mount_setattr", errno);
        return;
    }
    int target = mountpoint_for(t, step_path(t, m), S_ISDIR(st.st_mode));
    if (target < 0) {
        step_failed(t, m, "mountpoint", errno);
        return;
    }
    if (!attach_mount(c->fd, target))
        step_failed(t, m, "move_mount", errno);
    close(target);
}

void step_symlink(mount_tree *t, const tp_mount *m)
{
    const char *target = tp_plan_str(t->ctx->plan, m->source);
    const char *name = nullptr;
    int parent = parent_in_tmpfs(t, step_path(t, m), &name);
    if (parent < 0) {
        step_failed(t, m, "parent directory in a tmpfs of the sandbox", errno);
        return;
    }
    if (symlinkat(target, parent, name) != 0)
        step_failed(t, m, "symlinkat", errno);
    close(parent);
}

void run_step(mount_tree *t, uint32_t i)
{
    const tp_mount *m = &t->ctx->plan->mounts[i];
    switch (m->op) {
    case TP_MNT_ROOT_READONLY: return step_root_readonly(t, m);
    case TP_MNT_ROOT_EMPTY: return step_root_empty(t, m);
    case TP_MNT_BIND: return step_bind(t, m, &t->captured[i]);
    case TP_MNT_PIN: return step_pin(t, m);
    case TP_MNT_WRITE_DENY: return step_write_deny(t, m);
    case TP_MNT_MASK: return step_mask(t, m);
    case TP_MNT_SYMLINK: return step_symlink(t, m);
    case TP_MNT_DEV: return step_dev(t, m, &t->captured[i]);
    case TP_MNT_PROC: return step_proc(t, m);
    case TP_MNT_TMPFS: return (m->flags & TP_MNTF_CREDENTIALS) ? step_credentials(t, m) : step_tmpfs(t, m);
    default: return; /* unreachable: preflight refused unknown operations */
    }
}

/* pivot_root(".", ".") then detach the old root stacked on top, as pivot_root(2) shows. */
void enter_new_root(mount_tree *t)
{
    if (fchdir(t->root) != 0 || sys_pivot_root(".", ".") != 0)
        fail(EXIT_STARTUP, "cannot enter the new root: pivot_root: %s", strerror(errno));
    if (umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
        fail(EXIT_STARTUP, "cannot detach the host's root: %s", strerror(errno));
}

void close_captured(mount_tree *t)
{
    for (uint32_t i = 0; i < t->ctx->plan->mount_count; i++) {
        captured_source *c = &t->captured[i];
        if (c->fd >= 0)
            close(c->fd);
        for (int fd : c->dev_nodes)
            if (fd >= 0)
                close(fd);
    }
}

}  // namespace

mount_tree *mounts_capture(const run_ctx *ctx)
{
    mount_tree *t = (mount_tree *)arena_alloc(sizeof *t);
    t->ctx = ctx;
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        fail(EXIT_STARTUP, "cannot make the sandbox's mounts private: %s", strerror(errno));
    t->host_root = open_cloexec("/", O_PATH | O_DIRECTORY);
    if (t->host_root < 0)
        fail(EXIT_STARTUP, "cannot open /: %s", strerror(errno));
    t->root = t->host_root;
    t->devnull = open_cloexec("/dev/null", O_PATH);
    t->shared_mask = -1;
    capture_sources(t);
    return t;
}

void mounts_build(mount_tree *t)
{
    materialize_targets(t);
    for (uint32_t i = 0; i < t->ctx->plan->mount_count; i++)
        run_step(t, i);
    reach_report_moot(t->ctx);
    protect_link_targets(t);
    mask_symlinks_met(t);
    note_git_protections(t);
    seal_tmpfs(t);
    protect_running_plan(t);
    protect_effect_log(t);
    if (t->staged)
        enter_new_root(t);
    close_captured(t);
}
