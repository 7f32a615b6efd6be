// Unit tests of what the connect mediator's socket calls share (enforcer/socket_calls.h): the
// unix address rules (a pathname, an abstract name, an unnamed or foreign address, one too
// long), the /proc/self/fd/N address of a checked inode, socket options, and the pidfd of a
// notified thread that is not its process's first (pidfd_getfd through it reaches the
// process's descriptors).
#include <doctest/doctest.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "socket_calls.h"

namespace {

struct Address {
    sockaddr_un un = {};
    uint32_t len = 0;
    Address(const std::string &path, bool abstract = false)
    {
        un.sun_family = AF_UNIX;
        const size_t at = abstract ? 1 : 0;
        std::memcpy(un.sun_path + at, path.data(), std::min(path.size(), sizeof un.sun_path - at));
        len = static_cast<uint32_t>(offsetof(sockaddr_un, sun_path) + at + path.size());
    }
    const unsigned char *bytes() const { return reinterpret_cast<const unsigned char *>(&un); }
};

// A second thread, alive until released: its own id and the pidfd caller_pidfd gives for it.
struct SecondThread {
    long pidfd = -1;
    int release[2] = {-1, -1};
    int ready[2] = {-1, -1};
    pthread_t thread{};

    SecondThread()
    {
        REQUIRE(pipe(release) == 0);
        REQUIRE(pipe(ready) == 0);
        REQUIRE(pthread_create(&thread, nullptr, run, this) == 0);
        char byte;
        REQUIRE(read(ready[0], &byte, 1) == 1);
    }
    ~SecondThread()
    {
        REQUIRE(write(release[1], "x", 1) == 1);
        pthread_join(thread, nullptr);
        for (int fd : {release[0], release[1], ready[0], ready[1], static_cast<int>(pidfd)})
            close(fd);
    }
    static void *run(void *self)
    {
        auto *t = static_cast<SecondThread *>(self);
        t->pidfd = caller_pidfd(static_cast<uint32_t>(syscall(SYS_gettid)));
        char byte;
        if (write(t->ready[1], "x", 1) == 1)
            (void)!read(t->release[0], &byte, 1);
        return nullptr;
    }
};

}  // namespace

TEST_CASE("socket calls: a unix address is a pathname, abstract, or neither")
{
    char path[sizeof(sockaddr_un::sun_path) + 1];
    const Address named("/tmp/x.sock");
    CHECK(unix_pathname(AF_UNIX, named.bytes(), named.len, path) == 1);
    CHECK(std::string(path) == "/tmp/x.sock");
    CHECK_FALSE(unix_abstract(AF_UNIX, named.bytes(), named.len));

    const Address abstract("name", true);
    CHECK(unix_pathname(AF_UNIX, abstract.bytes(), abstract.len, path) == 0);
    CHECK(unix_abstract(AF_UNIX, abstract.bytes(), abstract.len));

    const Address unnamed("");
    CHECK(unix_pathname(AF_UNIX, unnamed.bytes(), unnamed.len, path) == 0);
    CHECK_FALSE(unix_abstract(AF_UNIX, unnamed.bytes(), unnamed.len));

    // The socket's domain decides, not the family the caller wrote (a UDP socket given a unix
    // address answers EAFNOSUPPORT from the kernel, never a path lookup).
    CHECK(unix_pathname(AF_INET, named.bytes(), named.len, path) == 0);
    CHECK_FALSE(unix_abstract(AF_INET6, abstract.bytes(), abstract.len));

    unsigned char longer[sizeof(sockaddr_un) + 8] = {};
    std::memcpy(longer, named.bytes(), named.len);
    CHECK(unix_pathname(AF_UNIX, longer, sizeof longer, path) == -EINVAL);
}

TEST_CASE("socket calls: the address of a checked inode is /proc/self/fd/N, NUL included")
{
    sockaddr_un via;
    const uint32_t len = address_of_fd(17, &via);
    CHECK(via.sun_family == AF_UNIX);
    CHECK(std::string(via.sun_path) == "/proc/self/fd/17");
    CHECK(len == offsetof(sockaddr_un, sun_path) + std::strlen("/proc/self/fd/17") + 1);
}

TEST_CASE("socket calls: socket options, and -1 for a descriptor that is no socket")
{
    int pair[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) == 0);
    CHECK(socket_option(pair[0], SO_DOMAIN) == AF_UNIX);
    CHECK(socket_option(pair[0], SO_TYPE) == SOCK_SEQPACKET);
    int pipefd[2];
    REQUIRE(pipe(pipefd) == 0);
    CHECK(socket_option(pipefd[0], SO_TYPE) == -1);
    for (int fd : {pair[0], pair[1], pipefd[0], pipefd[1]})
        close(fd);
}

TEST_CASE("socket calls: a second thread's id gives a pidfd that reaches the process's descriptors")
{
    int pair[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
    SecondThread second;
    REQUIRE(second.pidfd >= 0);
    const long copy = syscall(SYS_pidfd_getfd, second.pidfd, pair[0], 0);
    REQUIRE(copy >= 0);
    CHECK(write(static_cast<int>(copy), "x", 1) == 1);
    char got = 0;
    CHECK(read(pair[1], &got, 1) == 1);
    CHECK(got == 'x');
    for (long fd : {copy, long{pair[0]}, long{pair[1]}})
        close(static_cast<int>(fd));
}
