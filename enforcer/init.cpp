/* enforcer/init.cpp — set-up inside the namespaces, then reap and forward until the command exits. */
#include "init.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landlock.h"
#include "mounts.h"
#include "process.h"
#include "report.h"
#include "signals.h"
#include "syscalls.h"

namespace {

constexpr const char *kDefaultHostname = "tartaros";

/* One byte means the id maps are in place; EOF means the supervisor gave up or died. */
void wait_for_release(int fd)
{
    char go = 0;
    ssize_t n;
    do
        n = read(fd, &go, 1);
    while (n < 0 && errno == EINTR);
    close(fd);
    if (n != 1)
        _exit(EXIT_STARTUP);
}

/* The mounts replace what the working directory's fd points to; the path is kept. */
const char *working_directory()
{
    static char cwd[PATH_MAX];
    return getcwd(cwd, sizeof cwd) ? cwd : nullptr;
}

void return_to(const char *cwd)
{
    if (cwd != nullptr && chdir(cwd) == 0)
        return;
    warn("the working directory %s is not visible in the sandbox; the command starts in /",
         cwd ? cwd : "(unknown)");
    if (chdir("/") != 0)
        fail(EXIT_STARTUP, "chdir /: %s", strerror(errno));
}

void set_hostname(const run_ctx *ctx)
{
    const char *name = ctx->plan->ns ? tp_plan_str(ctx->plan, ctx->plan->ns->hostname) : "";
    if (name[0] == '\0')
        name = kDefaultHostname;
    if (sethostname(name, strlen(name)) != 0)
        warn("hostname %s not set: %s", name, strerror(errno));
}

pid_t start_command(const run_ctx *ctx)
{
    pid_t self = getpid();
    pid_t pid = fork();
    if (pid < 0)
        fail(EXIT_STARTUP, "cannot start the command: fork: %s", strerror(errno));
    if (pid == 0)
        command_main(ctx, self);
    return pid;
}

[[noreturn]] void reap_until_exit(pid_t command)
{
    for (;;) {
        int status = 0;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0)
            _exit(EXIT_STARTUP);  /* ECHILD: cannot happen while the command is our child */
        if (pid == command)
            _exit(exit_code_of(status));
    }
}

}  // namespace

int exit_code_of(int wait_status)
{
    if (WIFEXITED(wait_status))
        return WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status))
        return 128 + WTERMSIG(wait_status);
    return EXIT_STARTUP;
}

void init_main(run_ctx *ctx, int release_fd, int status_fd)
{
    report_to_supervisor(status_fd);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    wait_for_release(release_fd);
    if (!ctx->pid_ns)
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    ctx->cap_last = read_cap_last();
    const char *cwd = working_directory();
    mount_tree *tree = ctx->mount_layer ? mounts_capture(ctx) : nullptr;
    landlock_check_paths(ctx);
    if (tree != nullptr) {
        mounts_build(tree);
        return_to(cwd);
    }
    if (ctx->clone_flags & CLONE_NEWUTS)
        set_hostname(ctx);
    pid_t command = start_command(ctx);
    /* From here on init holds nothing worth taking: no fds, no capabilities, not ptrace-able. */
    report_to_supervisor(-1);
    sys_close_range(3, ~0u, 0);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    signals_forward_to(command);
    drop_capabilities(ctx->cap_last);
    reap_until_exit(command);
}
