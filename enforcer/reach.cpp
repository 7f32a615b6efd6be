/* enforcer/reach.cpp — paths the caller cannot reach (reach.h has the argument). */
#include "reach.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mount_tree.h"
#include "paths.h"
#include "report.h"
#include "syscalls.h"

namespace {

/* The directory that refuses the caller search on the way to a path, and its owner. */
struct blocker {
    char dir[TP_MAX_PATH + 1];
    uid_t owner;
};

/* Whether looking `name` up in `dir` (not following it) is refused for want of search
 * permission on `dir`. */
bool refuses_search(int dir, const char *name)
{
    int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return false;
    }
    return errno == EACCES;
}

/* The deepest prefix of absolute `path` that opens from `root`, when the next component is
 * refused there for want of search permission. False when the refusal lies elsewhere (behind
 * a symlink on the way, or the tree changed meanwhile): nothing is then taken as moot. */
bool find_blocker(int root, const char *path, blocker *b)
{
    size_t len = strlen(path);
    if (len > TP_MAX_PATH)
        return false;
    char prefix[TP_MAX_PATH + 1];
    int dir = open_in_root(root, "/", O_PATH | O_DIRECTORY);
    size_t dir_len = 1, start = 1; /* the directory's length in `path`, the next name's start */
    for (size_t end = 1; dir >= 0 && end <= len; end++) {
        if (path[end] != '/' && path[end] != '\0')
            continue;
        memcpy(prefix, path, end);
        prefix[end] = '\0';
        int next = open_in_root(root, prefix, O_PATH);
        if (next < 0) {
            struct stat st;
            bool found = errno == EACCES && refuses_search(dir, prefix + start) && fstat(dir, &st) == 0;
            close(dir);
            if (!found)
                return false;
            memcpy(b->dir, path, dir_len);
            b->dir[dir_len] = '\0';
            b->owner = st.st_uid;
            return true;
        }
        close(dir);
        dir = next;
        dir_len = end;
        start = end + 1;
    }
    if (dir >= 0)
        close(dir);
    return false;
}

/* `path` lies beneath a directory of another uid that the caller may not search. */
bool out_of_reach(const run_ctx *ctx, int root, const char *path, blocker *b)
{
    return !ctx->caller_is_root && find_blocker(root, path, b) && b->owner != ctx->uid;
}

[[noreturn]] void refuse_grant(const run_ctx *ctx, const char *what, const char *path, tp_origin o, const blocker &b)
{
    char origin[64];
    refuse("%s %s%s cannot be opened by uid %u: Permission denied at %s (a directory of uid %u); a plan holds the "
           "paths of its compile, with ~ the compiling user's HOME: compile it as the user who runs it, with that "
           "user's HOME",
           what, path, origin_text(o.line, o.col, origin, sizeof origin), (unsigned)ctx->uid, b.dir, (unsigned)b.owner);
}

void check_grant(const run_ctx *ctx, int root, const char *what, const char *path, tp_origin origin)
{
    int fd = open_in_root(root, path, O_PATH);
    if (fd >= 0) {
        close(fd);
        return;
    }
    blocker b;
    if (errno == EACCES && out_of_reach(ctx, root, path, &b))
        refuse_grant(ctx, what, path, origin, b);
}

/* The moot denies met so far, one group per blocking directory, so that a plan with eight
 * denies beneath /root says so in one line (reach_report_moot). */
struct moot_group {
    blocker b;
    unsigned count;
    char first[TP_MAX_PATH + 96]; /* "read_denies /root/.ssh (policy line 11:3)" */
};
constexpr int kMootGroups = 4;
moot_group g_moot[kMootGroups];
int g_moot_count;

void report_group(const run_ctx *ctx, const moot_group &g)
{
    /* Inside the user namespace another user's uid reads as the overflow uid: not named. */
    if (g.count == 1)
        note("%s: uid %u cannot reach it (Permission denied at %s, another user's directory); nothing to hide", g.first,
             (unsigned)ctx->uid, g.b.dir);
    else
        note("%s and %u more denies beneath %s: uid %u cannot reach them (Permission denied there, another user's "
             "directory); nothing to hide",
             g.first, g.count - 1, g.b.dir, (unsigned)ctx->uid);
}

/* Counts `m` in its blocker's group; a fifth blocking directory is reported at once. */
void add_moot(const run_ctx *ctx, const tp_mount *m, const char *path, const blocker &b)
{
    moot_group one;
    moot_group *g = nullptr;
    for (int i = 0; i < g_moot_count && g == nullptr; i++)
        if (strcmp(g_moot[i].b.dir, b.dir) == 0)
            g = &g_moot[i];
    if (g != nullptr) {
        g->count++;
        return;
    }
    g = g_moot_count < kMootGroups ? &g_moot[g_moot_count++] : &one;
    char origin[64];
    g->b = b;
    g->count = 1;
    snprintf(g->first, sizeof g->first, "%s %s%s", mount_step_label(ctx->plan, m), path,
             origin_text(m->origin.line, m->origin.col, origin, sizeof origin));
    if (g == &one)
        report_group(ctx, one);
}

/* An expansion's companion rule (the listing right on its directory), not a grant a policy
 * names. */
bool listing_only(const tp_landlock_path *r)
{
    return r->kind == TP_LL_PATH && r->access == TP_LL_FS_READ_DIR;
}

/* Whether the caller may reach and search `path`: for a directory it cannot list, names
 * beneath it were reachable (mode 0711), so leaving its expansion out costs something. */
bool searchable(const char *path)
{
    return faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) == 0;
}

}  // namespace

void reach_check_grants(const run_ctx *ctx)
{
    if (ctx->caller_is_root)
        return;
    const tp_plan *plan = ctx->plan;
    int root = open_cloexec("/", O_PATH | O_DIRECTORY);
    if (root < 0)
        return; /* the steps report what cannot be opened */
    /* With the mount layer every grant of a host path is a bind (Landlock's other paths are
     * the sandbox's own: /dev, /tmp, the credentials directory); without it, the rules that
     * must exist are the writable roots. */
    for (uint32_t i = 0; ctx->mount_layer && i < plan->mount_count; i++) {
        const tp_mount *m = &plan->mounts[i];
        if (m->op == TP_MNT_BIND)
            check_grant(ctx, root, mount_step_label(ctx->plan, m), tp_plan_str(plan, m->source), m->origin);
    }
    for (uint32_t i = 0; !ctx->mount_layer && ctx->landlock_abi > 0 && i < plan->landlock_path_count; i++) {
        const tp_landlock_path *r = &plan->landlock_paths[i];
        if (r->kind == TP_LL_PATH && !(r->flags & TP_MNTF_OPTIONAL))
            check_grant(ctx, root, "writable_roots", tp_plan_str(plan, r->path), r->origin);
    }
    close(root);
}

bool deny_is_moot(const run_ctx *ctx, int root, const tp_mount *m)
{
    blocker b;
    const char *path = tp_plan_str(ctx->plan, m->path);
    if (m->anchor.len != 0 || !out_of_reach(ctx, root, path, &b))
        return false;
    add_moot(ctx, m, path, b);
    return true;
}

void reach_report_moot(const run_ctx *ctx)
{
    for (int i = 0; i < g_moot_count; i++)
        report_group(ctx, g_moot[i]);
    g_moot_count = 0;
}

bool landlock_rule_is_moot(const run_ctx *ctx, const tp_landlock_path *r)
{
    if (ctx->caller_is_root || !(r->kind == TP_LL_EXPAND || listing_only(r)))
        return false;
    const char *path = tp_plan_str(ctx->plan, r->path);
    if (r->kind == TP_LL_EXPAND && searchable(path)) {
        char origin[64];
        note("Landlock: %s%s cannot be listed by uid %u (Permission denied): nothing beneath it is granted, so "
             "what uid %u could open there by name is not readable in the sandbox",
             path, origin_text(r->origin.line, r->origin.col, origin, sizeof origin), (unsigned)ctx->uid,
             (unsigned)ctx->uid);
    }
    return true;
}
