// confine_self in a forked child: what is refused, what still works, what kills; in channel
// mode, relay and expose ports are reachable and nothing else is, and descriptors still arrive
// over the channel under the filter.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>

#include "confine.h"

namespace {

// A listening socket on 127.0.0.1, its port in *port.
int listen_loopback(unsigned *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0);
    REQUIRE(listen(fd, 8) == 0);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
    *port = ntohs(a.sin_port);
    return fd;
}

int connect_loopback(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    int rc = connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
    int err = errno;
    close(fd);
    return rc == 0 ? 0 : err;
}

// Runs body in a child after confine_self; returns the raw wait status. The body's return
// value is the exit code; _exit keeps LeakSanitizer (which needs ptrace) out of the child.
int in_confined_child(const tproxy::Config &cfg, const std::function<int()> &body)
{
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        tproxy::ConfineResult r = tproxy::confine_self(cfg);
        _exit(r.error.empty() ? body() : 100);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

// Whether this kernel takes every layer (Landlock ABI >= 4); only then are the Landlock
// assertions meaningful.
bool landlock_net_available()
{
    tproxy::Config cfg;
    pid_t pid = fork();
    if (pid == 0)
        _exit(tproxy::confine_self(cfg).warnings.empty() ? 0 : 1);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

TEST_CASE("confine: files beyond name resolution and foreign sockets are refused")
{
    if (!landlock_net_available()) {
        MESSAGE("Landlock ABI < 4 on this kernel: skipped");
        return;
    }
    unsigned allowed = 0, other = 0;
    int l1 = listen_loopback(&allowed), l2 = listen_loopback(&other);
    tproxy::Config cfg;
    cfg.policy.ports = {allowed};
    int status = in_confined_child(cfg, [&] {
        if (open("/etc/passwd", O_RDONLY) >= 0 || errno != EACCES)
            return 1;
        if (open("/etc/hosts", O_RDONLY) < 0)
            return 2;
        if (open("/tmp", O_RDONLY | O_DIRECTORY) >= 0 || errno != EACCES)
            return 3;
        if (socket(AF_UNIX, SOCK_STREAM, 0) >= 0 || errno != EPERM)
            return 4;
        if (socket(AF_NETLINK, SOCK_RAW, 0) >= 0 || errno != EPERM)
            return 5;
        if (connect_loopback(allowed) != 0)
            return 6;
        if (connect_loopback(other) != EACCES)
            return 7;
        return 0;
    });
    close(l1);
    close(l2);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("confine: calls a proxy never makes kill it")
{
    tproxy::Config cfg;
    cfg.policy.ports = {443};
    const std::function<int()> attempts[] = {
        [] {
            char *argv[] = {nullptr};
            execve("/bin/true", argv, argv);
            return 0;
        },
        [] {
            ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
            return 0;
        },
        [] {
            mount("none", "/tmp", "tmpfs", 0, nullptr);
            return 0;
        },
        [] {
            int fd = socket(AF_INET, SOCK_STREAM, 0);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
            return 0;
        },
        [] {
            fork();
            return 0;
        },
    };
    for (size_t i = 0; i < std::size(attempts); i++) {
        CAPTURE(i);
        int status = in_confined_child(cfg, attempts[i]);
        REQUIRE(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == SIGSYS);
    }
}

TEST_CASE("confine channel: relay and expose ports are reachable and no other")
{
    if (!landlock_net_available()) {
        MESSAGE("Landlock ABI < 4 on this kernel: skipped");
        return;
    }
    unsigned relay = 0, expose = 0, other = 0;
    int l1 = listen_loopback(&relay), l2 = listen_loopback(&expose), l3 = listen_loopback(&other);
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
    tproxy::Config cfg;
    cfg.channel_fd = sv[0];
    cfg.relay_ports = {relay};
    cfg.exposes = {{l2, expose}};
    cfg.policy.ports = {other};  // ignored: no --proxy-port, no HTTP proxy
    int status = in_confined_child(cfg, [&] {
        if (connect_loopback(relay) != 0)
            return 1;
        if (connect_loopback(expose) != 0)
            return 2;
        if (connect_loopback(other) != EACCES)
            return 3;
        if (open("/etc/hosts", O_RDONLY) >= 0 || errno != EACCES)
            return 4;  // no lookups without the HTTP proxy, so no resolver files
        return 0;
    });
    close(l1);
    close(l2);
    close(l3);
    close(sv[0]);
    close(sv[1]);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("confine channel: a listener received with SCM_RIGHTS is accepted on under the filter")
{
    unsigned port = 0;
    int lfd = listen_loopback(&port);
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
    tproxy::Config cfg;
    cfg.channel_fd = sv[1];
    cfg.relay_ports = {port};
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(lfd);
        if (!tproxy::confine_self(cfg).error.empty())
            _exit(100);
        char byte = 0;
        iovec iov{&byte, 1};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        if (recvmsg(sv[1], &msg, MSG_CMSG_CLOEXEC) != 1 || !CMSG_FIRSTHDR(&msg))
            _exit(1);
        int got;
        std::memcpy(&got, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof got);
        int c = accept4(got, nullptr, nullptr, SOCK_CLOEXEC);
        _exit(c >= 0 && send(sv[1], "ok", 2, 0) == 2 ? 0 : 2);
    }
    char byte = 'L';
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &lfd, sizeof lfd);
    REQUIRE(sendmsg(sv[0], &msg, 0) == 1);
    CHECK(connect_loopback(port) == 0);
    char reply[2] = {};
    CHECK(recv(sv[0], reply, sizeof reply, 0) == 2);
    int status = 0;
    waitpid(pid, &status, 0);
    close(lfd);
    close(sv[0]);
    close(sv[1]);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("confine broker: capability ports are reachable and lookups only for names")
{
    if (!landlock_net_available()) {
        MESSAGE("Landlock ABI < 4 on this kernel: skipped");
        return;
    }
    unsigned cap = 0, other = 0;
    int l1 = listen_loopback(&cap), l2 = listen_loopback(&other);
    tproxy::Config cfg;
    tproxy::ListenAddr la{};
    cfg.broker.listen = la;
    tproxy::Capability c;
    c.name = "a";
    c.host = {"127.0.0.1", tproxy::HostKind::V4Literal};
    c.port = cap;
    cfg.broker.caps = {c};
    REQUIRE_FALSE(cfg.http_proxy());
    int status = in_confined_child(cfg, [&] {
        if (connect_loopback(cap) != 0)
            return 1;
        if (connect_loopback(other) != EACCES)
            return 2;
        if (open("/etc/hosts", O_RDONLY) >= 0 || errno != EACCES)
            return 3;  // literal hosts only: nothing is looked up
        return 0;
    });
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    cfg.broker.caps[0].host = {"localhost", tproxy::HostKind::Name};
    status = in_confined_child(cfg, [&] {
        if (open("/etc/hosts", O_RDONLY) < 0)
            return 1;
        return connect_loopback(cap) == 0 ? 0 : 2;
    });
    close(l1);
    close(l2);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}
