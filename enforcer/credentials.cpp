/* enforcer/credentials.cpp — the credentials directory (a TMPFS step with TP_MNTF_CREDENTIALS at
 * TP_CREDENTIALS_DIR): where the agent finds the broker's token, after systemd's
 * $CREDENTIALS_DIRECTORY convention.
 *
 * A tmpfs of its own, bounded (kSize, kInodes) so that it is no scratch space, and built while
 * it is still detached: the token written to TP_BROKER_TOKEN_FILE (mode 0400, no newline), the
 * directory made 0500, both owned by the command's uid (the caller's, which every user
 * namespace the enforcer makes maps onto itself); then read-only, nosuid, nodev and noexec,
 * and only then attached, so the sandbox never sees it writable or half-written. Init's
 * mountpoint for it comes from a tmpfs the enforcer made above it (mount_tree.h): the empty
 * root of read_scope = "granted", or the mask that hides the host's /run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mount_steps.h"
#include "secrets.h"
#include "write_all.h"

namespace {

constexpr const char *kSize = "64k"; /* the token is at most TBS_MAX_VALUE (16 KiB) */
constexpr const char *kInodes = "4"; /* the directory, the token, and no room to grow */
constexpr uint64_t kSealed =
    kuapi::MOUNT_ATTR_RDONLY | kuapi::MOUNT_ATTR_NOSUID | kuapi::MOUNT_ATTR_NODEV | kuapi::MOUNT_ATTR_NOEXEC;

/* The token file in the detached tmpfs `mnt`; exactly 0400 whatever the umask. */
bool write_token(int mnt, const char *token, size_t len)
{
    int fd = openat(mnt, TP_BROKER_TOKEN_FILE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
    if (fd < 0)
        return false;
    bool ok = write_all(fd, token, len) && fchmod(fd, 0400) == 0;
    int err = errno;
    close(fd);
    errno = err;
    return ok;
}

/* The directory was 0700 while the token was written; now only readable and searchable. */
bool close_directory(int mnt)
{
    int dir = openat(mnt, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return false;
    bool ok = fchmod(dir, 0500) == 0;
    int err = errno;
    close(dir);
    errno = err;
    return ok;
}

/* The filled, sealed, detached tmpfs, or -1 with `*what` naming the failed operation. */
int make_credentials(const run_ctx *ctx, const char *token, size_t len, const char **what)
{
    char uid[16], gid[16];
    snprintf(uid, sizeof uid, "%u", (unsigned)ctx->uid);
    snprintf(gid, sizeof gid, "%u", (unsigned)ctx->gid);
    const fs_option options[] = {{"mode", "0700"}, {"size", kSize}, {"nr_inodes", kInodes}, {"uid", uid}, {"gid", gid}};
    int mnt = new_filesystem("tmpfs", options, sizeof options / sizeof options[0], kSealed & ~kuapi::MOUNT_ATTR_RDONLY);
    if (mnt < 0) {
        *what = "tmpfs";
        return -1;
    }
    *what = !write_token(mnt, token, len)       ? "writing " TP_BROKER_TOKEN_FILE
        : !close_directory(mnt)                 ? "chmod 0500"
        : !set_mount_attrs(mnt, kSealed, false) ? "mount_setattr(read-only)"
                                                : nullptr;
    if (*what == nullptr)
        return mnt;
    int err = errno;
    close(mnt);
    errno = err;
    return -1;
}

}  // namespace

void step_credentials(mount_tree *t, const tp_mount *m)
{
    size_t len = 0;
    const char *token = secrets_token(&len);
    if (token == nullptr)
        return; /* the broker does not run (preflight reported why): no token to give */
    const char *what = nullptr;
    int mnt = make_credentials(t->ctx, token, len, &what);
    if (mnt < 0)
        return step_failed(t, m, what, errno);
    int target = mountpoint_for(t, step_path(t, m), true);
    if (target < 0)
        step_failed(t, m, "mountpoint", errno);
    else if (!attach_mount(mnt, target))
        step_failed(t, m, "move_mount", errno);
    if (target >= 0)
        close(target);
    close(mnt);
}
