/* proxy/server.h — the epoll event loop that serves every client connection.
 *
 * One thread, level-triggered epoll. Chosen over Asio: no new dependency, and the tunnel is
 * splice(2) between raw descriptors through a pipe, which Asio would only wrap. Per client:
 * the head must arrive within the header deadline (slowloris), a lookup runs on the resolver
 * pool, the connect is bounded by the connect deadline, a tunnel by the idle deadline.
 * At the connection limit the connection that has waited longest for its head is dropped to
 * make room, so slow clients cannot lock out a fast one; when every slot holds a real tunnel
 * a new client gets 503.
 * Invariants: a descriptor is removed from epoll before it is closed; an epoll event names
 * (slot, generation), so an event for a connection closed earlier in the same batch is
 * ignored; a connection is in at most one deadline list.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config.h"
#include "conn.h"
#include "reply.h"
#include "resolver.h"

namespace tproxy {

class Server {
public:
    // Takes the listening sockets (non-blocking) and the signal fd that ends run().
    Server(const Config &c, std::vector<int> listeners, int signal_fd, Resolver &resolver);
    ~Server();
    Server(const Server &) = delete;
    Server &operator=(const Server &) = delete;

    // Serves until the signal fd is readable. Returns 0, or 1 on an epoll failure.
    int run();

private:
    void on_event(uint64_t tag, uint32_t events);
    void on_accept(int lfd);
    void on_client_head(Conn &c);
    void on_request(Conn &c);
    void on_resolved(Resolver::Result &r);
    void check_addresses(Conn &c);
    void start_connect(Conn &c);
    void on_connected(Conn &c, uint32_t events);
    void start_tunnel(Conn &c);
    void on_tunnel(Conn &c, bool client_side, uint32_t events);
    void on_reply(Conn &c, uint32_t events);
    void refuse(Conn &c, Refusal r);
    // A refusal written at once, best effort, to a connection about to be closed.
    void refuse_now(int fd, const Refusal &r);
    void expire(int64_t now);
    int next_timeout(int64_t now) const;

    Conn *new_conn(int cfd);
    Conn *lookup(uint64_t tag);
    void close_conn(Conn &c);
    void arm(Conn &c, int kind);
    void disarm(Conn &c);
    void set_interest(Conn &c, bool client, uint32_t events);
    void unregister(Conn &c, bool client);
    void update_tunnel_interest(Conn &c);

    const Config &cfg_;
    DecisionLog log_;
    Resolver &resolver_;
    int epfd_;
    int sigfd_;
    std::vector<int> listeners_;
    std::vector<std::unique_ptr<Conn>> slots_;
    std::vector<uint32_t> free_;
    size_t live_ = 0;
    TimerList timers_[kTimerKinds];
    int durations_[kTimerKinds];
    bool stop_ = false;
};

}  // namespace tproxy
