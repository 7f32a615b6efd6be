/* proxy/broker_conn.cpp — the credential broker's route in the event loop (see broker.h and
 * server.h): heads, decisions, the upstream connection and its reuse, refusals, deadlines. */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <openssl/crypto.h>

#include "broker.h"
#include "broker_mask.h"
#include "server.h"

namespace tproxy {
namespace {

bool would_block()
{
    return errno == EAGAIN || errno == EWOULDBLOCK;
}

// A response head and its body, or a request head and its body, leave in separate writes:
// with Nagle's algorithm the second waits for the peer's delayed ACK, ~40 ms per exchange on
// a kept connection. Best effort: without it only latency suffers.
void no_delay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// The log event of the connection's current request, as far as it is known; what the agent
// chose (the path) with secrets starred (broker_mask.h).
BrokerEvent event_of(const Conn &c, const Broker &b, const char *decision)
{
    const BrokerConn &bc = *c.broker;
    BrokerEvent e{decision, "", c.req.method, "", 0, "", 0, 0, 0, true, "", ""};
    if (bc.d.cap >= 0) {
        const Capability &cap = b.cfg.caps[static_cast<size_t>(bc.d.cap)];
        e.capability = cap.name;
        e.host = cap.host.text;
        e.port = cap.port;
        e.path = mask_for_log(bc.d.log_path, b.secrets);
    }
    return e;
}

}  // namespace

void BrokerConnFree::operator()(BrokerConn *b) const
{
    delete b;
}

BrokerConn::~BrokerConn()
{
    if (ssl)
        SSL_free(ssl);  // the socket is Conn::ufd, closed by its owner
    wipe_string(out);
    wipe_string(first_body);
}

void Server::start_broker(Conn &c)
{
    c.broker.reset(new BrokerConn);
    no_delay(c.cfd);
    // Read in place, never grown: a reallocation would leave a copy of the token behind.
    c.in.reserve(cfg_.max_header_bytes + 1);
    set_interest(c, true, EPOLLIN);
    arm(c, kTimerHead);
}

void Server::on_broker_event(Conn &c, bool client, uint32_t events)
{
    BrokerConn &bc = *c.broker;
    switch (c.state) {
    case State::Head:
        if (!client)
            return broker_idle_upstream(c);
        return events & EPOLLERR ? close_conn(c) : broker_head(c);
    case State::Resolving: return broker_abort(c, "client-closed", "the client closed the connection");
    case State::Connecting:
        if (client)
            return broker_abort(c, "client-closed", "the client closed the connection");
        return bc.ssl ? broker_handshake(c) : on_connected(c, events);
    case State::Tunnel: return broker_pump(c, client, events);
    case State::Replying:
    case State::Draining: return on_reply(c, events);
    }
}

bool Server::broker_flush_out(Conn &c)
{
    BrokerConn &bc = *c.broker;
    while (bc.out_off < bc.out.size()) {
        ssize_t n = send(c.cfd, bc.out.data() + bc.out_off, bc.out.size() - bc.out_off, MSG_NOSIGNAL);
        if (n < 0) {
            if (would_block())
                set_interest(c, true, EPOLLOUT);
            else
                close_conn(c);
            return false;
        }
        bc.out_off += static_cast<size_t>(n);
    }
    bc.out.clear();
    bc.out_off = 0;
    return true;
}

void Server::broker_head(Conn &c)
{
    BrokerConn &bc = *c.broker;
    if (!bc.out.empty() && !broker_flush_out(c))
        return;
    set_interest(c, true, EPOLLIN);
    size_t have = c.in.size();
    size_t room = have <= cfg_.max_header_bytes ? cfg_.max_header_bytes + 1 - have : 0;
    if (room > 0) {
        c.in.resize(have + room);  // within the reserved capacity
        ssize_t n = recv(c.cfd, c.in.data() + have, room, 0);
        c.in.resize(have + (n > 0 ? static_cast<size_t>(n) : 0));
        if (n == 0 || (n < 0 && !would_block()))
            return close_conn(c);  // between requests, or inside a head: nothing to answer
    }
    if (c.in.empty())
        return;
    ParseResult pr = parse_request(c.in, cfg_.max_header_bytes, Form::Origin);
    if (pr.status == ParseStatus::Error) {
        bc.d = BrokerDecision{};  // nothing of the earlier request belongs to this one
        return broker_refuse(c, {pr.err.status, pr.err.code, pr.err.detail}, true);
    }
    if (pr.status == ParseStatus::Incomplete)
        return;
    c.req = std::move(pr.req);
    broker_request(c);
}

void Server::broker_request(Conn &c)
{
    BrokerConn &bc = *c.broker;
    bc.d = broker_decide(c.req, broker_->cfg, broker_->secrets, broker_->own);
    bc.close_after = wants_close(c.req);
    bc.retried = false;
    std::optional<Framer> body = request_body(c.req);
    bc.has_body = has_body(c.req);
    bc.expect_continue = expects_continue(c.req);
    size_t head_len = c.req.head_len;
    OPENSSL_cleanse(c.in.data(), head_len);  // the token's bytes as they arrived
    c.in.erase(0, head_len);
    if (!body)
        return broker_refuse(c, {400, "bad-request", "Content-Length too large"}, true);
    if (bc.d.refusal)
        return broker_refuse(c, *bc.d.refusal, bc.close_after || bc.has_body);
    size_t ci = static_cast<size_t>(bc.d.cap);
    const Capability &cap = broker_->cfg.caps[ci];
    bc.head = upstream_request_head(c.req, broker_->cfg, cap, bc.d.path, broker_->secrets.lines[ci], bc.close_after);
    wipe_request(c.req);
    size_t first = body->feed(c.in.data(), c.in.size());
    if (body->failed())
        return broker_refuse(c, {400, "bad-request", std::string("request body: ") + body->error()}, true);
    bc.first_body.assign(c.in, 0, first);
    c.in.erase(0, first);
    bc.req_body = *body;
    // From here the request's target is the upstream: check_addresses and start_connect use it.
    c.req.host = cap.host;
    c.req.port = cap.port;
    c.target = host_port(cap.host, cap.port);
    bool reuse = c.ufd >= 0 && bc.up_idle && bc.up_cap == bc.d.cap;
    if (!reuse)
        return broker_upstream(c);
    bc.reused = true;
    broker_start_exchange(c);
}

void Server::broker_upstream(Conn &c)
{
    BrokerConn &bc = *c.broker;
    broker_drop_upstream(c);
    bc.reused = false;
    const Capability &cap = broker_->cfg.caps[static_cast<size_t>(bc.d.cap)];
    c.addrs.clear();
    c.next_addr = 0;
    set_interest(c, true, 0);  // the next request waits until this one is answered
    arm(c, kTimerConnect);     // lookup, connect and handshake
    if (cap.host.kind != HostKind::Name) {
        c.addrs = {literal_address(cap.host)};
        c.via = "literal";
        return check_addresses(c);
    }
    c.via = "dns";
    if (!resolver_.submit(uint64_t{c.gen} << 32 | c.slot, cap.host.text))
        return refuse(c, {503, "overloaded", "too many lookups in flight; try again"});
    c.state = State::Resolving;
}

void Server::broker_connected(Conn &c)
{
    BrokerConn &bc = *c.broker;
    no_delay(c.ufd);
    bc.ssl = broker_->tls->session(c.ufd, c.req.host);
    if (!bc.ssl)
        return refuse(c, {502, "upstream-tls", "cannot start a TLS session"});
    broker_handshake(c);
}

void Server::broker_handshake(Conn &c)
{
    BrokerConn &bc = *c.broker;
    switch (tls_handshake(bc.ssl)) {
    case TlsIo::Done: bc.up_cap = bc.d.cap; return broker_start_exchange(c);
    case TlsIo::WantRead: return set_interest(c, false, EPOLLIN);
    case TlsIo::WantWrite: return set_interest(c, false, EPOLLOUT);
    default: return refuse(c, {502, "upstream-tls", c.target + ": " + tls_failure(bc.ssl)});
    }
}

void Server::broker_start_exchange(Conn &c)
{
    BrokerConn &bc = *c.broker;
    size_t cap = static_cast<size_t>(bc.d.cap);
    bc.up_idle = false;
    bc.ex = std::make_unique<Exchange>(c.cfd, bc.ssl,
                                       Exchange::Request{bc.head.view(), bc.first_body, bc.req_body, c.req.method,
                                                         broker_->secrets.values[cap].view(), bc.close_after,
                                                         bc.has_body, bc.expect_continue});
    wipe_string(bc.first_body);
    c.state = State::Tunnel;
    arm(c, kTimerIdle);
    broker_pump(c, true, 0);
}

void Server::broker_pump(Conn &c, bool client, uint32_t events)
{
    BrokerConn &bc = *c.broker;
    Exchange::Outcome o;
    if (client && (events & (EPOLLHUP | EPOLLERR))) {
        o = bc.ex->client_gone();
    } else {
        if (!client && (events & (EPOLLHUP | EPOLLERR))) {
            // The upstream is gone; what it sent is still read, without epoll (a level-
            // triggered hang-up would be reported on every wait).
            unregister(c, false);
            c.uhup = true;
        }
        bool moved = false;
        o = bc.ex->pump(&moved);
        if (moved)
            c.active = now_ms();
    }
    switch (o) {
    case Exchange::Outcome::Busy:
        set_interest(c, true, bc.ex->client_events());
        if (!c.uhup)
            set_interest(c, false, bc.ex->upstream_events());
        return;
    case Exchange::Outcome::Done: return broker_finish(c);
    case Exchange::Outcome::NoResponse:
        if (bc.reused && !bc.has_body && !bc.retried) {
            // The kept connection was closed by the upstream meanwhile: the request, which
            // has no body and got no answer, goes once more on a fresh connection.
            bc.retried = true;
            bc.ex.reset();
            return broker_upstream(c);
        }
        [[fallthrough]];
    case Exchange::Outcome::BadResponse:
        return refuse(c, {502, "bad-upstream-response", c.target + ": " + bc.ex->error()});
    case Exchange::Outcome::UpstreamFailed: return broker_abort(c, "upstream-failed", bc.ex->error());
    case Exchange::Outcome::BadBody:
        if (!bc.ex->sent_to_client())
            return broker_refuse(c, {400, "bad-request", bc.ex->error()}, true);
        return broker_abort(c, "bad-request", bc.ex->error());
    case Exchange::Outcome::ClientFailed: return broker_abort(c, "client-failed", bc.ex->error());
    }
}

void Server::broker_finish(Conn &c)
{
    BrokerConn &bc = *c.broker;
    Exchange &ex = *bc.ex;
    BrokerEvent e = event_of(c, *broker_, "allow");
    e.status = ex.status();
    e.bytes_up = ex.bytes_up();
    e.bytes_down = ex.bytes_down();
    log_.broker(e);
    bool close_client = bc.close_after || ex.client_must_close();
    bool keep_upstream = ex.upstream_reusable() && !c.uhup && !close_client;
    std::string extra = ex.take_extra();
    c.in += extra;
    wipe_string(extra);
    bc.ex.reset();
    bc.head.wipe();
    bc.served++;
    if (!keep_upstream)
        broker_drop_upstream(c);
    if (close_client) {
        // Half-close and drain, so unread request bytes do not turn the close into a reset
        // that could destroy the response's end.
        shutdown(c.cfd, SHUT_WR);
        c.reply.clear();
        c.reply_off = 0;
        c.state = State::Draining;
        arm(c, kTimerLinger);
        set_interest(c, true, EPOLLIN);
        return;
    }
    bc.up_idle = keep_upstream;
    if (keep_upstream)
        set_interest(c, false, EPOLLIN);  // to notice the upstream closing it
    next_request(c);
}

void Server::next_request(Conn &c)
{
    BrokerConn &bc = *c.broker;
    bc.d = BrokerDecision{};
    bc.has_body = false;
    bc.close_after = false;
    c.req = Request{};
    c.state = State::Head;
    arm(c, kTimerHead);
    // Through the loop, not by a call: a pipelined request may be waiting already, and a run
    // of them must not become a recursion. The socket is writable, so this comes at once.
    set_interest(c, true, EPOLLIN | EPOLLOUT);
}

void Server::broker_refuse(Conn &c, const Refusal &r, bool close)
{
    BrokerConn &bc = *c.broker;
    BrokerEvent e = event_of(c, *broker_, r.status >= 502 && r.status <= 504 ? "fail" : "deny");
    e.status = r.status;
    e.reason = r.code;
    e.detail = mask_for_log(r.body, broker_->secrets);  // it may quote the path
    log_.broker(e);
    wipe_request(c.req);
    bc.ex.reset();
    bc.head.wipe();
    if (!bc.up_idle)
        broker_drop_upstream(c);  // a connection being made, or one an exchange failed on
    if (close) {
        broker_drop_upstream(c);
        c.reply = broker_refusal_response(r, true);
        c.reply_off = 0;
        c.state = State::Replying;
        arm(c, kTimerLinger);
        set_interest(c, true, EPOLLOUT);
        return on_reply(c, EPOLLOUT);
    }
    bc.out = broker_refusal_response(r, false);
    bc.out_off = 0;
    bc.served++;
    next_request(c);
}

void Server::broker_abort(Conn &c, const char *reason, const std::string &detail)
{
    BrokerConn &bc = *c.broker;
    BrokerEvent e = event_of(c, *broker_, "allow");
    e.complete = false;
    e.reason = reason;
    e.detail = detail;
    if (bc.ex) {
        e.status = bc.ex->status();
        e.bytes_up = bc.ex->bytes_up();
        e.bytes_down = bc.ex->bytes_down();
    }
    log_.broker(e);
    close_conn(c);
}

void Server::broker_idle_upstream(Conn &c)
{
    BrokerConn &bc = *c.broker;
    if (!bc.ssl || !bc.up_idle)
        return;  // an event from before it was dropped or taken
    char buf[512];
    size_t n = 0;
    TlsIo io = tls_read(bc.ssl, buf, sizeof buf, &n);
    OPENSSL_cleanse(buf, sizeof buf);
    if (io != TlsIo::WantRead)  // data nobody asked for, EOF or an error: it is done
        broker_drop_upstream(c);
}

void Server::broker_drop_upstream(Conn &c)
{
    BrokerConn &bc = *c.broker;
    if (bc.ssl) {
        SSL_free(bc.ssl);
        bc.ssl = nullptr;
    }
    if (c.ufd >= 0) {
        unregister(c, false);
        close(c.ufd);
        c.ufd = -1;
    }
    bc.up_idle = false;
    bc.up_cap = -1;
    c.uhup = false;
}

bool Server::broker_expire(Conn &c, int kind)
{
    BrokerConn &bc = *c.broker;
    if (kind == kTimerHead && c.in.empty() && bc.out.empty() && bc.served > 0) {
        close_conn(c);  // an idle keep-alive connection: nothing to say
        return true;
    }
    if (kind == kTimerHead) {
        broker_refuse(c,
                      {408, "header-timeout",
                       "request head not complete within " + std::to_string(cfg_.header_timeout_ms) + " ms"},
                      true);
        return true;
    }
    if (kind == kTimerIdle && c.state == State::Tunnel) {
        broker_abort(c, "idle-timeout", "no byte either way for " + std::to_string(cfg_.idle_timeout_ms) + " ms");
        return true;
    }
    return false;  // the generic answer: 504 (through refuse) or the end of a linger
}

void Server::broker_turn_away(int fd, const Refusal &r)
{
    BrokerEvent e{"fail", "", "", "", 0, "", r.status, 0, 0, true, r.code, r.body};
    if (r.status < 500)
        e.decision = "deny";
    log_.broker(e);
    char sink[4096];
    while (recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
    }
    std::string text = broker_refusal_response(r, true);
    (void)!send(fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace tproxy
