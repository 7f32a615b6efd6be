/* enforcer/mediator.cpp — see mediator.h.
 *
 * The mediator shares init's memory (CLONE_VM: no page tables to copy) and runs while init
 * runs C code, so everything it does after the clone is a raw system call on its own stack
 * and its own static buffers (raw.h).
 */
#include "mediator.h"

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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf_check.h"
#include "bpf_listen.h"
#include "deny_events.h"
#include "effect_log.h"
#include "exec_events.h"
#include "kuapi.h"
#include "raw.h"
#include "report.h"
#include "send_calls.h"
#include "socket_calls.h"
#include "text_append.h"

namespace {

constexpr uint32_t kMaxAddress = 128; /* sizeof(struct sockaddr_storage): the kernel's limit */

/* What the mediator knows, set by init before the clone and never written after (with
 * g_socket_view, socket_calls.h). */
struct mediator_setup {
    int listener;                 /* the listener, in init's fd table (the early command made it); or */
    int handoff;                  /* its end of the hand-off socketpair the late command sends it over */
    int log_fd;                   /* the effect log, kept for exec events (exec_events.h); -1 = none */
    const tp_bpf_insn *plan_prog; /* with denied-syscall events: the plan's filter (deny_events.h) */
    uint32_t plan_len;
};

mediator_setup g_setup = {-1, -1, -1, nullptr, 0};
bool g_started; /* init's: the mediator runs (mediator_start is called twice with exec events) */
alignas(16) char g_mediator_stack[32 << 10];

/* Set by the early command while init waits for it (raw.h): the listener, which lands in the
 * fd table it shares with init, or -errno when the filter could not be installed; 0 = not
 * tried (the late path). */
long g_early_listener;

/* Why the mediator stopped while the command could still call it (mediator_report_end);
 * MEDIATOR_SERVING while it serves or once it has ended as it should, at the hang-up that
 * says no process of the command is left. Written by the mediator, or by init when it reaps
 * a mediator killed by a signal; read by the supervisor: one memory (CLONE_VM). */
enum mediator_stop : uint32_t {
    MEDIATOR_SERVING = 0,
    MEDIATOR_POLL_FAILED,     /* detail: -errno of ppoll */
    MEDIATOR_LISTENER_CLOSED, /* POLLNVAL: the listener was no longer open in its fd table */
    MEDIATOR_LISTENER_ERROR,  /* POLLERR */
    MEDIATOR_NOT_A_LISTENER,  /* its number held another file when it started (detail: -errno) */
    MEDIATOR_KILLED,          /* detail: the signal */
};

struct mediator_end {
    uint32_t stop;
    int32_t detail;
};

mediator_end g_end;
pid_t g_mediator_pid;

void record_stop(mediator_stop stop, int32_t detail)
{
    g_end.detail = detail;
    __atomic_store_n(&g_end.stop, (uint32_t)stop, __ATOMIC_RELEASE);
}

/* ---- one socket call, raw calls only ------------------------------------------------------ */

bool still_pending(int listener, const kuapi::seccomp_notif &n)
{
    return rsys(SYS_ioctl, listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_ID_VALID, (long)&n.id) == 0;
}

/* One notification: connect(fd, addr, len) or bind(fd, addr, len) of process `n.pid`, made
 * here with the mediator's copy of the address (`addr`, *len bytes). */
long answer(int listener, const kuapi::seccomp_notif &n, const char **refusal, unsigned char *addr, uint32_t *len)
{
    *len = (uint32_t)n.data.args[2];
    if (*len > kMaxAddress)
        return -EINVAL;
    long pidfd = caller_pidfd(n.pid);
    if (pidfd < 0)
        return pidfd;
    long ret = 0;
    /* The pid may have been reused by now: the notification must still be pending. */
    if (!still_pending(listener, n))
        ret = -ESRCH;
    long sock = ret == 0 ? rsys(SYS_pidfd_getfd, pidfd, (int)n.data.args[0], 0) : -1;
    if (ret == 0 && sock < 0)
        ret = sock;
    if (ret == 0 && *len > 0) {
        struct iovec local = {addr, *len}, from = {(void *)n.data.args[1], *len};
        if (rsys(SYS_process_vm_readv, n.pid, (long)&local, 1, (long)&from, 1, 0) != (long)*len)
            ret = -EFAULT;
    }
    /* Read by pid: still the caller only if the notification is still pending. */
    if (ret == 0 && !still_pending(listener, n))
        ret = -ESRCH;
    socket_call c = {listener, &n, (int)sock, nullptr};
    if (ret == 0)
        ret = n.data.nr == SYS_connect ? mediated_connect(c, addr, *len) : mediated_bind(c, addr, *len);
    *refusal = c.refusal;
    if (sock >= 0)
        raw_close((int)sock);
    raw_close((int)pidfd);
    return ret;
}

/* The listener, taken from the command (pidfd_getfd) once it has written its pid and the
 * listener's number on the hand-off; -1 if that never comes. The command waits for the answer
 * (0, or the errno) before it closes its copy. Not sent with SCM_RIGHTS: the command's sendmsg() would be
 * notified to the very listener it sends. */
int receive_listener(int handoff)
{
    int32_t ids[2];
    long got;
    do
        got = raw_read(handoff, ids, sizeof ids);
    while (got == -EINTR);
    long listener = -1;
    if (got == (long)sizeof ids) {
        long pidfd = rsys(SYS_pidfd_open, ids[0], 0);
        listener = pidfd < 0 ? pidfd : rsys(SYS_pidfd_getfd, pidfd, ids[1], 0);
        if (pidfd >= 0)
            raw_close((int)pidfd);
    }
    const int32_t reply = listener >= 0 ? 0 : got == (long)sizeof ids ? (int32_t)-listener : EPROTO;
    raw_write(handoff, &reply, sizeof reply);
    return listener >= 0 ? (int)listener : -1;
}

/* Only CAP_SYS_PTRACE (over the command, for pidfd_getfd and its memory): no DAC override,
 * so the kernel checks a mediated connect with the same rights the command has. */
void keep_only_ptrace()
{
    kuapi::cap_header header = {kuapi::LINUX_CAPABILITY_VERSION_3, 0};
    kuapi::cap_data data[2] = {};
    data[0].effective = data[0].permitted = 1u << kuapi::CAP_SYS_PTRACE;
    rsys(SYS_capset, (long)&header, (long)data);
}

bool send_syscall(uint64_t nr)
{
    return nr == SYS_sendto || nr == SYS_sendmsg || nr == SYS_sendmmsg;
}

/* The answer to one notification: a call the plan denies (with denied-syscall events: its
 * errno, recorded), an exec (recorded, then the kernel goes on), or a connect or bind (made
 * here). Sends answer themselves, now or once they are done (send_calls.h): false then. */
bool decide(int listener, const kuapi::seccomp_notif &n, kuapi::seccomp_notif_resp &resp)
{
    if (g_setup.plan_prog != nullptr &&
        deny_event_answer(g_setup.plan_prog, g_setup.plan_len, listener, n, &resp.error))
        return true;
    if (exec_event_syscall(n.data.nr)) {
        exec_event_record(listener, n, g_socket_view.proc_shows_sandbox);
        resp.flags = kuapi::SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        return true;
    }
    if (send_syscall(n.data.nr)) {
        send_call(listener, n);
        return false;
    }
    const char *refusal = nullptr;
    unsigned char addr[kMaxAddress] = {};
    uint32_t len = 0;
    long ret = answer(listener, n, &refusal, addr, &len);
    if (refusal != nullptr && g_socket_view.record_refusals)
        deny_event_connect(listener, n, (int)-ret, refusal, addr, len);
    else if (n.data.nr == SYS_connect && g_socket_view.record_refusals && deny_event_no_route(ret, addr, len))
        net_event_no_route(listener, n, (int)-ret, addr, len);
    resp.error = ret < 0 ? (int32_t)ret : 0;
    return true;
}

void receive_one(int listener)
{
    kuapi::seccomp_notif n = {};
    if (rsys(SYS_ioctl, listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_RECV, (long)&n) != 0)
        return; /* the caller was killed while we woke up */
    kuapi::seccomp_notif_resp resp = {};
    resp.id = n.id;
    if (decide(listener, n, resp))
        rsys(SYS_ioctl, listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_SEND, (long)&resp);
}

/* Answers notifications, and moves held sends on, until no process of the command is left. */
void serve(int listener)
{
    /* The caller waits while the mediator answers: the kernel hands the CPU straight from one
     * to the other (Linux 6.6; older kernels answer EINVAL and wake them the usual way). */
    rsys(SYS_ioctl, listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_SET_FLAGS,
         (long)kuapi::SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
    /* A listener knows no notification 0 (ENOENT); any other file answers otherwise, and
     * polling it would serve nobody while the command's calls fail. */
    const uint64_t no_id = 0;
    const long probe = rsys(SYS_ioctl, listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_ID_VALID, (long)&no_id);
    if (probe != -ENOENT)
        return record_stop(MEDIATOR_NOT_A_LISTENER, (int32_t)probe);
    struct pollfd set[1 + kMaxHeldSends];
    for (;;) {
        int timeout_ms = -1;
        const uint32_t held = held_sends_poll_set(set + 1, &timeout_ms);
        set[0] = {listener, POLLIN, 0};
        struct timespec timeout = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000};
        long ready = rsys(SYS_ppoll, (long)set, 1 + held, timeout_ms < 0 ? 0 : (long)&timeout, 0, 8);
        if (ready == -EINTR)
            continue;
        if (ready < 0)
            return record_stop(MEDIATOR_POLL_FAILED, (int32_t)ready);
        if (set[0].revents & POLLNVAL)
            return record_stop(MEDIATOR_LISTENER_CLOSED, 0);
        if (set[0].revents & POLLERR)
            return record_stop(MEDIATOR_LISTENER_ERROR, 0);
        if (set[0].revents & POLLHUP)
            return; /* no process of the command is left */
        held_sends_progress(set + 1, held);
        if (set[0].revents & POLLIN)
            receive_one(listener);
    }
}

/* Closes every descriptor but `a` and `b` (-1: none). */
void close_all_but(int a, int b)
{
    const int keep[2] = {a < b ? a : b, a < b ? b : a};
    unsigned from = 0;
    for (int fd : keep) {
        if (fd < 0)
            continue;
        if ((unsigned)fd > from)
            rsys(SYS_close_range, from, (unsigned)fd - 1, 0);
        from = (unsigned)fd + 1;
    }
    rsys(SYS_close_range, from, ~0u, 0);
}

int mediator_entry(void *)
{
    const int kept = g_setup.listener >= 0 ? g_setup.listener : g_setup.handoff;
    rsys(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
    close_all_but(kept, g_setup.log_fd);
    keep_only_ptrace();
    int listener = g_setup.listener;
    if (listener < 0) {
        listener = receive_listener(kept);
        raw_close(kept);
    }
    if (listener >= 0)
        serve(listener);
    rsys(SYS_exit, 0);
    return 0;
}

static_assert(TP_MEDIATOR_RULES_MAX <= kListenerTailMax, "the mediator's rules fit where preflight left room");

/* The mediator's rules (ir/bpf_listen.h), and with denied-syscall events the listener
 * program, built by the command. */
tp_bpf_insn g_rules[TP_MEDIATOR_RULES_MAX];
tp_bpf_insn g_listener_prog[TP_BPF_MAXINSNS];

/* Installs `prog` on the calling thread with a listener: the listener, or -errno. Raw. */
long install_with_listener(const kuapi::sock_fprog &prog)
{
    unsigned flags = kuapi::SECCOMP_FILTER_FLAG_NEW_LISTENER | kuapi::SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
    long listener = rsys(SYS_seccomp, kuapi::SECCOMP_SET_MODE_FILTER, flags, (long)&prog);
    if (listener == -EINVAL) /* before Linux 5.19: a signal may restart a connect */
        listener =
            rsys(SYS_seccomp, kuapi::SECCOMP_SET_MODE_FILTER, kuapi::SECCOMP_FILTER_FLAG_NEW_LISTENER, (long)&prog);
    return listener;
}

/* The mediator's rules as a filter, with the exec rules when `execs`. Raw. */
long install_filter(bool execs)
{
    return install_with_listener({(unsigned short)tp_mediator_rules(execs, g_rules), g_rules});
}

/* The plan's filter as the listener program, in place of both the connect filter and the
 * plan's own (seccomp_enforce then loads nothing). */
long install_listener_program(const tp_plan *plan)
{
    const uint32_t rules = tp_mediator_rules(true, g_rules);
    uint32_t len = tp_bpf_listener_program(plan->seccomp_prog, plan->seccomp_insn_count, g_rules, rules,
                                           g_listener_prog, TP_BPF_MAXINSNS);
    if (len == 0)
        return -E2BIG; /* preflight made sure it fits */
    return install_with_listener({(unsigned short)len, g_listener_prog});
}

bool wanted(const run_ctx *ctx)
{
    return ctx->mediate_connect && ctx->mount_layer;
}

bool execs_wanted(const run_ctx *ctx)
{
    return wanted(ctx) && effect_log_enabled();
}

bool plan_mounts_fresh_proc(const tp_plan *plan)
{
    for (uint32_t i = 0; i < plan->mount_count; i++)
        if (plan->mounts[i].op == TP_MNT_PROC)
            return true;
    return false;
}

/* The filesystems the sandbox made for itself (socket_calls.h): the private /tmp, the private
 * dirs and the /dev/shm of the private /dev, seen in the finished tree. */
void note_private_filesystems(const tp_plan *plan)
{
    socket_view &view = g_socket_view;
    for (uint32_t i = 0; i < plan->mount_count; i++) {
        const tp_mount &m = plan->mounts[i];
        if (m.op != TP_MNT_TMPFS && m.op != TP_MNT_DEV)
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s%s", tp_plan_str(plan, m.path), m.op == TP_MNT_DEV ? "/shm" : "");
        struct stat st;
        if (view.private_dev_count < sizeof view.private_devs / sizeof view.private_devs[0] && stat(path, &st) == 0 &&
            S_ISDIR(st.st_mode))
            view.private_devs[view.private_dev_count++] = st.st_dev;
    }
}

/* The command's side of the hand-off (receive_listener): its pid and the listener's number,
 * then the mediator's answer, once it holds its own copy. pidfd_getfd is a ptrace-style
 * access, and the address space the command still shares with init and the supervisor is
 * non-dumpable (launch.cpp): it is dumpable for the hand-off only, while nothing of the agent
 * has run yet. */
void send_listener(int handoff, int listener)
{
    const int32_t ids[2] = {(int32_t)getpid(), listener};
    int32_t reply = EPROTO;
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    if (write(handoff, ids, sizeof ids) != (ssize_t)sizeof ids)
        fail(EXIT_STARTUP, "cannot hand the connect listener to the mediator: %s", strerror(errno));
    while (read(handoff, &reply, sizeof reply) < 0 && errno == EINTR) {
    }
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (reply != 0)
        fail(EXIT_STARTUP, "the mediator could not take the connect listener: %s", strerror(reply));
}

}  // namespace

const char *mediator_unavailable_reason()
{
    kuapi::seccomp_notif_sizes sizes;
    if (syscall(SYS_seccomp, kuapi::SECCOMP_GET_NOTIF_SIZES, 0u, &sizes) != 0)
        return "the kernel lacks seccomp user notification (Linux 5.0)";
    if (syscall(SYS_pidfd_getfd, -1, 0, 0) != 0 && errno == ENOSYS)
        return "the kernel lacks pidfd_getfd (Linux 5.6)";
    /* Yama's scope 3 forbids every ptrace-style access, pidfd_getfd included: every connect
     * would then fail. Scopes 1 and 2 allow it to a holder of CAP_SYS_PTRACE over the target. */
    char scope = 0;
    int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &scope, 1) != 1)
            scope = 0;
        close(fd);
    }
    if (scope == '3')
        return "Yama's ptrace_scope is 3, which forbids the mediator's pidfd_getfd";
    return nullptr;
}

void mediator_install_early(const run_ctx *ctx)
{
    if (wanted(ctx) && !ctx->deny_events)
        g_early_listener = install_filter(execs_wanted(ctx));
}

void mediator_prepare(run_ctx *ctx, bool early)
{
    ctx->mediator_fd = -1;
    if (!wanted(ctx))
        return;
    g_setup = {-1, -1, effect_log_fd(), nullptr, 0};
    g_socket_view = {false, ctx->pid_ns, !ctx->pid_ns || plan_mounts_fresh_proc(ctx->plan), g_setup.log_fd >= 0, {}, 0};
    note_private_filesystems(ctx->plan);
    if (ctx->deny_events) {
        g_setup.plan_prog = ctx->plan->seccomp_prog;
        g_setup.plan_len = ctx->plan->seccomp_insn_count;
    }
    /* The early command installed the connect filter; the listener program is installed
     * last, by the command, and handed over as on the late path. */
    if (early && !ctx->deny_events)
        return;
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
        fail(EXIT_STARTUP, "cannot make the mediator's hand-off: socketpair: %s", strerror(errno));
    g_setup.handoff = fds[0];
    ctx->mediator_fd = fds[1];
}

void mediator_start(const run_ctx *ctx)
{
    if (g_started)
        return;
    if (g_early_listener > 0)
        g_setup.listener = (int)g_early_listener;
    if (g_setup.listener < 0 && g_setup.handoff < 0)
        return;
    g_socket_view.private_netns = (ctx->clone_flags & CLONE_NEWNET) != 0; /* known only now */
    g_mediator_pid = clone(mediator_entry, g_mediator_stack + sizeof g_mediator_stack, CLONE_VM | SIGCHLD, nullptr);
    if (g_mediator_pid < 0)
        fail(EXIT_STARTUP, "cannot start the connect mediator: clone: %s", strerror(errno));
    g_started = true;
    close(g_setup.listener >= 0 ? g_setup.listener : g_setup.handoff);
}

void mediator_start_before_command(const run_ctx *ctx)
{
    const tp_limits *limits = ctx->plan->limits;
    /* With a hand-off, the command waits for the mediator to take its listener. */
    if (g_setup.handoff >= 0 || execs_wanted(ctx) || (wanted(ctx) && limits != nullptr && limits->max_processes != 0))
        mediator_start(ctx);
}

void mediator_attach(const run_ctx *ctx)
{
    if (!wanted(ctx) || g_early_listener > 0)
        return;
    long listener = g_early_listener < 0 ? g_early_listener
        : ctx->deny_events               ? install_listener_program(ctx->plan)
                                         : install_filter(execs_wanted(ctx));
    if (listener < 0)
        fail(EXIT_STARTUP, "cannot install the %s: %s", ctx->deny_events ? "listener program" : "connect filter",
             strerror((int)-listener));
    send_listener(ctx->mediator_fd, (int)listener);
    close((int)listener);
    close(ctx->mediator_fd);
}

void mediator_reaped(pid_t pid, int wait_status)
{
    /* Any signal, SIGKILL too: the run's end and timeout kill the mediator after the command
     * or with init, never while init still reaps for the command. */
    if (g_mediator_pid > 0 && pid == g_mediator_pid && WIFSIGNALED(wait_status))
        record_stop(MEDIATOR_KILLED, WTERMSIG(wait_status));
}

void mediator_report_end()
{
    const uint32_t stop = __atomic_load_n(&g_end.stop, __ATOMIC_ACQUIRE);
    if (stop == MEDIATOR_SERVING)
        return;
    char why[128];
    if (stop == MEDIATOR_POLL_FAILED)
        snprintf(why, sizeof why, "ppoll: %s", strerror((int)-g_end.detail));
    else if (stop == MEDIATOR_KILLED)
        snprintf(why, sizeof why, "killed by signal %d", (int)g_end.detail);
    else if (stop == MEDIATOR_NOT_A_LISTENER)
        snprintf(why, sizeof why, "the descriptor it was given is no seccomp listener: ioctl: %s",
                 strerror((int)-g_end.detail));
    else
        snprintf(why, sizeof why, "its listener %s",
                 stop == MEDIATOR_LISTENER_CLOSED ? "was no longer open" : "reported an error");
    warn("the connect mediator stopped while the command ran (%s): every call it answers (connect, bind, a send "
         "with an address; with --log, exec and the denied calls) failed with ENOSYS from then on",
         why);
}
