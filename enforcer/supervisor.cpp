/* enforcer/supervisor.cpp — clone, id maps, release, status pipe, wait, clean-up. */
#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init.h"
#include "paths.h"
#include "preflight.h"
#include "report.h"
#include "signals.h"
#include "syscalls.h"

namespace {

struct pipe_fds {
    int read_end;
    int write_end;
};

pipe_fds make_pipe()
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        fail(EXIT_STARTUP, "pipe: %s", strerror(errno));
    return {fds[0], fds[1]};
}

/* Errors with which clone(CLONE_NEWUSER) says "not here" rather than "out of resources". */
bool userns_refused(int err)
{
    return err == EPERM || err == EINVAL || err == ENOSPC || err == EUSERS || err == EACCES;
}

/* Creates init in the chosen namespaces; when the kernel refuses them, degrades (or refuses
 * under --strict) and tries again with fewer. */
pid_t spawn_init(run_ctx *ctx, pipe_fds release, pipe_fds status)
{
    for (;;) {
        pid_t pid = sys_clone_process(ctx->clone_flags);
        if (pid == 0) {
            close(release.write_end);
            close(status.read_end);
            init_main(ctx, release.read_end, status.write_end);
        }
        if (pid > 0)
            return pid;
        int err = errno;
        if (ctx->clone_flags == 0 || !userns_refused(err))
            fail(EXIT_STARTUP, "cannot create the sandbox process: clone: %s", strerror(err));
        char reason[128];
        snprintf(reason, sizeof reason, "clone(%s) failed: %s",
                 (ctx->clone_flags & CLONE_NEWUSER) ? "CLONE_NEWUSER" : "CLONE_NEW*", strerror(err));
        degrade_namespaces(ctx, reason);
    }
}

bool write_file(pid_t pid, const char *name, const char *text)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t len = strlen(text);
    bool ok = write(fd, text, len) == (ssize_t)len;
    int err = errno;
    close(fd);
    errno = err;
    return ok;
}

/* Unprivileged: the caller's own ids only, setgroups denied. Root: the whole range onto
 * itself, so file owners look the same inside. */
const char *write_id_maps(const run_ctx *ctx, pid_t pid)
{
    char uid_map[64], gid_map[64];
    if (ctx->caller_is_root) {
        snprintf(uid_map, sizeof uid_map, "0 0 4294967295\n");
        snprintf(gid_map, sizeof gid_map, "0 0 4294967295\n");
    } else {
        snprintf(uid_map, sizeof uid_map, "%u %u 1\n", (unsigned)ctx->uid, (unsigned)ctx->uid);
        snprintf(gid_map, sizeof gid_map, "%u %u 1\n", (unsigned)ctx->gid, (unsigned)ctx->gid);
        if (!write_file(pid, "setgroups", "deny"))
            return "setgroups";
    }
    if (!write_file(pid, "uid_map", uid_map))
        return "uid_map";
    if (!write_file(pid, "gid_map", gid_map))
        return "gid_map";
    return nullptr;
}

int wait_for(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

/* Removes a synthetic mountpoint on the host, only if it is still the empty regular file
 * the sandbox made: same device and inode, size 0, reached without following a symlink. */
void remove_synthetic(const synthetic_mountpoint *s)
{
    int anchor = open(s->anchor, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (anchor < 0)
        return;
    const char *slash = strrchr(s->rel, '/');
    const char *name = slash ? slash + 1 : s->rel;
    int parent = anchor;
    if (slash != nullptr) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - s->rel), s->rel);
        parent = open_beneath(anchor, dir, O_PATH | O_DIRECTORY, 0);
    }
    struct stat st;
    if (parent >= 0 && fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_size == 0 && st.st_dev == s->dev && st.st_ino == s->ino && unlinkat(parent, name, 0) != 0)
        warn("synthetic mountpoint %s/%s not removed: %s", s->anchor, s->rel, strerror(errno));
    if (parent >= 0 && parent != anchor)
        close(parent);
    close(anchor);
}

}  // namespace

int run_supervisor(run_ctx *ctx)
{
    pipe_fds release = make_pipe();
    pipe_fds status = make_pipe();
    signals_block_forwarded();
    pid_t init = spawn_init(ctx, release, status);
    close(release.read_end);
    close(status.write_end);
    signals_forward_to(init);
    if (ctx->clone_flags & CLONE_NEWUSER) {
        const char *what = write_id_maps(ctx, init);
        if (what != nullptr) {
            int err = errno;
            kill(init, SIGKILL);
            wait_for(init);
            fail(EXIT_STARTUP, "cannot write the sandbox's %s: %s", what, strerror(err));
        }
    }
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (write(release.write_end, "1", 1) != 1)
        fail(EXIT_STARTUP, "cannot release the sandbox: %s", strerror(errno));
    close(release.write_end);

    sandbox_outcome outcome = {};
    read_sandbox_outcome(status.read_end, &outcome);
    close(status.read_end);
    int wait_status = wait_for(init);
    for (const synthetic_mountpoint *s = outcome.synthetic; s; s = s->next)
        remove_synthetic(s);
    if (outcome.failed) {
        print_reported_failure(&outcome);
        return outcome.code;
    }
    if (wait_status < 0)
        fail(EXIT_STARTUP, "waitpid: %s", strerror(errno));
    return exit_code_of(wait_status);
}
