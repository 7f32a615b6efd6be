/* enforcer/mount_tree.cpp — mount primitives, the tmpfs registry, mountpoint creation. */
#include "mount_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "paths.h"
#include "report.h"
#include "syscalls.h"

namespace {

/* The deepest (latest, at equal depth) registered tmpfs that is `path` or holds it. */
const made_tmpfs *owning_tmpfs(const mount_tree *t, const char *path)
{
    const made_tmpfs *best = nullptr;
    size_t best_len = 0;
    for (uint32_t i = 0; i < t->tmpfs_count; i++) {
        const made_tmpfs *m = &t->tmpfs[i];
        size_t len = strlen(m->path);
        if (path_below(path, m->path) != nullptr && (best == nullptr || len >= best_len)) {
            best = m;
            best_len = len;
        }
    }
    return best;
}

}  // namespace

const char *mount_step_label(const tp_plan *plan, const tp_mount *m)
{
    switch (m->op) {
    case TP_MNT_ROOT_READONLY: return "the read-only root (read_scope = \"all\")";
    case TP_MNT_ROOT_EMPTY:
    case TP_MNT_SYMLINK: return "read_scope = \"granted\"";
    case TP_MNT_BIND: return (m->flags & TP_MNTF_RDONLY) ? "read_allows" : "writable_roots";
    case TP_MNT_PIN:
    case TP_MNT_WRITE_DENY: return "write_denies";
    case TP_MNT_MASK: return "read_denies";
    case TP_MNT_DEV: return "the private /dev";
    case TP_MNT_PROC: return "isolate_proc";
    case TP_MNT_TMPFS:
        if (m->flags & TP_MNTF_CREDENTIALS)
            return "the broker's credentials directory";
        return strcmp(tp_plan_str(plan, m->path), "/tmp") == 0 ? "private_tmp" : "private_dirs";
    default: return "a mount step";
    }
}

bool mount_step_required(const tp_plan *plan, const tp_mount *m)
{
    return (plan->mounts_section_flags & TP_SECF_REQUIRED) || (m->flags & TP_MNTF_REQUIRED);
}

namespace {

/* A step that gives the command something (a bind of a writable root or a granted path, the
 * private /tmp, the credentials directory, a system symlink): lost, the command would run
 * without its workspace or what it needs, which is no degraded sandbox but a broken run. */
bool step_grants(const tp_mount *m)
{
    return m->op == TP_MNT_BIND || m->op == TP_MNT_TMPFS || m->op == TP_MNT_SYMLINK;
}

}  // namespace

void step_failed(const mount_tree *t, const tp_mount *m, const char *what, int err)
{
    const tp_plan *plan = t->ctx->plan;
    const char *path = step_path(t, m);
    char origin[64];
    origin_text(m->origin.line, m->origin.col, origin, sizeof origin);
    if (step_grants(m))
        refuse("%s %s%s cannot be installed: %s: %s", mount_step_label(plan, m), path, origin, what, strerror(err));
    /* A fresh procfs is refused (EPERM) where the /proc it would reveal more than is partly
     * covered: a container's masked and read-only /proc paths (container.h). */
    container_fix fix = m->op == TP_MNT_PROC && err == EPERM ? FIX_PROC_MASKS : FIX_NONE;
    if (must_not_degrade(t->ctx, mount_step_required(plan, m)))
        refuse_for(fix, "%s %s%s cannot be installed: %s: %s; run without --strict to degrade",
                   mount_step_label(plan, m), path, origin, what, strerror(err));
    warn("%s %s%s not enforced: %s: %s", mount_step_label(plan, m), path, origin, what, strerror(err));
}

int new_filesystem(const char *type, const fs_option *options, size_t count, uint64_t attrs)
{
    int fs = sys_fsopen(type, kuapi::FSOPEN_CLOEXEC);
    if (fs < 0)
        return -1;
    for (size_t i = 0; i < count; i++) {
        const fs_option &o = options[i];
        unsigned cmd = o.value ? kuapi::FSCONFIG_SET_STRING : kuapi::FSCONFIG_SET_FLAG;
        if (sys_fsconfig(fs, cmd, o.key, o.value, 0) != 0) {
            int err = errno;
            close(fs);
            errno = err;
            return -1;
        }
    }
    int mnt = -1;
    if (sys_fsconfig(fs, kuapi::FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) == 0)
        mnt = sys_fsmount(fs, kuapi::FSMOUNT_CLOEXEC, (unsigned)attrs);
    int err = errno;
    close(fs);
    errno = err;
    return mnt;
}

int clone_mount(int fd)
{
    return sys_open_tree(fd, "", kuapi::OPEN_TREE_CLONE | kuapi::OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
}

int clone_one_mount(int fd)
{
    return sys_open_tree(fd, "", kuapi::OPEN_TREE_CLONE | kuapi::OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
}

bool attach_mount(int mount_fd, int target_fd)
{
    return sys_move_mount(mount_fd, "", target_fd, "",
                          kuapi::MOVE_MOUNT_F_EMPTY_PATH | kuapi::MOVE_MOUNT_T_EMPTY_PATH) == 0;
}

bool set_mount_attrs(int mount_fd, uint64_t attrs, bool recursive)
{
    kuapi::mount_attr attr = {};
    attr.attr_set = attrs;
    unsigned flags = AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0u);
    return sys_mount_setattr(mount_fd, "", flags, &attr) == 0;
}

bool is_mount_root(int fd)
{
    kuapi::statx_buf stx;
    if (sys_statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, kuapi::STATX_TYPE, &stx) != 0)
        return false;
    return (stx.stx_attributes_mask & stx.stx_attributes & kuapi::STATX_ATTR_MOUNT_ROOT) != 0;
}

void register_tmpfs(mount_tree *t, const char *path, int fd, bool seal)
{
    if (t->tmpfs_count == t->tmpfs_capacity) {
        uint32_t capacity = t->tmpfs_capacity ? t->tmpfs_capacity * 2 : 16;
        made_tmpfs *grown = (made_tmpfs *)arena_alloc(capacity * sizeof *grown);
        if (t->tmpfs_count)
            memcpy(grown, t->tmpfs, t->tmpfs_count * sizeof *grown);
        t->tmpfs = grown;
        t->tmpfs_capacity = capacity;
    }
    t->tmpfs[t->tmpfs_count++] = {path, fd, seal};
}

int mountpoint_for(mount_tree *t, const char *path, bool dir)
{
    int fd = open_in_root(t->root, path, O_PATH);
    if (fd >= 0 || errno != ENOENT)
        return fd;
    const made_tmpfs *m = owning_tmpfs(t, path);
    if (m == nullptr) {
        errno = ENOENT;
        return -1;
    }
    /* RESOLVE_NO_XDEV: never create anything in a mount below the tmpfs (a host bind). */
    int made = create_beneath(m->fd, path_below(path, m->path), dir, kuapi::RESOLVE_NO_XDEV);
    if (made < 0)
        return -1;
    close(made);
    /* Resolve again from the root: the tmpfs may itself be covered by a later mount. */
    return open_in_root(t->root, path, O_PATH);
}

int parent_in_tmpfs(mount_tree *t, const char *path, const char **name)
{
    const char *slash = strrchr(path, '/');
    *name = slash + 1;
    char *parent = slash == path ? arena_strdup("/") : arena_strndup(path, (size_t)(slash - path));
    const made_tmpfs *m = owning_tmpfs(t, parent);
    if (m == nullptr || **name == '\0') {
        errno = ENOTSUP;
        return -1;
    }
    return create_beneath(m->fd, path_below(parent, m->path), true, kuapi::RESOLVE_NO_XDEV);
}

void seal_tmpfs(mount_tree *t)
{
    for (uint32_t i = t->tmpfs_count; i-- > 0;) {
        const made_tmpfs *m = &t->tmpfs[i];
        if (m->seal && !set_mount_attrs(m->fd, kuapi::MOUNT_ATTR_RDONLY, false))
            fail(EXIT_STARTUP, "cannot make the tmpfs at %s read-only: %s", m->path, strerror(errno));
    }
}
