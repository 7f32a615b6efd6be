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
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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
        snprintf(text + n, sizeof text - (size_t)n, " leads to %s, which does not exist",
                 below_anchor(anchor, f.path));
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
        refuse("%s %s%s cannot be protected: %s; run without --strict to degrade", mount_step_label(m),
               step_path(t, m), origin, why);
    warn("%s %s%s not enforced: %s; only the symlink is masked", mount_step_label(m), step_path(t, m), origin, why);
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

void protect_followed(mount_tree *t, const tp_mount *m, const char *anchor, const followed_path &f,
                      protect_fn protect)
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

}  // namespace

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
        return;  /* there already, or not beneath the anchor: the step reports that */
    size_t n = f.existing_len;
    int dir = n ? open_beneath(a.fd, arena_strndup(f.path, n), O_PATH | O_DIRECTORY, 0)
                : fcntl(a.fd, F_DUPFD_CLOEXEC, 3);
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
            continue;  /* covered by a later step's mount: out of reach already */
        mask_with_devnull(t, d->step, fd);
        close(fd);
    }
}
