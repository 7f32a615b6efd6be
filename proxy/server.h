/* proxy/server.h — the epoll event loop that serves every client connection.
 *
 * One thread, level-triggered epoll. Chosen over Asio: no new dependency, and the tunnel is
 * splice(2) between raw descriptors through a pipe, which Asio would only wrap. Per client:
 * the head must arrive within the header deadline (slowloris), a lookup runs on the resolver
 * pool, the connect is bounded by the connect deadline, a tunnel by the idle deadline.
 * At the connection limit the connection that has waited longest for its head is dropped to
 * make room, so slow clients cannot lock out a fast one; when every slot holds a real tunnel
 * a new client gets 503.
 * Channel mode (relay.cpp) adds two routes beside the HTTP proxy, both raw byte tunnels with
 * the same splice pump, connect deadline and idle deadline, and no HTTP at all:
 *  - Relay: a connection to a sandbox listener goes to the host's 127.0.0.1:port;
 *  - Expose: a connection to a host listener goes to 127.0.0.1:port inside the sandbox, on a
 *    socket the sandbox's factory makes on request over the channel. While it waits for that
 *    socket the connection is in State::Resolving (parked, like a lookup, under the connect
 *    deadline) and its token is in expose_q_. Requests and answers are FIFO: expose_q_[0,
 *    requested_) were asked for, in order; the rest wait for room (at most max_connections
 *    asked at once) or for the channel to take more. A connection closed before its answer
 *    keeps its place, and the socket that answers it is closed on arrival.
 * The channel's EOF or hang-up ends run() (the sandbox has ended).
 * Broker (broker_conn.cpp, broker.h): the credential broker's listener; HTTP/1.1 keep-alive
 * requests one at a time, forwarded over TLS with the capability's header injected. It shares
 * the lookup, the address check (internal addresses unless --broker-allow-internal), the
 * connect and the deadlines with the proxy; refusals are broker_refuse's.
 * Invariants: a descriptor is removed from epoll before it is closed; an epoll event names
 * (slot, generation), so an event for a connection closed earlier in the same batch is
 * ignored; a connection is in at most one deadline list; a route never changes while its slot
 * holds a connection.
 */
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "channel.h"
#include "config.h"
#include "conn.h"
#include "reply.h"
#include "resolver.h"

namespace tproxy {

enum class Route : uint8_t { Http, Relay, Expose, Broker };

struct Listener {
    int fd;  // listening, non-blocking
    Route route;
    unsigned port;  // Relay: the host's port; Expose: the port inside; Http, Broker: unused
};

struct Broker;

// Shared by the routes (server.cpp).
int64_t now_ms();
std::string addr_text(const sockaddr_storage &a);
std::string host_port(const Host &h, unsigned port);
Resolved literal_address(const Host &h);

class Server {
public:
    // Takes the listeners and the signal fd that ends run(); channel_fd is -1 outside channel
    // mode, and stays the caller's. `broker` serves the Broker listeners (the caller's; null
    // when there are none).
    Server(const Config &c, std::vector<Listener> listeners, int signal_fd, int channel_fd, Resolver &resolver,
           const Broker *broker = nullptr);
    ~Server();
    Server(const Server &) = delete;
    Server &operator=(const Server &) = delete;

    // Serves until the signal fd is readable. Returns 0, or 1 on an epoll failure.
    int run();

private:
    void on_event(uint64_t tag, uint32_t events);
    void on_accept(const Listener &l);
    bool make_room();
    void turn_away(const Listener &l, int fd);
    void on_client_head(Conn &c);
    void on_request(Conn &c);
    void on_resolved(Resolver::Result &r);
    void check_addresses(Conn &c);
    std::string could_not_resolve(const Conn &c, const char *why) const;
    // Whether c may open a broker upstream under --max-exchanges (dropping another
    // connection's idle kept upstream if that makes room).
    bool room_for_exchange(const Conn &c);
    // Connects to the next checked address; on a socket the sandbox made when given_fd >= 0.
    void start_connect(Conn &c, int given_fd = -1);
    void on_connected(Conn &c, uint32_t events);
    void start_tunnel(Conn &c);
    void on_tunnel(Conn &c, bool client_side, uint32_t events);
    void on_reply(Conn &c, uint32_t events);
    void refuse(Conn &c, Refusal r);
    // A refusal written at once, best effort, to a connection about to be closed.
    void refuse_now(int fd, const Refusal &r);
    void expire(int64_t now);
    int next_timeout(int64_t now) const;

    // relay.cpp: the raw routes and the channel.
    void start_raw(Conn &c, const Listener &l);
    void on_channel(uint32_t events);
    void send_requests();
    void on_socket_reply(ReplyStatus st, SocketReply r);
    void set_channel_interest(bool out);
    Route route(const Conn &c) const { return routes_[c.slot]; }

    // broker_conn.cpp: the credential broker's route.
    void start_broker(Conn &c);
    void on_broker_event(Conn &c, bool client, uint32_t events);
    void broker_head(Conn &c);
    bool broker_flush_out(Conn &c);
    void broker_request(Conn &c);
    void broker_upstream(Conn &c);
    void broker_connected(Conn &c);
    void broker_handshake(Conn &c);
    void broker_start_exchange(Conn &c);
    void broker_pump(Conn &c, bool client, uint32_t events);
    void broker_finish(Conn &c);
    void next_request(Conn &c);
    void broker_refuse(Conn &c, const Refusal &r, bool close);
    void broker_abort(Conn &c, const char *reason, const std::string &detail);
    void broker_idle_upstream(Conn &c);
    void broker_drop_upstream(Conn &c);
    bool broker_expire(Conn &c, int kind);
    void broker_turn_away(int fd, const Refusal &r);
    static constexpr uint64_t kChannelTag = uint64_t{3} << 62 | 1;  // epoll tag (server.cpp)

    Conn *new_conn(int cfd, Route route);
    Conn *lookup(uint64_t tag);
    Conn *by_token(uint64_t token);  // (gen << 32 | slot); null when that connection is gone
    void close_conn(Conn &c);
    void arm(Conn &c, int kind);
    void disarm(Conn &c);
    void set_interest(Conn &c, bool client, uint32_t events);
    void unregister(Conn &c, bool client);
    void update_tunnel_interest(Conn &c);

    const Config &cfg_;
    const Broker *broker_;
    DecisionLog log_;
    Resolver &resolver_;
    int epfd_;
    int sigfd_;
    int chanfd_;
    bool chan_out_ = false;  // EPOLLOUT asked on the channel
    std::vector<Listener> listeners_;
    std::vector<std::unique_ptr<Conn>> slots_;
    std::vector<Route> routes_;      // per slot
    std::deque<uint64_t> expose_q_;  // tokens of connections waiting for a sandbox socket
    size_t requested_ = 0;
    std::vector<uint32_t> free_;
    size_t live_ = 0;
    TimerList timers_[kTimerKinds];
    int durations_[kTimerKinds];
    bool stop_ = false;
};

}  // namespace tproxy
