/* enforcer/unix_bind.cpp — bind(), as the mediator makes it (socket_calls.h).
 *
 * A pathname bind creates the socket's name; a name in a writable root or anywhere the host
 * sees could be connected to, and trusted, by a host client (git's fsmonitor client, an
 * editor). So a pathname is bound only in a directory on a filesystem the sandbox made (the
 * private /tmp, /dev/shm): elsewhere EACCES, recorded in the effect log.
 * The name the socket gets is the one the command gave (getsockname() and every peer show
 * it; multiprocessing hands it on), so the bind must look the path up itself, and a thread
 * may swap a directory on it between the check and the bind. The check is therefore made
 * twice: on the directory, resolved as the command would, before (a clear refusal, nothing
 * created); and on the inode the bind created, as the kernel records it (sock_diag), after.
 * The bind is made on a socket of the mediator's own, installed over the command's descriptor
 * only when both hold: a socket bound elsewhere by a race is closed, and its name, left
 * behind, answers ECONNREFUSED. The mediator looks the path up from the command's working
 * directory with the command's umask. A socket that already has a peer or a name is not
 * replaced: EINVAL, as the kernel answers a second bind (a bind after connect() is refused).
 * Every other address is bound as given, on the command's socket object: a descriptor swapped
 * between a check and a kernel-side retry would dodge the rule. Abstract names live in the
 * network namespace; without one a TCP bind is refused, as Landlock's TCP layer would.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "socket_calls.h"

namespace {

/* Refuses unless the directory `path` names lies on a filesystem the sandbox made. */
long check_directory(socket_call &c, const char *path)
{
    char dir_path[sizeof(sockaddr_un::sun_path) + 1];
    const char *slash = strrchr(path, '/'); /* strrchr touches nothing but its arguments */
    const size_t n = slash == nullptr ? 0 : slash == path ? 1 : (size_t)(slash - path);
    memcpy(dir_path, n > 0 ? path : ".", n > 0 ? n : 1);
    dir_path[n > 0 ? n : 1] = '\0';
    long dir = open_as_command(c, AT_FDCWD, dir_path, true);
    if (dir < 0)
        return dir;
    long ret = require_private_mount(c, dir, true);
    raw_close((int)dir);
    return ret;
}

/* A socket that already has a peer or a local address. */
bool in_use(int sock)
{
    struct sockaddr_storage name;
    socklen_t len = sizeof name;
    if (rsys(SYS_getpeername, sock, (long)&name, (long)&len) == 0)
        return true;
    len = sizeof name;
    return rsys(SYS_getsockname, sock, (long)&name, (long)&len) == 0 && len > sizeof(sa_family_t);
}

/* Binds `own` to the command's address `path`, looked up from its working directory. */
long bind_as_command(socket_call &c, long own, const char *path, const unsigned char *addr, uint32_t len)
{
    if (path[0] != '/') {
        long cwd = open_as_command(c, AT_FDCWD, ".", true);
        long changed = cwd < 0 ? cwd : rsys(SYS_fchdir, cwd);
        if (cwd >= 0)
            raw_close((int)cwd);
        if (changed != 0)
            return changed;
    }
    long ret;
    const long mask = rsys(SYS_umask, command_umask(c.n->pid));
    ret = rsys(SYS_bind, own, (long)addr, len);
    rsys(SYS_umask, mask);
    rsys(SYS_chdir, (long)"/");
    return ret;
}

long bind_pathname(socket_call &c, const char *path, const unsigned char *addr, uint32_t len)
{
    long ret = check_directory(c, path);
    if (ret != 0)
        return ret;
    if (in_use(c.sock))
        return -EINVAL;
    long own = replacement_socket(c);
    if (own < 0)
        return own;
    ret = bind_as_command(c, own, path, addr, len);
    if (ret == 0 && !bound_on_private_fs((int)own)) {
        c.refusal = "a unix socket outside the private /tmp, /dev/shm and private_dirs: the host can reach it there";
        ret = -EACCES;
    }
    if (ret == 0)
        ret = install_over_command(c, own);
    raw_close((int)own);
    return ret;
}

bool is_tcp(int sock)
{
    const int protocol = socket_option(sock, SO_PROTOCOL);
    return socket_option(sock, SO_TYPE) == SOCK_STREAM && (protocol == IPPROTO_TCP || protocol == 0);
}

}  // namespace

long mediated_bind(socket_call &c, const unsigned char *addr, uint32_t len)
{
    const int domain = socket_option(c.sock, SO_DOMAIN);
    char path[sizeof(sockaddr_un::sun_path) + 1];
    const int named = unix_pathname(domain, addr, len, path);
    if (named < 0)
        return named;
    if (named)
        return bind_pathname(c, path, addr, len);
    if (!g_socket_view.private_netns && (domain == AF_INET || domain == AF_INET6) && is_tcp(c.sock)) {
        c.refusal = "TCP, and the sandbox has no network namespace of its own";
        return -EACCES; /* as Landlock's TCP layer would answer (landlock.h) */
    }
    return rsys(SYS_bind, c.sock, (long)addr, len);
}
