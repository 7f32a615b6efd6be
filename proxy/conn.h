/* proxy/conn.h — one client connection, its tunnel directions and the deadline lists.
 *
 * A connection moves Head -> (Resolving) -> Connecting -> Tunnel, or to Replying -> Draining
 * when it is refused. A broker connection (broker.h) goes back to Head after each exchange,
 * and its Tunnel is the broker's Exchange, not the Dirs. Each Dir moves bytes one way: first
 * its prefix (proxy-made bytes: the "200 Connection established" line, or the rewritten
 * request head plus whatever body bytes came with it), then through its pipe by splice(2), so
 * tunnel bytes never enter user space.
 * Invariant of a Dir: the pipe is refilled only when empty, so `in_pipe` is exact and an
 * EAGAIN from the source socket always means "no data", never "pipe full".
 *
 * Deadlines: each timer kind has one fixed duration, so a list in arming order is also in
 * deadline order and arming, re-arming and expiry are O(1). Idle tunnels are re-armed lazily:
 * activity only stamps `active`; when the list front expires it is moved to the back if it
 * was active since it was armed.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "http_request.h"
#include "resolver.h"

namespace tproxy {

enum class State { Head, Resolving, Connecting, Tunnel, Replying, Draining };
enum class Wait { None, In, Out, Done };
enum TimerKind { kTimerHead, kTimerConnect, kTimerIdle, kTimerLinger, kTimerKinds };

struct Dir {
    int src = -1, dst = -1;
    int pipe_r = -1, pipe_w = -1;
    size_t in_pipe = 0;
    std::string prefix;
    size_t prefix_off = 0;
    Wait wait = Wait::None;
    size_t moved = 0;         // bytes spliced in so far: a bulk stream's pipe grows (tunnel.cpp)
    bool pipe_grown = false;  // ... once, whether the kernel let it or not
};

struct BrokerConn;  // broker.h: the broker route's state of a connection
struct BrokerConnFree {
    void operator()(BrokerConn *b) const;  // broker_conn.cpp
};

struct Conn {
    uint32_t slot = 0;
    uint32_t gen = 0;
    State state = State::Head;
    int cfd = -1, ufd = -1;
    uint32_t cev = 0, uev = 0;  // registered epoll interest; cev_on/uev_on: registered at all
    bool cev_on = false, uev_on = false;
    bool chup = false, uhup = false;  // side hung up: never registered again
    std::string in;                   // bytes read while waiting for the head
    Request req;
    std::string target;  // "host:port" for logs and bodies
    std::vector<Resolved> addrs;
    size_t next_addr = 0;
    const char *via = "";
    int last_errno = 0;  // of the last failed upstream connect
    Dir c2u, u2c;
    std::string reply;  // refusal being written in Replying
    size_t reply_off = 0;
    std::unique_ptr<BrokerConn, BrokerConnFree> broker;  // Route::Broker only
    // Deadline list membership.
    int timer = -1;
    int64_t armed = 0, active = 0;
    Conn *prev = nullptr, *next = nullptr;
};

class TimerList {
public:
    void push_back(Conn *c);
    void remove(Conn *c);
    Conn *front() const { return head_; }
    bool empty() const { return head_ == nullptr; }

private:
    Conn *head_ = nullptr, *tail_ = nullptr;
};

inline void TimerList::push_back(Conn *c)
{
    c->prev = tail_;
    c->next = nullptr;
    (tail_ ? tail_->next : head_) = c;
    tail_ = c;
}

inline void TimerList::remove(Conn *c)
{
    (c->prev ? c->prev->next : head_) = c->next;
    (c->next ? c->next->prev : tail_) = c->prev;
    c->prev = c->next = nullptr;
}

// Moves bytes for one direction until the source has nothing or the destination is full.
// Returns false on a socket error (the connection must close).
bool pump(Dir &d);

// Releases the direction's pipe.
void close_pipe(Dir &d);

}  // namespace tproxy
