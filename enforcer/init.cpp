/* enforcer/init.cpp — set-up inside the namespaces, then reap and forward until the command exits. */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec_events.h"
#include "exit_notice.h"
#include "landlock.h"
#include "launch.h"
#include "mediator.h"
#include "mounts.h"
#include "preflight.h"
#include "process.h"
#include "raw.h"
#include "report.h"
#include "run_limits.h"
#include "secrets.h"
#include "signals.h"
#include "stdio_fds.h"
#include "syscalls.h"

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
 * so the command inherits it: the caller's terminal is never the sandbox's (stdio_fds.h), and
 * signals sent to the supervisor reach the command once, forwarded supervisor -> init ->
 * command. With a pseudo-terminal the command makes a session of its own on it. */
void leave_terminal_session()
{
    if (setsid() < 0)
        fail(EXIT_STARTUP, "cannot start a new session: setsid: %s", strerror(errno));
}

/* Init is in the run's cgroup (the supervisor moved it before the release): a cgroup
 * namespace made now has that cgroup as its root, so the sandbox sees "/" and cannot name
 * the caller's cgroups. */
void enter_cgroup_namespace(run_ctx *ctx)
{
    if (ctx->limits->cgroup == nullptr || !(ctx->clone_flags & CLONE_NEWCGROUP))
        return;
    if (unshare(CLONE_NEWCGROUP) == 0)
        return;
    int err = errno;
    char reason[96];
    snprintf(reason, sizeof reason, "unshare(CLONE_NEWCGROUP) failed: %s", strerror(err));
    degrade_namespaces_late(ctx, CLONE_NEWCGROUP, err, reason);
}

/* Without a PID namespace nothing ends what the command leaves running when it exits; init,
 * its subreaper, does: it kills each child it still has until none is left (the orphans of
 * the killed become its children in turn). */
void end_leftover_children()
{
    for (;;) {
        int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return; /* no /proc in the sandbox (every plan mounts one): nothing to see */
        char list[4096];
        ssize_t n = read(fd, list, sizeof list - 1);
        close(fd);
        list[n > 0 ? n : 0] = '\0';
        int killed = 0;
        for (char *p = list;;) {
            char *end;
            long pid = strtol(p, &end, 10);
            if (end == p)
                break;
            killed += pid > 0 && kill((pid_t)pid, SIGKILL) == 0;
            p = end;
        }
        int status;
        if (waitpid(-1, &status, killed ? 0 : WNOHANG) <= 0 && (killed == 0 || errno == ECHILD))
            return;
    }
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
    warn("the working directory %s is not visible in the sandbox; the command starts in /", cwd ? cwd : "(unknown)");
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

/* Without a PID namespace, init's parent-death signal is one it catches (kSupervisorGone):
 * a killed supervisor must not leave the command's orphans running, so init ends them
 * before it exits. With one, SIGKILL: the kernel ends the namespace. */
constexpr int kSupervisorGone = SIGPWR;
volatile sig_atomic_t g_supervisor_gone = 0;

void on_supervisor_gone(int)
{
    g_supervisor_gone = 1;
}

/* First thing in init, raw (the supervisor runs C code on this memory): the signal is held
 * until init can act on it (watch_for_supervisor_death). */
void tie_to_supervisor(const run_ctx *ctx)
{
    if (!ctx->pid_ns) {
        uint64_t held = 1ull << (kSupervisorGone - 1);
        raw_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&held, 0, sizeof held);
    }
    raw_syscall6(SYS_prctl, PR_SET_PDEATHSIG, ctx->pid_ns ? SIGKILL : kSupervisorGone, 0, 0, 0, 0);
}

void watch_for_supervisor_death(const run_ctx *ctx)
{
    if (ctx->pid_ns)
        return;
    struct sigaction sa = {};
    sa.sa_handler = on_supervisor_gone; /* no SA_RESTART: it interrupts waitpid */
    sigemptyset(&sa.sa_mask);
    sigaction(kSupervisorGone, &sa, nullptr);
    sigset_t held;
    sigemptyset(&held);
    sigaddset(&held, kSupervisorGone);
    sigprocmask(SIG_UNBLOCK, &held, nullptr);
}

/* Init's fds 0-2 are the sandbox's stdio pipes. Left to _exit, their last close would wait
 * for the namespaces' teardown (the kernel defers it past that), and the supervisor's relay,
 * which ends at their EOF, with it: 0.2-0.3 ms of every run whose output is a pipe. */
void release_descriptors_before_exit()
{
    sys_close_range(0, ~0u, 0);
}

[[noreturn]] void reap_until_exit(const run_ctx *ctx, pid_t command, exit_notice *notice)
{
    watch_for_supervisor_death(ctx);
    for (;;) {
        if (g_supervisor_gone) {
            end_leftover_children();
            _exit(128 + SIGKILL);
        }
        int status = 0;
        pid_t pid = waitpid(-1, &status, WUNTRACED);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid == command && WIFSTOPPED(status)) {
            stdio_command_stopped(ctx);
            continue;
        }
        if (pid < 0)
            _exit(EXIT_STARTUP); /* ECHILD: cannot happen while the command is our child */
        mediator_reaped(pid, status);
        if (pid == command) {
            if (!ctx->pid_ns)
                end_leftover_children();
            release_descriptors_before_exit();
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
    tie_to_supervisor(ctx);
    wait_for_release(release_fd);
    report_to_supervisor(status_fd);
    enter_cgroup_namespace(ctx);
    leave_terminal_session();
    /* The early command makes the network namespace, the longest step of all, so it starts
     * as soon as it can be in init's cgroup namespace and session; but after the terminal,
     * when there is one: a process has the controlling terminal its parent had at the clone. */
    const bool terminal = ctx->stdio->terminal >= 0;
    command_launch launch = terminal ? command_launch{-1, -1} : launch_early(ctx);
    exit_notice_arm(ctx->exit_notice);
    if (!ctx->pid_ns)
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    stdio_open_terminal(ctx);
    if (terminal)
        launch = launch_early(ctx);
    const char *cwd = working_directory();
    mount_tree *tree = ctx->mount_layer ? mounts_capture(ctx) : nullptr;
    landlock_check_paths(ctx);
    if (tree != nullptr) {
        mounts_build(tree);
        return_to(cwd);
    }
    stdio_install(ctx);
    if (ctx->log_path != nullptr) {
        size_t token_len = 0;
        const char *token = secrets_token(&token_len);
        exec_events_hide(token, token_len);
    }
    secrets_forget_token(); /* in the credentials directory now, if anywhere */
    mediator_prepare(ctx, launch.pid > 0);
    /* Built while the early command may still be making the network namespace. */
    int ruleset = landlock_build(ctx);
    if (ctx->clone_flags & CLONE_NEWUTS)
        set_hostname(ctx);
    pid_t command = launch_command(ctx, &launch, ruleset, cwd);
    mediator_start(ctx); /* in the finished tree, with init's capabilities */
    /* From here on init holds nothing worth taking: no fds, no capabilities, not ptrace-able
     * (launch_command made this address space non-dumpable before the command could exec). */
    report_to_supervisor(-1);
    /* The channel stays open while init lives: its end tells the proxy the run is over. */
    close_fds_except(ctx->net_channel, -1);
    signals_forward_to(command, FORWARD_FROM_INIT);
    drop_capabilities(false);
    reap_until_exit(ctx, command, ctx->exit_notice);
}
