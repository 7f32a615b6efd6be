/* enforcer/send_message.cpp — one message of a notified send (send_calls.h, send_job.h): read
 * from the caller's memory once, its address checked, its descriptors made the mediator's, and
 * sent a piece at a time. Raw calls only.
 *
 * The message's header, address and control data are read once, when it becomes the current
 * one; its bytes are read just before each sendmsg() (a stream's go out up to
 * kMaxMediatedSend at a time), from the buffers the caller named, while the call is pending:
 * a thread changing them meanwhile changes only its own data, as it could without the
 * sandbox. The address is the checked one: a pathname becomes /proc/self/fd/N of the inode
 * open_sandbox_socket() approved.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>

#include "deny_events.h"
#include "send_job.h"

namespace {

/* struct msghdr as the caller's memory holds it (x86_64). */
struct remote_msghdr {
    uint64_t name;
    uint32_t name_len, pad0;
    uint64_t iov, iovlen;
    uint64_t control, control_len;
    int32_t flags, pad1;
};
static_assert(sizeof(remote_msghdr) == 56, "struct msghdr");
constexpr uint64_t kMmsghdrSize = 64; /* struct mmsghdr: a msghdr and msg_len */
constexpr uint32_t kMsgZerocopy = 0x4000000;

struct remote_cmsghdr {
    uint64_t len;
    int32_t level, type;
};
constexpr uint64_t kCmsgHeader = sizeof(remote_cmsghdr);

unsigned char g_payload[kMaxMediatedSend];
struct iovec g_iov[kMaxIov];    /* the caller's iovec array */
struct iovec g_remote[kMaxIov]; /* the part of it still to send */
unsigned char g_control[kMaxControl];

long read_remote(const send_job &j, void *local, uint64_t remote, uint64_t len)
{
    if (len == 0)
        return 0;
    struct iovec to = {local, (size_t)len}, from = {(void *)remote, (size_t)len};
    long got = rsys(SYS_process_vm_readv, j.n.pid, (long)&to, 1, (long)&from, 1, 0);
    return got == (long)len ? 0 : -EFAULT;
}

bool still_pending(const send_job &j)
{
    return rsys(SYS_ioctl, j.listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_ID_VALID, (long)&j.n.id) == 0;
}

uint64_t align8(uint64_t n)
{
    return (n + 7) & ~7ull;
}

/* The caller's descriptors in one SCM_RIGHTS block (`count` ints at `data`) become the
 * mediator's, in place. */
long take_rights(send_job &j, unsigned char *data, uint64_t count)
{
    for (uint64_t i = 0; i < count; i++) {
        if (j.rights_count == kMaxRights)
            return -EINVAL; /* as the kernel answers beyond SCM_MAX_FD */
        int fd;
        memcpy(&fd, data + 4 * i, sizeof fd);
        long own = rsys(SYS_pidfd_getfd, j.pidfd, fd, 0);
        if (own < 0)
            return -EBADF;
        j.rights[j.rights_count++] = (int)own;
        fd = (int)own;
        memcpy(data + 4 * i, &fd, sizeof fd);
    }
    return 0;
}

/* The control data in g_control (`len` bytes) into j.control: SCM_RIGHTS with the mediator's
 * descriptors, SCM_CREDENTIALS dropped (they would have to name the mediator), the rest as
 * given. Malformed headers answer EINVAL, as the kernel's walk does. */
long translate_control(send_job &j, uint64_t len)
{
    uint64_t at = 0, out = 0;
    while (len - at >= kCmsgHeader) {
        remote_cmsghdr h;
        memcpy(&h, g_control + at, sizeof h);
        if (h.len < kCmsgHeader || h.len > len - at)
            return -EINVAL;
        const bool rights = h.level == SOL_SOCKET && h.type == SCM_RIGHTS;
        const bool credentials = h.level == SOL_SOCKET && h.type == SCM_CREDENTIALS;
        if (!credentials) {
            memcpy(j.control + out, g_control + at, h.len);
            long ret = rights ? take_rights(j, j.control + out + kCmsgHeader, (h.len - kCmsgHeader) / 4) : 0;
            if (ret < 0)
                return ret;
            out += align8(h.len); /* out <= at: j.control has room for the last one's padding */
        }
        if (align8(h.len) >= len - at)
            break;
        at += align8(h.len);
    }
    j.control_len = (uint32_t)out;
    return 0;
}

/* Reads the header of sendmsg()'s message, or message j.done of sendmmsg(): its buffers and
 * control data into `j`, its address into `given`. */
long read_header(send_job &j, unsigned char *given, uint32_t *given_len)
{
    const bool many = j.n.data.nr == SYS_sendmmsg;
    remote_msghdr h;
    long ret = read_remote(j, &h, j.n.data.args[1] + (many ? j.done * kMmsghdrSize : 0), sizeof h);
    if (ret < 0)
        return ret;
    if (h.name != 0 && h.name_len > sizeof j.name)
        return -EINVAL;
    *given_len = h.name != 0 ? h.name_len : 0;
    if ((ret = read_remote(j, given, h.name, *given_len)) < 0)
        return ret;
    if (h.iovlen > kMaxIov)
        return -EMSGSIZE;
    j.iov = h.iov;
    j.iovlen = (uint32_t)h.iovlen;
    if ((ret = read_remote(j, g_iov, h.iov, h.iovlen * sizeof(struct iovec))) < 0)
        return ret;
    for (uint32_t i = 0; i < j.iovlen; i++) {
        if (g_iov[i].iov_len > (uint64_t)INT64_MAX - j.size)
            return -EINVAL;
        j.size += g_iov[i].iov_len;
    }
    if (h.control_len > kMaxControl)
        return -ENOBUFS; /* as the kernel answers beyond its option memory */
    if ((ret = read_remote(j, g_control, h.control, h.control_len)) < 0)
        return ret;
    return translate_control(j, h.control_len);
}

/* The address the command gave, checked as connect() checks it (socket_calls.h), into
 * j.name; 0 or -errno, with c.refusal set when the mediator refuses on its own. */
long check_address(send_job &j, socket_call &c, const unsigned char *given, uint32_t len)
{
    char path[sizeof(sockaddr_un::sun_path) + 1];
    const int named = unix_pathname(j.domain, given, len, path);
    if (named < 0)
        return named;
    if (named) {
        long target = open_sandbox_socket(c, path);
        if (target < 0)
            return target;
        j.target = (int)target;
        j.name_len = address_of_fd(target, j.name);
        return 0;
    }
    if (!g_socket_view.private_netns && unix_abstract(j.domain, given, len)) {
        c.refusal = "an abstract socket, and the sandbox has no network namespace of its own";
        return -EPERM; /* as Landlock's abstract-socket scope would answer */
    }
    const bool inet = j.domain == AF_INET || j.domain == AF_INET6;
    if (!g_socket_view.private_netns && inet && j.type == SOCK_STREAM) {
        c.refusal = "TCP, and the sandbox has no network namespace of its own";
        return -EACCES; /* a TCP send with an address connects (TCP Fast Open) */
    }
    memcpy(j.name, given, len);
    j.name_len = len;
    return 0;
}

/* g_remote: the caller's buffers from byte j.sent on, `want` bytes of them; their number. */
uint32_t remaining_buffers(const send_job &j, uint64_t want)
{
    if (j.iovlen == 0) {
        g_remote[0] = {(void *)(j.iov + j.sent), (size_t)want};
        return 1;
    }
    uint64_t skip = j.sent;
    uint32_t count = 0;
    for (uint32_t i = 0; i < j.iovlen && want > 0; i++) {
        uint64_t len = g_iov[i].iov_len;
        if (skip >= len) {
            skip -= len;
            continue;
        }
        uint64_t take = len - skip < want ? len - skip : want;
        g_remote[count++] = {(char *)g_iov[i].iov_base + skip, (size_t)take};
        want -= take;
        skip = 0;
    }
    return count;
}

}  // namespace

uint64_t monotonic_ns()
{
    struct timespec now = {};
    rsys(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

void release_message(send_job &j)
{
    if (j.target >= 0)
        raw_close(j.target);
    j.target = -1;
    for (uint32_t i = 0; i < j.rights_count; i++)
        raw_close(j.rights[i]);
    j.rights_count = 0;
    j.control_len = 0;
}

long prepare_message(send_job &j)
{
    release_message(j);
    j.size = j.sent = 0;
    j.iov = 0;
    j.iovlen = 0;
    j.name_len = 0;
    j.timer = false;
    unsigned char given[sizeof j.name] = {};
    uint32_t given_len = 0;
    long ret = 0;
    if (j.n.data.nr == SYS_sendto) {
        j.iov = j.n.data.args[1];
        j.size = j.n.data.args[2];
        given_len = (uint32_t)j.n.data.args[5];
        ret = j.n.data.args[5] > sizeof given ? -EINVAL : read_remote(j, given, j.n.data.args[4], given_len);
    } else {
        ret = read_header(j, given, &given_len);
    }
    if (ret == 0 && j.type != SOCK_STREAM && j.size > kMaxMediatedSend)
        ret = -EMSGSIZE; /* a datagram goes whole or not at all */
    socket_call c = {j.listener, &j.n, j.sock, nullptr};
    if (ret == 0)
        ret = check_address(j, c, given, given_len);
    if (c.refusal != nullptr && g_socket_view.record_refusals)
        deny_event_connect(j.listener, j.n, (int)-ret, c.refusal, given, given_len);
    j.iov_fresh = true;
    return ret; /* what was read is used once send_once() has seen the call still pending */
}

long send_once(send_job &j)
{
    const uint64_t left = j.size - j.sent;
    const uint64_t want = left < kMaxMediatedSend ? left : kMaxMediatedSend;
    /* The buffers as the caller names them now; prepare_message() just read them. */
    if (j.iovlen > 0 && !j.iov_fresh && read_remote(j, g_iov, j.iov, j.iovlen * sizeof(struct iovec)) < 0)
        return -EFAULT;
    j.iov_fresh = false;
    const uint32_t buffers = remaining_buffers(j, want);
    struct iovec local = {g_payload, (size_t)want};
    if (want > 0 && rsys(SYS_process_vm_readv, j.n.pid, (long)&local, 1, (long)g_remote, buffers, 0) != (long)want)
        return -EFAULT;
    /* Read by pid: the caller's memory only while its call is pending (this also covers what
     * prepare_message() read). */
    if (!still_pending(j))
        return -ESRCH;
    uint32_t flags = (j.flags & ~kMsgZerocopy) | MSG_DONTWAIT | MSG_NOSIGNAL;
    if (want < left)
        flags &= ~(uint32_t)MSG_OOB; /* the urgent byte is the message's last */
    struct msghdr m = {};
    m.msg_name = j.name_len > 0 ? j.name : nullptr;
    m.msg_namelen = j.name_len;
    m.msg_iov = &local;
    m.msg_iovlen = 1;
    m.msg_control = j.control_len > 0 ? j.control : nullptr;
    m.msg_controllen = j.control_len;
    long sent = rsys(SYS_sendmsg, j.sock, (long)&m, flags);
    if (sent >= 0 && j.control_len > 0) {
        /* The descriptors are in flight now; the message's first bytes carried them. */
        for (uint32_t i = 0; i < j.rights_count; i++)
            raw_close(j.rights[i]);
        j.rights_count = 0;
        j.control_len = 0;
    }
    return sent;
}
