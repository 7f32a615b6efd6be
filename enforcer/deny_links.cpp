/* enforcer/deny_links.cpp — a deny whose path crosses a symlink inside its writable root.
 *
 * The host follows the symlink (git runs .git/hooks -> ../scripts/hooks from scripts/hooks),
 * so protecting the name alone leaves the real object writable. The rule is mechanical: the
 * step's path is followed beneath its anchor as openat2(RESOLVE_BENEATH) does (follow_beneath).
 *  - It leads to an object beneath the anchor: that object is protected exactly like a
 *    direct target (read-only bind, or mask); every directory between the anchor and it, and
 *    between the anchor and each symlink met, is pinned so none can be renamed to swap the
 *    object or a symlink out; every symlink met is masked so none can be replaced.
 *  - It leads to nothing: with materialize the object was created beneath the anchor before
 *    the steps (the same no-symlink walk), so the step finds it; otherwise it counts as:
 *  - It cannot be followed beneath the anchor (absolute target, ".." above the anchor, a
 *    loop, a file on the way): a refusal under --strict naming the path, the symlink and its
 *    target; otherwise the symlinks met are masked and a warning says what is not protected.
 * Symlink masks are deferred until every step has run: a later step whose path crosses the
 * same symlink must still be able to follow it.
 *
 * The symlinks directly in a write-denied directory (a hook linked into the workspace:
 * hooks/post-checkout -> ../../scripts/post-checkout) are the other way round: the
 * symlink is read-only, where it leads is not. The compiler protects each target it saw
 * (TP_MNTF_LINK_TARGET steps); protect_link_targets re-checks them all after the last step.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena.h"
#include "denies.h"
#include "mount_steps.h"
#include "report.h"

namespace {

/* `rel` below `anchor` as a sandbox path. */
const char *below_anchor(const char *anchor, const char *rel)
{
    if (rel[0] == '\0')
        return anchor;
    size_t n = strlen(anchor);
    return arena_concat3(anchor, n > 0 && anchor[n - 1] == '/' ? "" : "/", rel);
}

/* The object at `rel` below the anchor when the walk ends as `want`, else -1. Reopened from
 * the sandbox root each time: an earlier mount may cover what was opened before. */
int reopen_below(const mount_tree *t, const char *anchor, const char *rel, walk_end want)
{
    int anchor_fd = open_in_root(t->root, anchor, O_PATH | O_DIRECTORY);
    if (anchor_fd < 0)
        return -1;
    walk_result r = walk_beneath(anchor_fd, rel);
    close(anchor_fd);
    if (r.end == want)
        return r.fd;
    if (r.fd >= 0)
        close(r.fd);
    errno = r.end == WALK_FAILED ? r.error : ENOENT;
    return -1;
}

/* Pins every directory strictly between the anchor and `rel`; one that is already a mount
 * root cannot be renamed and needs no pin. */
void pin_directories_above(const mount_tree *t, const tp_mount *m, const char *anchor, const char *rel)
{
    for (const char *slash = strchr(rel, '/'); slash != nullptr; slash = strchr(slash + 1, '/')) {
        int fd = reopen_below(t, anchor, arena_strndup(rel, (size_t)(slash - rel)), WALK_FOUND);
        if (fd < 0) {
            step_failed(t, m, "pin of a directory on the way", errno);
            continue;
        }
        if (!is_mount_root(fd))
            bind_onto_itself(t, m, fd, kPinBind);
        close(fd);
    }
}

/* Queues the symlinks met for masking after the last step (once each). */
void defer_symlink_masks(mount_tree *t, const tp_mount *m, const char *anchor, const followed_path &f)
{
    for (int i = 0; i < f.link_count; i++) {
        const char *rel = f.links[i].path;
        bool queued = false;
        for (const deferred_mask *d = t->symlink_masks; d != nullptr && !queued; d = d->next)
            queued = strcmp(d->anchor, anchor) == 0 && strcmp(d->rel, rel) == 0;
        if (queued)
            continue;
        deferred_mask *d = (deferred_mask *)arena_alloc(sizeof *d);
        *d = {m, anchor, rel, nullptr};
        *(t->symlink_masks_tail ? &t->symlink_masks_tail->next : &t->symlink_masks) = d;
        t->symlink_masks_tail = d;
    }
}

/* "the symlink A -> T leads to ...": why the path cannot be protected beyond the symlink. */
const char *describe_unfollowed(const char *anchor, const followed_path &f)
{
    char text[2 * TP_MAX_PATH];
    const met_symlink *link = f.link_count > 0 ? &f.links[f.link_count - 1] : nullptr;
    int n = link ? snprintf(text, sizeof text, "the symlink %s -> %s", below_anchor(anchor, link->path), link->target)
                 : snprintf(text, sizeof text, "a symlink on its path");
    if (f.end == FOLLOW_MISSING)
        snprintf(text + n, sizeof text - (size_t)n, " leads to %s, which does not exist", below_anchor(anchor, f.path));
    else
        snprintf(text + n, sizeof text - (size_t)n, " cannot be followed beneath the writable root %s: %s", anchor,
                 f.why);
    return arena_strdup(text);
}

/* Refuses under --strict; otherwise warns that only the symlink itself is protected. */
void report_unfollowed(const mount_tree *t, const tp_mount *m, const char *anchor, const followed_path &f)
{
    char origin[64];
    origin_text(m->origin.line, m->origin.col, origin, sizeof origin);
    const char *why = describe_unfollowed(anchor, f);
    if (must_not_degrade(t->ctx, mount_step_required(t->ctx->plan, m)))
        refuse("%s %s%s cannot be protected: %s; run without --strict to degrade", mount_step_label(t->ctx->plan, m),
               step_path(t, m), origin, why);
    warn("%s %s%s not enforced: %s; only the symlink is masked", mount_step_label(t->ctx->plan, m), step_path(t, m),
         origin, why);
}

/* An optional mask whose target is absent is skipped, as for a direct target. */
bool absent_is_skipped(const tp_mount *m)
{
    return m->op == TP_MNT_MASK && (m->flags & TP_MNTF_OPTIONAL) && !(m->flags & TP_MNTF_MASK_ABSENT);
}

bool materializes(const tp_mount *m)
{
    return (m->flags & (TP_MNTF_MATERIALIZE_DIR | TP_MNTF_MATERIALIZE_FILE)) != 0;
}

void protect_followed(mount_tree *t, const tp_mount *m, const char *anchor, const followed_path &f, protect_fn protect)
{
    pin_directories_above(t, m, anchor, f.path);
    for (int i = 0; i < f.link_count; i++)
        pin_directories_above(t, m, anchor, f.links[i].path);
    int fd = reopen_below(t, anchor, f.path, WALK_FOUND);
    if (fd < 0) {
        step_failed(t, m, "reopen of what the symlink leads to", errno);
        return;
    }
    protect(t, m, fd, below_anchor(anchor, f.path));
    close(fd);
}

/* ---- symlinks in a write-denied directory, re-checked at start ---- */

struct dirent64 {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

bool on_writable_mount(int fd)
{
    struct statfs sfs;
    return fstatfs(fd, &sfs) == 0 && !(sfs.f_flags & ST_RDONLY);
}

void bind_read_only(mount_tree *t, const tp_mount *m, int fd, const char *)
{
    bind_onto_itself(t, m, fd, kReadOnlyBind);
}

/* The symlink `rel` (below the anchor) in the write-denied directory of step `m`: where it
 * leads must not be writable. The plan protects where it led at compile time; one added or
 * repointed since is protected here like a deny through it (its directories pinned), or,
 * when that is impossible (it dangles, or leaves the writable root), refused under --strict
 * and warned about otherwise. */
void check_link(mount_tree *t, const tp_mount *m, const anchored &a, const char *rel)
{
    const char *link = below_anchor(a.anchor, rel);
    int obj = open_in_root(t->root, link, O_PATH);
    if (obj < 0 && errno != ENOENT)
        return; /* ENOTDIR, ELOOP, EACCES: nothing the sandbox can create there */
    bool writable = obj < 0 || on_writable_mount(obj);
    if (obj >= 0)
        close(obj);
    if (!writable)
        return;
    followed_path f = follow_beneath(a.fd, rel);
    if (f.end == FOLLOW_FOUND) {
        protect_followed(t, m, a.anchor, f, bind_read_only);
        note("%s: the symlink %s leads to %s, which the plan does not protect (changed since it was compiled): "
             "made read-only for this run",
             mount_step_label(t->ctx->plan, m), link, below_anchor(a.anchor, f.path));
        return;
    }
    char origin[64];
    origin_text(m->origin.line, m->origin.col, origin, sizeof origin);
    if (must_not_degrade(t->ctx, mount_step_required(t->ctx->plan, m)))
        refuse("%s %s%s: the symlink %s leads where the sandbox can write and cannot be protected (it dangles or "
               "leaves the writable root); recompile the policy, or run without --strict to degrade",
               mount_step_label(t->ctx->plan, m), step_path(t, m), origin, link);
    warn("%s %s%s: the symlink %s leads where the sandbox can write and cannot be protected (it dangles or leaves "
         "the writable root)",
         mount_step_label(t->ctx->plan, m), step_path(t, m), origin, link);
}

/* Each symlink directly in `dir`, the step's target (a.rel below the anchor). */
void check_links_in(mount_tree *t, const tp_mount *m, const anchored &a, int dir)
{
    char buf[4096];
    long n;
    while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0)
        for (long off = 0; off < n;) {
            const dirent64 *d = (const dirent64 *)(buf + off);
            off += d->reclen;
            if (d->type == DT_LNK)
                check_link(t, m, a, a.rel[0] ? arena_concat3(a.rel, "/", d->name) : arena_strdup(d->name));
        }
}

}  // namespace

void protect_link_targets(mount_tree *t)
{
    const tp_plan *plan = t->ctx->plan;
    for (uint32_t i = 0; i < plan->mount_count; i++) {
        const tp_mount *m = &plan->mounts[i];
        if (m->op != TP_MNT_WRITE_DENY || m->anchor.len == 0 || (m->flags & (TP_MNTF_GIT | TP_MNTF_LINK_TARGET)))
            continue;
        anchored a = open_anchor(t, m, t->root);
        if (a.fd < 0)
            continue;
        walk_result r = walk_beneath(a.fd, a.rel);
        int dir = r.end == WALK_FOUND ? openat(r.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        if (dir >= 0) {
            check_links_in(t, m, a, dir);
            close(dir);
        }
        if (r.fd >= 0)
            close(r.fd);
        close(a.fd);
    }
}

void deny_through_symlink(mount_tree *t, const tp_mount *m, const anchored &a, protect_fn protect)
{
    followed_path f = follow_beneath(a.fd, a.rel);
    if (f.end == FOLLOW_MISSING && absent_is_skipped(m))
        return;
    if (f.end == FOLLOW_FOUND)
        protect_followed(t, m, a.anchor, f, protect);
    else if (f.end == FOLLOW_FAILED)
        step_failed(t, m, "following a symlink below its writable root", f.error);
    else
        report_unfollowed(t, m, a.anchor, f);
    defer_symlink_masks(t, m, a.anchor, f);
}

void check_symlinked_target(const mount_tree *t, const tp_mount *m, const anchored &a)
{
    followed_path f = follow_beneath(a.fd, a.rel);
    bool lost = f.end == FOLLOW_OUTSIDE || (f.end == FOLLOW_MISSING && !materializes(m) && !absent_is_skipped(m));
    if (lost && must_not_degrade(t->ctx, mount_step_required(t->ctx->plan, m)))
        report_unfollowed(t, m, a.anchor, f);
}

void materialize_through_symlink(const mount_tree *t, const tp_mount *m, const anchored &a)
{
    followed_path f = follow_beneath(a.fd, a.rel);
    if (f.end != FOLLOW_MISSING)
        return; /* there already, or not beneath the anchor: the step reports that */
    size_t n = f.existing_len;
    int dir =
        n ? open_beneath(a.fd, arena_strndup(f.path, n), O_PATH | O_DIRECTORY, 0) : fcntl(a.fd, F_DUPFD_CLOEXEC, 3);
    int made = dir >= 0 ? create_beneath(dir, f.path + n + (n ? 1 : 0), (m->flags & TP_MNTF_MATERIALIZE_DIR) != 0,
                                         kuapi::RESOLVE_NO_XDEV)
                        : -1;
    if (made < 0)
        step_failed(t, m, "materialize where a symlink leads", errno);
    else
        close(made);
    if (dir >= 0)
        close(dir);
}

void mask_symlinks_met(mount_tree *t)
{
    for (const deferred_mask *d = t->symlink_masks; d != nullptr; d = d->next) {
        int fd = reopen_below(t, d->anchor, d->rel, WALK_SYMLINK);
        if (fd < 0)
            continue; /* covered by a later step's mount: out of reach already */
        mask_with_devnull(t, d->step, fd);
        close(fd);
    }
}
