/* enforcer/socket_shared.cpp — what the mediator's socket calls share (socket_calls.h): a unix
 * address's path, its resolution as the command would make it, the private-mount rule, what
 * /proc tells of the command, and the replacement of its socket by one of the mediator's.
 * Raw calls only. */
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include "socket_calls.h"
#include "text_append.h"

socket_view g_socket_view;

namespace {

constexpr unsigned long kStRdonly = 1; /* statfs f_flags: ST_RDONLY */
char g_proc_text[4096];                /* one /proc file at a time */

/* /proc/PID/REST (REST may hold a number), read into g_proc_text; its length, or -1. */
long read_proc(uint32_t pid, const char *rest, long number)
{
    if (!g_socket_view.proc_shows_sandbox)
        return -1;
    char path[64];
    size_t at = 0;
    append_text(path, &at, "/proc/");
    append_number(path, &at, pid);
    append_text(path, &at, rest);
    if (number >= 0)
        append_number(path, &at, (unsigned long)number);
    path[at] = '\0';
    long fd = rsys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    long n = raw_read((int)fd, g_proc_text, sizeof g_proc_text - 1);
    raw_close((int)fd);
    if (n < 0)
        return -1;
    g_proc_text[n] = '\0';
    return n;
}

/* The octal number after `key` in g_proc_text; `fallback` when absent. */
unsigned long octal_after(const char *key, unsigned long fallback)
{
    const char *at = strstr(g_proc_text, key); /* strstr touches nothing but its arguments */
    if (at == nullptr)
        return fallback;
    at += strlen(key);
    while (*at == ' ' || *at == '\t')
        at++;
    unsigned long v = 0;
    for (; *at >= '0' && *at <= '7'; at++)
        v = v * 8 + (unsigned long)(*at - '0');
    return v;
}

/* Options a program sets before connect or bind, which a replacement socket must keep. */
constexpr int kPassPidfd = 76; /* SO_PASSPIDFD, Linux 6.5 */
constexpr int kIntOptions[] = {SO_PASSCRED, SO_PASSSEC, kPassPidfd, SO_SNDBUF, SO_RCVBUF, SO_PRIORITY};
constexpr int kTimeOptions[] = {SO_RCVTIMEO, SO_SNDTIMEO};

void copy_options(int from, int to)
{
    for (int option : kIntOptions) {
        int want = socket_option(from, option), have = socket_option(to, option);
        if (want < 0 || want == have)
            continue;
        /* The kernel doubles a buffer size it is given and reports the doubled value. */
        if (option == SO_SNDBUF || option == SO_RCVBUF)
            want /= 2;
        rsys(SYS_setsockopt, to, SOL_SOCKET, option, (long)&want, sizeof want);
    }
    for (int option : kTimeOptions) {
        long tv[2] = {0, 0};
        socklen_t len = sizeof tv;
        if (rsys(SYS_getsockopt, from, SOL_SOCKET, option, (long)tv, (long)&len) == 0 && (tv[0] | tv[1]) != 0)
            rsys(SYS_setsockopt, to, SOL_SOCKET, option, (long)tv, sizeof tv);
    }
}

/* seccomp_notif_addfd (Linux 5.9) */
struct notif_addfd {
    uint64_t id;
    uint32_t flags;
    uint32_t srcfd;
    uint32_t newfd;
    uint32_t newfd_flags;
};
constexpr unsigned long kIoctlNotifAddfd = 0x40182103ul; /* _IOW('!', 3, struct seccomp_notif_addfd) */
constexpr uint32_t kAddfdFlagSetfd = 1u;

/* sock_diag for unix sockets (linux/netlink.h, linux/sock_diag.h, linux/unix_diag.h). */
constexpr int kNetlinkSockDiag = 4;
constexpr uint16_t kSockDiagByFamily = 20, kNlmFRequest = 1, kNlmsgError = 2;
constexpr uint32_t kUdiagShowVfs = 2;
constexpr uint16_t kUnixDiagVfs = 1;
struct nl_header {
    uint32_t len;
    uint16_t type, flags;
    uint32_t seq, pid;
};
struct unix_diag_req {
    uint8_t family, protocol;
    uint16_t pad;
    uint32_t states, ino, show, cookie[2];
};
struct diag_request {
    nl_header h;
    unix_diag_req r;
};
constexpr size_t kDiagMsgSize = 16; /* struct unix_diag_msg */

/* The kernel-encoded device of UNIX_DIAG_VFS in a reply; false when absent. */
bool vfs_dev_of(const unsigned char *reply, size_t size, uint32_t *dev)
{
    nl_header h;
    if (size < sizeof h)
        return false;
    memcpy(&h, reply, sizeof h);
    if (h.type == kNlmsgError || h.len > size || h.len < sizeof h + kDiagMsgSize)
        return false;
    for (size_t at = sizeof h + kDiagMsgSize; at + 4 <= h.len;) {
        uint16_t attr[2];
        memcpy(attr, reply + at, sizeof attr);
        if (attr[0] < 4 || at + attr[0] > h.len)
            return false;
        if (attr[1] == kUnixDiagVfs && attr[0] >= 12) {
            memcpy(dev, reply + at + 8, sizeof *dev); /* {udiag_vfs_ino, udiag_vfs_dev} */
            return true;
        }
        at += (attr[0] + 3u) & ~3u;
    }
    return false;
}

}  // namespace

int unix_pathname(int domain, const unsigned char *addr, uint32_t len, char *path)
{
    const struct sockaddr_un *un = (const struct sockaddr_un *)addr;
    if (domain != AF_UNIX || len <= offsetof(struct sockaddr_un, sun_path) || un->sun_family != AF_UNIX ||
        un->sun_path[0] == '\0')
        return 0;
    if (len > sizeof(struct sockaddr_un))
        return -EINVAL; /* as the kernel answers */
    size_t n = len - offsetof(struct sockaddr_un, sun_path);
    memcpy(path, un->sun_path, n); /* memcpy touches nothing but its arguments */
    path[n] = '\0';
    return 1;
}

bool unix_abstract(int domain, const unsigned char *addr, uint32_t len)
{
    const struct sockaddr_un *un = (const struct sockaddr_un *)addr;
    return domain == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path) && un->sun_family == AF_UNIX &&
        un->sun_path[0] == '\0';
}

int socket_option(int sock, int option)
{
    int value = -1;
    socklen_t len = sizeof value;
    if (rsys(SYS_getsockopt, sock, SOL_SOCKET, option, (long)&value, (long)&len) != 0)
        return -1;
    return value;
}

long caller_pidfd(uint32_t tid)
{
    constexpr unsigned kPidfdThread = O_EXCL;
    long pidfd = rsys(SYS_pidfd_open, tid, kPidfdThread);
    if (pidfd != -EINVAL)
        return pidfd;
    pidfd = rsys(SYS_pidfd_open, tid, 0);
    if (pidfd != -ENOENT)
        return pidfd; /* a leader, or gone */
    if (read_proc(tid, "/status", -1) < 0)
        return -ESRCH;
    const char *at = strstr(g_proc_text, "\nTgid:"); /* strstr touches nothing but its arguments */
    unsigned long tgid = 0;
    for (at = at == nullptr ? "" : at + 6; *at == ' ' || *at == '\t'; at++) {
    }
    for (; *at >= '0' && *at <= '9'; at++)
        tgid = tgid * 10 + (unsigned long)(*at - '0');
    return tgid == 0 ? -ESRCH : rsys(SYS_pidfd_open, (long)tgid, 0);
}

long open_as_command(socket_call &c, long dirfd, const char *path, bool directory)
{
    long cwd = -1;
    if (dirfd == AT_FDCWD && path[0] != '/') {
        char where[48];
        size_t at = 0;
        append_text(where, &at, "/proc/");
        append_number(where, &at, c.n->pid);
        append_text(where, &at, "/cwd");
        where[at] = '\0';
        if (!g_socket_view.proc_shows_sandbox) {
            c.refusal = "a relative socket path, and /proc does not show the sandbox's processes";
            return -EACCES; /* /proc numbers processes another way: fail closed */
        }
        if ((cwd = rsys(SYS_openat, AT_FDCWD, (long)where, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
            return cwd;
        dirfd = cwd;
    }
    /* Magic links (/proc/self/fd/N, /dev/fd/N) would name the mediator's descriptors here. */
    kuapi::open_how how = {(uint64_t)(O_PATH | O_CLOEXEC | (directory ? O_DIRECTORY : 0)), 0,
                           kuapi::RESOLVE_NO_MAGICLINKS};
    long fd = rsys(SYS_openat2, dirfd, (long)path, (long)&how, sizeof how);
    if (cwd >= 0)
        raw_close((int)cwd);
    return fd;
}

long require_private_mount(socket_call &c, long fd, bool binding)
{
    struct stat st;
    struct statfs fs;
    long ret = rsys(SYS_fstat, fd, (long)&st);
    if (ret == 0)
        ret = rsys(SYS_fstatfs, fd, (long)&fs);
    if (ret != 0)
        return ret;
    if ((fs.f_flags & kStRdonly) && binding)
        return -EROFS;
    if (fs.f_flags & kStRdonly) {
        c.refusal = "the socket is on a mount the sandbox cannot write: a host socket";
        return -EACCES;
    }
    for (uint32_t i = 0; i < g_socket_view.private_dev_count; i++)
        if (st.st_dev == g_socket_view.private_devs[i])
            return 0;
    c.refusal = "a unix socket outside the private /tmp, /dev/shm and private_dirs: the host can reach it there";
    return -EACCES;
}

long open_sandbox_socket(socket_call &c, const char *path)
{
    long target = open_as_command(c, AT_FDCWD, path, false);
    if (target < 0)
        return target;
    struct stat st;
    long ret = rsys(SYS_fstat, target, (long)&st);
    if (ret == 0 && !S_ISSOCK(st.st_mode))
        ret = -ECONNREFUSED;
    if (ret == 0)
        ret = require_private_mount(c, target, false);
    if (ret == 0)
        return target;
    raw_close((int)target);
    return ret;
}

uint32_t address_of_fd(long fd, void *sockaddr_un_out)
{
    struct sockaddr_un *via = (struct sockaddr_un *)sockaddr_un_out;
    memset(via, 0, sizeof *via);
    via->sun_family = AF_UNIX;
    size_t at = 0;
    append_text(via->sun_path, &at, "/proc/self/fd/");
    append_number(via->sun_path, &at, (unsigned long)fd);
    return (uint32_t)(offsetof(struct sockaddr_un, sun_path) + at + 1);
}

unsigned command_umask(uint32_t pid)
{
    return read_proc(pid, "/status", -1) < 0 ? 022 : (unsigned)octal_after("Umask:", 022) & 0777;
}

long replacement_socket(socket_call &c)
{
    const long status = rsys(SYS_fcntl, c.sock, F_GETFL);
    const int type = socket_option(c.sock, SO_TYPE);
    const int protocol = socket_option(c.sock, SO_PROTOCOL);
    const int nonblock = status >= 0 && (status & O_NONBLOCK) ? SOCK_NONBLOCK : 0;
    long own =
        rsys(SYS_socket, socket_option(c.sock, SO_DOMAIN), type | SOCK_CLOEXEC | nonblock, protocol < 0 ? 0 : protocol);
    if (own >= 0)
        copy_options(c.sock, (int)own);
    return own;
}

long install_over_command(socket_call &c, long own)
{
    const int fd = (int)c.n->data.args[0];
    const bool cloexec = read_proc(c.n->pid, "/fdinfo/", fd) >= 0 && (octal_after("flags:", 0) & O_CLOEXEC) != 0;
    notif_addfd add = {c.n->id, kAddfdFlagSetfd, (uint32_t)own, (uint32_t)fd, cloexec ? (uint32_t)O_CLOEXEC : 0};
    long installed = rsys(SYS_ioctl, c.listener, (long)kIoctlNotifAddfd, (long)&add);
    return installed < 0 ? installed : 0;
}

bool bound_on_private_fs(int sock)
{
    struct stat st;
    if (rsys(SYS_fstat, sock, (long)&st) != 0)
        return false;
    long nl = rsys(SYS_socket, AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, kNetlinkSockDiag);
    if (nl < 0)
        return false;
    diag_request req = {};
    req.h = {sizeof req, kSockDiagByFamily, kNlmFRequest, 1, 0};
    req.r = {AF_UNIX, 0, 0, ~0u, (uint32_t)st.st_ino, kUdiagShowVfs, {~0u, ~0u}};
    struct {
        sa_family_t family;
        uint16_t pad;
        uint32_t pid, groups;
    } kernel = {AF_NETLINK, 0, 0, 0}; /* struct sockaddr_nl */
    long sent = rsys(SYS_sendto, nl, (long)&req, sizeof req, 0, (long)&kernel, sizeof kernel);
    alignas(8) unsigned char reply[512];
    long got = sent == (long)sizeof req ? rsys(SYS_recvfrom, nl, (long)reply, sizeof reply, 0, 0, 0) : -1;
    raw_close((int)nl);
    uint32_t dev = 0;
    if (got <= 0 || !vfs_dev_of(reply, (size_t)got, &dev))
        return false;
    for (uint32_t i = 0; i < g_socket_view.private_dev_count; i++)
        if (major(g_socket_view.private_devs[i]) == (dev >> 20) &&
            minor(g_socket_view.private_devs[i]) == (dev & 0xfffff))
            return true;
    return false;
}
