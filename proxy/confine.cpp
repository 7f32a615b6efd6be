/* proxy/confine.cpp — no_new_privs, capabilities, Landlock and seccomp (see confine.h). */
#include "confine.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netdb.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <iterator>
#include <vector>

#include "proxy_filter_bpf.h"
#include "proxy_filter_rules.h"

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

// The filter proxy_filter_rules.h describes, exported at build time
// (proxy_filter_gen.cpp), this process's pid written into its tgkill rule: libseccomp
// took 0.4-0.7 ms to build and load it at every start, on the start-up's critical path.
std::string install_seccomp()
{
    std::vector<sock_filter> insns(std::begin(kProxyFilter), std::end(kProxyFilter));
    proxy_filter_set_pid(insns.data(), insns.size(), static_cast<uint32_t>(getpid()));
    sock_fprog prog{static_cast<unsigned short>(insns.size()), insns.data()};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0)
        return std::string("seccomp: ") + strerror(errno);
    return "";
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
