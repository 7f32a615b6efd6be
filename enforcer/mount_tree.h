/* enforcer/mount_tree.h — the state of the mount tree being built, and the fd-based mount
 * primitives every step uses (open_tree / move_mount / mount_setattr / fsopen+fsmount).
 *
 * Targets are always fds: a step resolves its path once (from the sandbox root, or beneath
 * its anchor without symlinks) and mounts onto that fd, so nothing is looked up twice.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "kuapi.h"

constexpr int kDevNodeCount = 6; /* null zero full random urandom tty */

/* What the capture pass took from the host before any step changed the tree. */
struct captured_source {
    int fd;                       /* BIND: detached recursive clone of the source; -1 = absent */
    int dev_nodes[kDevNodeCount]; /* DEV: clones of the host's device nodes; -1 = absent */
};

/* A tmpfs the enforcer mounted: mountpoints may be created in it until it is sealed. */
struct made_tmpfs {
    const char *path; /* where it is, in the sandbox */
    int fd;           /* its mount */
    bool seal;        /* made read-only once every step has run */
};

/* A symlink met on the way to a deny target, masked once every step has run. */
struct deferred_mask {
    const tp_mount *step; /* the step that met it, for messages */
    const char *anchor;
    const char *rel; /* the symlink, below the anchor */
    deferred_mask *next;
};

struct mount_tree {
    const run_ctx *ctx;
    int host_root;             /* O_PATH of "/" as it was before any step */
    int root;                  /* the root being built: host_root, or the staging tmpfs of ROOT_EMPTY */
    bool staged;               /* ROOT_EMPTY: `root` becomes "/" by pivot_root after the last step */
    int devnull;               /* O_PATH of the host's /dev/null, cloned for every file mask */
    int shared_mask;           /* the first directory mask nothing is mounted beneath, cloned for
                                  the others (denies.cpp); -1 before it */
    captured_source *captured; /* one per step */
    made_tmpfs *tmpfs;
    uint32_t tmpfs_count;
    uint32_t tmpfs_capacity;
    deferred_mask *symlink_masks; /* in the order met */
    deferred_mask *symlink_masks_tail;
};

/* The step's target path in the sandbox. */
inline const char *step_path(const mount_tree *t, const tp_mount *m)
{
    return tp_plan_str(t->ctx->plan, m->path);
}

/* The policy field a step implements, for messages ("write_denies", "read_denies", …). */
const char *mount_step_label(const tp_plan *plan, const tp_mount *m);

/* Whether the plan marks step `m` as a guarantee that may not degrade. */
bool mount_step_required(const tp_plan *plan, const tp_mount *m);

/* A step could not be installed: a refusal when it grants something (a writable root, a
 * granted path, the private /tmp: without it the command would run without its workspace,
 * so not even a run without --strict goes on); for a safeguard, a refusal under --strict
 * when it is required, otherwise a warning naming what is lost. `what` names the operation
 * that failed. */
void step_failed(const mount_tree *t, const tp_mount *m, const char *what, int err);

/* Mount primitives; each returns false / -1 with errno set. */
struct fs_option {
    const char *key;
    const char *value; /* NULL: a flag option */
};
int new_filesystem(const char *type, const fs_option *options, size_t count, uint64_t attrs);
int clone_mount(int fd);     /* detached recursive clone of the mount tree at fd */
int clone_one_mount(int fd); /* detached clone of the mount at fd alone, none stacked on or beneath it */
bool attach_mount(int mount_fd, int target_fd);
bool set_mount_attrs(int mount_fd, uint64_t attrs, bool recursive);

/* Whether `fd` is the root of a mount. Its name in the mount above is then a mountpoint,
 * which cannot be renamed or removed (EBUSY): it needs no pin. False when unknown. */
bool is_mount_root(int fd);

/* Registers a tmpfs the enforcer mounted at `path`. */
void register_tmpfs(mount_tree *t, const char *path, int fd, bool seal);

/* An O_PATH fd for `path` in the sandbox: the existing one, or — when `path` lies in a tmpfs
 * the enforcer made — a directory (`dir`) or empty file created there for a mountpoint. */
int mountpoint_for(mount_tree *t, const char *path, bool dir);

/* The parent directory of `path`, created if needed, when it lies in a tmpfs the enforcer
 * made (-1 with ENOTSUP otherwise); *name is set to the last component of `path`. */
int parent_in_tmpfs(mount_tree *t, const char *path, const char **name);

/* Makes every registered tmpfs with `seal` read-only, innermost first. */
void seal_tmpfs(mount_tree *t);
