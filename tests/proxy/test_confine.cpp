// confine_self in a forked child: what is refused, what still works, what kills.
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
        [] { char *argv[] = {nullptr}; execve("/bin/true", argv, argv); return 0; },
        [] { ptrace(PTRACE_TRACEME, 0, nullptr, nullptr); return 0; },
        [] { mount("none", "/tmp", "tmpfs", 0, nullptr); return 0; },
        [] {
            int fd = socket(AF_INET, SOCK_STREAM, 0);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
            return 0;
        },
        [] { fork(); return 0; },
    };
    for (size_t i = 0; i < std::size(attempts); i++) {
        CAPTURE(i);
        int status = in_confined_child(cfg, attempts[i]);
        REQUIRE(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == SIGSYS);
    }
}
