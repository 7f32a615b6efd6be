/* enforcer/supervisor.cpp — clone, id maps, release, status pipe, wait, clean-up. */
#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "deny_events.h"
#include "effect_log.h"
#include "egress.h"
#include "exit_notice.h"
#include "init.h"
#include "launch.h"
#include "mediator.h"
#include "paths.h"
#include "preflight.h"
#include "raw.h"
#include "report.h"
#include "run_limits.h"
#include "secrets.h"
#include "signals.h"
#include "stdio_fds.h"
#include "synthetic.h"
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

/* Errors with which clone(CLONE_NEWUSER) says "not here" rather than "out of resources".
 * ENOSYS never comes from the kernel's clone: it is a seccomp filter's answer (podman's
 * profile gives it to every call it does not list). */
bool userns_refused(int err)
{
    return err == EPERM || err == EINVAL || err == ENOSPC || err == EUSERS || err == EACCES || err == ENOSYS;
}

/* What init starts from; static, as init reads it after spawn_init has returned. */
struct init_start {
    run_ctx *ctx;
    pipe_fds release;
    pipe_fds status;
};
init_start g_init_start;

int init_entry(void *arg)
{
    const init_start *start = (const init_start *)arg;
    raw_close(start->release.write_end); /* raw: the supervisor runs on this memory too */
    raw_close(start->status.read_end);
    init_main(start->ctx, start->release.read_end, start->status.write_end);
}

/* Init's stack, with a guard page below it. */
char *init_stack_top()
{
    constexpr size_t kSize = 256u << 10, kGuard = 4096;
    void *base = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (base == MAP_FAILED || mprotect(base, kGuard, PROT_NONE) != 0)
        fail(EXIT_STARTUP, "cannot map init's stack: %s", strerror(errno));
    return (char *)base + kSize;
}

/* Creates init in the chosen namespaces; when the kernel refuses them, degrades (or refuses
 * under --strict) and tries again with fewer. Init shares the supervisor's memory (CLONE_VM):
 * no page tables to copy and no new address space to switch to, which on a virtual machine
 * is most of what a fork costs. How the two keep out of each other's way: raw.h. */
pid_t spawn_init(run_ctx *ctx, pipe_fds release, pipe_fds status)
{
    char *stack = init_stack_top();
    g_init_start = {ctx, release, status};
    for (;;) {
        /* The network and IPC namespaces are made by init, in parallel with the mount tree;
         * the cgroup namespace by init once it is in the run's cgroup, so that it is the root. */
        unsigned long late = kLateNamespaces | (ctx->limits->cgroup ? CLONE_NEWCGROUP : 0ul);
        unsigned long flags = (ctx->clone_flags & ~late) | CLONE_VM | SIGCHLD;
        pid_t pid = clone(init_entry, stack, (int)flags, &g_init_start);
        if (pid > 0)
            return pid;
        int err = errno;
        if (ctx->clone_flags == 0 || !userns_refused(err))
            fail(EXIT_STARTUP, "cannot create the sandbox process: clone: %s", strerror(err));
        char reason[128];
        snprintf(reason, sizeof reason, "clone(%s) failed: %s",
                 (ctx->clone_flags & CLONE_NEWUSER) ? "CLONE_NEWUSER" : "CLONE_NEW*", strerror(err));
        degrade_namespaces(ctx, err, reason);
    }
}

bool write_file(pid_t pid, const char *name, const char *text)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    int fd = open_cloexec(path, O_WRONLY);
    if (fd < 0)
        return false;
    size_t len = strlen(text);
    bool ok = write(fd, text, len) == (ssize_t)len;
    int err = errno;
    close(fd);
    errno = err;
    return ok;
}

/* The ids the caller's own user namespace maps (/proc/self/`name`), each range onto itself:
 * "inside inside count" for each line "inside outside count". */
bool mirror_own_map(const char *name, char *out, size_t size)
{
    char path[32], text[4096];
    snprintf(path, sizeof path, "/proc/self/%s", name);
    int fd = open_cloexec(path, O_RDONLY);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    size_t used = 0;
    for (char *p = text; *p != '\0';) {
        unsigned long inside = strtoul(p, &p, 10);
        strtoul(p, &p, 10); /* the id outside */
        unsigned long count = strtoul(p, &p, 10);
        int m = snprintf(out + used, size - used, "%lu %lu %lu\n", inside, inside, count);
        if (count == 0 || m < 0 || (size_t)m >= size - used)
            return false;
        used += (size_t)m;
        while (*p == ' ' || *p == '\n')
            p++;
    }
    return used > 0;
}

/* Root's map `name`: every id onto itself, so file owners look the same inside. Where the
 * caller's own user namespace maps fewer ids (root of a rootless container), the kernel
 * refuses that (EPERM), and every id it maps is mapped onto itself instead. */
bool write_root_map(pid_t pid, const char *name)
{
    if (write_file(pid, name, "0 0 4294967295\n"))
        return true;
    int err = errno;
    static char map[4096];
    if (err == EPERM && mirror_own_map(name, map, sizeof map) && write_file(pid, name, map))
        return true;
    errno = err;
    return false;
}

/* Root: write_root_map. Unprivileged: the caller's own ids only, setgroups denied; so is
 * root refused any wider map (without CAP_SETUID, as under --cap-drop=all). */
const char *write_id_maps(const run_ctx *ctx, pid_t pid)
{
    if (ctx->caller_is_root) {
        if (write_root_map(pid, "uid_map"))
            return write_root_map(pid, "gid_map") ? nullptr : "gid_map";
        if (errno != EPERM)
            return "uid_map";
    }
    char uid_map[64], gid_map[64];
    snprintf(uid_map, sizeof uid_map, "%u %u 1\n", (unsigned)ctx->uid, (unsigned)ctx->uid);
    snprintf(gid_map, sizeof gid_map, "%u %u 1\n", (unsigned)ctx->gid, (unsigned)ctx->gid);
    if (!write_file(pid, "setgroups", "deny"))
        return "setgroups";
    if (!write_file(pid, "uid_map", uid_map))
        return "uid_map";
    if (!write_file(pid, "gid_map", gid_map))
        return "gid_map";
    return nullptr;
}

/* Why the id map `what` could not be written (errno). Since Linux 5.12 mapping uid 0 into a
 * user namespace needs CAP_SETFCAP, which a container's root may lack (--cap-drop=all). */
const char *id_map_failure(const run_ctx *ctx, const char *what)
{
    int err = errno;
    kuapi::cap_header header = {kuapi::LINUX_CAPABILITY_VERSION_3, 0};
    kuapi::cap_data caps[kuapi::LINUX_CAPABILITY_U32S_3] = {};
    bool setfcap =
        sys_capget(&header, caps) == 0 && ((caps[kuapi::CAP_SETFCAP / 32].effective >> (kuapi::CAP_SETFCAP % 32)) & 1u);
    if (ctx->caller_is_root && err == EPERM && strcmp(what, "uid_map") == 0 && !setfcap)
        return "Operation not permitted (root maps uid 0 into the sandbox, which needs CAP_SETFCAP: run as a "
               "non-root user, or add it: podman/docker run --cap-add SETFCAP, Kubernetes capabilities.add)";
    return strerror(err);
}

/* Raw (raw.h): init may still be running. The wait status, or -1 with *err set; `usage`
 * (may be NULL) gets init's and its reaped descendants' resource usage. */
int wait_for(pid_t pid, int *err, struct rusage *usage)
{
    int status = 0;
    long ret;
    do
        ret = raw_syscall4(SYS_wait4, pid, (long)&status, 0, (long)usage);
    while (ret == -EINTR);
    *err = ret < 0 ? (int)-ret : 0;
    return ret < 0 ? -1 : status;
}

/* Init could not be set up (id maps, cgroup): it dies before it has run anything. */
[[noreturn]] void abandon_init(run_ctx *ctx, pid_t init, const char *what, const char *why)
{
    int ignored;
    kill(init, SIGKILL);
    wait_for(init, &ignored, nullptr);
    limits_finish(ctx, EXIT_STARTUP);
    fail(EXIT_STARTUP, "cannot %s: %s", what, why);
}

}  // namespace

int run_supervisor(run_ctx *ctx)
{
    pipe_fds release = make_pipe();
    pipe_fds status = make_pipe();
    ctx->exit_notice = exit_notice_create();
    limits_create_cgroup(ctx);
    egress_start(ctx);
    /* The proxy has its secrets: no process cloned from here on may find them (secrets.h). */
    secrets_forget_launcher(ctx->plan);
    signals_block_forwarded();
    stdio_prepare(ctx);
    relay_start(ctx);
    pid_t init = spawn_init(ctx, release, status);
    stdio_after_clone(ctx);
    egress_release_sandbox_end(ctx);
    close(release.read_end);
    close(status.write_end);
    signals_forward_to(init, FORWARD_FROM_SUPERVISOR);
    if (ctx->clone_flags & CLONE_NEWUSER) {
        const char *what = write_id_maps(ctx, init);
        if (what != nullptr)
            abandon_init(ctx, init, arena_concat3("write the sandbox's ", what, ""), id_map_failure(ctx, what));
    }
    char why[256];
    if (!limits_attach(ctx, init, why, sizeof why))
        abandon_init(ctx, init, "move the sandbox into its cgroup", why);
    effect_log_run_start(); /* every decision is taken; nothing of the sandbox has run */
    if (write(release.write_end, "1", 1) != 1)
        fail(EXIT_STARTUP, "cannot release the sandbox: %s", strerror(errno));
    /* From the release on, init runs C code on this memory: raw calls only until it is gone. */
    raw_close(release.write_end);
    limits_arm_timeout(ctx, init);

    sandbox_outcome outcome = {};
    read_sandbox_outcome(status.read_end, &outcome);
    raw_close(status.read_end);
    secrets_forget_token(); /* the sandbox side has started (or failed): init is done with it */
    limits_protect_supervisor(ctx, init);
    /* The command runs. Once init posts its exit code, return it without waiting for init's
     * namespaces to be torn down (as bubblewrap does): init is exiting, which kills whatever
     * is left in its PID namespace. Synthetic mountpoints and the run's cgroup are removed
     * only once the sandbox is gone, so then init is waited for; so is it with an effect log,
     * whose run_end reports init's resource usage. */
    int code = 0;
    bool posted = !outcome.failed && exit_notice_wait(ctx->exit_notice, &code, relay_poll_stops);
    limits_disarm_timeout();
    if (posted && outcome.synthetic == nullptr && ctx->limits->cgroup == nullptr && !effect_log_enabled()) {
        relay_finish(ctx);
        mediator_report_end();
        egress_stop();
        return limits_finish(ctx, code);
    }
    int wait_err = 0;
    struct rusage usage = {};
    int wait_status = wait_for(init, &wait_err, &usage);
    relay_finish(ctx);
    if (wait_status >= 0) {
        effect_log_usage(&usage);
        deny_events_summary();
    }
    mediator_report_end();
    egress_stop();
    report_to_supervisor(-1); /* init set it to its end of the status pipe */
    for (const synthetic_mountpoint *s = outcome.synthetic; s; s = s->next)
        remove_synthetic(ctx->plan, s);
    if (outcome.failed) {
        limits_finish(ctx, outcome.code);
        print_reported_failure(&outcome);
        return effect_log_run_end(outcome.code, outcome.message);
    }
    if (!posted && wait_status < 0)
        fail(EXIT_STARTUP, "waitpid: %s", strerror(wait_err));
    return effect_log_run_end(limits_finish(ctx, posted ? code : exit_code_of(wait_status)), nullptr);
}
