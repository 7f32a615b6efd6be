/* proxy/confine.cpp — no_new_privs, capabilities, Landlock and seccomp (see confine.h). */
#include "confine.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <netdb.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <vector>

namespace tproxy {
namespace {

// Landlock UAPI up to ABI 6; the distribution's linux/landlock.h may predate it.
struct LlRulesetAttr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};
struct __attribute__((packed)) LlPathBeneath {
    uint64_t allowed_access;
    int32_t parent_fd;
};
struct LlNetPort {
    uint64_t allowed_access;
    uint64_t port;
};
constexpr int kLlRulePathBeneath = 1;
constexpr int kLlRuleNetPort = 2;
constexpr uint32_t kLlCreateVersion = 1u;
constexpr uint64_t kLlFsReadFile = 1ull << 2;
constexpr uint64_t kLlNetBindTcp = 1ull << 0;
constexpr uint64_t kLlNetConnectTcp = 1ull << 1;
constexpr uint64_t kLlScopeAbstractUnix = 1ull << 0;
constexpr uint64_t kLlScopeSignal = 1ull << 1;

// Filesystem rights by ABI: 13 in v1, REFER in v2, TRUNCATE in v3, IOCTL_DEV in v5.
uint64_t fs_rights(int abi)
{
    int bits = abi >= 5 ? 16 : abi >= 3 ? 15 : abi == 2 ? 14 : 13;
    return (uint64_t{1} << bits) - 1;
}

size_t attr_size(int abi)
{
    return abi >= 6 ? sizeof(LlRulesetAttr) : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
}

// Resolution reopens these on every lookup (glibc reloads changed config).
constexpr const char *kResolverFiles[] = {"/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/host.conf",
                                          "/etc/gai.conf"};

// The TCP ports the proxy may connect to: the HTTP proxy's destinations, DNS (when anything
// is looked up), each broker capability's port, each relay's host port, and each exposed port
// (that connect is made on a socket of the sandbox's namespace, but Landlock checks the port
// all the same).
std::vector<unsigned> connect_ports(const Config &c)
{
    std::vector<unsigned> ports;
    if (c.http_proxy())
        ports = c.policy.ports;
    if (c.needs_lookups())
        ports.push_back(53);
    if (c.broker.enabled())
        for (const Capability &cap : c.broker.caps)
            ports.push_back(cap.port);
    ports.insert(ports.end(), c.relay_ports.begin(), c.relay_ports.end());
    for (const Expose &e : c.exposes)
        ports.push_back(e.port);
    return ports;
}

std::string add_resolver_file_rules(int rs)
{
    for (const char *path : kResolverFiles) {
        int fd = open(path, O_PATH | O_CLOEXEC);
        if (fd < 0)
            continue;  // absent: glibc's defaults apply, nothing to read
        LlPathBeneath pb{kLlFsReadFile, fd};
        long rc = syscall(SYS_landlock_add_rule, rs, kLlRulePathBeneath, &pb, 0);
        close(fd);
        if (rc != 0)
            return std::string("landlock_add_rule ") + path + ": " + strerror(errno);
    }
    return "";
}

std::string add_landlock_rules(int rs, int abi, const Config &c)
{
    if (c.needs_lookups())  // a proxy or a broker with names only
        if (std::string err = add_resolver_file_rules(rs); !err.empty())
            return err;
    if (abi < 4)
        return "";
    for (unsigned p : connect_ports(c)) {
        LlNetPort np{kLlNetConnectTcp, p};
        if (syscall(SYS_landlock_add_rule, rs, kLlRuleNetPort, &np, 0) != 0)
            return std::string("landlock_add_rule port: ") + strerror(errno);
    }
    return "";
}

std::string install_landlock(const Config &c, ConfineResult *out)
{
    long abi_l = syscall(SYS_landlock_create_ruleset, nullptr, 0, kLlCreateVersion);
    int abi = abi_l < 0 ? 0 : static_cast<int>(abi_l);
    if (abi == 0) {
        out->warnings.push_back("not enforced: Landlock (the kernel has none)");
        return "";
    }
    if (abi < 4)
        out->warnings.push_back("not enforced: Landlock TCP rules (kernel ABI < 4)");
    LlRulesetAttr attr{fs_rights(abi), 0, 0};
    if (abi >= 4)
        attr.handled_access_net = kLlNetBindTcp | kLlNetConnectTcp;
    if (abi >= 6)
        attr.scoped = kLlScopeAbstractUnix | kLlScopeSignal;
    long rs = syscall(SYS_landlock_create_ruleset, &attr, attr_size(abi), 0);
    if (rs < 0)
        return std::string("landlock_create_ruleset: ") + strerror(errno);
    std::string err = add_landlock_rules(static_cast<int>(rs), abi, c);
    if (err.empty() && syscall(SYS_landlock_restrict_self, rs, 0) != 0)
        err = std::string("landlock_restrict_self: ") + strerror(errno);
    close(static_cast<int>(rs));
    return err;
}

std::string drop_capabilities()
{
    // Capability numbers are dense: the first one this kernel does not know (EINVAL) ends them.
    for (int cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
            if (errno == EINVAL)
                break;
            if (errno != EPERM)
                return std::string("PR_CAPBSET_DROP: ") + strerror(errno);
        }
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (syscall(SYS_capset, &hdr, data) != 0)
        return std::string("capset: ") + strerror(errno);
    return "";
}

// What the event loop, the resolver threads, malloc and glibc's DNS client call.
constexpr const char *kAllowed[] = {
    "read",
    "write",
    "readv",
    "writev",
    "pread64",
    "close",
    "fstat",
    "newfstatat",
    "statx",
    "lseek",
    "openat",
    "mmap",
    "munmap",
    "mprotect",
    "mremap",
    "madvise",
    "brk",
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "sigaltstack",
    "futex",
    "set_robust_list",
    "rseq",
    "sched_yield",
    "sched_getaffinity",
    "exit",
    "exit_group",
    "getpid",
    "gettid",
    "getrandom",
    "signalfd4",
    "eventfd2",
    "clock_gettime",
    "clock_nanosleep",
    "nanosleep",
    "gettimeofday",
    "epoll_create1",
    "epoll_ctl",
    "epoll_wait",
    "epoll_pwait",
    "accept4",
    "connect",
    "getsockopt",
    "setsockopt",
    "getsockname",
    "getpeername",
    "shutdown",
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    "sendmmsg",
    "recvmmsg",
    "poll",
    "ppoll",
    "splice",
    "pipe2",
    "fcntl",
    "uname",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "prlimit64",
};

// Never needed by a proxy; an attempt means it is compromised.
constexpr const char *kKill[] = {
    "execve",
    "execveat",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "bpf",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "userfaultfd",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "open_by_handle_at",
    "name_to_handle_at",
    "fork",
    "vfork",
    "bind",
    "listen",
    "fsopen",
    "fsmount",
    "move_mount",
    "open_tree",
    "mknodat",
    "personality",
    "memfd_create",
};

int add_rules(scmp_filter_ctx ctx)
{
    for (const char *name : kAllowed)
        if (int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, seccomp_syscall_resolve_name(name), 0))
            return rc;
    for (const char *name : kKill)
        if (int rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, seccomp_syscall_resolve_name(name), 0))
            return rc;
    // Threads only: a new process has no business existing (fork is clone without
    // CLONE_THREAD). clone3 hides its flags in memory, so glibc is sent back to clone.
    int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
    rc = rc ? rc
            : seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                               SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    rc = rc ? rc : seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    // Sockets: IPv4/IPv6 for upstreams and DNS; no unix, netlink, packet, vsock, …
    for (int family : {AF_INET, AF_INET6})
        rc = rc ? rc
                : seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
                                   SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(family)));
    // abort() and raise() signal this process only.
    rc = rc ? rc
            : seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
                               SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(getpid())));
    // glibc's DNS client asks how many bytes a datagram has.
    rc = rc ? rc : seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, FIONREAD));
    return rc;
}

std::string install_seccomp()
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    if (!ctx)
        return "seccomp_init failed";
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
    rc = rc ? rc : add_rules(ctx);
    rc = rc ? rc : seccomp_load(ctx);
    seccomp_release(ctx);
    return rc ? std::string("seccomp: ") + strerror(-rc) : "";
}

}  // namespace

ConfineResult confine_self(const Config &c)
{
    ConfineResult out;
    // Loads the hosts NSS modules while dlopen may still read them. The hints are the resolver's
    // (no AI_ADDRCONFIG): without them glibc would also ask the kernel for the host's addresses
    // over netlink, which no later lookup does.
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *res = nullptr;
    if (c.needs_lookups() && getaddrinfo("localhost", nullptr, &hints, &res) == 0)
        freeaddrinfo(res);
    // OpenSSL's certificate checks call localtime(), whose first call opens /etc/localtime;
    // loaded now, later calls only stat it.
    if (c.broker.enabled())
        tzset();
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        out.error = std::string("no_new_privs: ") + strerror(errno);
        return out;
    }
    out.error = drop_capabilities();
    if (out.error.empty())
        out.error = install_landlock(c, &out);
    if (out.error.empty() && c.strict && !out.warnings.empty())
        out.error = out.warnings.front() + " (--strict)";
    if (out.error.empty())
        out.error = install_seccomp();
    return out;
}

}  // namespace tproxy
