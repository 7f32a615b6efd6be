/* enforcer/paths.h — path walks that cannot be redirected.
 *
 * Every path the enforcer opens or creates below a writable root is walked one component at
 * a time with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) from the root's fd, so a
 * symlink planted in the workspace can never send a mount, a mkdir or a create elsewhere.
 * Paths outside writable roots are resolved with RESOLVE_IN_ROOT from the sandbox root.
 */
#pragma once

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Opens absolute `path` as seen from `root_fd`: symlinks resolve inside that root, never
 * above it. `flags` are open(2) flags; O_CLOEXEC is added. */
int open_in_root(int root_fd, const char *path, int flags);

/* Opens the single component or relative path `rel` below `dirfd` without following any
 * symlink and without leaving `dirfd`'s tree; `extra_resolve` adds RESOLVE_* bits. */
int open_beneath(int dirfd, const char *rel, int flags, uint64_t extra_resolve);

/* The part of `path` below `anchor` ("" when they are equal), or NULL when `path` is neither
 * `anchor` nor beneath it. */
const char *path_below(const char *path, const char *anchor);

/* Whether any component of `path` is "." or "..". */
bool path_has_dot_component(const char *path);

enum walk_end {
    WALK_FOUND,   /* fd = the target */
    WALK_MISSING, /* fd = the deepest existing directory; `name` is missing in it */
    WALK_SYMLINK, /* fd = O_PATH of the symlink `name` itself (not followed) */
    WALK_NOT_DIR, /* fd = the non-directory `name`, with components still to go below it */
    WALK_FAILED   /* fd = -1, error = errno */
};

struct walk_result {
    walk_end end;
    int fd;
    int error;
    size_t prefix_len;       /* bytes of `rel` up to the end of the component `name` */
    char name[NAME_MAX + 1]; /* the component where the walk stopped ("" for FOUND at rel "") */
};

/* Walks `rel` below `anchor_fd` one component at a time, never following a symlink. The
 * caller closes result.fd. */
walk_result walk_beneath(int anchor_fd, const char *rel);

/* Following symlinks beneath an anchor, the way openat2(RESOLVE_BENEATH) does, but keeping
 * the symlink-free path of what is reached and every symlink met on the way: a deny whose
 * path crosses a symlink protects the object the symlink leads to (and its directories),
 * not just the name. */
constexpr int kMaxFollowedSymlinks = 40; /* the kernel's MAXSYMLINKS */

enum follow_end {
    FOLLOW_FOUND,   /* `path` exists */
    FOLLOW_MISSING, /* `path` does not exist; its first `existing_len` bytes do */
    FOLLOW_OUTSIDE, /* it cannot be followed beneath the anchor; `why` says where it stops */
    FOLLOW_FAILED   /* a system call failed: `error` */
};

struct met_symlink {
    const char *path;   /* the symlink itself, symlink-free, below the anchor */
    const char *target; /* its contents */
};

struct followed_path {
    follow_end end;
    const char *path; /* FOUND/MISSING: symlink-free, below the anchor ("" = the anchor) */
    size_t existing_len;
    const char *why; /* OUTSIDE */
    int error;       /* FAILED */
    met_symlink links[kMaxFollowedSymlinks];
    int link_count;
};

/* Resolves `rel` below `anchor_fd`, following relative symlinks that stay beneath it (an
 * absolute target or a ".." above the anchor is OUTSIDE); every component is opened with
 * open_beneath, never through a symlink. A FOUND result is checked against the kernel's own
 * openat2(anchor_fd, rel, RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS). Strings are arena copies. */
followed_path follow_beneath(int anchor_fd, const char *rel);

/* Creates what is missing of `rel` below `dirfd` (directories 0755, the last component a
 * directory or an empty 0644 file) without following symlinks; `extra_resolve` adds
 * RESOLVE_* bits (RESOLVE_NO_XDEV keeps the walk on one mount). Returns an O_PATH fd of the
 * last component (existing or created), or -1 with errno. */
int create_beneath(int dirfd, const char *rel, bool last_is_dir, uint64_t extra_resolve);

/* Creates the empty regular file `name` in `dirfd` (O_EXCL: never an existing one). */
bool create_empty_file(int dirfd, const char *name, mode_t mode);
