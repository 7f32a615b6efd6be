/* enforcer/denies.cpp — PIN, WRITE_DENY and MASK steps, and materialize (of any of them
 * that carries TP_MNTF_MATERIALIZE_*).
 *
 * A step with an anchor (the writable root it lies in) walks below the anchor one component
 * at a time without following symlinks (paths.h). Where the walk stops decides the mount:
 *  - found:          WRITE_DENY binds the target read-only onto itself; MASK hides it;
 *  - a symlink:      what it leads to beneath the anchor is protected instead, and the
 *                    symlink is masked (deny_links.cpp);
 *  - a non-directory with components left below it: that file is bound read-only onto
 *                    itself, so it cannot be replaced by a directory holding the target;
 *  - a missing name: the first missing component becomes a synthetic empty file masked
 *                    with /dev/null, which the supervisor removes after the run (with
 *                    materialize the target was created before the steps, so this only
 *                    happens when materialize failed and the run degrades).
 * A step without an anchor lies outside every writable root: it is resolved from the
 * sandbox root (symlinks followed inside it), and an absent target is left alone, as is one
 * the caller cannot reach (reach.h: nothing to hide, a note says so).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "denies.h"
#include "mount_steps.h"
#include "reach.h"
#include "report.h"

namespace {

/* Whether a step of the plan mounts something strictly beneath `path`: its mountpoint would
 * be made in a mask there. Decided here, not marked in the plan by the compiler: where
 * mountpoints get made is this mount code's own doing (mountpoint_for), so a plan flag would
 * promise something about an enforcer other than the one that reads it; the check is one
 * string compare per step. */
bool steps_beneath(const mount_tree *t, const char *path)
{
    const size_t len = strlen(path);
    for (uint32_t i = 0; i < t->ctx->plan->mount_count; i++) {
        const char *p = step_path(t, &t->ctx->plan->mounts[i]);
        if (strncmp(p, path, len) == 0 && p[len] == '/')
            return true;
    }
    return false;
}

/* A mask nothing is mounted beneath: the first is an empty tmpfs made read-only (with the
 * other sealed attributes) at once, each later one a clone of that mount, not recursive (a
 * step may stack a mount on it). A clone costs a fraction of a filesystem of its own: about
 * 20 µs less per mask here, and examples/agent.toml has 9. */
void mask_with_shared_tmpfs(mount_tree *t, const tp_mount *m, int fd)
{
    int mask = -1;
    if (t->shared_mask < 0) {
        fs_option mode = {"mode", "0755"};
        mask = new_filesystem("tmpfs", &mode, 1, kSealedFile);
    } else {
        mask = clone_one_mount(t->shared_mask);
    }
    if (mask < 0)
        return step_failed(t, m, t->shared_mask < 0 ? "tmpfs" : "clone of the masks' tmpfs", errno);
    if (!attach_mount(mask, fd)) {
        step_failed(t, m, "move_mount of the tmpfs over it", errno);
        close(mask);
    } else if (t->shared_mask < 0) {
        t->shared_mask = mask;
    } else {
        close(mask);
    }
}

/* An empty tmpfs over a directory (names hidden too). With a step beneath it, one of its own,
 * sealed read-only after the last step so that the step can still get its mountpoint. */
void mask_directory(mount_tree *t, const tp_mount *m, int fd, const char *path)
{
    if (!steps_beneath(t, path))
        return mask_with_shared_tmpfs(t, m, fd);
    fs_option mode = {"mode", "0755"};
    int tmpfs = new_filesystem("tmpfs", &mode, 1, kSealedFile & ~kuapi::MOUNT_ATTR_RDONLY);
    if (tmpfs < 0) {
        step_failed(t, m, "tmpfs", errno);
        return;
    }
    if (!attach_mount(tmpfs, fd)) {
        step_failed(t, m, "move_mount of the tmpfs over it", errno);
        close(tmpfs);
        return;
    }
    register_tmpfs(t, path, tmpfs, true);
}

void mask_existing(mount_tree *t, const tp_mount *m, int fd, const char *path)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        step_failed(t, m, "fstat", errno);
    else if (S_ISDIR(st.st_mode))
        mask_directory(t, m, fd, path);
    else
        mask_with_devnull(t, m, fd);
}

/* The first missing component becomes an empty file, reported to the supervisor before
 * anything is mounted on it, so it is removed after the run even if the mount fails. */
void mask_first_missing(const mount_tree *t, const tp_mount *m, const anchored &a, const walk_result &r)
{
    if (!create_empty_file(r.fd, r.name, 0)) {
        step_failed(t, m, "synthetic mountpoint", errno);
        return;
    }
    int fd = open_beneath(r.fd, r.name, O_PATH | O_NOFOLLOW, 0);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        step_failed(t, m, "synthetic mountpoint", errno);
        if (fd >= 0)
            close(fd);
        return;
    }
    report_synthetic_mountpoint(a.anchor, arena_strndup(a.rel, r.prefix_len), st.st_dev, st.st_ino, 0);
    mask_with_devnull(t, m, fd);
    close(fd);
}

/* What an anchored deny does where its walk stopped; `protect` handles an existing target. */
void deny_at_walk_end(mount_tree *t, const tp_mount *m, const anchored &a, const walk_result &r, protect_fn protect)
{
    switch (r.end) {
    case WALK_FOUND: return protect(t, m, r.fd, step_path(t, m));
    case WALK_SYMLINK: return deny_through_symlink(t, m, a, protect);
    case WALK_NOT_DIR: return bind_onto_itself(t, m, r.fd, kReadOnlyBind);
    case WALK_MISSING:
        if ((m->op == TP_MNT_MASK) && (m->flags & TP_MNTF_OPTIONAL) && !(m->flags & TP_MNTF_MASK_ABSENT))
            return;
        return mask_first_missing(t, m, a, r);
    case WALK_FAILED: return step_failed(t, m, "walk from its writable root", r.error);
    }
}

void write_deny_found(mount_tree *t, const tp_mount *m, int fd, const char *)
{
    bind_onto_itself(t, m, fd, kReadOnlyBind);
}

void pin_found(mount_tree *t, const tp_mount *m, int fd, const char *)
{
    bind_onto_itself(t, m, fd, kPinBind);
}

/* Runs an anchored step, or resolves an unanchored one from the sandbox root. */
void run_deny(mount_tree *t, const tp_mount *m, protect_fn protect)
{
    if (m->anchor.len == 0) {
        int fd = open_in_root(t->root, step_path(t, m), O_PATH);
        int err = errno;
        if (fd >= 0) {
            protect(t, m, fd, step_path(t, m));
            close(fd);
        } else if (err != ENOENT && !(err == EACCES && deny_is_moot(t->ctx, t->root, m))) {
            step_failed(t, m, "open", err);
        }
        return;
    }
    anchored a = open_anchor(t, m, t->root);
    if (a.fd < 0) {
        step_failed(t, m, "its writable root", errno);
        return;
    }
    walk_result r = walk_beneath(a.fd, a.rel);
    /* A PIN stops where its path does not lead to a directory: the deny step below it
     * follows the symlink or masks the absent name there. */
    if (m->op != TP_MNT_PIN || r.end == WALK_FOUND)
        deny_at_walk_end(t, m, a, r, protect);
    if (r.fd >= 0)
        close(r.fd);
    close(a.fd);
}

/* Creates an absent target (and the directories above it) on the host. A failure degrades
 * like any step: the step then masks the first missing component instead. */
void materialize_one(const mount_tree *t, const tp_mount *m)
{
    anchored a = open_anchor(t, m, t->host_root);
    if (a.fd < 0) {
        step_failed(t, m, "materialize: its writable root", errno);
        return;
    }
    walk_result r = walk_beneath(a.fd, a.rel);
    if (r.end == WALK_FAILED) {
        step_failed(t, m, "materialize: walk from its writable root", r.error);
    } else if (r.end == WALK_SYMLINK && m->op != TP_MNT_PIN) {
        materialize_through_symlink(t, m, a);
    } else if (r.end == WALK_MISSING) {
        const char *missing = a.rel + r.prefix_len - strlen(r.name);
        int made = create_beneath(r.fd, missing, (m->flags & TP_MNTF_MATERIALIZE_DIR) != 0, kuapi::RESOLVE_NO_XDEV);
        if (made < 0)
            step_failed(t, m, "materialize", errno);
        else
            close(made);
    }
    if (r.fd >= 0)
        close(r.fd);
    close(a.fd);
}

/* The symlink-free path below the anchor of an absent placeholder target whose directory
 * exists (reached directly, or through symlinks that stay beneath the anchor); NULL when the
 * target exists or more than its last component is missing (the step then masks that). */
const char *placeholder_path(const anchored &a)
{
    walk_result r = walk_beneath(a.fd, a.rel);
    const char *rel = nullptr;
    if (r.end == WALK_MISSING && a.rel[r.prefix_len] == '\0') {
        rel = a.rel;
    } else if (r.end == WALK_SYMLINK) {
        followed_path f = follow_beneath(a.fd, a.rel);
        const char *slash = f.end == FOLLOW_MISSING ? strrchr(f.path, '/') : nullptr;
        if (f.end == FOLLOW_MISSING && f.existing_len == (slash ? (size_t)(slash - f.path) : 0))
            rel = f.path;
    }
    if (r.fd >= 0)
        close(r.fd);
    return rel;
}

/* `name` in `dir`, new, holding `content`: an O_PATH-able fd, or -1 with nothing left. */
int make_placeholder_file(int dir, const char *name, const char *content, size_t len)
{
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, content, len) == (ssize_t)len)
        return fd;
    int err = errno;
    close(fd);
    unlinkat(dir, name, 0); /* a short placeholder (an empty commondir) would break git */
    errno = err ? err : EIO;
    return -1;
}

int make_placeholder_dir(int dir, const char *name)
{
    if (mkdirat(dir, name, 0755) != 0)
        return -1;
    return openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Makes an absent TP_MNTF_PLACEHOLDER target for the run, before the steps: what git reads
 * as absent, reported so that the supervisor removes it afterwards if it is unchanged. The
 * step then binds it read-only like any existing target. */
void make_placeholder(const mount_tree *t, const tp_mount *m, uint32_t index)
{
    anchored a = open_anchor(t, m, t->host_root);
    if (a.fd < 0) {
        step_failed(t, m, "placeholder: its writable root", errno);
        return;
    }
    const char *rel = placeholder_path(a);
    if (rel != nullptr) {
        const char *slash = strrchr(rel, '/');
        const char *name = slash ? slash + 1 : rel;
        int dir = slash ? open_beneath(a.fd, arena_strndup(rel, (size_t)(slash - rel)), O_PATH | O_DIRECTORY, 0)
                        : fcntl(a.fd, F_DUPFD_CLOEXEC, 3);
        int made = dir < 0 ? -1
            : (m->flags & TP_MNTF_MATERIALIZE_DIR)
            ? make_placeholder_dir(dir, name)
            : make_placeholder_file(dir, name, tp_plan_str(t->ctx->plan, m->source), m->source.len);
        struct stat st;
        if (made < 0 || fstat(made, &st) != 0)
            step_failed(t, m, "placeholder", errno);
        else
            report_synthetic_mountpoint(a.anchor, rel, st.st_dev, st.st_ino, index + 1);
        if (made >= 0)
            close(made);
        if (dir >= 0)
            close(dir);
    }
    close(a.fd);
}

/* Under --strict, a deny through a symlink that cannot be followed refuses before
 * materialize changes the host. */
void check_before_materialize(const mount_tree *t, const tp_mount *m)
{
    if (!must_not_degrade(t->ctx, mount_step_required(t->ctx->plan, m)))
        return;
    anchored a = open_anchor(t, m, t->host_root);
    if (a.fd < 0)
        return; /* the step reports it */
    walk_result r = walk_beneath(a.fd, a.rel);
    if (r.end == WALK_SYMLINK)
        check_symlinked_target(t, m, a);
    if (r.fd >= 0)
        close(r.fd);
    close(a.fd);
}

}  // namespace

anchored open_anchor(const mount_tree *t, const tp_mount *m, int root)
{
    anchored a;
    a.anchor = tp_plan_str(t->ctx->plan, m->anchor);
    a.rel = path_below(step_path(t, m), a.anchor);
    a.fd = open_in_root(root, a.anchor, O_PATH | O_DIRECTORY);
    return a;
}

/* Clones the mount at `source`, sets `attrs` on the clone, and attaches it over `target`. */
static void attach_sealed_clone(const mount_tree *t, const tp_mount *m, int source, int target, uint64_t attrs,
                                const char *what)
{
    int clone = source >= 0 ? clone_mount(source) : -1;
    if (clone < 0) {
        step_failed(t, m, what, source >= 0 ? errno : ENOENT);
        return;
    }
    if (!set_mount_attrs(clone, attrs, true))
        step_failed(t, m, "mount_setattr", errno);
    else if (!attach_mount(clone, target))
        step_failed(t, m, "move_mount", errno);
    close(clone);
}

void bind_onto_itself(const mount_tree *t, const tp_mount *m, int fd, uint64_t attrs)
{
    attach_sealed_clone(t, m, fd, fd, attrs, "open_tree");
}

void mask_with_devnull(const mount_tree *t, const tp_mount *m, int fd)
{
    attach_sealed_clone(t, m, t->devnull, fd, kSealedFile, "clone of /dev/null");
}

void materialize_targets(mount_tree *t)
{
    const tp_plan *plan = t->ctx->plan;
    for (uint32_t i = 0; i < plan->mount_count; i++) {
        const tp_mount *m = &plan->mounts[i];
        if ((m->op == TP_MNT_WRITE_DENY || m->op == TP_MNT_MASK) && m->anchor.len != 0)
            check_before_materialize(t, m);
    }
    for (uint32_t i = 0; i < plan->mount_count; i++) {
        const tp_mount *m = &plan->mounts[i];
        bool deny = m->op == TP_MNT_WRITE_DENY || m->op == TP_MNT_MASK || m->op == TP_MNT_PIN;
        if (!deny || m->anchor.len == 0)
            continue;
        if (m->flags & TP_MNTF_PLACEHOLDER)
            make_placeholder(t, m, i);
        else if (m->flags & (TP_MNTF_MATERIALIZE_DIR | TP_MNTF_MATERIALIZE_FILE))
            materialize_one(t, m);
    }
}

void step_pin(mount_tree *t, const tp_mount *m)
{
    run_deny(t, m, pin_found);
}

void step_write_deny(mount_tree *t, const tp_mount *m)
{
    run_deny(t, m, write_deny_found);
}

void step_mask(mount_tree *t, const tp_mount *m)
{
    run_deny(t, m, mask_existing);
}

void note_git_protections(const mount_tree *t)
{
    const tp_plan *plan = t->ctx->plan;
    const char *noted = nullptr;
    for (uint32_t i = 0; i < plan->mount_count; i++) {
        const tp_mount *m = &plan->mounts[i];
        if (!(m->flags & TP_MNTF_GIT))
            continue;
        const char *path = step_path(t, m);
        const char *slash = strrchr(path, '/');
        const char *gitdir = arena_strndup(path, (size_t)(slash - path));
        if (noted != nullptr && strcmp(noted, gitdir) == 0)
            continue;
        noted = gitdir;
        note("%s: config, commondir, config.worktree and worktrees/ are read-only like its hooks, so that git runs "
             "nothing the sandbox wrote; here git config, git remote add, git branch -u and git worktree add fail "
             "(\"could not write config file ...: Device or resource busy\", \"could not create directory of "
             "...worktrees/...: Read-only file system\")",
             gitdir);
    }
}
