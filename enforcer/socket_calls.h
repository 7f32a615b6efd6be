/* enforcer/socket_calls.h — the socket calls the connect mediator (mediator.h) answers by
 * doing them itself: connect and bind here, the sends in send_calls.h. Raw calls only:
 * everything here runs in the mediator (raw.h).
 *
 * The one rule for unix pathname sockets: a socket is the sandbox's only if it lies on a
 * filesystem the sandbox made for itself and the host never sees (the private /tmp of
 * private_tmp, the /dev/shm of the private /dev, the private dirs of private_dirs: every
 * writable TMPFS step of the plan). bind() creates one nowhere else, and
 * connect() and the sends reach one nowhere else: a socket in a writable root or anywhere in
 * the host's tree is the host's (a docker.sock, git's fsmonitor daemon, a language server),
 * and one the sandbox made there could be reached, and trusted, by a host client.
 * Every call is made on the command's socket object (pidfd_getfd) with the mediator's own copy
 * of the address and of the path's resolution, so nothing a racing thread rewrites is used;
 * a stream connect is made on a socket of the mediator's own and installed over the command's
 * descriptor only once its peer is known to be a process of the sandbox (unix_connect.cpp).
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "kuapi.h"
#include "plan.h"
#include "raw.h"

inline long rsys(long nr, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0)
{
    return raw_syscall6(nr, a, b, c, d, e, f);
}

/* What the socket calls know of the sandbox: set by init before the mediator starts. */
struct socket_view {
    bool private_netns;      /* the sandbox has its own network namespace */
    bool private_pids;       /* ... and its own PID namespace: a peer outside has no pid here */
    bool proc_shows_sandbox; /* /proc/PID is the sandbox's PID: cwd, umask, fd flags are readable */
    bool record_refusals;    /* the effect log records the mediator's own refusals */
    /* The filesystems the sandbox made: the private /tmp, /dev/shm, the private dirs (and the
     * credentials directory, read-only, so refused anyway). */
    dev_t private_devs[3 + TP_MAX_PRIVATE_DIRS];
    uint32_t private_dev_count;
};
extern socket_view g_socket_view;

/* One notified call being answered. */
struct socket_call {
    int listener;                  /* for SECCOMP_IOCTL_NOTIF_ADDFD */
    const kuapi::seccomp_notif *n; /* the call: n->pid is the caller, n->data.args its arguments */
    int sock;                      /* the mediator's duplicate of the command's socket */
    const char *refusal;           /* set when the mediator refuses on its own: why (effect log) */
};

/* Largest datagram a mediated send carries (a unix datagram's default limit is ~208 KiB), and
 * the most of a stream's bytes sent at once. */
constexpr uint32_t kMaxMediatedSend = 256 << 10;

/* connect(fd, addr, len): the result to answer. unix_connect.cpp. */
long mediated_connect(socket_call &c, const unsigned char *addr, uint32_t len);

/* bind(fd, addr, len). unix_bind.cpp. */
long mediated_bind(socket_call &c, const unsigned char *addr, uint32_t len);

/* ---- shared by the three (socket_paths.cpp) -------------------------------------------------- */

/* A unix address's path, NUL-terminated in `path` (room for 109 bytes): 1 for a pathname
 * address, 0 for an abstract or unnamed one or another family, -EINVAL for one too long. */
int unix_pathname(int domain, const unsigned char *addr, uint32_t len, char *path);

/* Whether `addr` is an abstract unix address (the kernel's own rule: family AF_UNIX, a name
 * that starts with a NUL byte). */
bool unix_abstract(int domain, const unsigned char *addr, uint32_t len);

/* A pidfd of the calling thread `tid` (a notification names the thread, not its process), for
 * pidfd_getfd: PIDFD_THREAD (Linux 6.9), else its thread group's leader, whose descriptor
 * table a thread shares (from /proc; -ESRCH when /proc does not show the sandbox). */
long caller_pidfd(uint32_t tid);

/* An integer socket option (SO_DOMAIN, SO_TYPE...) of `sock`; -1 when unknown. */
int socket_option(int sock, int option);

/* `path` resolved as the command `pid` would (its cwd for a relative path; magic links
 * refused): an O_PATH descriptor, or -errno. */
long open_as_command(socket_call &c, long dirfd, const char *path, bool directory);

/* 0 when `fd` lies on a filesystem the sandbox made (socket_view), writable; else -EACCES
 * with c.refusal set. `binding`: a read-only mount answers -EROFS, as the kernel would. */
long require_private_mount(socket_call &c, long fd, bool binding);

/* The socket at the command's `path` when it is the sandbox's own (a socket inode on a
 * filesystem the sandbox made): an O_PATH descriptor of it, or -errno (ECONNREFUSED for a
 * path that is no socket, as connect() and sendto() answer). */
long open_sandbox_socket(socket_call &c, const char *path);

/* "/proc/self/fd/N" of the mediator's `fd` as a unix address: the very inode checked, with no
 * second lookup of the command's path. Returns the address length. */
uint32_t address_of_fd(long fd, void *sockaddr_un_out);

/* The command's umask from /proc (022 when /proc does not show the sandbox). */
unsigned command_umask(uint32_t pid);

/* A fresh socket of the mediator's own like the command's (domain, type, protocol, O_NONBLOCK,
 * the options a program sets before connect or bind: SO_PASSCRED, SO_PASSSEC, SO_PASSPIDFD,
 * buffer sizes, priority, timeouts), close-on-exec here; or -errno. */
long replacement_socket(socket_call &c);

/* Installs `own` over the command's descriptor (SECCOMP_IOCTL_NOTIF_ADDFD, SETFD), keeping
 * the descriptor's close-on-exec flag as /proc shows it (unset when it does not). 0 or -errno.
 * Not with SECCOMP_ADDFD_FLAG_SEND: the call would then return the descriptor's number, and
 * connect() and bind() return 0; with WAIT_KILLABLE_RECV (mediator.cpp) only a fatal signal
 * ends the call between the install and the answer. */
long install_over_command(socket_call &c, long own);

/* Whether the bound `sock`'s name lies on a filesystem the sandbox made: the kernel's own
 * record of the inode the bind created (sock_diag, UNIX_DIAG_VFS), not a second lookup. */
bool bound_on_private_fs(int sock);
