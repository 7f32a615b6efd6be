/* enforcer/denies.h — what the deny steps share (denies.cpp, deny_links.cpp): the mount
 * attributes of each kind of protection, the anchor of a step, and the mounts that protect
 * one object. Each mount helper reports its own failure through step_failed.
 */
#pragma once

#include "kuapi.h"
#include "mount_tree.h"
#include "paths.h"

constexpr uint64_t kSealedFile =
    kuapi::MOUNT_ATTR_RDONLY | kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV | kuapi::MOUNT_ATTR_NOEXEC;
constexpr uint64_t kReadOnlyBind = kuapi::MOUNT_ATTR_RDONLY | kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV;
constexpr uint64_t kPinBind = kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV;

struct anchored {
    const char *anchor; /* the writable root, in the sandbox */
    const char *rel;    /* the target below it */
    int fd;             /* O_PATH of the anchor, or -1 with errno */
};

/* Opens the step's anchor from `root`; preflight checked that the path lies beneath it. */
anchored open_anchor(const mount_tree *t, const tp_mount *m, int root);

/* What a step does to the object it protects: `fd` is the object, `path` where it is in the
 * sandbox (the step's path, or where a symlink on it leads). */
using protect_fn = void (*)(mount_tree *t, const tp_mount *m, int fd, const char *path);

void bind_onto_itself(const mount_tree *t, const tp_mount *m, int fd, uint64_t attrs);

/* /dev/null, read-only and nodev, over a file or a symlink: every open fails with EACCES. */
void mask_with_devnull(const mount_tree *t, const tp_mount *m, int fd);

/* deny_links.cpp: the step's walk met a symlink below its anchor (`a`): protect what the
 * symlink leads to, or report why that is impossible. */
void deny_through_symlink(mount_tree *t, const tp_mount *m, const anchored &a, protect_fn protect);

/* deny_links.cpp, before materialize: refuses under --strict when the step's path crosses a
 * symlink that cannot be followed beneath its anchor (nothing irreversible has happened). */
void check_symlinked_target(const mount_tree *t, const tp_mount *m, const anchored &a);

/* deny_links.cpp, materialize: creates an absent target a symlink on the step's path leads
 * to (beneath the anchor, never through a symlink). */
void materialize_through_symlink(const mount_tree *t, const tp_mount *m, const anchored &a);
