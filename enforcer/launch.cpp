/* enforcer/launch.cpp — starting the command (launch.h).
 *
 * The command runs on init's memory (which is the supervisor's) until it executes, with the
 * same thread pointer and so the same errno (raw.h). While the early command waits it
 * therefore makes raw system calls only; while the command runs C code, init waits in raw
 * system calls (and the supervisor always does by then).
 */
#include "launch.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "listeners.h"
#include "mediator.h"
#include "netns.h"
#include "preflight.h"
#include "process.h"
#include "raw.h"
#include "report.h"

namespace {

enum launch_state : uint32_t {
    LAUNCH_WORKING = 0,  /* the early command makes the network and IPC namespaces and
                             installs the connect filter (mediator.h) */
    LAUNCH_NET_DONE = 1, /* ... and waits, taking its raw confinement steps first
                             (command_confine_early); net_result says how it went */
    LAUNCH_GO = 2        /* init has joined it: the command runs */
};

/* What init and the command share. */
struct launch_channel {
    uint32_t state;
    pid_t running;   /* non-zero until the command executes or exits (CLONE_CHILD_CLEARTID) */
    long net_result; /* unshare(kLateNamespaces) in the command: 0 or -errno */
    const run_ctx *ctx;
    pid_t init_pid;
    int ruleset;
    const char *cwd; /* early command: where to go (its fs was copied before the mounts); late: NULL */
    bool kept_off;   /* the early command may not run on init's CPU until init joins it */
    cpu_set_t cpus;  /* ... and then gets this, the CPUs init was allowed */
};

launch_channel g_channel;

/* The command's stack while it shares init's memory; in .bss, so only touched pages exist. */
alignas(16) char g_command_stack[64 << 10];

void raw_wait_while(uint32_t *word, uint32_t value)
{
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == value)
        raw_futex_wait(word, value);
}

void raw_set_and_wake(uint32_t *word, uint32_t value)
{
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
    raw_futex_wake(word);
}

/* Until the command executes or exits; the kernel clears `running` and wakes the futex. */
void raw_wait_for_exec(launch_channel *c)
{
    for (pid_t v; (v = __atomic_load_n(&c->running, __ATOMIC_ACQUIRE)) != 0;)
        raw_futex_wait(&c->running, (uint32_t)v);
}

void lost_late_namespaces(run_ctx *ctx, int err)
{
    char reason[96];
    snprintf(reason, sizeof reason, "unshare(CLONE_NEWNET|CLONE_NEWIPC) failed: %s", strerror(err));
    degrade_namespaces_late(ctx, ctx->clone_flags & kLateNamespaces, err, reason);
}

/* The supervisor's, init's (and, until it executes, the command's) address space becomes
 * non-dumpable before anything of the agent runs, so it cannot be ptrace'd or read through
 * /proc even where no PID namespace or Landlock hides it. Not earlier: setns through the
 * early command's pidfd needs it still dumpable (a ptrace-style check). */
void make_undumpable()
{
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

[[noreturn]] void run_command(const launch_channel *c)
{
    /* init already warned when its working directory is not in the sandbox */
    if (c->cwd != nullptr && chdir(c->cwd) != 0 && chdir("/") != 0)
        fail(EXIT_STARTUP, "chdir /: %s", strerror(errno));
    command_main(c->ctx, c->init_pid, c->ruleset);
}

/* The early command: raw calls only until LAUNCH_GO (see the top of this file). */
int early_entry(void *arg)
{
    launch_channel *c = (launch_channel *)arg;
    c->net_result = raw_syscall2(SYS_unshare, (long)(c->ctx->clone_flags & kLateNamespaces), 0);
    mediator_install_early(c->ctx);
    raw_set_and_wake(&c->state, LAUNCH_NET_DONE);
    /* init builds the tree and the ruleset meanwhile: this is off the critical path */
    command_confine_early(c->ctx);
    raw_wait_while(&c->state, LAUNCH_NET_DONE);
    run_command(c);
}

int late_entry(void *arg)
{
    run_command((const launch_channel *)arg);
}

/* The early command makes the network namespace (~0.6 ms here) while init builds the mount
 * tree and the ruleset (~0.8 ms): the two only overlap on two CPUs. A new child is often
 * queued on its parent's CPU while the other one idles (the supervisor has just left it), and
 * then waits there until init sleeps. So, from its clone until init joins it, it may run on
 * any CPU but init's (join_early_network gives its CPUs back). Nothing when init may use
 * one CPU only, or when the kernel refuses (a cpuset): the command then runs where it is put.
 * Nor when tartaros-proxy is starting meanwhile: the other CPU is then its, and the command
 * kept there started 0.4-0.6 ms later than where the scheduler puts it. */
void keep_off_this_cpu(const run_ctx *ctx, pid_t command)
{
    if (ctx->net_channel >= 0)
        return;
    if (sched_getaffinity(0, sizeof g_channel.cpus, &g_channel.cpus) != 0 || CPU_COUNT(&g_channel.cpus) < 2)
        return;
    cpu_set_t others = g_channel.cpus;
    CPU_CLR(sched_getcpu(), &others);
    g_channel.kept_off = sched_setaffinity(command, sizeof others, &others) == 0;
}

/* Init joins the early command's namespace; on a kernel without setns on a pidfd, it takes
 * a namespace of its own (still not the host's: /proc/1/net stays empty). */
void join_early_network(run_ctx *ctx, const command_launch *launch)
{
    if (g_channel.kept_off && sched_setaffinity(launch->pid, sizeof g_channel.cpus, &g_channel.cpus) != 0)
        fail(EXIT_STARTUP, "cannot give the command back its CPUs: sched_setaffinity: %s", strerror(errno));
    raw_wait_while(&g_channel.state, LAUNCH_WORKING);
    unsigned long late = ctx->clone_flags & kLateNamespaces;
    if (g_channel.net_result != 0)
        return lost_late_namespaces(ctx, (int)-g_channel.net_result);
    if (setns(launch->pidfd, (int)late) != 0 && unshare((int)late) != 0)
        fail(EXIT_STARTUP, "cannot enter the sandbox's network and IPC namespaces: %s", strerror(errno));
}

void make_late_namespaces_now(run_ctx *ctx)
{
    unsigned long late = ctx->clone_flags & kLateNamespaces;
    if (late != 0 && unshare((int)late) != 0)
        lost_late_namespaces(ctx, errno);
}

/* Init still holds CAP_NET_ADMIN over the namespace it has just joined or made. The
 * listeners for the proxy and the relays go into it before the command can run; without it
 * nothing is relayed (egress.h). */
void network_ready(run_ctx *ctx)
{
    if (!(ctx->clone_flags & CLONE_NEWNET))
        return listeners_abandon(ctx);
    netns_loopback_up();
    listeners_hand_over(ctx);
}

}  // namespace

command_launch launch_early(const run_ctx *ctx)
{
    command_launch launch = {-1, -1};
    /* Only inside a PID namespace: if init fails, the kernel kills the waiting command. */
    if (!(ctx->clone_flags & kLateNamespaces) || !ctx->pid_ns)
        return launch;
    g_channel = {LAUNCH_WORKING, 1, 0, ctx, getpid(), -1, nullptr, false, {}};
    int pidfd = -1;
    pid_t pid = clone(early_entry, g_command_stack + sizeof g_command_stack,
                      CLONE_VM | CLONE_FILES | CLONE_PIDFD | CLONE_CHILD_CLEARTID | SIGCHLD, &g_channel, &pidfd,
                      nullptr, &g_channel.running);
    if (pid > 0)
        launch = {pid, pidfd};
    if (pid > 0)
        keep_off_this_cpu(ctx, pid);
    return launch;
}

pid_t launch_command(run_ctx *ctx, command_launch *launch, int ruleset, const char *cwd)
{
    if (launch->pid > 0) {
        join_early_network(ctx, launch);
        network_ready(ctx);
        make_undumpable();
        mediator_start_before_command(ctx);
        /* The pidfd stays open: its last close is slow (~0.3 ms here), so it is left to init
         * once the command has executed (close_fds_except), off the critical path. */
        g_channel.ruleset = ruleset;
        g_channel.cwd = cwd ? cwd : "/";
        raw_set_and_wake(&g_channel.state, LAUNCH_GO);
        raw_wait_for_exec(&g_channel);
        return launch->pid;
    }
    make_late_namespaces_now(ctx);
    network_ready(ctx);
    make_undumpable();
    mediator_start_before_command(ctx);
    g_channel = {LAUNCH_GO, 1, 0, ctx, getpid(), ruleset, nullptr, false, {}};
    /* CLONE_VFORK: init sleeps until the command has executed or exited. */
    pid_t pid =
        clone(late_entry, g_command_stack + sizeof g_command_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &g_channel);
    if (pid < 0)
        fail(EXIT_STARTUP, "cannot start the command: clone: %s", strerror(errno));
    return pid;
}
