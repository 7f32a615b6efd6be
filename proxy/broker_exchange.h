/* proxy/broker_exchange.h — one brokered request and its response, streamed both ways.
 *
 * The request goes client socket -> c2u buffer -> SSL_write; the response SSL_read -> u2c
 * buffer -> client socket. Each buffer has a fixed size (64 KiB) and is refilled only when
 * empty, so memory stays bounded whatever the body sizes, a slow reader stalls its writer
 * (back-pressure), and a blocked SSL_write is always retried with the same bytes. Both
 * directions run at once: an interim 100 Continue reaches a client that waits for it before
 * sending its body, and a response may come before the request body is done (the connection
 * then ends after it). pump() moves bytes until nothing moves, then says what each socket
 * waits for; the Server registers that and calls pump() again on any event.
 * The framing of both bodies is parsed (http_body.h) but never changed: the exchange ends
 * exactly at the end of the response, and bytes the client sent past its body (a pipelined
 * request) are kept for the next head. Response heads (interim 1xx ones too) are rewritten by
 * client_response_head: hop-by-hop headers and any header holding the injected value dropped.
 * A request with Expect: 100-continue keeps its body (what came with the head included) until
 * the upstream's 100; a final answer before it means the body is never sent and the client
 * connection ends after the answer.
 * An upstream connection is offered for reuse only after an exchange whose request had no
 * body and whose response ended exactly at its framing with nothing after it: the broker
 * cannot see whether the upstream read a body (one that answers an error without reading it,
 * as http.server does, would take the body as the start of the next request, which the next
 * head and its credential would complete).
 * Invariants: proxy-made bytes (`out_`) are written to the client before any body byte that
 * follows them; nothing is read from the upstream while the client has bytes to take; the
 * raw response head (which may hold the value) is wiped once parsed; no request body byte is
 * written upstream while hold_body_.
 */
#pragma once

#include <openssl/ssl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "broker_reflect.h"
#include "http_body.h"

namespace tproxy {

class Exchange {
public:
    enum class Outcome {
        Busy,            // waiting for a socket
        Done,            // the response reached the client (and the request the upstream)
        NoResponse,      // the upstream closed or failed before any byte of a response
        BadResponse,     // the response head or framing is malformed; nothing sent to the client
        UpstreamFailed,  // the upstream failed or broke framing after the client got some of it
        BadBody,         // the client's body framing is malformed (trailers included)
        ClientFailed,    // the client went away
    };

    struct Request {
        std::string_view head;  // the upstream head (not owned; must outlive the exchange)
        std::string_view body;  // request body bytes that came with the head (fed to req_body)
        Framer req_body;
        std::string method;      // for HEAD
        std::string_view value;  // the injected value (what holds it is dropped from heads)
        bool close_requested;    // the client asked to close
        bool has_body;           // the request has a body (broker_request.h has_body)
        bool expect_continue;    // hold the body until the upstream sends 100 Continue
    };
    Exchange(int cfd, SSL *ssl, Request r);
    ~Exchange();

    // Moves bytes until nothing moves. *moved: whether anything did.
    Outcome pump(bool *moved);
    // The client hung up (EPOLLHUP/EPOLLERR on its socket).
    Outcome client_gone();

    uint32_t client_events() const;    // EPOLLIN / EPOLLOUT the client socket waits for
    uint32_t upstream_events() const;  // the same for the upstream socket

    int status() const { return status_; }  // the final response's, 0 before its head
    uint64_t bytes_up() const { return up_; }
    uint64_t bytes_down() const { return down_; }
    bool sent_to_client() const { return sent_any_; }
    // After Done: whether the upstream connection may carry another request, and whether the
    // client connection must end (the response said so or came before the request body ended).
    bool upstream_reusable() const { return up_keep_; }
    bool client_must_close() const { return close_client_; }
    const std::string &error() const { return error_; }
    // Bytes the client sent after its request body (the next request's, pipelined).
    std::string take_extra() { return std::move(extra_); }

private:
    struct Buf {
        std::unique_ptr<char[]> p;
        size_t off = 0, len = 0;
        bool empty() const { return off == len; }
    };
    enum class Step { Idle, Moved, Blocked, Failed };

    Step to_client();
    Step from_client();
    Step to_upstream();
    Step from_upstream();
    bool on_response_bytes(const char *data, size_t n);  // false: bad response
    bool on_head_complete();
    bool request_written() const;
    Outcome fail(Outcome o, std::string why);

    int cfd_;
    SSL *ssl_;
    std::string_view head_;
    size_t head_off_ = 0;
    Framer req_body_, resp_body_ = Framer::none();
    std::string method_;
    ValueFinder value_;
    bool has_body_;
    bool hold_body_;  // Expect: 100-continue and no 100 yet: no body byte goes upstream
    Buf c2u_, u2c_;
    size_t c2u_cap_ = 0;
    std::string resp_raw_;  // the response head while it arrives
    bool in_head_ = true;   // reading a response head (interim or final)
    std::string out_;       // rewritten response heads for the client
    size_t out_off_ = 0;
    std::string extra_;
    int status_ = 0;
    uint64_t up_ = 0, down_ = 0;
    bool sent_any_ = false;
    bool up_keep_ = false;
    bool close_client_ = false;
    bool client_blocked_ = false;    // the last send to the client would block
    int rd_want_ = 0, wr_want_ = 0;  // EPOLLIN/EPOLLOUT the last blocked SSL_read/SSL_write wants
    Outcome failed_ = Outcome::Busy;
    std::string error_;
};

}  // namespace tproxy
