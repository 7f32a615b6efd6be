/* proxy/relay.cpp — channel mode's raw routes: relays out of the sandbox, exposed ports into
 * it, and the socket requests on the channel (see server.h and channel.h). */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "server.h"

namespace tproxy {
namespace {

constexpr int kReplyBatch = 64;  // answers taken per wake-up; level-triggered epoll does the rest

Resolved loopback()
{
    Resolved r{};
    auto *v4 = reinterpret_cast<sockaddr_in *>(&r.addr);
    v4->sin_family = AF_INET;
    v4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    r.len = sizeof(sockaddr_in);
    return r;
}

uint64_t token_of(const Conn &c)
{
    return uint64_t{c.gen} << 32 | c.slot;
}

}  // namespace

void Server::start_raw(Conn &c, const Listener &l)
{
    bool relay = l.route == Route::Relay;
    c.req.method = relay ? "RELAY" : "EXPOSE";
    c.req.port = l.port;
    c.target = "127.0.0.1:" + std::to_string(l.port);
    c.via = relay ? "relay" : "expose";
    // No name, no lookup, no policy: the address is fixed and the port is the command line's.
    c.addrs = {loopback()};
    set_interest(c, true, 0);  // bytes wait in the socket until the other end exists
    arm(c, kTimerConnect);
    if (relay)
        return start_connect(c);
    c.state = State::Resolving;
    expose_q_.push_back(token_of(c));
    send_requests();
}

void Server::send_requests()
{
    while (requested_ < expose_q_.size() && requested_ < cfg_.max_connections) {
        if (!by_token(expose_q_[requested_])) {
            // Gone before it was asked for: no socket need be made for it.
            expose_q_.erase(expose_q_.begin() + static_cast<std::ptrdiff_t>(requested_));
            continue;
        }
        int err = request_socket(chanfd_);
        if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS)
            return set_channel_interest(true);
        if (err != 0) {
            stop_ = true;  // the sandbox side is gone
            return;
        }
        requested_++;
    }
    set_channel_interest(false);
}

void Server::on_channel(uint32_t events)
{
    if (events & EPOLLOUT)
        send_requests();
    for (int i = 0; i < kReplyBatch && !stop_; i++) {
        SocketReply r;
        ReplyStatus st = receive_socket_reply(chanfd_, &r);
        if (st == ReplyStatus::Again)
            return;
        if (st == ReplyStatus::Closed) {
            stop_ = true;  // EOF or hang-up: the sandbox has ended
            return;
        }
        on_socket_reply(st, r);
    }
}

void Server::on_socket_reply(ReplyStatus st, SocketReply r)
{
    if (requested_ == 0) {
        if (r.fd >= 0)
            close(r.fd);
        log_.denied("EXPOSE", "-", {502, "protocol-error", "an answer nobody asked for on the channel"});
        return;
    }
    Conn *c = by_token(expose_q_.front());
    expose_q_.pop_front();
    requested_--;
    send_requests();  // one more may be asked for now
    if (!c) {
        if (r.fd >= 0)
            close(r.fd);  // its connection ended while it was being made
        return;
    }
    if (st == ReplyStatus::Malformed)
        return refuse(*c, {502, "protocol-error", "the sandbox's answer to a socket request is malformed"});
    if (r.error != 0)
        return refuse(*c,
                      {502, "socket-failed", std::string("the sandbox could not make a socket: ") + strerror(r.error)});
    if (std::string err = check_inet_stream(r.fd); !err.empty()) {
        close(r.fd);
        return refuse(*c, {502, "bad-socket", "the sandbox's socket is " + err});
    }
    // The contract says non-blocking; a blocking connect would stall every tunnel.
    fcntl(r.fd, F_SETFL, fcntl(r.fd, F_GETFL) | O_NONBLOCK);
    start_connect(*c, r.fd);
}

void Server::set_channel_interest(bool out)
{
    if (out == chan_out_)
        return;
    epoll_event ev{EPOLLIN | (out ? EPOLLOUT : 0u), {.u64 = kChannelTag}};
    epoll_ctl(epfd_, EPOLL_CTL_MOD, chanfd_, &ev);
    chan_out_ = out;
}

}  // namespace tproxy
