/* enforcer/landlock.cpp — ruleset, rules, EXPAND by getdents64, restrict_self. */
#include "landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "raw.h"
#include "reach.h"
#include "report.h"
#include "syscalls.h"

namespace {

const char *rule_path(const run_ctx *ctx, const tp_landlock_path *r)
{
    return tp_plan_str(ctx->plan, r->path);
}

/* Size of struct landlock_ruleset_attr the kernel of this ABI knows. */
size_t ruleset_attr_size(unsigned abi)
{
    if (abi >= 6)
        return sizeof(kuapi::landlock_ruleset_attr);
    if (abi >= 4)
        return offsetof(kuapi::landlock_ruleset_attr, scoped);
    return offsetof(kuapi::landlock_ruleset_attr, handled_access_net);
}

uint64_t handled_fs(const run_ctx *ctx)
{
    return ctx->plan->landlock->handled_access_fs & landlock_fs_rights(ctx->landlock_abi);
}

[[noreturn]] void refuse_rule(const run_ctx *ctx, const tp_landlock_path *r, const char *what, int err)
{
    char origin[64];
    refuse("Landlock rule for %s%s: %s: %s", rule_path(ctx, r),
           origin_text(r->origin.line, r->origin.col, origin, sizeof origin), what, strerror(err));
}

/* What a file is, as far as its rights go: from getdents64's d_type when it says, else fstat. */
enum file_kind { KIND_UNKNOWN, KIND_DIR, KIND_OTHER };

file_kind kind_of_entry(uint8_t d_type)
{
    if (d_type == kuapi::DT_DIR_TYPE)
        return KIND_DIR;
    return d_type == kuapi::DT_UNKNOWN_TYPE ? KIND_UNKNOWN : KIND_OTHER;
}

/* 0, or the kernel's -errno: raw (raw.h), so that the error reported is the kernel's even
 * while another process on this memory runs a libc call that sets errno. */
long grant(int ruleset, int fd, uint64_t access)
{
    kuapi::landlock_path_beneath_attr attr = {access, fd};
    if (access == 0)
        return 0;
    return raw_syscall4(SYS_landlock_add_rule, ruleset, kuapi::LANDLOCK_RULE_PATH_BENEATH, (long)&attr, 0);
}

/* A refused call on a rule's fd; for EBADF, which of the two descriptors was no longer open. */
[[noreturn]] void refuse_call(const run_ctx *ctx, const tp_landlock_path *r, const char *call, int ruleset, int fd,
                              long ret)
{
    if (ret != -EBADF)
        refuse_rule(ctx, r, call, (int)-ret);
    char what[96];
    snprintf(what, sizeof what, "%s (ruleset fd %d %s, path fd %d %s)", call, ruleset,
             raw_syscall3(SYS_fcntl, ruleset, F_GETFD, 0) < 0 ? "closed" : "open", fd,
             raw_syscall3(SYS_fcntl, fd, F_GETFD, 0) < 0 ? "closed" : "open");
    refuse_rule(ctx, r, what, EBADF);
}

/* `access` masked to what the kernel handles and, for a non-directory, to file rights. */
uint64_t rights_for(const run_ctx *ctx, uint64_t access, file_kind kind)
{
    access &= handled_fs(ctx);
    return kind == KIND_DIR ? access : access & TP_LL_FS_FILE_RIGHTS;
}

/* Grants `access` beneath the open file `fd`; `kind` from fstat when unknown. */
void add_rule(const run_ctx *ctx, int ruleset, const tp_landlock_path *r, int fd, uint64_t access, file_kind kind)
{
    if (kind == KIND_UNKNOWN) {
        struct stat st;
        long ret = raw_syscall4(SYS_newfstatat, fd, (long)"", (long)&st, AT_EMPTY_PATH);
        if (ret != 0)
            refuse_call(ctx, r, "fstat", ruleset, fd, ret);
        kind = S_ISDIR(st.st_mode) ? KIND_DIR : KIND_OTHER;
    }
    long ret = grant(ruleset, fd, rights_for(ctx, access, kind));
    if (ret != 0)
        refuse_call(ctx, r, "landlock_add_rule", ruleset, fd, ret);
}

/* An entry of a listing, its kind from d_type. One listed as a directory that is no longer
 * one (EINVAL: directory rights on a file) is looked at again with fstat. */
void add_entry_rule(const run_ctx *ctx, int ruleset, const tp_landlock_path *r, int fd, uint8_t d_type)
{
    file_kind kind = kind_of_entry(d_type);
    if (kind != KIND_DIR)
        return add_rule(ctx, ruleset, r, fd, r->access, kind);
    long ret = grant(ruleset, fd, rights_for(ctx, r->access, KIND_DIR));
    if (ret == 0)
        return;
    if (ret != -EINVAL)
        refuse_call(ctx, r, "landlock_add_rule", ruleset, fd, ret);
    add_rule(ctx, ruleset, r, fd, r->access, KIND_UNKNOWN);
}

/* Whether `name` is one of the '/'-separated names of `list`. */
bool name_in_list(const char *name, const char *list)
{
    size_t len = strlen(name);
    for (const char *p = list; *p != '\0';) {
        const char *end = strchrnul(p, '/');
        if ((size_t)(end - p) == len && strncmp(p, name, len) == 0)
            return true;
        p = *end ? end + 1 : end;
    }
    return false;
}

/* The entries' fds, closed together: close_range on each run of consecutive numbers (they
 * are handed out lowest first, so usually one run) instead of a close per entry. Only fds
 * opened here are in it, so a run never holds anyone else's. */
struct fd_batch {
    int fds[64];
    int count;
};

void close_batch(fd_batch *b)
{
    for (int i = 1; i < b->count; i++) /* insertion sort: at most 64, nearly sorted */
        for (int j = i; j > 0 && b->fds[j - 1] > b->fds[j]; j--) {
            int t = b->fds[j];
            b->fds[j] = b->fds[j - 1];
            b->fds[j - 1] = t;
        }
    for (int i = 0; i < b->count;) {
        int j = i;
        while (j + 1 < b->count && b->fds[j + 1] == b->fds[j] + 1)
            j++;
        sys_close_range((unsigned)b->fds[i], (unsigned)b->fds[j], 0);
        i = j + 1;
    }
    b->count = 0;
}

void keep_for_batch(fd_batch *b, int fd)
{
    b->fds[b->count++] = fd;
    if (b->count == (int)(sizeof b->fds / sizeof b->fds[0]))
        close_batch(b);
}

/* One rule per entry of the directory `dir`, except `.`, `..`, symlinks and the excepted.
 * d_type saves an fstat per entry and skips symlinks without opening them; an entry that
 * became a symlink after the listing is opened O_NOFOLLOW, so a rule on it covers nothing. */
void add_expanded_rules(const run_ctx *ctx, int ruleset, const tp_landlock_path *r, int dir)
{
    static char buf[32768];
    fd_batch opened = {};
    const char *except = tp_plan_str(ctx->plan, r->except);
    for (;;) {
        long n = sys_getdents64(dir, buf, sizeof buf);
        if (n < 0)
            refuse_rule(ctx, r, "getdents64", errno);
        if (n == 0)
            return close_batch(&opened);
        for (long off = 0; off < n;) {
            const kuapi::linux_dirent64 *d = (const kuapi::linux_dirent64 *)(buf + off);
            off += d->d_reclen;
            const char *name = d->d_name;
            if (d->d_type == kuapi::DT_LNK_TYPE || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
                name_in_list(name, except))
                continue;
            int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0)
                continue; /* removed since the listing: nothing to grant */
            add_entry_rule(ctx, ruleset, r, fd, d->d_type);
            keep_for_batch(&opened, fd);
        }
    }
}

void add_path_rule(const run_ctx *ctx, int ruleset, const tp_landlock_path *r)
{
    bool expand = r->kind == TP_LL_EXPAND;
    int fd = open_cloexec(rule_path(ctx, r), expand ? O_RDONLY | O_DIRECTORY : O_PATH);
    int err = errno;
    if (fd < 0 && err == ENOENT && (r->flags & TP_MNTF_OPTIONAL))
        return;
    if (fd < 0 && err == EACCES && landlock_rule_is_moot(ctx, r))
        return;
    if (fd < 0)
        refuse_rule(ctx, r, "open", err);
    if (expand)
        add_expanded_rules(ctx, ruleset, r, fd);
    else
        add_rule(ctx, ruleset, r, fd, r->access, KIND_UNKNOWN);
    close(fd);
}

}  // namespace

unsigned landlock_probe_abi()
{
    int abi = sys_landlock_create_ruleset(nullptr, 0, kuapi::LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? 0u : (unsigned)abi;
}

uint64_t landlock_fs_rights(unsigned abi)
{
    if (abi == 0)
        return 0;
    if (abi == 1)
        return TP_LL_FS_REFER - 1; /* EXECUTE .. MAKE_SYM */
    if (abi == 2)
        return TP_LL_FS_TRUNCATE - 1; /* + REFER */
    if (abi <= 4)
        return TP_LL_FS_IOCTL_DEV - 1; /* + TRUNCATE */
    return TP_LL_FS_ALL_ABI7;          /* + IOCTL_DEV */
}

void landlock_check_paths(const run_ctx *ctx)
{
    if (ctx->landlock_abi == 0)
        return;
    for (uint32_t i = 0; i < ctx->plan->landlock_path_count; i++) {
        const tp_landlock_path *r = &ctx->plan->landlock_paths[i];
        struct stat st;
        if ((r->flags & TP_MNTF_OPTIONAL) || stat(rule_path(ctx, r), &st) == 0)
            continue; /* an optional path is looked at only when its rule is added */
        refuse_rule(ctx, r, "stat", errno);
    }
}

int landlock_build(const run_ctx *ctx)
{
    if (ctx->landlock_abi == 0)
        return -1;
    const tp_landlock_ruleset *rs = ctx->plan->landlock;
    kuapi::landlock_ruleset_attr attr = {};
    attr.handled_access_fs = handled_fs(ctx);
    if (ctx->landlock_abi >= 4)
        attr.handled_access_net = rs->handled_access_net & kuapi::LANDLOCK_NET_ALL;
    if (ctx->landlock_abi >= 6)
        attr.scoped = rs->scoped & kuapi::LANDLOCK_SCOPE_ALL;
    int ruleset = sys_landlock_create_ruleset(&attr, ruleset_attr_size(ctx->landlock_abi), 0);
    if (ruleset < 0)
        refuse("Landlock: landlock_create_ruleset: %s", strerror(errno));
    for (uint32_t i = 0; i < ctx->plan->landlock_path_count; i++)
        add_path_rule(ctx, ruleset, &ctx->plan->landlock_paths[i]);
    return ruleset;
}

void landlock_enforce(int ruleset_fd)
{
    if (ruleset_fd < 0)
        return;
    if (sys_landlock_restrict_self(ruleset_fd, 0) != 0)
        refuse("Landlock: landlock_restrict_self: %s", strerror(errno));
    close(ruleset_fd);
}

void landlock_deny_tcp_without_netns(const run_ctx *ctx)
{
    bool wanted = ctx->plan->ns && (ctx->plan->ns->flags & TP_NS_NET);
    if (!wanted || (ctx->clone_flags & CLONE_NEWNET) || ctx->landlock_abi < 4)
        return;
    kuapi::landlock_ruleset_attr attr = {};
    attr.handled_access_net = kuapi::LANDLOCK_NET_ALL;
    int ruleset = sys_landlock_create_ruleset(&attr, offsetof(kuapi::landlock_ruleset_attr, scoped), 0);
    if (ruleset < 0 || sys_landlock_restrict_self(ruleset, 0) != 0)
        fail(EXIT_STARTUP, "Landlock: cannot deny TCP in place of the network namespace: %s", strerror(errno));
    close(ruleset);
}
