/* proxy/channel.cpp — messages on the sandbox channel (see channel.h). */
#include "channel.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tproxy {
namespace {

constexpr size_t kMaxFds = TNC_MAX_LISTENERS + 1;  // one more than allowed: detects excess

struct Received {
    ssize_t len = -1;  // bytes of payload, 0 at EOF, -1 on error (errno)
    bool truncated = false;
    std::vector<int> fds;
};

// One recvmsg taking every SCM_RIGHTS descriptor, close-on-exec; never blocks.
Received receive(int chan, void *buf, size_t size)
{
    Received r;
    iovec iov{buf, size};
    alignas(cmsghdr) char control[CMSG_SPACE(kMaxFds * sizeof(int))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    r.len = recvmsg(chan, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (r.len < 0)
        return r;
    r.truncated = (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0;
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < n; i++) {
            int fd;
            std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            r.fds.push_back(fd);
        }
    }
    return r;
}

void close_all(const std::vector<int> &fds)
{
    for (int fd : fds)
        close(fd);
}

// Waits until chan or sigfd is readable: the channel's revents, or 0 when the signal came first.
short wait_readable(int chan, int sigfd)
{
    for (;;) {
        pollfd p[2] = {{chan, POLLIN, 0}, {sigfd, POLLIN, 0}};
        int n = poll(p, 2, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (p[1].revents & POLLIN)
            return 0;
        if (p[0].revents != 0)
            return p[0].revents;  // readable, hung up or failed: recvmsg says which
    }
}

// Message 1 as it arrives: the hello, then its records.
struct ListenerPayload {
    tnc_hello hello;
    tnc_listener items[TNC_MAX_LISTENERS + 1];
};

std::string parse_listeners(const Received &r, const ListenerPayload &payload, std::vector<ChannelListener> *out)
{
    size_t bytes = static_cast<size_t>(r.len);
    size_t n = bytes >= sizeof(tnc_hello) ? (bytes - sizeof(tnc_hello)) / sizeof(tnc_listener) : 0;
    if (r.truncated || bytes < sizeof(tnc_hello) || payload.hello.magic != TNC_HELLO_MAGIC ||
        (bytes - sizeof(tnc_hello)) % sizeof(tnc_listener) != 0 || payload.hello.count != n || n > TNC_MAX_LISTENERS)
        return "malformed listener message (" + std::to_string(bytes) + " bytes)";
    if (r.fds.size() != n)
        return "listener message names " + std::to_string(n) + " listeners but carries " +
            std::to_string(r.fds.size()) + " descriptors";
    for (size_t i = 0; i < n; i++) {
        if (payload.items[i].reserved != 0)
            return "listener " + std::to_string(i) + " has a nonzero reserved byte";
        out->push_back({r.fds[i], payload.items[i].kind, payload.items[i].port});
    }
    return "";
}

const char *kind_flag(uint8_t kind)
{
    return kind == TNC_PROXY ? "--proxy-port" : kind == TNC_BROKER ? "--broker-port" : "--relay";
}

const char *kind_name(uint8_t kind)
{
    return kind == TNC_PROXY ? "proxy" : kind == TNC_BROKER ? "broker" : "relay";
}

// The listening socket must be the one the sandbox says it is.
std::string check_one(const ChannelListener &l)
{
    std::string what = std::string(kind_name(l.kind)) + " listener for port " + std::to_string(l.port);
    int listening = 0, domain = 0, type = 0;
    socklen_t len = sizeof(int);
    if (getsockopt(l.fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening)
        return "the " + what + " is not a listening socket";
    len = sizeof(int);
    getsockopt(l.fd, SOL_SOCKET, SO_DOMAIN, &domain, &len);
    len = sizeof(int);
    getsockopt(l.fd, SOL_SOCKET, SO_TYPE, &type, &len);
    if (domain != AF_INET || type != SOCK_STREAM)
        return "the " + what + " is not an AF_INET SOCK_STREAM socket";
    sockaddr_in a{};
    len = sizeof a;
    if (getsockname(l.fd, reinterpret_cast<sockaddr *>(&a), &len) != 0 || a.sin_addr.s_addr != htonl(INADDR_LOOPBACK) ||
        ntohs(a.sin_port) != l.port) {
        char addr[INET_ADDRSTRLEN] = "?";
        inet_ntop(AF_INET, &a.sin_addr, addr, sizeof addr);
        return "the " + what + " is bound to " + addr + ":" + std::to_string(ntohs(a.sin_port)) +
            ", not 127.0.0.1:" + std::to_string(l.port);
    }
    return "";
}

}  // namespace

ListenerMessage receive_listeners(int chan, int sigfd)
{
    ListenerMessage m;
    ListenerPayload payload{};
    Received r;
    short revents;
    do {
        revents = wait_readable(chan, sigfd);
        if (revents == 0) {
            m.end = ChannelEnd::Signalled;
            return m;
        }
        r = receive(chan, &payload, sizeof payload);
    } while (r.len < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR));
    // The hello keeps message 1 from being empty: 0 bytes is EOF.
    if (r.len <= 0) {
        close_all(r.fds);
        m.end = ChannelEnd::Closed;  // EOF, or a reset: either way nobody will ask again
        return m;
    }
    m.end = ChannelEnd::Message;
    m.error = parse_listeners(r, payload, &m.listeners);
    if (!m.error.empty()) {
        close_all(r.fds);
        m.listeners.clear();
    }
    return m;
}

std::string check_listeners(const Config &c, const std::vector<ChannelListener> &got)
{
    std::vector<std::pair<uint8_t, unsigned>> want;
    if (c.proxy_port != 0)
        want.push_back({TNC_PROXY, c.proxy_port});
    if (c.broker.port != 0)
        want.push_back({TNC_BROKER, c.broker.port});
    for (unsigned p : c.relay_ports)
        want.push_back({TNC_RELAY, p});
    for (const ChannelListener &l : got) {
        if (l.kind != TNC_PROXY && l.kind != TNC_RELAY && l.kind != TNC_BROKER)
            return "the sandbox sent a listener of unknown kind " + std::to_string(l.kind);
        auto at = std::find(want.begin(), want.end(), std::make_pair(l.kind, l.port));
        if (at == want.end())
            return std::string("the sandbox sent a ") + kind_name(l.kind) + " listener for port " +
                std::to_string(l.port) + ", which " + kind_flag(l.kind) + " does not name";
        want.erase(at);
        if (std::string err = check_one(l); !err.empty())
            return err;
    }
    if (!want.empty())
        return std::string("the sandbox sent no listener for ") + kind_flag(want[0].first) + " " +
            std::to_string(want[0].second);
    return "";
}

void close_listeners(const std::vector<ChannelListener> &got)
{
    for (const ChannelListener &l : got)
        close(l.fd);
}

bool send_ready(int chan, uint8_t status, const std::string &message)
{
    tnc_ready r{};
    r.status = status;
    std::memcpy(r.message, message.data(), std::min(message.size(), sizeof r.message - 1));
    for (;;) {
        ssize_t n = send(chan, &r, sizeof r, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        return n == static_cast<ssize_t>(sizeof r);
    }
}

int request_socket(int chan)
{
    const char req = TNC_SOCKET_REQUEST;
    return send(chan, &req, 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1 ? 0 : errno;
}

ReplyStatus receive_socket_reply(int chan, SocketReply *out)
{
    unsigned char buf[2];
    Received r = receive(chan, buf, sizeof buf);
    if (r.len < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return ReplyStatus::Again;
        return ReplyStatus::Closed;
    }
    if (r.len == 0)
        return ReplyStatus::Closed;
    bool well_formed = r.len == 1 && !r.truncated && r.fds.size() == (buf[0] == 0 ? 1u : 0u);
    if (!well_formed) {
        close_all(r.fds);
        return ReplyStatus::Malformed;
    }
    out->error = buf[0];
    out->fd = buf[0] == 0 ? r.fds[0] : -1;
    return ReplyStatus::Reply;
}

std::string check_inet_stream(int fd)
{
    int domain = 0, type = 0, protocol = 0;
    socklen_t len = sizeof(int);
    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len);
    len = sizeof(int);
    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len);
    len = sizeof(int);
    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len);
    if (domain != AF_INET || type != SOCK_STREAM || protocol != IPPROTO_TCP)
        return "not an AF_INET SOCK_STREAM TCP socket";
    return "";
}

}  // namespace tproxy
