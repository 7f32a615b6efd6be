// bench_sendmsg: what a mediated sendmsg() costs (every sendmsg() of a sandboxed command is made
// by the mediator, enforcer/send_calls.h; send() and write() are not). Two processes over a
// unix stream socketpair:
//   pingpong N   N round trips of one byte each way, sent with sendmsg(): microseconds per
//                round trip (two sendmsg() calls);
//   stream MIB   MIB MiB one way in 64 KiB sendmsg() calls, read by the other process: MiB/s;
//   write MIB    the same with write(), which is not mediated: the baseline for `stream`.
// Prints one line, "<mode> <value> <unit>".
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

ssize_t send_one(int fd, const void *buf, size_t len, bool with_sendmsg)
{
    if (!with_sendmsg)
        return write(fd, buf, len);
    iovec iov = {const_cast<void *>(buf), len};
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    return sendmsg(fd, &msg, 0);
}

void send_all(int fd, const char *buf, size_t len, bool with_sendmsg)
{
    while (len > 0) {
        ssize_t n = send_one(fd, buf, len, with_sendmsg);
        if (n <= 0) {
            perror("send");
            std::exit(1);
        }
        buf += n;
        len -= static_cast<size_t>(n);
    }
}

void read_exactly(int fd, char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = read(fd, buf, len);
        if (n <= 0) {
            perror("read");
            std::exit(1);
        }
        buf += n;
        len -= static_cast<size_t>(n);
    }
}

double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: bench_sendmsg pingpong N | stream MIB | write MIB\n");
        return 2;
    }
    const std::string mode = argv[1];
    const long count = std::atol(argv[2]);
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
        return 1;
    constexpr size_t kChunk = 64 << 10;
    const bool pingpong = mode == "pingpong";
    const pid_t child = fork();
    if (child == 0) {
        close(pair[0]);
        std::vector<char> buf(kChunk);
        if (pingpong) {
            for (long i = 0; i < count; i++) {
                read_exactly(pair[1], buf.data(), 1);
                send_all(pair[1], buf.data(), 1, true);
            }
        } else {
            read_exactly(pair[1], buf.data(), 0);
            for (long left = count << 20; left > 0; left -= static_cast<long>(kChunk))
                read_exactly(pair[1], buf.data(), kChunk);
        }
        _exit(0);
    }
    close(pair[1]);
    std::vector<char> buf(kChunk, 'x');
    const auto start = std::chrono::steady_clock::now();
    if (pingpong) {
        for (long i = 0; i < count; i++) {
            send_all(pair[0], buf.data(), 1, true);
            read_exactly(pair[0], buf.data(), 1);
        }
    } else {
        for (long left = count << 20; left > 0; left -= static_cast<long>(kChunk))
            send_all(pair[0], buf.data(), kChunk, mode == "stream");
    }
    int status = 0;
    waitpid(child, &status, 0);
    const double took = seconds_since(start);
    if (pingpong)
        std::printf("pingpong %.2f us/round-trip\n", took * 1e6 / static_cast<double>(count));
    else
        std::printf("%s %.0f MiB/s\n", mode.c_str(), static_cast<double>(count) / took);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
