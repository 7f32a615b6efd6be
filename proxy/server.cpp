/* proxy/server.cpp — accept, read the head, decide, resolve, connect, tunnel (see server.h). */
#include "server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <system_error>
#include <utility>

#include "addr_class.h"
#include "broker.h"

namespace tproxy {
namespace {

// Tags: the top two bits are the type; kChannelTag (server.h) is kTagControl's value 1.
constexpr uint64_t kTagConn = 0, kTagListen = 1, kTagResolver = 2, kTagControl = 3;
constexpr int kLingerMs = 2000;             // to write a refusal and read what the client sent
constexpr size_t kMaxDrainBytes = 1 << 20;  // ... at most this much
constexpr int kAcceptBatch = 64;

// A relay or exposed port has no HTTP to say why: a reset is the refusal, so the client sees
// ECONNRESET ("connection refused" in spirit) rather than a clean end of the stream.
void reset(int fd)
{
    linger l{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
}

uint64_t special_tag(uint64_t type, uint64_t value)
{
    return type << 62 | value;
}

uint64_t conn_tag(const Conn &c, bool client)
{
    return uint64_t{c.gen & 0x3fffffffu} << 32 | uint64_t{c.slot} << 1 | (client ? 0 : 1);
}

void set_port(sockaddr_storage &a, unsigned port)
{
    uint16_t p = htons(static_cast<uint16_t>(port));
    if (a.ss_family == AF_INET)
        reinterpret_cast<sockaddr_in *>(&a)->sin_port = p;
    else
        reinterpret_cast<sockaddr_in6 *>(&a)->sin6_port = p;
}

std::string ports_text(const std::vector<unsigned> &ports)
{
    std::string s;
    for (unsigned p : ports)
        s += (s.empty() ? "" : ",") + std::to_string(p);
    return s;
}

Refusal policy_refusal(Verdict v, const Host &h, unsigned port, const Policy &p)
{
    switch (v) {
    case Verdict::DenyDenylist:
        return {403, "blocked-by-denylist", h.text + " matches deny_domains; remove it from deny_domains to allow it"};
    case Verdict::DenyPort:
        return {403, "blocked-port",
                "port " + std::to_string(port) + " of " + h.text + " is not allowed (ports " + ports_text(p.ports) +
                    "; add it to domain_ports, tartaros-proxy --ports)"};
    default:
        if (h.kind != HostKind::Name)
            return {403, "blocked-by-allowlist", h.text + " is an IP literal not in allow_domains; connect by name"};
        return {403, "blocked-by-allowlist", h.text + " is not in allow_domains; add it to allow_domains to allow it"};
    }
}

}  // namespace

int64_t now_ms()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

std::string addr_text(const sockaddr_storage &a)
{
    char buf[INET6_ADDRSTRLEN] = "?";
    if (a.ss_family == AF_INET)
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in *>(&a)->sin_addr, buf, sizeof buf);
    else if (a.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6 *>(&a)->sin6_addr, buf, sizeof buf);
    return buf;
}

std::string host_port(const Host &h, unsigned port)
{
    bool v6 = h.kind == HostKind::V6Literal;
    return (v6 ? "[" + h.text + "]" : h.text) + ":" + std::to_string(port);
}

Resolved literal_address(const Host &h)
{
    Resolved r{};
    if (h.kind == HostKind::V4Literal) {
        auto *v4 = reinterpret_cast<sockaddr_in *>(&r.addr);
        v4->sin_family = AF_INET;
        inet_pton(AF_INET, h.text.c_str(), &v4->sin_addr);
        r.len = sizeof(sockaddr_in);
    } else {
        auto *v6 = reinterpret_cast<sockaddr_in6 *>(&r.addr);
        v6->sin6_family = AF_INET6;
        inet_pton(AF_INET6, h.text.c_str(), &v6->sin6_addr);
        r.len = sizeof(sockaddr_in6);
    }
    return r;
}

Server::Server(const Config &c, std::vector<Listener> listeners, int signal_fd, int channel_fd, Resolver &resolver,
               const Broker *broker)
    : cfg_(c), broker_(broker), log_(c.log_fd, EffectLog(c.effect_log_fd, c.run_id)), resolver_(resolver),
      sigfd_(signal_fd), chanfd_(channel_fd),
      listeners_(std::move(listeners)), durations_{c.header_timeout_ms, c.connect_timeout_ms, c.idle_timeout_ms,
                                                   kLingerMs}
{
    epfd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epfd_ < 0)
        throw std::system_error(errno, std::generic_category(), "epoll_create1");
    auto add = [this](int fd, uint64_t tag) {
        epoll_event ev{EPOLLIN, {.u64 = tag}};
        if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) != 0)
            throw std::system_error(errno, std::generic_category(), "epoll_ctl");
    };
    for (size_t i = 0; i < listeners_.size(); i++)
        add(listeners_[i].fd, special_tag(kTagListen, i));
    add(resolver_.event_fd(), special_tag(kTagResolver, 0));
    add(sigfd_, special_tag(kTagControl, 0));
    if (chanfd_ >= 0)
        add(chanfd_, kChannelTag);
}

Server::~Server()
{
    for (auto &c : slots_)
        if (c->cfd >= 0)
            close_conn(*c);
    for (const Listener &l : listeners_)
        close(l.fd);
    close(epfd_);
}

int Server::run()
{
    epoll_event evs[256];
    while (!stop_) {
        expire(now_ms());
        int n = epoll_wait(epfd_, evs, 256, next_timeout(now_ms()));
        if (n < 0 && errno != EINTR)
            return 1;
        for (int i = 0; i < n && !stop_; i++)
            on_event(evs[i].data.u64, evs[i].events);
    }
    // Every decision is made: the end-of-run notes can be final.
    log_.write_notes(cfg_.notes_fd);
    return 0;
}

void Server::on_event(uint64_t tag, uint32_t events)
{
    switch (tag >> 62) {
    case kTagListen: on_accept(listeners_[tag & 0xffffffffu]); return;
    case kTagResolver:
        for (Resolver::Result &r : resolver_.drain())
            on_resolved(r);
        return;
    case kTagControl:
        if (tag == kChannelTag)
            on_channel(events);
        else
            stop_ = true;
        return;
    default: break;
    }
    Conn *c = lookup(tag);
    if (!c)
        return;  // closed earlier in this batch
    bool client = (tag & 1) == 0;
    if (route(*c) == Route::Broker)
        return on_broker_event(*c, client, events);
    switch (c->state) {
    case State::Head: return on_client_head(*c);
    case State::Resolving: return close_conn(*c);  // only a hang-up or error is reported here (lookup or socket)
    case State::Connecting: return client ? close_conn(*c) : on_connected(*c, events);
    case State::Tunnel: return on_tunnel(*c, client, events);
    case State::Replying:
    case State::Draining: return on_reply(*c, events);
    }
}

void Server::on_accept(const Listener &l)
{
    for (int i = 0; i < kAcceptBatch; i++) {
        int fd = accept4(l.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        if (!make_room()) {
            turn_away(l, fd);
            continue;
        }
        Conn *c = new_conn(fd, l.route);
        if (l.route == Route::Broker) {
            start_broker(*c);
            continue;
        }
        if (l.route != Route::Http) {
            start_raw(*c, l);
            continue;
        }
        set_interest(*c, true, EPOLLIN);
        arm(*c, kTimerHead);
    }
}

bool Server::make_room()
{
    if (live_ >= cfg_.max_connections && !timers_[kTimerHead].empty()) {
        // Make room by dropping whoever has waited longest for its own head.
        Conn &oldest = *timers_[kTimerHead].front();
        Refusal r{408, "header-timeout", "request head still incomplete at the connection limit"};
        if (route(oldest) != Route::Broker)
            refuse_now(oldest.cfd, r);
        else if (!oldest.in.empty() || oldest.broker->served == 0)
            broker_turn_away(oldest.cfd, r);  // an idle kept broker connection just ends
        close_conn(oldest);
    }
    return live_ < cfg_.max_connections;
}

void Server::turn_away(const Listener &l, int fd)
{
    Refusal r{503, "overloaded",
              "connection limit reached (" + std::to_string(cfg_.max_connections) + " at once); try again later"};
    if (l.route == Route::Http) {
        refuse_now(fd, r);
    } else if (l.route == Route::Broker) {
        broker_turn_away(fd, r);
    } else {
        log_.denied(l.route == Route::Relay ? "RELAY" : "EXPOSE", "127.0.0.1:" + std::to_string(l.port), r);
        reset(fd);
    }
    close(fd);
}

void Server::refuse_now(int fd, const Refusal &r)
{
    log_.denied("-", "-", r);
    // Unread bytes would turn the close into a reset that can destroy the response.
    char sink[4096];
    while (recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
    }
    std::string text = refusal_response(r);
    (void)!send(fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

void Server::on_client_head(Conn &c)
{
    char buf[4096];
    size_t room = cfg_.max_header_bytes + 1 - c.in.size();
    ssize_t n = recv(c.cfd, buf, room < sizeof buf ? room : sizeof buf, 0);
    if (n <= 0) {
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            close_conn(c);
        return;
    }
    c.in.append(buf, static_cast<size_t>(n));
    ParseResult pr = parse_request(c.in, cfg_.max_header_bytes);
    if (pr.status == ParseStatus::Error)
        return refuse(c, {pr.err.status, pr.err.code, pr.err.detail});
    if (pr.status == ParseStatus::Ok) {
        c.req = std::move(pr.req);
        on_request(c);
    }
}

void Server::on_request(Conn &c)
{
    c.target = host_port(c.req.host, c.req.port);
    set_interest(c, true, 0);  // the client waits until its upstream exists
    arm(c, kTimerConnect);     // one deadline for the lookup and the connect
    PreDecision d = decide(cfg_.policy, c.req.host, c.req.port);
    if (d.verdict != Verdict::Allow)
        return refuse(c, policy_refusal(d.verdict, c.req.host, c.req.port, cfg_.policy));
    if (d.pin) {
        c.addrs = {{d.pin->addr, d.pin->addr_len}};
        c.via = "pin";
        return start_connect(c);
    }
    if (c.req.host.kind != HostKind::Name) {
        c.addrs = {literal_address(c.req.host)};
        c.via = "literal";
        return check_addresses(c);
    }
    if (!resolver_.submit(uint64_t{c.gen} << 32 | c.slot, c.req.host.text))
        return refuse(c, {503, "resolver-busy", "too many lookups in flight; try again"});
    c.state = State::Resolving;
}

void Server::on_resolved(Resolver::Result &r)
{
    Conn *found = by_token(r.token);
    if (!found || found->state != State::Resolving)
        return;
    Conn &c = *found;
    if (r.gai_error != 0)
        return refuse(c, {502, "dns-failure", could_not_resolve(c, gai_strerror(r.gai_error))});
    c.addrs = std::move(r.addrs);
    c.via = "dns";
    check_addresses(c);
}

namespace {

// The internal addresses among `addrs`, each once with its range ("::1 (loopback ::1/128),
// 127.0.0.1 (loopback 127.0.0.0/8)"), "" when there is none. All of them, not the first: the
// resolver's order is the host's (gai.conf, /etc/hosts), and the user pins one of them in
// hosts. At most kNamed, so a DNS answer of hundreds keeps the log line short.
std::string internal_addresses(const std::vector<Resolved> &addrs)
{
    constexpr size_t kNamed = 4;
    std::vector<std::string> internal;
    for (const Resolved &a : addrs) {
        AddrClass cls = classify(reinterpret_cast<const sockaddr *>(&a.addr));
        std::string one = addr_text(a.addr) + " (" + cls.range + ")";
        if (cls.internal && std::find(internal.begin(), internal.end(), one) == internal.end())
            internal.push_back(one);
    }
    std::string text;
    for (size_t i = 0; i < internal.size() && i < kNamed; i++)
        text += (i == 0 ? "" : ", ") + internal[i];
    if (internal.size() > kNamed)
        text += " and " + std::to_string(internal.size() - kNamed) + " more";
    return text;
}

}  // namespace

void Server::check_addresses(Conn &c)
{
    // Every address must pass, not just the first: a name answering public and internal
    // addresses is how DNS rebinding reaches a local service.
    bool broker = route(c) == Route::Broker;
    std::string internal = broker && broker_->cfg.allow_internal ? "" : internal_addresses(c.addrs);
    if (!internal.empty())
        return refuse(c,
                      {403, "blocked-internal-address",
                       c.req.host.text + " resolves to " + internal + "; " +
                           (broker ? "set allow_internal in [broker] to allow it"
                                   : "pin it in hosts to allow an internal address")});
    if (c.addrs.empty())
        return refuse(c, {502, "dns-failure", could_not_resolve(c, "no address")});
    if (broker && !room_for_exchange(c))
        return refuse(c,
                      {503, "overloaded",
                       "broker exchange limit (" + std::to_string(cfg_.max_exchanges) +
                           " upstream connections at once) reached; try again later"});
    start_connect(c);
}

std::string Server::could_not_resolve(const Conn &c, const char *why) const
{
    std::string s = "could not resolve " + c.req.host.text + ": " + why;
    return route(c) == Route::Broker ? s : s + "; check the name, or pin it in hosts";
}

bool Server::room_for_exchange(const Conn &c)
{
    // Counted when needed rather than tracked: the broker's code opens and drops upstreams,
    // and a scan of at most max_connections slots per new upstream costs nothing beside TLS.
    size_t held = 0;
    Conn *idle = nullptr;
    for (const auto &slot : slots_) {
        Conn &o = *slot;
        if (&o == &c || o.cfd < 0 || route(o) != Route::Broker || o.ufd < 0)
            continue;
        held++;
        if (o.broker->up_idle && o.state == State::Head)
            idle = &o;
    }
    if (held < cfg_.max_exchanges)
        return true;
    if (idle == nullptr)
        return false;
    broker_drop_upstream(*idle);  // a kept, idle upstream is only a saved handshake
    return true;
}

void Server::start_connect(Conn &c, int given_fd)
{
    c.state = State::Connecting;
    while (c.next_addr < c.addrs.size()) {
        Resolved &a = c.addrs[c.next_addr++];
        set_port(a.addr, c.req.port);
        int fd = given_fd >= 0 ? std::exchange(given_fd, -1)
                               : socket(a.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd >= 0 && (connect(fd, reinterpret_cast<sockaddr *>(&a.addr), a.len) == 0 || errno == EINPROGRESS)) {
            c.ufd = fd;
            set_interest(c, false, EPOLLOUT);
            return;
        }
        c.last_errno = errno;
        if (fd >= 0)
            close(fd);
    }
    if (given_fd >= 0)
        close(given_fd);  // no address to use it on
    std::string why = "cannot connect to " + c.target + ": " + strerror(c.last_errno);
    if (route(c) == Route::Relay)
        why += "; is anything listening on the host's port (local_ports)?";
    refuse(c, {502, "upstream-unreachable", why});
}

void Server::on_connected(Conn &c, uint32_t events)
{
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(c.ufd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        err = errno;
    if (err == 0 && (events & EPOLLERR))
        err = ECONNREFUSED;
    if (err != 0) {
        unregister(c, false);
        close(c.ufd);
        c.ufd = -1;
        c.last_errno = err;
        return start_connect(c);  // the next checked address, never a new lookup
    }
    if (route(c) == Route::Broker)
        return broker_connected(c);
    log_.allowed(c.req.method, c.target, addr_text(c.addrs[c.next_addr - 1].addr), c.via);
    start_tunnel(c);
}

void Server::start_tunnel(Conn &c)
{
    int p1[2], p2[2];
    if (pipe2(p1, O_NONBLOCK | O_CLOEXEC) != 0)
        return refuse(c, {503, "overloaded", "out of file descriptors"});
    if (pipe2(p2, O_NONBLOCK | O_CLOEXEC) != 0) {
        close(p1[0]);
        close(p1[1]);
        return refuse(c, {503, "overloaded", "out of file descriptors"});
    }
    c.c2u = {c.cfd, c.ufd, p1[0], p1[1], 0, c.in.substr(c.req.head_len), 0, Wait::None};
    c.u2c = {c.ufd, c.cfd, p2[0], p2[1], 0, "", 0, Wait::None};
    bool http = route(c) == Route::Http;  // a raw tunnel carries no proxy-made bytes
    if (http && c.req.is_connect)
        c.u2c.prefix = connect_established();
    else if (http)
        c.c2u.prefix.insert(0, upstream_head(c.req));
    std::string().swap(c.in);
    c.state = State::Tunnel;
    arm(c, kTimerIdle);
    on_tunnel(c, true, 0);
}

void Server::on_tunnel(Conn &c, bool client, uint32_t events)
{
    if (events & EPOLLERR)
        return close_conn(c);
    c.active = now_ms();
    if (!pump(c.c2u) || !pump(c.u2c) || (c.c2u.wait == Wait::Done && c.u2c.wait == Wait::Done))
        return close_conn(c);
    if (events & EPOLLHUP) {
        // Peer gone and our side shut: reads still drain without epoll, and a level-triggered
        // hang-up would otherwise be reported on every wait.
        unregister(c, client);
        (client ? c.chup : c.uhup) = true;
    }
    update_tunnel_interest(c);
}

void Server::update_tunnel_interest(Conn &c)
{
    uint32_t ce = (c.c2u.wait == Wait::In ? EPOLLIN : 0u) | (c.u2c.wait == Wait::Out ? EPOLLOUT : 0u);
    uint32_t ue = (c.u2c.wait == Wait::In ? EPOLLIN : 0u) | (c.c2u.wait == Wait::Out ? EPOLLOUT : 0u);
    if (!c.chup)
        set_interest(c, true, ce);
    if (!c.uhup)
        set_interest(c, false, ue);
}

void Server::refuse(Conn &c, Refusal r)
{
    if (route(c) == Route::Broker) {
        const BrokerConn &b = *c.broker;
        return broker_refuse(c, r, b.close_after || b.has_body);
    }
    log_.denied(c.req.method.empty() ? "-" : c.req.method, c.target.empty() ? "-" : c.target, r);
    if (route(c) != Route::Http) {
        reset(c.cfd);  // a raw tunnel has no one to tell but the log and the reset
        return close_conn(c);
    }
    if (c.ufd >= 0) {
        unregister(c, false);
        close(c.ufd);
        c.ufd = -1;
    }
    c.reply = refusal_response(r);
    c.state = State::Replying;
    arm(c, kTimerLinger);
    set_interest(c, true, EPOLLOUT);
    on_reply(c, EPOLLOUT);
}

void Server::on_reply(Conn &c, uint32_t events)
{
    if (events & EPOLLERR)
        return close_conn(c);
    if (c.state == State::Replying) {
        ssize_t n = send(c.cfd, c.reply.data() + c.reply_off, c.reply.size() - c.reply_off, MSG_NOSIGNAL);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return close_conn(c);
        c.reply_off += n > 0 ? static_cast<size_t>(n) : 0;
        if (c.reply_off < c.reply.size())
            return;
        // Closing with unread request bytes would reset the connection and could destroy
        // the refusal before the client reads it: half-close, then drain briefly.
        shutdown(c.cfd, SHUT_WR);
        c.state = State::Draining;
        set_interest(c, true, EPOLLIN);
        return;
    }
    char buf[16384];
    ssize_t n = recv(c.cfd, buf, sizeof buf, 0);
    if (n > 0)
        c.reply_off += static_cast<size_t>(n);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) || c.reply_off > kMaxDrainBytes + c.reply.size())
        close_conn(c);
}

void Server::expire(int64_t now)
{
    for (int kind = 0; kind < kTimerKinds; kind++) {
        TimerList &list = timers_[kind];
        while (!list.empty() && list.front()->armed + durations_[kind] <= now) {
            Conn &c = *list.front();
            if (kind == kTimerIdle && c.active > c.armed) {
                list.remove(&c);
                c.armed = c.active;
                list.push_back(&c);
                continue;
            }
            if (route(c) == Route::Broker && broker_expire(c, kind))
                continue;
            if (kind == kTimerHead)
                refuse(c,
                       {408, "header-timeout",
                        "request head not complete within " + std::to_string(durations_[kind]) + " ms"});
            else if (kind == kTimerConnect)
                refuse(c,
                       {504, "upstream-timeout",
                        "no connection to " + c.target + " within " + std::to_string(durations_[kind]) + " ms"});
            else
                close_conn(c);  // idle tunnel, or a refusal nobody reads
        }
    }
}

int Server::next_timeout(int64_t now) const
{
    int64_t best = -1;
    for (int kind = 0; kind < kTimerKinds; kind++) {
        if (timers_[kind].empty())
            continue;
        int64_t left = timers_[kind].front()->armed + durations_[kind] - now;
        left = left < 0 ? 0 : left;
        best = best < 0 || left < best ? left : best;
    }
    return best > INT_MAX ? INT_MAX : static_cast<int>(best);
}

Conn *Server::new_conn(int cfd, Route route)
{
    uint32_t slot;
    if (!free_.empty()) {
        slot = free_.back();
        free_.pop_back();
    } else {
        slot = static_cast<uint32_t>(slots_.size());
        slots_.push_back(std::make_unique<Conn>());
        slots_.back()->slot = slot;
        routes_.push_back(Route::Http);
    }
    routes_[slot] = route;
    Conn &c = *slots_[slot];
    c.cfd = cfd;
    c.state = State::Head;
    live_++;
    return &c;
}

Conn *Server::by_token(uint64_t token)
{
    uint32_t slot = static_cast<uint32_t>(token & 0xffffffffu);
    uint32_t gen = static_cast<uint32_t>(token >> 32);
    if (slot >= slots_.size() || slots_[slot]->gen != gen || slots_[slot]->cfd < 0)
        return nullptr;
    return slots_[slot].get();
}

Conn *Server::lookup(uint64_t tag)
{
    uint32_t slot = static_cast<uint32_t>((tag >> 1) & 0x7fffffffu);
    uint32_t gen = static_cast<uint32_t>(tag >> 32);
    if (slot >= slots_.size())
        return nullptr;
    Conn &c = *slots_[slot];
    return c.cfd >= 0 && (c.gen & 0x3fffffffu) == gen ? &c : nullptr;
}

void Server::close_conn(Conn &c)
{
    if (c.broker) {  // the client's head held the token
        wipe_string(c.in);
        wipe_request(c.req);
    }
    disarm(c);
    unregister(c, true);
    unregister(c, false);
    close(c.cfd);
    if (c.ufd >= 0)
        close(c.ufd);
    close_pipe(c.c2u);
    close_pipe(c.u2c);
    uint32_t slot = c.slot, gen = c.gen + 1;
    c = Conn{};  // frees the buffers; cfd -1 marks the slot free
    c.slot = slot;
    c.gen = gen;
    free_.push_back(slot);
    live_--;
}

void Server::arm(Conn &c, int kind)
{
    disarm(c);
    c.timer = kind;
    c.armed = c.active = now_ms();
    timers_[kind].push_back(&c);
}

void Server::disarm(Conn &c)
{
    if (c.timer >= 0)
        timers_[c.timer].remove(&c);
    c.timer = -1;
}

void Server::set_interest(Conn &c, bool client, uint32_t events)
{
    int fd = client ? c.cfd : c.ufd;
    bool &on = client ? c.cev_on : c.uev_on;
    uint32_t &cur = client ? c.cev : c.uev;
    if (on && cur == events)
        return;
    epoll_event ev{events, {.u64 = conn_tag(c, client)}};
    epoll_ctl(epfd_, on ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev);
    on = true;
    cur = events;
}

void Server::unregister(Conn &c, bool client)
{
    bool &on = client ? c.cev_on : c.uev_on;
    if (on)
        epoll_ctl(epfd_, EPOLL_CTL_DEL, client ? c.cfd : c.ufd, nullptr);
    on = false;
}

}  // namespace tproxy
