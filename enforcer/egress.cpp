/* enforcer/egress.cpp — see egress.h. */
#include "egress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "effect_log.h"
#include "net_channel.h"
#include "netns.h"
#include "raw.h"
#include "report.h"
#include "run_limits.h"
#include "sealed_memfd.h"
#include "secrets.h"
#include "sibling_path.h"
#include "write_all.h"

namespace {

constexpr const char kProxyName[] = "tartaros-proxy";

/* What the proxy's child runs on before it executes (the supervisor's memory: CLONE_VM). */
struct proxy_start {
    const char *path;
    char **argv;
    int inherit[5 + 256]; /* fds that must survive the exec: the channel, the plan, the log, the
                              notes, the broker's secrets and one per exposed port (the plan
                              reader's limit) */
    int inherit_count;
    pid_t supervisor;
    const cgroup_run *cgroup; /* the run's cgroup the proxy joins before it executes; or NULL */
    bool protect;             /* ... and memory_max is in it: make the proxy no OOM victim */
    const char *failed_step;  /* set by the child with exec_result: what failed */
    long exec_result;         /* -errno, set by the child when it cannot execute */
};

proxy_start g_start;
pid_t g_proxy = -1;
int g_notes = -1; /* the read end of the proxy's notes (shared/net_channel.h) */
alignas(16) char g_proxy_stack[16 << 10];

/* Where tartaros-proxy lies relative to the directory of tartaros-exec once installed
 * (cmake/install.cmake: the helper directory, e.g. "../libexec/tartaros"); "" when the build
 * defines none. */
#ifndef TARTAROS_HELPER_FROM_BINDIR
#define TARTAROS_HELPER_FROM_BINDIR ""
#endif

/* tartaros-proxy, never through $PATH (shared/sibling_path.h): next to tartaros-exec, else in
 * the helper directory relative to it. */
const char *proxy_path()
{
    static struct th_sibling where;
    if (const char *path = th_find_sibling(kProxyName, TARTAROS_HELPER_FROM_BINDIR, &where))
        return path;
    if (where.beside[0] == '\0')
        fail(EXIT_STARTUP, "cannot find tartaros-proxy: the path of tartaros-exec: %s", strerror(where.beside_errno));
    if (where.installed[0] != '\0')
        fail(EXIT_STARTUP, "the plan's network relays need tartaros-proxy: %s: %s; %s: %s", where.beside,
             strerror(where.beside_errno), where.installed, strerror(where.installed_errno));
    fail(EXIT_STARTUP, "the plan's network relays need %s: %s", where.beside, strerror(where.beside_errno));
}

int host_listener(uint16_t port)
{
    int fd = loopback_listener(port, true);
    if (fd < 0)
        fail(EXIT_STARTUP, "cannot listen on the host's 127.0.0.1:%u for expose_ports: %s", port, strerror(errno));
    return fd;
}

char *number(unsigned long v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%lu", v);
    return arena_strdup(buf);
}

struct arg_list {
    char **argv;
    size_t count;
};

void push(arg_list *a, const char *s)
{
    a->argv[a->count++] = (char *)s;
}

void push2(arg_list *a, const char *flag, const char *value)
{
    push(a, flag);
    push(a, value);
}

/* The plan the run executes, sealed, for the proxy to take everything it carries from
 * (proxy/plan_config.h): the one validating reader reads it there as here, and no byte of it
 * crosses as text. A copy of the bytes read, as the file itself may change after the read. */
int plan_memfd(const tp_plan *plan)
{
    int fd = sealed_memfd_create("tartaros-plan");
    if (fd < 0 || !write_all(fd, plan->base, plan->size) || !sealed_memfd_seal(fd))
        fail(EXIT_STARTUP, "cannot hand tartaros-proxy the plan: %s", strerror(errno));
    return fd;
}

/* Adds `fd` to what the proxy inherits and `flag fd` to its command line. */
void pass_fd(arg_list *a, const char *flag, int fd)
{
    g_start.inherit[g_start.inherit_count++] = fd;
    push2(a, flag, number((unsigned long)fd));
}

/* The proxy's command line (proxy/config.h, channel mode): the plan, and only what is this
 * run's own besides: descriptors, the caps derived from memory, --strict, the run id. */
char **proxy_argv(const run_ctx *ctx, const char *path, int channel)
{
    const tp_plan *plan = ctx->plan;
    size_t slots = 20 + 2 * (size_t)plan->net_port_count;
    arg_list a = {(char **)arena_alloc(slots * sizeof(char *)), 0};
    push(&a, path);
    push2(&a, "--channel", number((unsigned long)channel));
    pass_fd(&a, "--plan-fd", plan_memfd(plan));
    if (ctx->broker) /* the values travel in their own sealed memfd, never in the plan */
        pass_fd(&a, "--broker-secrets", secrets_memfd());
    for (uint32_t i = 0; i < plan->net_port_count; i++) {
        const tp_net_port *p = &plan->net_ports[i];
        if (p->kind == TP_PORT_EXPOSE) {
            int fd = host_listener(p->port);
            g_start.inherit[g_start.inherit_count++] = fd;
            push2(&a, "--expose", arena_concat3(number((unsigned long)fd), ":", number(p->port)));
        }
    }
    /* Caps in proportion to memory_max (shared/net_channel.h), also where no cgroup carries it. */
    uint64_t memory_max = plan->limits ? plan->limits->memory_max : 0;
    push2(&a, "--max-connections", number(tnc_max_connections(memory_max)));
    push2(&a, "--max-exchanges", number(tnc_max_exchanges(memory_max)));
    int notes[2];
    if (pipe2(notes, O_CLOEXEC) != 0)
        fail(EXIT_STARTUP, "cannot make the pipe for tartaros-proxy's notes: %s", strerror(errno));
    g_notes = notes[0];
    pass_fd(&a, "--notes", notes[1]);
    if (ctx->strict)
        push(&a, "--strict");
    int log = effect_log_dup(); /* the proxy's network events (effect_log.h) */
    if (log >= 0) {
        pass_fd(&a, "--effect-log", log);
        push2(&a, "--run-id", effect_log_run_id());
    }
    a.argv[a.count] = nullptr;
    return a.argv;
}

/* The proxy's child until it executes: the supervisor is suspended (CLONE_VFORK) but this is
 * its memory, so raw calls only. */
int proxy_entry(void *)
{
    static char *const kNoEnv[] = {nullptr};
    raw_syscall6(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0, 0);
    if (raw_syscall2(SYS_getppid, 0, 0) != g_start.supervisor)
        raw_syscall2(SYS_exit, 127, 0);
    raw_syscall2(SYS_setsid, 0, 0); /* the terminal's Ctrl-C is the command's, not the proxy's */
    uint64_t none = 0;
    raw_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&none, 0, sizeof none);
    /* Into the run's cgroup before the first page of its own: its memory, tasks and CPU are
     * the run's. It is never made an OOM victim (root callers: lowering the score needs
     * CAP_SYS_RESOURCE; a user's sandbox has no memory cgroup here anyway). */
    if (g_start.cgroup != nullptr) {
        long err = cgroup_attach_self(g_start.cgroup);
        if (err < 0) {
            g_start.failed_step = "cannot move tartaros-proxy into the run's cgroup";
            g_start.exec_result = err;
            raw_syscall2(SYS_exit, 127, 0);
        }
        long adj = g_start.protect ? raw_open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC) : -1;
        if (adj >= 0) {
            raw_write((int)adj, "-1000", 5);
            raw_close((int)adj);
        }
    }
    for (int i = 0; i < g_start.inherit_count; i++)
        raw_syscall4(SYS_fcntl, g_start.inherit[i], F_SETFD, 0, 0);
    long null_fd = raw_syscall4(SYS_openat, AT_FDCWD, (long)"/dev/null", O_RDWR | O_CLOEXEC, 0);
    if (null_fd >= 0) {
        raw_syscall4(SYS_dup3, null_fd, STDIN_FILENO, 0, 0);
        raw_syscall4(SYS_dup3, null_fd, STDOUT_FILENO, 0, 0);
    }
    g_start.failed_step = "cannot start tartaros-proxy";
    g_start.exec_result = raw_syscall4(SYS_execve, (long)g_start.path, (long)g_start.argv, (long)kNoEnv, 0);
    raw_syscall2(SYS_exit, 127, 0);
    return 0;
}

void spawn_proxy(const run_ctx *ctx, int proxy_end)
{
    g_start.path = proxy_path();
    g_start.supervisor = getpid();
    g_start.cgroup = ctx->limits->cgroup;
    g_start.protect = ctx->limits->wants.memory_max != 0;
    g_start.inherit[g_start.inherit_count++] = proxy_end;
    g_start.argv = proxy_argv(ctx, g_start.path, proxy_end);
    pid_t pid = clone(proxy_entry, g_proxy_stack + sizeof g_proxy_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, nullptr);
    if (pid < 0)
        fail(EXIT_STARTUP, "cannot start tartaros-proxy: clone: %s", strerror(errno));
    if (g_start.exec_result < 0) {
        int status;
        raw_waitpid(pid, &status);
        fail(EXIT_STARTUP, "%s (%s): %s", g_start.failed_step, g_start.path, strerror((int)-g_start.exec_result));
    }
    g_proxy = pid;
    for (int i = 0; i < g_start.inherit_count; i++)
        close(g_start.inherit[i]);
}

/* A plan whose only network mode is the broker, and the broker lost (preflight): nothing
 * to relay, so no proxy; nor without the network namespace. */
bool proxy_needed(const run_ctx *ctx)
{
    const tp_network *net = ctx->plan->network;
    return net != nullptr && ((net->modes & ~TP_NET_BROKER) != 0 || ctx->broker) && (ctx->clone_flags & CLONE_NEWNET);
}

int64_t monotonic_ms()
{
    struct timespec ts = {};
    raw_syscall2(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The proxy's notes, up to its EOF or a short deadline, onto stderr in one write. The proxy
 * wrote them printable already; anything else is replaced all the same, as they go to a
 * person's terminal. Raw calls: init may still run on this memory. */
void copy_notes()
{
    static char buf[(TNC_MAX_NOTES + 1) * TNC_MAX_NOTE_BYTES];
    size_t len = 0;
    const int64_t deadline = monotonic_ms() + 2000;
    while (g_notes >= 0 && len < sizeof buf) {
        int64_t left = deadline - monotonic_ms();
        if (left <= 0 || raw_poll1(g_notes, POLLIN, (int)left) <= 0)
            break;
        long n = raw_read(g_notes, buf + len, sizeof buf - len);
        if (n <= 0 && n != -EINTR)
            break;
        len += n > 0 ? (size_t)n : 0;
    }
    while (len > 0 && buf[len - 1] != '\n')
        len--; /* a cut line is dropped, never printed half */
    for (size_t i = 0; i < len; i++)
        if (buf[i] != '\n' && (buf[i] < 0x20 || buf[i] > 0x7e))
            buf[i] = '?';
    for (size_t off = 0; off < len;) {
        long n = raw_write(STDERR_FILENO, buf + off, len - off);
        if (n <= 0 && n != -EINTR)
            break;
        off += n > 0 ? (size_t)n : 0;
    }
    if (g_notes >= 0)
        raw_close(g_notes);
    g_notes = -1;
}

}  // namespace

void egress_start(run_ctx *ctx)
{
    ctx->net_channel = -1;
    const tp_network *net = ctx->plan->network;
    if (net == nullptr || ((net->modes & ~TP_NET_BROKER) == 0 && !ctx->broker))
        return;
    if (!(ctx->clone_flags & CLONE_NEWNET)) {
        warn("not relayed: the plan's network modes need the private network namespace this host refused; "
             "the sandbox gets no network and Landlock denies every TCP connect and bind");
        return;
    }
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
        fail(EXIT_STARTUP, "cannot make the channel to tartaros-proxy: socketpair: %s", strerror(errno));
    spawn_proxy(ctx, fds[1]);
    ctx->net_channel = fds[0];
}

void egress_release_sandbox_end(run_ctx *ctx)
{
    if (ctx->net_channel >= 0)
        close(ctx->net_channel);
}

unsigned egress_tasks(const run_ctx *ctx)
{
    if (!proxy_needed(ctx))
        return 0;
    return tnc_proxy_tasks((ctx->plan->network->modes & TP_NET_PROXY) != 0, ctx->broker);
}

void egress_stop()
{
    if (g_proxy <= 0)
        return;
    /* Ended already: by itself once init's end of the channel closed, or killed. */
    int status = 0;
    const bool ended = raw_syscall4(SYS_wait4, g_proxy, (long)&status, WNOHANG, 0) == g_proxy;
    if (!ended) {
        /* SIGTERM, not SIGKILL: the proxy ends its loop with every log line written, then
         * writes its notes and closes the pipe; only then may the cgroup be killed. */
        raw_kill(g_proxy, SIGTERM);
        copy_notes();
        raw_kill(g_proxy, SIGKILL);
        raw_waitpid(g_proxy, &status);
    } else {
        copy_notes();
    }
    g_proxy = -1;
    /* Its own failures it prints itself; a crash (its filter's SIGSYS, a fault) or a kill
     * from outside is silent, and from it on the sandbox's connections through the proxy and
     * relays were refused. The two signals sent here are the run's end. */
    const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (sig != 0 && (ended || (sig != SIGTERM && sig != SIGKILL)))
        warn("tartaros-proxy was killed by signal %d (%s) during the run: the sandbox's connections through it were "
             "refused from then on",
             sig, strsignal(sig));
}
