/* proxy/broker_exchange.cpp — streaming one brokered exchange (see broker_exchange.h). */
#include "broker_exchange.h"

#include <openssl/crypto.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "broker_request.h"
#include "broker_secrets.h"
#include "http_response.h"
#include "tls_client.h"

namespace tproxy {
namespace {

constexpr size_t kBufSize = 65536;
constexpr size_t kMaxResponseHead = 65536;  // so what follows a head always fits a buffer

bool would_block()
{
    return errno == EAGAIN || errno == EWOULDBLOCK;
}

}  // namespace

Exchange::Exchange(int cfd, SSL *ssl, Request r)
    : cfd_(cfd), ssl_(ssl), head_(r.head), req_body_(r.req_body), method_(std::move(r.method)), value_(r.value),
      has_body_(r.has_body), hold_body_(r.expect_continue), close_client_(r.close_requested)
{
    c2u_cap_ = r.body.size() > kBufSize ? r.body.size() : kBufSize;
    c2u_.p.reset(new char[c2u_cap_]);
    u2c_.p.reset(new char[kBufSize]);
    std::memcpy(c2u_.p.get(), r.body.data(), r.body.size());
    c2u_.len = r.body.size();
}

Exchange::~Exchange()
{
    OPENSSL_cleanse(c2u_.p.get(), c2u_cap_);
    OPENSSL_cleanse(u2c_.p.get(), kBufSize);
    wipe_string(extra_);
    wipe_string(resp_raw_);
}

Exchange::Outcome Exchange::fail(Outcome o, std::string why)
{
    failed_ = o;
    error_ = std::move(why);
    return o;
}

bool Exchange::request_written() const
{
    return head_off_ == head_.size() && req_body_.done() && c2u_.empty();
}

Exchange::Outcome Exchange::pump(bool *moved)
{
    *moved = false;
    for (;;) {
        rd_want_ = wr_want_ = 0;
        client_blocked_ = false;
        bool any = false;
        for (Step (Exchange::*step)() :
             {&Exchange::to_client, &Exchange::from_client, &Exchange::to_upstream, &Exchange::from_upstream}) {
            Step s = (this->*step)();
            if (s == Step::Failed)
                return failed_;  // nothing more may touch a failed socket or session
            any = any || s == Step::Moved;
        }
        *moved = *moved || any;
        bool response_out = !in_head_ && resp_body_.done() && out_off_ == out_.size() && u2c_.empty();
        if (response_out) {
            if (!request_written()) {
                // The answer came before the request's body ended: this connection is spent.
                close_client_ = true;
                up_keep_ = false;
            }
            return Outcome::Done;
        }
        if (!any)
            return Outcome::Busy;
    }
}

Exchange::Outcome Exchange::client_gone()
{
    return fail(Outcome::ClientFailed, "the client closed the connection");
}

Exchange::Step Exchange::to_client()
{
    bool head = out_off_ < out_.size();
    if (!head && u2c_.empty())
        return Step::Idle;
    const char *p = head ? out_.data() + out_off_ : u2c_.p.get() + u2c_.off;
    size_t n = head ? out_.size() - out_off_ : u2c_.len - u2c_.off;
    ssize_t w = send(cfd_, p, n, MSG_NOSIGNAL);
    if (w < 0) {
        if (!would_block()) {
            fail(Outcome::ClientFailed, std::string("writing to the client: ") + strerror(errno));
            return Step::Failed;
        }
        client_blocked_ = true;
        return Step::Blocked;
    }
    sent_any_ = true;
    if (head) {
        out_off_ += static_cast<size_t>(w);
        if (out_off_ == out_.size()) {
            out_.clear();
            out_off_ = 0;
        }
    } else {
        u2c_.off += static_cast<size_t>(w);
        down_ += static_cast<uint64_t>(w);
    }
    return Step::Moved;
}

Exchange::Step Exchange::from_client()
{
    if (hold_body_ || req_body_.done() || !c2u_.empty())
        return Step::Idle;
    ssize_t n = recv(cfd_, c2u_.p.get(), kBufSize, 0);
    if (n < 0 && would_block())
        return Step::Blocked;
    if (n <= 0) {
        fail(Outcome::ClientFailed,
             n == 0 ? "the client closed before the end of its body"
                    : std::string("reading from the client: ") + strerror(errno));
        return Step::Failed;
    }
    size_t body = req_body_.feed(c2u_.p.get(), static_cast<size_t>(n));
    if (req_body_.failed()) {
        fail(Outcome::BadBody, std::string("request body: ") + req_body_.error());
        return Step::Failed;
    }
    c2u_.off = 0;
    c2u_.len = body;
    extra_.append(c2u_.p.get() + body, static_cast<size_t>(n) - body);
    return Step::Moved;
}

Exchange::Step Exchange::to_upstream()
{
    bool head = head_off_ < head_.size();
    if (!head && (c2u_.empty() || hold_body_))
        return Step::Idle;
    const char *p = head ? head_.data() + head_off_ : c2u_.p.get() + c2u_.off;
    size_t len = head ? head_.size() - head_off_ : c2u_.len - c2u_.off;
    size_t n = 0;
    TlsIo io = tls_write(ssl_, p, len, &n);
    if (io == TlsIo::WantRead || io == TlsIo::WantWrite) {
        wr_want_ = io == TlsIo::WantRead ? EPOLLIN : EPOLLOUT;
        return Step::Blocked;
    }
    if (io != TlsIo::Done) {
        // No further call may touch the session: whatever response came is all there is.
        bool nothing = in_head_ && status_ == 0 && resp_raw_.empty() && !sent_any_;
        fail(nothing ? Outcome::NoResponse : Outcome::UpstreamFailed, "the upstream stopped taking the request");
        return Step::Failed;
    }
    (head ? head_off_ : c2u_.off) += n;
    if (!head)
        up_ += n;
    return Step::Moved;
}

Exchange::Step Exchange::from_upstream()
{
    bool body_done = !in_head_ && resp_body_.done();
    if (body_done || !u2c_.empty() || out_off_ < out_.size())
        return Step::Idle;
    size_t room = in_head_ ? kMaxResponseHead - resp_raw_.size() : kBufSize;
    size_t n = 0;
    TlsIo io = tls_read(ssl_, u2c_.p.get(), room, &n);
    if (io == TlsIo::WantRead || io == TlsIo::WantWrite) {
        rd_want_ = io == TlsIo::WantRead ? EPOLLIN : EPOLLOUT;
        return Step::Blocked;
    }
    if (io == TlsIo::Done)
        return on_response_bytes(u2c_.p.get(), n) ? Step::Moved : Step::Failed;
    up_keep_ = false;
    if (in_head_) {
        bool nothing = status_ == 0 && resp_raw_.empty() && !sent_any_;
        fail(nothing         ? Outcome::NoResponse
                 : sent_any_ ? Outcome::UpstreamFailed
                             : Outcome::BadResponse,
             "the upstream closed the connection inside the response head");
        return Step::Failed;
    }
    if (io == TlsIo::Eof)
        resp_body_.finish_at_eof();
    if (io == TlsIo::Error || resp_body_.failed()) {
        fail(Outcome::UpstreamFailed, "the upstream ended the response early");
        return Step::Failed;
    }
    return Step::Moved;
}

bool Exchange::on_response_bytes(const char *data, size_t n)
{
    if (in_head_) {
        resp_raw_.append(data, n);
        return on_head_complete();
    }
    size_t body = resp_body_.feed(data, n);
    if (resp_body_.failed()) {
        fail(Outcome::UpstreamFailed, std::string("response body: ") + resp_body_.error());
        return false;
    }
    if (body < n)
        up_keep_ = false;  // bytes after the response: the connection is out of step
    if (data != u2c_.p.get())
        std::memcpy(u2c_.p.get(), data, body);  // what followed a head (< kBufSize)
    u2c_.off = 0;
    u2c_.len = body;
    return true;
}

bool Exchange::on_head_complete()
{
    while (in_head_) {
        ResponseParse p = parse_response(resp_raw_, kMaxResponseHead);
        if (p.status == ParseStatus::Incomplete)
            return true;
        if (p.status == ParseStatus::Error) {
            fail(sent_any_ ? Outcome::UpstreamFailed : Outcome::BadResponse, p.error);
            return false;
        }
        std::string rest = resp_raw_.substr(p.resp.head_len);
        wipe_string(resp_raw_);
        if (p.resp.status < 200) {  // interim: relayed as it comes, the final one follows
            hold_body_ = hold_body_ && p.resp.status != 100;
            out_ += client_response_head(p.resp, value_, false).text;
            resp_raw_ = std::move(rest);
            continue;
        }
        ResponseFraming f = response_framing(p.resp, method_);
        close_client_ = close_client_ || f.body.kind() == Framer::Kind::Close || !request_written();
        ClientHead h = client_response_head(p.resp, value_, close_client_);
        if (!f.error.empty() || h.framing_dropped) {
            fail(sent_any_ ? Outcome::UpstreamFailed : Outcome::BadResponse,
                 f.error.empty() ? "a framing header holds the injected value" : f.error);
            return false;
        }
        status_ = p.resp.status;
        up_keep_ = f.keep_alive && !close_client_ && !has_body_;
        out_ += h.text;
        in_head_ = false;
        resp_body_ = f.body;
        bool ok = on_response_bytes(rest.data(), rest.size());
        OPENSSL_cleanse(rest.data(), rest.size());
        return ok;
    }
    return true;
}

uint32_t Exchange::client_events() const
{
    uint32_t in = !hold_body_ && !req_body_.done() && c2u_.empty() ? EPOLLIN : 0u;
    return in | (client_blocked_ ? EPOLLOUT : 0u);
}

uint32_t Exchange::upstream_events() const
{
    return static_cast<uint32_t>(rd_want_ | wr_want_);
}

}  // namespace tproxy
