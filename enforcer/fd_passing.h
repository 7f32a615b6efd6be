/* enforcer/fd_passing.h — one descriptor over a unix socket (SCM_RIGHTS), with one byte.
 *
 * The enforcer's processes hand descriptors to each other this way: the command its
 * seccomp listener to the mediator, the listener factory its sockets to init, init the
 * pty master to the supervisor's relay. Raw system calls only, and memcpy is a builtin, so
 * any of them may run while another process runs C code on the same memory (raw.h).
 */
#pragma once

#include <string.h>
#include <sys/socket.h>

#include "raw.h"

/* Sends `byte`, with `fd` attached unless it is negative; the sendmsg result (1 or -errno). */
inline long raw_send_fd(int sock, int fd, char byte)
{
    struct iovec iov = {&byte, 1};
    alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (fd >= 0) {
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    }
    long n;
    do
        n = raw_syscall4(SYS_sendmsg, sock, (long)&msg, MSG_NOSIGNAL, 0);
    while (n == -EINTR);
    return n;
}

/* Receives one byte and the descriptor attached to it (close-on-exec), or -1 when none came;
 * *result gets the recvmsg result (1, 0 at EOF, or -errno). */
inline int raw_recv_fd(int sock, int flags, long *result)
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
        n = raw_syscall4(SYS_recvmsg, sock, (long)&msg, MSG_CMSG_CLOEXEC | flags, 0);
    while (n == -EINTR);
    *result = n;
    struct cmsghdr *cm = n == 1 ? CMSG_FIRSTHDR(&msg) : nullptr;
    if (cm == nullptr || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(cm), sizeof fd);
    return fd;
}
