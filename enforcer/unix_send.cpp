/* enforcer/unix_send.cpp — sendto() with a destination address, as the mediator makes it
 * (socket_calls.h).
 *
 * A unix datagram sent with an address reaches whatever socket the path names, a host's too
 * (and with it the sender's credentials), so the path must pass the same rule as a connect:
 * a socket on a filesystem the sandbox made. The filter notifies every sendto whose address
 * pointer is not NULL (send() is sendto with NULL: not notified). The mediator copies the
 * address and the payload and sends them itself, on the command's socket object, to the very
 * inode it checked: answering "continue" would let the kernel read both again after another
 * thread rewrote them or swapped the descriptor for a unix one. So every such sendto is made
 * here, UDP's too (the network namespace decides where those go), with MSG_NOSIGNAL (a broken
 * stream answers EPIPE without SIGPIPE). A blocking send to a full receiver holds the
 * mediator, like a blocking connect.
 * sendmsg() and sendmmsg() carry their address in memory a filter cannot read: see mediator.h.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "socket_calls.h"

namespace {

unsigned char g_payload[kMaxMediatedSend];

long send_copy(socket_call &c, uint64_t size, const void *addr, uint32_t len)
{
    const long flags = (long)(c.n->data.args[3] | MSG_NOSIGNAL);
    return rsys(SYS_sendto, c.sock, (long)g_payload, (long)size, flags, (long)addr, len);
}

long send_to_pathname(socket_call &c, uint64_t size, const char *path)
{
    long target = open_sandbox_socket(c, path);
    if (target < 0)
        return target;
    struct sockaddr_un via;
    long ret = send_copy(c, size, &via, address_of_fd(target, &via));
    raw_close((int)target);
    return ret;
}

/* The payload into g_payload: its size, or -errno. A stream takes what fits (a short send);
 * a datagram must fit whole. */
long read_payload(socket_call &c, int type)
{
    uint64_t size = c.n->data.args[2];
    if (size > kMaxMediatedSend && type != SOCK_STREAM)
        return -EMSGSIZE;
    if (size > kMaxMediatedSend)
        size = kMaxMediatedSend;
    struct iovec local = {g_payload, (size_t)size}, from = {(void *)c.n->data.args[1], (size_t)size};
    if (size > 0 && rsys(SYS_process_vm_readv, c.n->pid, (long)&local, 1, (long)&from, 1, 0) != (long)size)
        return -EFAULT;
    /* Read by pid: still the caller's memory only if the notification is still pending. */
    if (rsys(SYS_ioctl, c.listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_ID_VALID, (long)&c.n->id) != 0)
        return -ESRCH;
    return (long)size;
}

}  // namespace

long mediated_sendto(socket_call &c, const unsigned char *addr, uint32_t len)
{
    const int domain = socket_option(c.sock, SO_DOMAIN);
    const int type = socket_option(c.sock, SO_TYPE);
    char path[sizeof(sockaddr_un::sun_path) + 1];
    const int named = unix_pathname(domain, addr, len, path);
    if (named < 0)
        return named;
    if (!g_socket_view.private_netns && unix_abstract(domain, addr, len)) {
        c.refusal = "an abstract socket, and the sandbox has no network namespace of its own";
        return -EPERM;  /* as Landlock's abstract-socket scope would answer */
    }
    if (!g_socket_view.private_netns && (domain == AF_INET || domain == AF_INET6) && type == SOCK_STREAM) {
        c.refusal = "TCP, and the sandbox has no network namespace of its own";
        return -EACCES;  /* a TCP sendto with an address connects (TCP Fast Open) */
    }
    const long size = read_payload(c, type);
    if (size < 0)
        return size;
    if (named)
        return send_to_pathname(c, (uint64_t)size, path);
    return send_copy(c, (uint64_t)size, addr, len);
}
