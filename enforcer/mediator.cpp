/* enforcer/mediator.cpp — see mediator.h.
 *
 * The mediator shares init's memory (CLONE_VM: no page tables to copy) and runs while init
 * runs C code, so everything it does after the clone is a raw system call on its own stack
 * and its own static buffers (raw.h).
 */
#include "mediator.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "bpf_check.h"
#include "bpf_listen.h"
#include "deny_events.h"
#include "effect_log.h"
#include "exec_events.h"
#include "kuapi.h"
#include "raw.h"
#include "text_append.h"
#include "report.h"

namespace {

constexpr unsigned long kStRdonly = 1;      /* statfs f_flags: ST_RDONLY */
constexpr uint32_t kMaxAddress = 128;      /* sizeof(struct sockaddr_storage): the kernel's limit */

/* What the mediator knows, set by init before the clone and never written after. */
struct mediator_setup {
    int listener;             /* the listener, in init's fd table (the early command made it); or */
    int handoff;              /* its end of the hand-off socketpair the late command sends it over */
    bool private_netns;       /* the sandbox has its own network namespace */
    bool private_pids;        /* ... and its own PID namespace: a peer outside has no pid here */
    bool proc_shows_sandbox;  /* /proc/PID is the sandbox's PID: relative paths can be resolved */
    int log_fd;               /* the effect log, kept for exec events (exec_events.h); -1 = none */
    const tp_bpf_insn *plan_prog;  /* with denied-syscall events: the plan's filter (deny_events.h) */
    uint32_t plan_len;
};

mediator_setup g_setup = {-1, -1, false, false, false, -1, nullptr, 0};
bool g_started;  /* init's: the mediator runs (mediator_start is called twice with exec events) */
alignas(16) char g_mediator_stack[32 << 10];

/* Why the mediator itself refused the connect it is answering (a refusal of its own, not
 * the kernel's answer), for the effect log; nullptr otherwise. */
const char *g_refusal;

/* Set by the early command while init waits for it (raw.h): the listener, which lands in the
 * fd table it shares with init, or -errno when the filter could not be installed; 0 = not
 * tried (the late path). */
long g_early_listener;

/* ---- helpers, raw calls only --------------------------------------------------------- */

long rsys(long nr, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0)
{
    return raw_syscall6(nr, a, b, c, d, e, f);
}

/* An O_PATH descriptor of the command's working directory, for a relative socket path. */
long open_command_cwd(uint32_t pid)
{
    if (!g_setup.proc_shows_sandbox) {
        g_refusal = "a relative socket path, and /proc does not show the sandbox's processes";
        return -EACCES;  /* /proc numbers processes another way: fail closed */
    }
    char path[48];
    size_t at = 0;
    append_text(path, &at, "/proc/");
    append_number(path, &at, pid);
    append_text(path, &at, "/cwd");
    path[at] = '\0';
    return rsys(SYS_openat, AT_FDCWD, (long)path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* After a stream connect: whether the listening peer is a process of the sandbox. Outside
 * its PID namespace a process has no pid here, so SO_PEERCRED reads 0: a host service that
 * put its socket in a writable root is refused too. Datagram sockets carry no peer. */
bool peer_inside(int sock)
{
    int type = 0;
    socklen_t len = sizeof type;
    if (!g_setup.private_pids || rsys(SYS_getsockopt, sock, SOL_SOCKET, SO_TYPE, (long)&type, (long)&len) != 0 ||
        type == SOCK_DGRAM)
        return true;
    struct ucred peer = {};
    len = sizeof peer;
    return rsys(SYS_getsockopt, sock, SOL_SOCKET, SO_PEERCRED, (long)&peer, (long)&len) == 0 && peer.pid != 0;
}

/* Connects `sock` to the pathname socket `path` (NUL-terminated), resolved as the command
 * would, if the socket lives on a mount the sandbox can write and a process of the sandbox
 * listens on it. Magic links (/proc/self/fd/N, /dev/fd/N) are refused: here they would name
 * the mediator's descriptors, not the command's. */
long connect_pathname(int sock, uint32_t pid, const char *path)
{
    long dir = AT_FDCWD;
    if (path[0] != '/' && (dir = open_command_cwd(pid)) < 0)
        return dir;
    kuapi::open_how how = {O_PATH | O_CLOEXEC, 0, kuapi::RESOLVE_NO_MAGICLINKS};
    long target = rsys(SYS_openat2, dir, (long)path, (long)&how, sizeof how);
    if (dir != AT_FDCWD)
        raw_close((int)dir);
    if (target < 0)
        return target;
    struct stat st;
    struct statfs fs;
    long ret = rsys(SYS_fstat, target, (long)&st);
    if (ret == 0 && !S_ISSOCK(st.st_mode))
        ret = -ECONNREFUSED;  /* what connect() answers for a path that is no socket */
    if (ret == 0 && (ret = rsys(SYS_fstatfs, target, (long)&fs)) == 0 && (fs.f_flags & kStRdonly)) {
        g_refusal = "the socket is on a mount the sandbox cannot write: a host socket";
        ret = -EACCES;
    }
    if (ret == 0) {
        /* The very inode checked, through its descriptor: no second lookup of `path`. */
        struct sockaddr_un via = {};
        via.sun_family = AF_UNIX;
        size_t at = 0;
        append_text(via.sun_path, &at, "/proc/self/fd/");
        append_number(via.sun_path, &at, (unsigned long)target);
        ret = rsys(SYS_connect, sock, (long)&via, (long)(offsetof(struct sockaddr_un, sun_path) + at + 1));
        if (ret == 0 && !peer_inside(sock)) {
            rsys(SYS_shutdown, sock, SHUT_RDWR);
            g_refusal = "the socket's listener is not a process of the sandbox";
            ret = -EACCES;
        }
    }
    raw_close((int)target);
    return ret;
}

int socket_domain(int sock)
{
    int domain = -1;
    socklen_t len = sizeof domain;
    rsys(SYS_getsockopt, sock, SOL_SOCKET, SO_DOMAIN, (long)&domain, (long)&len);
    return domain;
}

/* The connect the command asked for, done on `sock` with the mediator's copy of the address. */
long mediated_connect(int sock, uint32_t pid, const unsigned char *addr, uint32_t len)
{
    const int domain = socket_domain(sock);
    const struct sockaddr_un *un = (const struct sockaddr_un *)addr;
    const bool unix_address = domain == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path) &&
                              un->sun_family == AF_UNIX;
    if (unix_address && len > sizeof(struct sockaddr_un))
        return -EINVAL;  /* as the kernel answers */
    if (unix_address && un->sun_path[0] != '\0') {
        char path[sizeof un->sun_path + 1];
        size_t n = len - offsetof(struct sockaddr_un, sun_path);
        memcpy(path, un->sun_path, n);  /* memcpy touches nothing but its arguments */
        path[n] = '\0';
        return connect_pathname(sock, pid, path);
    }
    if (!g_setup.private_netns && unix_address) {
        g_refusal = "an abstract socket, and the sandbox has no network namespace of its own";
        return -EPERM;  /* as Landlock's abstract-socket scope would answer */
    }
    if (!g_setup.private_netns && (domain == AF_INET || domain == AF_INET6)) {
        g_refusal = "TCP, and the sandbox has no network namespace of its own";
        return -EACCES;  /* as Landlock's TCP layer would answer (landlock.h) */
    }
    return rsys(SYS_connect, sock, (long)addr, len);
}

/* One notification: the connect(fd, addr, len) of process `n.pid`. */
long answer(int listener, const kuapi::seccomp_notif &n)
{
    const int fd = (int)n.data.args[0];
    const uint64_t remote = n.data.args[1];
    const uint32_t len = (uint32_t)n.data.args[2];
    if (len > kMaxAddress)
        return -EINVAL;
    long pidfd = rsys(SYS_pidfd_open, n.pid, 0);
    if (pidfd < 0)
        return pidfd;
    long ret = 0;
    /* The pid may have been reused by now: the notification must still be pending. */
    if (rsys(SYS_ioctl, listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_ID_VALID, (long)&n.id) != 0)
        ret = -ESRCH;
    long sock = ret == 0 ? rsys(SYS_pidfd_getfd, pidfd, fd, 0) : -1;
    if (ret == 0 && sock < 0)
        ret = sock;
    unsigned char addr[kMaxAddress] = {};
    if (ret == 0 && len > 0) {
        struct iovec local = {addr, len}, from = {(void *)remote, len};
        if (rsys(SYS_process_vm_readv, n.pid, (long)&local, 1, (long)&from, 1, 0) != (long)len)
            ret = -EFAULT;
    }
    /* Read by pid: still the caller only if the notification is still pending. */
    if (ret == 0 && rsys(SYS_ioctl, listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_ID_VALID, (long)&n.id) != 0)
        ret = -ESRCH;
    if (ret == 0)
        ret = mediated_connect((int)sock, n.pid, addr, len);
    if (g_refusal != nullptr && g_setup.log_fd >= 0)
        deny_event_connect(listener, n, (int)-ret, g_refusal, addr, len);
    if (sock >= 0)
        raw_close((int)sock);
    raw_close((int)pidfd);
    return ret;
}

/* The listener, as the command sends it over the hand-off; -1 if it never comes. */
int receive_listener(int handoff)
{
    char byte = 0;
    struct iovec iov = {&byte, 1};
    alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    long n;
    do
        n = rsys(SYS_recvmsg, handoff, (long)&msg, MSG_CMSG_CLOEXEC);
    while (n == -EINTR);
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    if (n != 1 || cm == nullptr || cm->cmsg_type != SCM_RIGHTS)
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(cm), sizeof fd);  /* touches nothing but its arguments */
    return fd;
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

/* The answer to one notification: a call the plan denies (with denied-syscall events: its
 * errno, recorded), an exec (recorded, then the kernel goes on), or a connect (made here). */
void decide(int listener, const kuapi::seccomp_notif &n, kuapi::seccomp_notif_resp &resp)
{
    if (g_setup.plan_prog != nullptr && deny_event_answer(g_setup.plan_prog, g_setup.plan_len, listener, n, &resp.error))
        return;
    if (exec_event_syscall(n.data.nr)) {
        exec_event_record(listener, n, g_setup.proc_shows_sandbox);
        resp.flags = kuapi::SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        return;
    }
    g_refusal = nullptr;
    long ret = answer(listener, n);
    resp.error = ret < 0 ? (int32_t)ret : 0;
}

void serve(int listener)
{
    for (;;) {
        struct pollfd p = {listener, POLLIN, 0};
        long ready = rsys(SYS_ppoll, (long)&p, 1, 0, 0, 8);
        if (ready == -EINTR)
            continue;
        if (ready < 0 || (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
            return;  /* no process of the command is left */
        kuapi::seccomp_notif n = {};
        if (rsys(SYS_ioctl, listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_RECV, (long)&n) != 0)
            continue;  /* the caller was killed while we woke up */
        kuapi::seccomp_notif_resp resp = {};
        resp.id = n.id;
        decide(listener, n, resp);
        rsys(SYS_ioctl, listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_SEND, (long)&resp);
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

/* connect -> user notification; anything else -> allow (the plan's filter judges it). */
const tp_bpf_insn kConnectFilter[] = {
    {TP_BPF_LD | TP_BPF_W | TP_BPF_ABS, 0, 0, TP_SD_NR},
    {TP_BPF_JMP | TP_BPF_JEQ | TP_BPF_K, 0, 1, SYS_connect},
    {TP_BPF_RET | TP_BPF_K, 0, 0, kuapi::SECCOMP_RET_USER_NOTIF},
    {TP_BPF_RET | TP_BPF_K, 0, 0, TP_RET_ALLOW},
};

/* With the effect log: execve and execveat too, for their exec events (exec_events.h). */
const tp_bpf_insn kConnectExecFilter[] = {
    {TP_BPF_LD | TP_BPF_W | TP_BPF_ABS, 0, 0, TP_SD_NR},
    {TP_BPF_JMP | TP_BPF_JEQ | TP_BPF_K, 2, 0, SYS_connect},
    {TP_BPF_JMP | TP_BPF_JEQ | TP_BPF_K, 1, 0, SYS_execve},
    {TP_BPF_JMP | TP_BPF_JEQ | TP_BPF_K, 0, 1, SYS_execveat},
    {TP_BPF_RET | TP_BPF_K, 0, 0, kuapi::SECCOMP_RET_USER_NOTIF},
    {TP_BPF_RET | TP_BPF_K, 0, 0, TP_RET_ALLOW},
};

constexpr uint32_t kConnectExecLen = sizeof kConnectExecFilter / sizeof kConnectExecFilter[0];
static_assert(kConnectExecLen <= kListenerTailMax, "the mediator's rules fit where preflight left room");

/* With denied-syscall events: the listener program (ir/bpf_listen.h), built by the command. */
tp_bpf_insn g_listener_prog[TP_BPF_MAXINSNS];

/* Installs `prog` on the calling thread with a listener: the listener, or -errno. Raw. */
long install_with_listener(const kuapi::sock_fprog &prog)
{
    unsigned flags = kuapi::SECCOMP_FILTER_FLAG_NEW_LISTENER | kuapi::SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
    long listener = rsys(SYS_seccomp, kuapi::SECCOMP_SET_MODE_FILTER, flags, (long)&prog);
    if (listener == -EINVAL)  /* before Linux 5.19: a signal may restart a connect */
        listener = rsys(SYS_seccomp, kuapi::SECCOMP_SET_MODE_FILTER, kuapi::SECCOMP_FILTER_FLAG_NEW_LISTENER,
                        (long)&prog);
    return listener;
}

/* The connect filter, with the exec rules when `execs`. Raw. */
long install_filter(bool execs)
{
    if (execs)
        return install_with_listener({(unsigned short)kConnectExecLen, kConnectExecFilter});
    return install_with_listener({(unsigned short)(sizeof kConnectFilter / sizeof kConnectFilter[0]), kConnectFilter});
}

/* The plan's filter as the listener program, in place of both the connect filter and the
 * plan's own (seccomp_enforce then loads nothing). */
long install_listener_program(const tp_plan *plan)
{
    uint32_t len = tp_bpf_listener_program(plan->seccomp_prog, plan->seccomp_insn_count, kConnectExecFilter,
                                           kConnectExecLen, g_listener_prog, TP_BPF_MAXINSNS);
    if (len == 0)
        return -E2BIG;  /* preflight made sure it fits */
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

void send_listener(int handoff, int listener)
{
    char byte = 'L';
    struct iovec iov = {&byte, 1};
    alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &listener, sizeof listener);
    if (sendmsg(handoff, &msg, MSG_NOSIGNAL) != 1)
        fail(EXIT_STARTUP, "cannot hand the connect listener to the mediator: %s", strerror(errno));
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
    g_setup = {-1, -1, false, ctx->pid_ns, !ctx->pid_ns || plan_mounts_fresh_proc(ctx->plan), effect_log_fd(),
               nullptr, 0};
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
    g_setup.private_netns = (ctx->clone_flags & CLONE_NEWNET) != 0;  /* known only now */
    if (clone(mediator_entry, g_mediator_stack + sizeof g_mediator_stack, CLONE_VM | SIGCHLD, nullptr) < 0)
        fail(EXIT_STARTUP, "cannot start the connect mediator: clone: %s", strerror(errno));
    g_started = true;
    close(g_setup.listener >= 0 ? g_setup.listener : g_setup.handoff);
}

void mediator_start_before_command(const run_ctx *ctx)
{
    const tp_limits *limits = ctx->plan->limits;
    if (execs_wanted(ctx) || (wanted(ctx) && limits != nullptr && limits->max_processes != 0))
        mediator_start(ctx);
}

void mediator_attach(const run_ctx *ctx)
{
    if (!wanted(ctx) || g_early_listener > 0)
        return;
    long listener = g_early_listener < 0 ? g_early_listener
                    : ctx->deny_events   ? install_listener_program(ctx->plan)
                                         : install_filter(execs_wanted(ctx));
    if (listener < 0)
        fail(EXIT_STARTUP, "cannot install the %s: %s", ctx->deny_events ? "listener program" : "connect filter",
             strerror((int)-listener));
    send_listener(ctx->mediator_fd, (int)listener);
    close((int)listener);
    close(ctx->mediator_fd);
}
