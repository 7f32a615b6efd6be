/* enforcer/init.cpp — set-up inside the namespaces, then reap and forward until the command exits. */
#include "init.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exit_notice.h"
#include "landlock.h"
#include "launch.h"
#include "mediator.h"
#include "mounts.h"
#include "process.h"
#include "raw.h"
#include "report.h"
#include "signals.h"

namespace {

constexpr const char *kDefaultHostname = "tartaros";

/* One byte means the id maps are in place; EOF means the supervisor gave up or died. Raw:
 * the supervisor runs C code on this memory until it has released init (raw.h). */
void wait_for_release(int fd)
{
    char go = 0;
    long n;
    do
        n = raw_read(fd, &go, 1);
    while (n == -EINTR);
    raw_close(fd);
    if (n != 1)
        _exit(EXIT_STARTUP);
}

/* A new session without a controlling terminal (bubblewrap's --new-session), made by init
 * so the command inherits it: TIOCSTI on the caller's terminal then fails with EPERM, and
 * the terminal's signals (Ctrl-C) reach only the supervisor's process group, so the command
 * gets each one exactly once, forwarded supervisor -> init -> command. The command keeps
 * the terminal as its stdin/stdout/stderr. */
void leave_terminal_session()
{
    if (setsid() < 0)
        fail(EXIT_STARTUP, "cannot start a new session: setsid: %s", strerror(errno));
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

[[noreturn]] void reap_until_exit(pid_t command, exit_notice *notice)
{
    for (;;) {
        int status = 0;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0)
            _exit(EXIT_STARTUP);  /* ECHILD: cannot happen while the command is our child */
        if (pid == command) {
            exit_notice_post(notice, exit_code_of(status));
            _exit(exit_code_of(status));
        }
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
    raw_syscall6(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0, 0);
    wait_for_release(release_fd);
    report_to_supervisor(status_fd);
    exit_notice_arm(ctx->exit_notice);
    leave_terminal_session();
    if (!ctx->pid_ns)
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    command_launch launch = launch_early(ctx);
    const char *cwd = working_directory();
    mount_tree *tree = ctx->mount_layer ? mounts_capture(ctx) : nullptr;
    landlock_check_paths(ctx);
    if (tree != nullptr) {
        mounts_build(tree);
        return_to(cwd);
    }
    mediator_prepare(ctx, launch.pid > 0);
    /* Built while the early command may still be making the network namespace. */
    int ruleset = landlock_build(ctx);
    if (ctx->clone_flags & CLONE_NEWUTS)
        set_hostname(ctx);
    pid_t command = launch_command(ctx, &launch, ruleset, cwd);
    mediator_start(ctx);  /* in the finished tree, with init's capabilities */
    /* From here on init holds nothing worth taking: no fds, no capabilities, not ptrace-able
     * (launch_command made this address space non-dumpable before the command could exec). */
    report_to_supervisor(-1);
    /* The channel stays open while init lives: its end tells the proxy the run is over. */
    close_fds_except(ctx->net_channel, -1);
    signals_forward_to(command, FORWARD_FROM_INIT);
    drop_capabilities(false);
    reap_until_exit(command, ctx->exit_notice);
}
