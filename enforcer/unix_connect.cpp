/* enforcer/unix_connect.cpp — connect(), as the mediator makes it (socket_calls.h).
 *
 * A unix stream or seqpacket connect is made on a socket of the mediator's own, of the same
 * type and protocol, whose peer is checked before the command sees it: only then is it
 * installed over the command's descriptor (SECCOMP_IOCTL_NOTIF_ADDFD with SETFD). Connected
 * in place and checked afterwards, the command's own socket would already reach the peer, and
 * a second thread spinning on send() on it could deliver bytes to a host service before the
 * check shut it down. Not with SECCOMP_ADDFD_FLAG_SEND: the call would then return the
 * descriptor's number, and connect() must return 0. With WAIT_KILLABLE_RECV (mediator.cpp) only
 * a fatal signal can end the call between the install and the answer.
 * What the replacement cannot carry over, it keeps: O_NONBLOCK, close-on-exec (from /proc), the
 * options below. A socket already bound (an explicit local address) cannot be replaced without
 * losing that address; it is connected in place and checked afterwards as before: its target
 * passed the private-mount rule already, so only a host process that planted a socket inside
 * the sandbox's own /tmp could see those bytes.
 * A datagram connect names no peer to wait for: the address is the check, the command's own
 * socket is connected. TCP and UDP are connected in place as given: there is nothing to check
 * after the connect (the network namespace decides what is reachable), so no window to race.
 */
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "socket_calls.h"

namespace {

/* Whether the connected `sock`'s peer is a process of the sandbox. Outside its PID namespace
 * a process has no pid here, so SO_PEERCRED reads 0. Without that namespace every pid shows:
 * the private-mount rule (or, for an abstract socket, the network namespace) decides alone. */
bool peer_inside(int sock)
{
    if (!g_socket_view.private_pids)
        return true;
    struct ucred peer = {};
    socklen_t len = sizeof peer;
    return rsys(SYS_getsockopt, sock, SOL_SOCKET, SO_PEERCRED, (long)&peer, (long)&len) == 0 && peer.pid != 0;
}

/* A socket that already has a local address (bound or autobound). */
bool has_local_address(int sock)
{
    struct sockaddr_storage local;
    socklen_t len = sizeof local;
    return rsys(SYS_getsockname, sock, (long)&local, (long)&len) == 0 && len > sizeof(sa_family_t);
}

long connect_in_place(socket_call &c, const void *addr, uint32_t len)
{
    long ret = rsys(SYS_connect, c.sock, (long)addr, len);
    if (ret == 0 && !peer_inside(c.sock)) {
        rsys(SYS_shutdown, c.sock, SHUT_RDWR);
        c.refusal = "the socket's listener is not a process of the sandbox";
        ret = -EACCES;
    }
    return ret;
}

/* Connects a socket of the mediator's own and installs it over the command's descriptor once
 * its peer is known to be the sandbox's. */
long connect_and_install(socket_call &c, const void *addr, uint32_t len)
{
    long own = replacement_socket(c);
    if (own < 0)
        return own;
    long ret = rsys(SYS_connect, own, (long)addr, len);
    if (ret == 0 && !peer_inside((int)own)) {
        c.refusal = "the socket's listener is not a process of the sandbox";
        ret = -EACCES; /* the peer sees a connection closed at once, never a byte */
    }
    if (ret == 0)
        ret = install_over_command(c, own);
    raw_close((int)own);
    return ret;
}

/* A unix connect to `addr` (a checked pathname's /proc/self/fd address, or an abstract one). */
long connect_unix(socket_call &c, const void *addr, uint32_t len)
{
    const int type = socket_option(c.sock, SO_TYPE);
    if (type == SOCK_DGRAM)
        return rsys(SYS_connect, c.sock, (long)addr, len);
    /* What the kernel answers for a socket that is not a fresh client; the replacement would
     * hide it. */
    struct sockaddr_storage peer;
    socklen_t peer_len = sizeof peer;
    if (rsys(SYS_getpeername, c.sock, (long)&peer, (long)&peer_len) == 0)
        return -EISCONN;
    if (socket_option(c.sock, SO_ACCEPTCONN) == 1)
        return -EINVAL;
    if (has_local_address(c.sock))
        return connect_in_place(c, addr, len);
    return connect_and_install(c, addr, len);
}

long connect_pathname(socket_call &c, const char *path)
{
    long target = open_sandbox_socket(c, path);
    if (target < 0)
        return target;
    struct sockaddr_un via;
    long ret = connect_unix(c, &via, address_of_fd(target, &via));
    raw_close((int)target);
    return ret;
}

}  // namespace

long mediated_connect(socket_call &c, const unsigned char *addr, uint32_t len)
{
    const int domain = socket_option(c.sock, SO_DOMAIN);
    char path[sizeof(sockaddr_un::sun_path) + 1];
    const int named = unix_pathname(domain, addr, len, path);
    if (named < 0)
        return named;
    if (named)
        return connect_pathname(c, path);
    if (unix_abstract(domain, addr, len)) {
        if (!g_socket_view.private_netns) {
            c.refusal = "an abstract socket, and the sandbox has no network namespace of its own";
            return -EPERM; /* as Landlock's abstract-socket scope would answer */
        }
        return connect_unix(c, addr, len);
    }
    if (!g_socket_view.private_netns && (domain == AF_INET || domain == AF_INET6)) {
        c.refusal = "TCP, and the sandbox has no network namespace of its own";
        return -EACCES; /* as Landlock's TCP layer would answer (landlock.h) */
    }
    return rsys(SYS_connect, c.sock, (long)addr, len);
}
