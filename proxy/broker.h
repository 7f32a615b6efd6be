/* proxy/broker.h — the credential broker inside the proxy's event loop.
 *
 * Broker is what the Server needs to serve the broker's listener: the configuration, the
 * secrets, the TLS client and the address clients must name in Host. It is built in main
 * before confinement (secrets read, trust store loaded) and outlives the Server.
 * BrokerConn is one client connection's broker state (Conn::broker): the upstream TLS session
 * it may keep between requests, the current request's decision, its upstream head and the
 * exchange that streams it (broker_exchange.h).
 * A client connection serves requests one at a time (HTTP/1.1 keep-alive):
 *   Head -> decide -> [Resolving -> Connecting (TCP, then TLS)] -> Tunnel (the exchange) -> Head
 * A request for the capability whose upstream connection is idle and alive reuses it; a
 * request for another capability closes it first (a refused one leaves it alone). A refusal
 * that leaves the framing intact (no request body, no Connection: close) keeps the client
 * connection; any other ends it (Replying, Draining).
 * Invariants: ssl is non-null exactly while Conn::ufd carries a TLS session (handshake begun);
 * up_idle only between exchanges; the Secret `head` is wiped when the exchange ends, and the
 * client's copy of the token (in Conn::in and Conn::req) as soon as the head is parsed.
 */
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "broker_config.h"
#include "broker_exchange.h"
#include "broker_request.h"
#include "broker_secrets.h"
#include "tls_client.h"

namespace tproxy {

struct Broker {
    const BrokerConfig &cfg;
    BrokerSecrets secrets;
    std::unique_ptr<TlsClient> tls;
    OwnAddress own;
};

struct BrokerConn {
    SSL *ssl = nullptr;                // the upstream session on Conn::ufd
    int up_cap = -1;                   // the capability the upstream connection was made for
    bool up_idle = false;              // handshake done, no exchange on it: reusable
    bool reused = false;               // the current exchange runs on a connection an earlier one used
    bool retried = false;              // the current request already went to a fresh connection once
    unsigned served = 0;               // requests answered on this client connection
    BrokerDecision d;                  // the current request
    Secret head;                       // its upstream head (kept for one retry, wiped at the end)
    bool has_body = false;             // it has a body (so it cannot be retried or refused keep-alive)
    bool expect_continue = false;      // Expect: 100-continue: the body waits for the upstream's 100
    Framer req_body = Framer::none();  // its framing, already fed first_body
    std::string first_body;            // body bytes that came with the head
    bool close_after = false;          // the client asked to close, or the exchange must end it
    std::unique_ptr<Exchange> ex;
    std::string out;  // a keep-alive refusal being written, before the next head is read
    size_t out_off = 0;

    ~BrokerConn();
};

}  // namespace tproxy
