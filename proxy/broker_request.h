/* proxy/broker_request.h — what the broker decides about one request, and the heads it writes.
 *
 * Pure functions (no I/O), so every refusal and every rewrite is unit-tested.
 * A broker request is `METHOD /<capability>/<path>[?query] HTTP/1.1` with `Host:` the broker's
 * own address and `<auth header>: <token>`. broker_decide checks, in this order (the token
 * before anything that would tell an unauthenticated client which capabilities exist):
 *   Host is the broker's own address                           400 host-mismatch
 *   at most one auth header                                    400 bad-request
 *   the path: no dot segment (".", "..", any %2e), no encoded
 *     slash or backslash (%2f, %5c), no "\", no "//", no %00,
 *     no malformed %-escape                                    400 bad-request
 *   the method is not TRACE, TRACK or CONNECT (any case)       405 method-not-allowed
 *   no body on GET, HEAD, OPTIONS or DELETE (any case)         400 bad-request
 *   Expect, if sent, is exactly one "100-continue"             417 expectation-failed
 *   the token: present                                         401 missing-token
 *              right (SHA-256 + CRYPTO_memcmp)                 401 bad-token
 *   the capability exists                                      404 unknown-capability
 *   at most one copy of its header from the client             400 bad-request
 *   its host matches --broker-allow                            403 host-not-allowed
 *   the method is one of its methods                           405 method-not-allowed
 *   the path (without the query) is under one of its prefixes  403 path-not-allowed
 * A prefix matches a path equal to it or continuing after a '/': "/repos/a" matches
 * "/repos/a" and "/repos/a/x", not "/repos/ab"; a prefix ending in '/' matches what starts
 * with it. Paths are compared as sent (no decoding): an encoded variant of an allowed path
 * does not match, which fails closed.
 * The upstream head: `METHOD /<path>[?query] HTTP/1.1`, `Host: <cap host>[:port]` (port only
 * when not 443), the client's headers in order minus Host, the auth header, the capability's
 * header and the hop-by-hop ones (Connection and what it names, Keep-Alive, TE, Trailer,
 * Upgrade, Proxy-*), then exactly one injected line, then `Connection: close` when the
 * exchange ends the connection. It is built in a Secret of its exact size (it holds the value).
 */
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker_config.h"
#include "broker_reflect.h"
#include "broker_secrets.h"
#include "http_request.h"
#include "http_response.h"
#include "reply.h"

namespace tproxy {

// The authority clients must address (Host): the listener's port and its names.
struct OwnAddress {
    std::vector<std::string> hosts;  // normalised: "127.0.0.1", "localhost", …
    unsigned port = 0;
};

struct BrokerDecision {
    std::optional<Refusal> refusal;  // set: refused
    int cap = -1;                    // the capability, once known (also for refusals)
    std::string path;                // upstream target "/<path>[?query]", once known
    std::string log_path;            // the same without the query
};

BrokerDecision broker_decide(const Request &r, const BrokerConfig &b, const BrokerSecrets &s, const OwnAddress &own);

// Wipes every header value of `r` (the auth header's is the token) and drops the headers.
void wipe_request(Request &r);

// The request body's framing (Content-Length or chunked, without trailers); nullopt when
// Content-Length is too large to count.
std::optional<Framer> request_body(const Request &r);

// Whether the request has a body: a Transfer-Encoding, or a Content-Length other than 0.
bool has_body(const Request &r);

// Whether the client waits for 100 Continue before its body (Expect: 100-continue and a body).
bool expects_continue(const Request &r);

// Whether the client asked to close the connection after this request.
bool wants_close(const Request &r);

// "" when the path (the part before '?') is unambiguous; else what is wrong with it.
std::string path_defect(std::string_view path);

// Whether `prefix` allows `path` (see above).
bool prefix_allows(std::string_view prefix, std::string_view path);

// The head sent upstream for a decided request (see above).
Secret upstream_request_head(const Request &r, const BrokerConfig &b, const Capability &c, const std::string &path,
                             const Secret &line, bool close);

struct ClientHead {
    std::string text;
    size_t dropped = 0;            // headers (and a reason phrase) left out because they hold the value
    bool framing_dropped = false;  // one of them was Content-Length or Transfer-Encoding
};

// The head relayed to the client: "HTTP/1.1 <status> <reason>", the upstream's headers minus
// hop-by-hop ones and any holding the injected value in a form `value` finds (name or value;
// broker_reflect.h), then "Connection: close" when `close`. A reason phrase holding it becomes
// the standard one (or none).
ClientHead client_response_head(const Response &resp, const ValueFinder &value, bool close);

}  // namespace tproxy
