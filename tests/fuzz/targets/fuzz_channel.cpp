// tests/fuzz/targets/fuzz_channel.cpp — the proxy's end of the sandbox channel
// (proxy/channel.h, shared/net_channel.h) on any message the sandbox side could send: message 1
// (the listeners) and the answers to socket requests, each with any number of descriptors of
// any kind attached. The input: one byte choosing the message, one the number of descriptors
// (0..66: past TNC_MAX_LISTENERS + 1 the kernel truncates the control data), one byte per
// descriptor choosing its kind (a listening socket on 127.0.0.1 at the port the command line
// names, one at another port, a UDP socket, /dev/null), then the payload, sent as one
// SOCK_SEQPACKET message on a real socketpair.
// Properties, for any message:
//  - no crash, no undefined behaviour, no hang;
//  - no descriptor leaks: after the message is taken, checked and its descriptors closed by
//    their owner, the process has exactly the descriptors it had before;
//  - a malformed message gives no listener and a one-line error; a well-formed one gives
//    exactly hello.count listeners, each an open close-on-exec descriptor;
//  - check_listeners accepts only the set the command line names, else says why in one line;
//  - a socket reply is Reply with a descriptor exactly when the payload is the one byte 0
//    with one descriptor (an errno byte without one is a Reply without a descriptor).
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "channel.h"
#include "fuzz_target.h"

namespace {

using namespace tproxy;

int listening_socket(unsigned *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || listen(fd, 1) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) != 0)
        tartaros::fuzz::property_failed(__FILE__, __LINE__, "listen", std::strerror(errno));
    *port = ntohs(a.sin_port);
    return fd;
}

struct Fixture {
    int named = -1, other = -1, udp = -1, devnull = -1, sigfd = -1;
    Config config;

    Fixture()
    {
        unsigned port = 0, other_port = 0;
        named = listening_socket(&port);
        other = listening_socket(&other_port);
        udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        sigfd = eventfd(0, EFD_CLOEXEC);  // never readable: no signal comes
        config.proxy_port = port;
        config.broker.port = port;
        config.relay_ports = {port};
    }

    int kind(uint8_t k) const
    {
        const int fds[] = {named, other, udp, devnull};
        return fds[k % 4];
    }
};

size_t open_descriptors()
{
    size_t n = 0;
    if (DIR *d = opendir("/proc/self/fd")) {
        while (readdir(d))
            n++;
        closedir(d);
    }
    return n;
}

// Sends `payload` with duplicates of `fds` as one message.
void send_message(int chan, const std::string &payload, const std::vector<int> &fds)
{
    iovec iov{const_cast<char *>(payload.data()), payload.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    std::vector<char> control(CMSG_SPACE(sizeof(int) * (fds.size() ? fds.size() : 1)));
    if (!fds.empty()) {
        msg.msg_control = control.data();
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
        cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
        std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    if (sendmsg(chan, &msg, MSG_NOSIGNAL) != static_cast<ssize_t>(payload.size()))
        tartaros::fuzz::property_failed(__FILE__, __LINE__, "sendmsg", std::strerror(errno));
}

void check_listener_message(const Fixture &f, int chan, const std::string &payload, size_t fd_count)
{
    ListenerMessage m = receive_listeners(chan, f.sigfd);
    if (payload.empty()) {
        FUZZ_ASSERT(m.end == ChannelEnd::Closed && m.listeners.empty(), "an empty message is EOF");
        return;
    }
    FUZZ_ASSERT(m.end == ChannelEnd::Message, "a message was not read");
    if (!m.error.empty()) {
        FUZZ_ASSERT(m.listeners.empty() && tartaros::fuzz::one_line(m.error), m.error);
        return;
    }
    tnc_hello hello{};
    FUZZ_ASSERT(payload.size() >= sizeof hello, "a short hello was accepted");
    std::memcpy(&hello, payload.data(), sizeof hello);
    FUZZ_ASSERT(hello.magic == TNC_HELLO_MAGIC && hello.count == m.listeners.size() && fd_count == hello.count,
                "accepted a message that does not match its hello");
    FUZZ_ASSERT(payload.size() == sizeof hello + hello.count * sizeof(tnc_listener), "accepted extra bytes");
    for (const ChannelListener &l : m.listeners)
        FUZZ_ASSERT(fcntl(l.fd, F_GETFD) == FD_CLOEXEC, "a received descriptor is not close-on-exec");
    std::string err = check_listeners(f.config, m.listeners);
    FUZZ_ASSERT(tartaros::fuzz::one_line(err), err);
    close_listeners(m.listeners);
}

void check_socket_reply(int chan, const std::string &payload, size_t fd_count)
{
    SocketReply r;
    ReplyStatus s = receive_socket_reply(chan, &r);
    if (payload.empty()) {
        FUZZ_ASSERT(s == ReplyStatus::Closed, "an empty message is EOF");
        return;
    }
    const bool well_formed = payload.size() == 1 && fd_count == (payload[0] == 0 ? 1u : 0u);
    FUZZ_ASSERT((s == ReplyStatus::Reply) == well_formed, std::to_string(static_cast<int>(s)));
    if (s != ReplyStatus::Reply)
        return;
    FUZZ_ASSERT((r.fd >= 0) == (payload[0] == 0) && r.error == static_cast<unsigned char>(payload[0]), "reply");
    if (r.fd >= 0) {
        FUZZ_ASSERT(fcntl(r.fd, F_GETFD) == FD_CLOEXEC, "a received descriptor is not close-on-exec");
        FUZZ_ASSERT(tartaros::fuzz::one_line(check_inet_stream(r.fd)), "check_inet_stream");
        close(r.fd);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const Fixture fixture;
    tartaros::fuzz::Bytes in(data, size);
    const bool socket_reply = in.flag();
    const size_t fd_count = in.u8() % (TNC_MAX_LISTENERS + 3);
    std::vector<int> fds;
    for (size_t i = 0; i < fd_count; i++)
        fds.push_back(fixture.kind(in.u8()));
    const std::string payload(in.rest().substr(0, 1024));

    const size_t before = open_descriptors();
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
        tartaros::fuzz::property_failed(__FILE__, __LINE__, "socketpair", std::strerror(errno));
    if (payload.empty() && !fds.empty())
        fds.clear();  // descriptors need a byte of data to travel with
    send_message(pair[1], payload, fds);
    if (payload.empty())
        shutdown(pair[1], SHUT_WR);
    if (socket_reply)
        check_socket_reply(pair[0], payload, fds.size());
    else
        check_listener_message(fixture, pair[0], payload, fds.size());
    close(pair[0]);
    close(pair[1]);
    FUZZ_ASSERT(open_descriptors() == before, "a descriptor leaked");
    return 0;
}
