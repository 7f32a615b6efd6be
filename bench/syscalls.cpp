// bench_syscalls — what a seccomp filter adds to a system call, in nanoseconds.
//
// Four calls (getppid; stat of a file, which glibc issues as newfstatat; pread64 of a 64-byte
// file; openat of an absent path, whose mode argument the hardening checks) are timed with no filter, under TartarOS's hardening filter (lower_seccomp of the
// harden_syscalls profile: libseccomp's binary tree), and under a long linear allow-list like a
// container runtime's default profile (docker_like_filter below). Each filter is also measured
// in a form the kernel cannot skip (see kCacheDefeat), because since Linux 5.11 the kernel runs
// no filter at all for a syscall that the filter allows whatever its arguments: it emulates the
// filter once per syscall number at install time and keeps a bitmap (kernel/seccomp.c,
// seccomp_cache_prepare). The "kernel cache" column says, from the same emulation done here,
// whether that applies to the call; calls with argument rules (socket, ioctl, clone) and
// kernels before 5.11 always pay the uncached cost. A two-instruction filter the cache cannot
// skip shows the fixed cost of running any filter at all.
//
// A filter cannot be removed, so every measurement runs in a forked child: time ITERS calls of
// each kind with the vDSO clock (after a tenth as many to warm up), install the filter, time
// them again, report both through a pipe. The configurations take turns for REPEATS rounds.
// ns/call is the best round; added ns is the median over rounds of the paired difference, which
// a busy machine disturbs much less than a difference of two separate bests. The instruction
// counts come from evaluate() (compiler/bpf_eval.h) on the call's seccomp_data.
//
// Two more calls show what connect mediation's rules (ir/bpf_listen.h) cost the traffic they
// let through: send() of 64 bytes on a connected UDP socket (sendto with a NULL address, which
// the rules must now look at) and sendmsg() of the same, under the rules before (connect only)
// and now (connect, bind, sendto with an address). A second table times the round trip of a
// notified call: sendto with an address, answered "continue" by a thread of the same process —
// the least that mediating a call costs, and so what mediating every sendmsg would cost.
//
// Usage: bench_syscalls [ITERS [REPEATS]] (defaults 20000 and 25). Prints markdown tables.
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bpf_eval.h"
#include "bpf_listen.h"
#include "seccomp_lower.h"
#include "seccomp_profile.h"

namespace ts = tartaros::seccomp;

namespace {

// ---- the container-like filter ----

// Docker's default seccomp profile (moby profiles/seccomp/default.json), the unconditional
// allow-list in the profile's own (alphabetical) order. Names of other architectures are kept:
// the runtime adds them too, and libseccomp places each on the architectures that have it.
constexpr const char *kDockerAllow[] = {
    "accept",
    "accept4",
    "access",
    "adjtimex",
    "alarm",
    "bind",
    "brk",
    "capget",
    "capset",
    "chdir",
    "chmod",
    "chown",
    "chown32",
    "clock_adjtime",
    "clock_adjtime64",
    "clock_getres",
    "clock_getres_time64",
    "clock_gettime",
    "clock_gettime64",
    "clock_nanosleep",
    "clock_nanosleep_time64",
    "close",
    "close_range",
    "connect",
    "copy_file_range",
    "creat",
    "dup",
    "dup2",
    "dup3",
    "epoll_create",
    "epoll_create1",
    "epoll_ctl",
    "epoll_ctl_old",
    "epoll_pwait",
    "epoll_pwait2",
    "epoll_wait",
    "epoll_wait_old",
    "eventfd",
    "eventfd2",
    "execve",
    "execveat",
    "exit",
    "exit_group",
    "faccessat",
    "faccessat2",
    "fadvise64",
    "fadvise64_64",
    "fallocate",
    "fanotify_mark",
    "fchdir",
    "fchmod",
    "fchmodat",
    "fchown",
    "fchown32",
    "fchownat",
    "fcntl",
    "fcntl64",
    "fdatasync",
    "fgetxattr",
    "flistxattr",
    "flock",
    "fork",
    "fremovexattr",
    "fsetxattr",
    "fstat",
    "fstat64",
    "fstatat64",
    "fstatfs",
    "fstatfs64",
    "fsync",
    "ftruncate",
    "ftruncate64",
    "futex",
    "futex_time64",
    "futex_waitv",
    "futimesat",
    "getcpu",
    "getcwd",
    "getdents",
    "getdents64",
    "getegid",
    "getegid32",
    "geteuid",
    "geteuid32",
    "getgid",
    "getgid32",
    "getgroups",
    "getgroups32",
    "getitimer",
    "getpeername",
    "getpgid",
    "getpgrp",
    "getpid",
    "getppid",
    "getpriority",
    "getrandom",
    "getresgid",
    "getresgid32",
    "getresuid",
    "getresuid32",
    "getrlimit",
    "get_robust_list",
    "getrusage",
    "getsid",
    "getsockname",
    "getsockopt",
    "get_thread_area",
    "gettid",
    "gettimeofday",
    "getuid",
    "getuid32",
    "getxattr",
    "inotify_add_watch",
    "inotify_init",
    "inotify_init1",
    "inotify_rm_watch",
    "io_cancel",
    "ioctl",
    "io_destroy",
    "io_getevents",
    "io_pgetevents",
    "io_pgetevents_time64",
    "ioprio_get",
    "ioprio_set",
    "io_setup",
    "io_submit",
    "io_uring_enter",
    "io_uring_register",
    "io_uring_setup",
    "ipc",
    "kill",
    "landlock_add_rule",
    "landlock_create_ruleset",
    "landlock_restrict_self",
    "lchown",
    "lchown32",
    "lgetxattr",
    "link",
    "linkat",
    "listen",
    "listxattr",
    "llistxattr",
    "_llseek",
    "lremovexattr",
    "lseek",
    "lsetxattr",
    "lstat",
    "lstat64",
    "madvise",
    "membarrier",
    "memfd_create",
    "memfd_secret",
    "mincore",
    "mkdir",
    "mkdirat",
    "mknod",
    "mknodat",
    "mlock",
    "mlock2",
    "mlockall",
    "mmap",
    "mmap2",
    "mprotect",
    "mq_getsetattr",
    "mq_notify",
    "mq_open",
    "mq_timedreceive",
    "mq_timedreceive_time64",
    "mq_timedsend",
    "mq_timedsend_time64",
    "mq_unlink",
    "mremap",
    "msgctl",
    "msgget",
    "msgrcv",
    "msgsnd",
    "msync",
    "munlock",
    "munlockall",
    "munmap",
    "name_to_handle_at",
    "nanosleep",
    "newfstatat",
    "_newselect",
    "open",
    "openat",
    "openat2",
    "pause",
    "pidfd_open",
    "pidfd_send_signal",
    "pipe",
    "pipe2",
    "pkey_alloc",
    "pkey_free",
    "pkey_mprotect",
    "poll",
    "ppoll",
    "ppoll_time64",
    "prctl",
    "pread64",
    "preadv",
    "preadv2",
    "prlimit64",
    "process_mrelease",
    "pselect6",
    "pselect6_time64",
    "pwrite64",
    "pwritev",
    "pwritev2",
    "read",
    "readahead",
    "readlink",
    "readlinkat",
    "readv",
    "recv",
    "recvfrom",
    "recvmmsg",
    "recvmmsg_time64",
    "recvmsg",
    "remap_file_pages",
    "removexattr",
    "rename",
    "renameat",
    "renameat2",
    "restart_syscall",
    "rmdir",
    "rseq",
    "rt_sigaction",
    "rt_sigpending",
    "rt_sigprocmask",
    "rt_sigqueueinfo",
    "rt_sigreturn",
    "rt_sigsuspend",
    "rt_sigtimedwait",
    "rt_sigtimedwait_time64",
    "rt_tgsigqueueinfo",
    "sched_getaffinity",
    "sched_getattr",
    "sched_getparam",
    "sched_get_priority_max",
    "sched_get_priority_min",
    "sched_getscheduler",
    "sched_rr_get_interval",
    "sched_rr_get_interval_time64",
    "sched_setaffinity",
    "sched_setattr",
    "sched_setparam",
    "sched_setscheduler",
    "sched_yield",
    "seccomp",
    "select",
    "semctl",
    "semget",
    "semop",
    "semtimedop",
    "semtimedop_time64",
    "send",
    "sendfile",
    "sendfile64",
    "sendmmsg",
    "sendmsg",
    "sendto",
    "setfsgid",
    "setfsgid32",
    "setfsuid",
    "setfsuid32",
    "setgid",
    "setgid32",
    "setgroups",
    "setgroups32",
    "setitimer",
    "setpgid",
    "setpriority",
    "setregid",
    "setregid32",
    "setresgid",
    "setresgid32",
    "setresuid",
    "setresuid32",
    "setreuid",
    "setreuid32",
    "setrlimit",
    "set_robust_list",
    "setsid",
    "setsockopt",
    "set_thread_area",
    "set_tid_address",
    "setuid",
    "setuid32",
    "setxattr",
    "shmat",
    "shmctl",
    "shmdt",
    "shmget",
    "shutdown",
    "sigaltstack",
    "signalfd",
    "signalfd4",
    "sigprocmask",
    "sigreturn",
    "socketcall",
    "socketpair",
    "splice",
    "stat",
    "stat64",
    "statfs",
    "statfs64",
    "statx",
    "symlink",
    "symlinkat",
    "sync",
    "sync_file_range",
    "syncfs",
    "sysinfo",
    "tee",
    "tgkill",
    "time",
    "timer_create",
    "timer_delete",
    "timer_getoverrun",
    "timer_gettime",
    "timer_gettime64",
    "timer_settime",
    "timer_settime64",
    "timerfd_create",
    "timerfd_gettime",
    "timerfd_gettime64",
    "timerfd_settime",
    "timerfd_settime64",
    "times",
    "tkill",
    "truncate",
    "truncate64",
    "ugetrlimit",
    "umask",
    "uname",
    "unlink",
    "unlinkat",
    "utime",
    "utimensat",
    "utimensat_time64",
    "utimes",
    "vfork",
    "vmsplice",
    "wait4",
    "waitid",
    "waitpid",
    "write",
    "writev",
    // Allowed for every container on kernels >= 4.8, and for x86 (amd64, x32, x86), and for
    // the default capability CAP_SYS_CHROOT.
    "process_vm_readv",
    "process_vm_writev",
    "ptrace",
    "arch_prctl",
    "modify_ldt",
    "chroot",
};

struct ScmpCtx {
    scmp_filter_ctx ctx;
    explicit ScmpCtx(uint32_t def) : ctx(seccomp_init(def))
    {
        if (ctx == nullptr)
            throw std::runtime_error("seccomp_init failed");
    }
    ~ScmpCtx() { seccomp_release(ctx); }
    ScmpCtx(const ScmpCtx &) = delete;
    ScmpCtx &operator=(const ScmpCtx &) = delete;
};

void check(int rc, const char *what)
{
    if (rc != 0)
        throw std::runtime_error(std::string(what) + ": " + std::strerror(-rc));
}

int syscall_nr(const char *name)
{
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR)
        throw std::runtime_error(std::string("libseccomp does not know ") + name);
    return nr;
}

std::vector<tp_bpf_insn> export_bpf(scmp_filter_ctx ctx)
{
    int fd = memfd_create("bench-bpf", MFD_CLOEXEC);
    if (fd < 0)
        throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
    check(seccomp_export_bpf(ctx, fd), "seccomp_export_bpf");
    off_t size = lseek(fd, 0, SEEK_END);
    std::vector<tp_bpf_insn> prog(static_cast<size_t>(size) / sizeof(tp_bpf_insn));
    ssize_t got = pread(fd, prog.data(), prog.size() * sizeof(tp_bpf_insn), 0);
    close(fd);
    if (got != size || prog.empty())
        throw std::runtime_error("seccomp_export_bpf: short program");
    return prog;
}

// An approximation of the filter runc installs for Docker's default profile in an
// unprivileged container on x86_64: default ERRNO(EPERM); the allow-list above; socket except
// AF_VSOCK; personality only for the five values Docker lists; clone without namespace flags;
// clone3 answers ENOSYS; the profile's three x86 architectures (x86_64, x32, i386). Built with
// libseccomp's linear layout (SCMP_FLTATR_CTL_OPTIMIZE=1, the default, which runc keeps), so a
// call is found by a chain of comparisons. Not reproduced: the ENOSYS stub runc prepends for
// syscalls newer than the profile (a few instructions before the chain).
std::vector<tp_bpf_insn> docker_like_filter()
{
    ScmpCtx f(SCMP_ACT_ERRNO(EPERM));
    check(seccomp_arch_add(f.ctx, SCMP_ARCH_X32), "seccomp_arch_add(x32)");
    check(seccomp_arch_add(f.ctx, SCMP_ARCH_X86), "seccomp_arch_add(x86)");
    check(seccomp_attr_set(f.ctx, SCMP_FLTATR_CTL_NNP, 0), "CTL_NNP");
    check(seccomp_attr_set(f.ctx, SCMP_FLTATR_CTL_OPTIMIZE, 1), "CTL_OPTIMIZE=1");
    for (const char *name : kDockerAllow)
        check(seccomp_rule_add(f.ctx, SCMP_ACT_ALLOW, syscall_nr(name), 0), name);
    check(seccomp_rule_add(f.ctx, SCMP_ACT_ALLOW, syscall_nr("socket"), 1, SCMP_A0(SCMP_CMP_NE, 40 /* AF_VSOCK */)),
          "socket");
    for (scmp_datum_t persona : {0x0ull, 0x8ull, 0x20000ull, 0x20008ull, 0xffffffffull})
        check(seccomp_rule_add(f.ctx, SCMP_ACT_ALLOW, syscall_nr("personality"), 1, SCMP_A0(SCMP_CMP_EQ, persona)),
              "personality");
    check(seccomp_rule_add(f.ctx, SCMP_ACT_ALLOW, syscall_nr("clone"), 1,
                           SCMP_A0(SCMP_CMP_MASKED_EQ, 0x7E020000ull /* CLONE_NEW* */, 0)),
          "clone");
    check(seccomp_rule_add(f.ctx, SCMP_ACT_ERRNO(ENOSYS), syscall_nr("clone3"), 0), "clone3");
    return export_bpf(f.ctx);
}

// ---- what the kernel does with a filter ----

// A first instruction that loads seccomp_data.instruction_pointer: harmless (the program's own
// first instruction reloads A), but the kernel's constant-action emulation gives up on any
// load other than nr and arch, so the filter then runs on every call.
constexpr tp_bpf_insn kCacheDefeat = {BPF_LD | BPF_W | BPF_ABS, 0, 0, 8};

// kernel/seccomp.c seccomp_is_const_allow(): does the kernel's action cache skip this filter
// for (arch, nr)? The same walk as the kernel: only nr/arch loads, K jumps, AND K and returns.
bool kernel_caches(const std::vector<tp_bpf_insn> &prog, uint32_t nr)
{
    uint32_t a = 0;
    for (size_t pc = 0; pc < prog.size(); pc++) {
        const tp_bpf_insn &in = prog[pc];
        switch (in.code) {
        case BPF_LD | BPF_W | BPF_ABS:
            if (in.k == 0)
                a = nr;
            else if (in.k == 4)
                a = TP_ARCH_X86_64;
            else
                return false;
            break;
        case BPF_RET | BPF_K: return in.k == SECCOMP_RET_ALLOW;
        case BPF_JMP | BPF_JA: pc += in.k; break;
        case BPF_JMP | BPF_JEQ | BPF_K:
        case BPF_JMP | BPF_JGE | BPF_K:
        case BPF_JMP | BPF_JGT | BPF_K:
        case BPF_JMP | BPF_JSET | BPF_K: {
            bool taken = false;
            switch (BPF_OP(in.code)) {
            case BPF_JEQ: taken = a == in.k; break;
            case BPF_JGE: taken = a >= in.k; break;
            case BPF_JGT: taken = a > in.k; break;
            default: taken = (a & in.k) != 0; break;
            }
            pc += taken ? in.jt : in.jf;
            break;
        }
        case BPF_ALU | BPF_AND | BPF_K: a &= in.k; break;
        default: return false;
        }
    }
    return false;
}

// ---- the measurement ----

struct Config {
    std::string name;
    std::vector<tp_bpf_insn> prog;  // empty: no filter
};

struct Call {
    const char *name;
    long nr;
    long args[4];  // the rest are 0
};

constexpr int kCalls = 6;

double now_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

double time_call(const Call &c, long iters)
{
    // Arguments 4 and 5 are 0, not whatever the registers held: sendto's address is argument 4.
    for (long i = 0; i < iters / 10; i++)
        syscall(c.nr, c.args[0], c.args[1], c.args[2], c.args[3], 0L, 0L);
    double t0 = now_ns();
    for (long i = 0; i < iters; i++)
        syscall(c.nr, c.args[0], c.args[1], c.args[2], c.args[3], 0L, 0L);
    return (now_ns() - t0) / static_cast<double>(iters);
}

// One round of one configuration: every call timed before the filter is installed and after,
// in the same child, back to back, so the difference is paired against the same moment's load.
struct Sample {
    double before[kCalls];
    double after[kCalls];
};

[[noreturn]] void measure_child(const std::vector<tp_bpf_insn> &prog, const Call (&calls)[kCalls], long iters, int out)
{
    Sample s;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        _exit(2);
    for (int i = 0; i < kCalls; i++)
        s.before[i] = time_call(calls[i], iters);
    if (!prog.empty()) {
        sock_fprog fprog = {static_cast<unsigned short>(prog.size()),
                            reinterpret_cast<sock_filter *>(const_cast<tp_bpf_insn *>(prog.data()))};
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0u, &fprog) != 0)
            _exit(3);
    }
    for (int i = 0; i < kCalls; i++)
        s.after[i] = time_call(calls[i], iters);
    _exit(write(out, &s, sizeof s) == static_cast<ssize_t>(sizeof s) ? 0 : 4);
}

std::optional<Sample> measure(const Config &cfg, const Call (&calls)[kCalls], long iters)
{
    int fds[2];
    if (pipe(fds) != 0)
        return std::nullopt;
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        measure_child(cfg.prog, calls, iters, fds[1]);
    }
    close(fds[1]);
    Sample s;
    ssize_t got = pid > 0 ? read(fds[0], &s, sizeof s) : -1;
    close(fds[0]);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (got != static_cast<ssize_t>(sizeof s) || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return std::nullopt;
    return s;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string instructions_run(const std::vector<tp_bpf_insn> &prog, const Call &c)
{
    if (prog.empty())
        return "0";
    ts::SeccompData d;
    d.nr = static_cast<uint32_t>(c.nr);
    for (int i = 0; i < 4; i++)
        d.args[i] = static_cast<uint64_t>(c.args[i]);
    try {
        return std::to_string(ts::evaluate(prog, d).executed);
    } catch (const std::exception &) {
        return "n/a";  // an opcode the interpreter does not accept (libseccomp's own program)
    }
}

// ---- connect mediation's rules ----

constexpr size_t kConfigCount = 8;
using Rounds = std::vector<std::vector<std::vector<double>>>;
void print_table(const Config (&configs)[kConfigCount], const Call (&calls)[kCalls], const Rounds &after,
                 const Rounds &added);

// The rules as they were: connect -> notify, anything else -> allow.
const std::vector<tp_bpf_insn> kConnectOnly = {
    {BPF_LD | BPF_W | BPF_ABS, 0, 0, 0},
    {BPF_JMP | BPF_JEQ | BPF_K, 0, 1, SYS_connect},
    {BPF_RET | BPF_K, 0, 0, SECCOMP_RET_USER_NOTIF},
    {BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW},
};

std::vector<tp_bpf_insn> mediator_rules()
{
    std::vector<tp_bpf_insn> rules(TP_MEDIATOR_RULES_MAX);
    rules.resize(tp_mediator_rules(0, rules.data()));
    return rules;
}

// A UDP socket connected to a bound one on 127.0.0.1 that never reads: every send succeeds
// (the kernel drops what does not fit), so each timed call does the same work.
int udp_to_sink()
{
    static int sink = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in at = {};
    at.sin_family = AF_INET;
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof at;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sink < 0 || fd < 0 || bind(sink, reinterpret_cast<sockaddr *>(&at), len) != 0 ||
        getsockname(sink, reinterpret_cast<sockaddr *>(&at), &len) != 0 ||
        connect(fd, reinterpret_cast<sockaddr *>(&at), len) != 0)
        throw std::runtime_error(std::string("UDP sink: ") + std::strerror(errno));
    return fd;
}

// Answers every notification on `listener` with "continue" until it hangs up.
void answer_continue(int listener)
{
    for (;;) {
        seccomp_notif n = {};
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &n) != 0) {
            if (errno == EINTR || errno == ENOENT)
                continue;
            return;
        }
        seccomp_notif_resp r = {n.id, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE};
        ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &r);
    }
}

// One round in a child: sendto(udp, 64 bytes, its peer's address) `iters` times bare, then under
// the rules with a listener answered by a thread that started before the filter (so it is not
// filtered itself). Writes {bare, notified} ns per call to `out`.
[[noreturn]] void round_trip_child(int udp, long iters, int out)
{
    static char buf[64];
    sockaddr_storage peer;
    socklen_t len = sizeof peer;
    if (getpeername(udp, reinterpret_cast<sockaddr *>(&peer), &len) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        _exit(2);
    auto timed = [&] {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++)
            syscall(SYS_sendto, udp, buf, 64, 0, &peer, len);
        return (now_ns() - t0) / static_cast<double>(iters);
    };
    double result[2];
    result[0] = timed();
    static int listener = -1;
    std::thread server([] {
        while (__atomic_load_n(&listener, __ATOMIC_ACQUIRE) < 0)
            std::this_thread::yield();
        answer_continue(listener);
    });
    const std::vector<tp_bpf_insn> rules = mediator_rules();
    sock_fprog fprog = {static_cast<unsigned short>(rules.size()),
                        reinterpret_cast<sock_filter *>(const_cast<tp_bpf_insn *>(rules.data()))};
    int fd = static_cast<int>(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog));
    if (fd < 0)
        _exit(3);
    __atomic_store_n(&listener, fd, __ATOMIC_RELEASE);
    result[1] = timed();
    _exit(write(out, result, sizeof result) == static_cast<ssize_t>(sizeof result) ? 0 : 4);
}

void print_round_trip(int udp, long iters, long repeats)
{
    std::vector<double> bare, notified;
    for (long r = 0; r < repeats; r++) {
        int fds[2];
        if (pipe(fds) != 0)
            throw std::runtime_error("pipe");
        std::fflush(nullptr);
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            round_trip_child(udp, iters, fds[1]);
        }
        close(fds[1]);
        double result[2];
        ssize_t got = read(fds[0], result, sizeof result);
        close(fds[0]);
        waitpid(pid, nullptr, 0);
        if (got != static_cast<ssize_t>(sizeof result))
            throw std::runtime_error("the round-trip child failed");
        bare.push_back(result[0]);
        notified.push_back(result[1]);
    }
    std::printf("| sendto with an address, UDP 64 bytes | ns/call (median of %ld rounds of %ld) |\n", repeats, iters);
    std::printf("|---|---:|\n| bare | %.0f |\n| notified, answered \"continue\" by a thread | %.0f |\n", median(bare),
                median(notified));
}

long arg_or(int argc, char **argv, int i, long dflt)
{
    if (argc <= i)
        return dflt;
    long v = std::strtol(argv[i], nullptr, 10);
    return v > 0 ? v : dflt;
}

int run(int argc, char **argv)
{
    long iters = arg_or(argc, argv, 1, 20000);
    long repeats = arg_or(argc, argv, 2, 25);

    char path[] = "/tmp/bench-syscalls.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, std::string(64, 'x').data(), 64) != 64) {
        std::perror("bench_syscalls: temporary file");
        return 1;
    }
    static char buf[64];
    static const char kAbsent[] = "/nonexistent-bench-syscalls";
    const int udp = udp_to_sink();
    static iovec iov = {buf, sizeof buf};
    static msghdr msg = {nullptr, 0, &iov, 1, nullptr, 0, 0};
    static struct stat st;
    const Call calls[kCalls] = {
        {"getppid", SYS_getppid, {0, 0, 0, 0}},
        {"stat (newfstatat)", SYS_newfstatat, {AT_FDCWD, reinterpret_cast<long>(path), reinterpret_cast<long>(&st), 0}},
        {"pread64, 64 bytes", SYS_pread64, {fd, reinterpret_cast<long>(buf), 64, 0}},
        {"openat, absent path", SYS_openat, {AT_FDCWD, reinterpret_cast<long>(kAbsent), O_RDONLY, 0}},
        {"send, UDP 64 bytes", SYS_sendto, {udp, reinterpret_cast<long>(buf), 64, 0}},
        {"sendmsg, UDP 64 bytes", SYS_sendmsg, {udp, reinterpret_cast<long>(&msg), 0, 0}},
    };

    std::vector<tp_bpf_insn> ours = ts::lower_seccomp(ts::Profile({true, false}));
    std::vector<tp_bpf_insn> docker = docker_like_filter();
    auto defeated = [](std::vector<tp_bpf_insn> p) {
        p.insert(p.begin(), kCacheDefeat);
        return p;
    };
    const Config configs[] = {
        {"none", {}},
        {"minimal (load, return), run on every call", {kCacheDefeat, {BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW}}},
        {"TartarOS hardening (binary tree)", ours},
        {"TartarOS hardening, run on every call", defeated(ours)},
        {"container-like (linear)", docker},
        {"container-like, run on every call", defeated(docker)},
        {"mediator rules before (connect)", kConnectOnly},
        {"mediator rules now (connect, bind, sendto+address)", mediator_rules()},
    };
    constexpr size_t kConfigs = std::size(configs);
    static_assert(kConfigs == kConfigCount);

    // after[c][k] and added[c][k]: one entry per round.
    Rounds after(kConfigs, std::vector<std::vector<double>>(kCalls));
    auto added = after;
    for (long r = 0; r < repeats; r++)
        for (size_t c = 0; c < kConfigs; c++) {
            std::optional<Sample> s = measure(configs[c], calls, iters);
            if (!s) {
                std::fprintf(stderr, "bench_syscalls: the child for '%s' failed\n", configs[c].name.c_str());
                unlink(path);
                return 1;
            }
            for (int k = 0; k < kCalls; k++) {
                after[c][k].push_back(s->after[k]);
                added[c][k].push_back(s->after[k] - s->before[k]);
            }
        }
    close(fd);
    unlink(path);

    print_table(configs, calls, after, added);
    std::printf("\n%ld rounds of %ld calls per cell. ns/call: the best round. added ns: the median "
                "over rounds of (with the filter - without it, timed just before in the same child); "
                "for \"none\" both are unfiltered, so it is the noise floor.\n\n",
                repeats, iters);
    print_round_trip(udp, iters / 10, repeats);
    close(udp);
    return 0;
}

void print_table(const Config (&configs)[kConfigCount], const Call (&calls)[kCalls], const Rounds &after,
                 const Rounds &added)
{
    constexpr size_t kConfigs = kConfigCount;
    std::printf(
        "| call | filter | filter length | insns run per call | kernel cache skips it | ns/call | added ns |\n");
    std::printf("|---|---|---:|---:|---|---:|---:|\n");
    for (int k = 0; k < kCalls; k++)
        for (size_t c = 0; c < kConfigs; c++) {
            const Config &cfg = configs[c];
            bool cached = !cfg.prog.empty() && kernel_caches(cfg.prog, static_cast<uint32_t>(calls[k].nr));
            std::printf("| %s | %s | %zu | %s | %s | %.0f | %+.0f |\n", calls[k].name, cfg.name.c_str(),
                        cfg.prog.size(), instructions_run(cfg.prog, calls[k]).c_str(),
                        cfg.prog.empty() ? ""
                            : cached     ? "yes"
                                         : "no",
                        *std::min_element(after[c][k].begin(), after[c][k].end()), median(added[c][k]));
        }
}

}  // namespace

int main(int argc, char **argv)
{
    try {
        return run(argc, argv);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_syscalls: %s\n", e.what());
        return 1;
    }
}
