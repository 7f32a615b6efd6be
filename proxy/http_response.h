/* proxy/http_response.h — an upstream's response head, read as strictly as a request head,
 * and how its body is framed (RFC 9112 §6.3).
 *
 * The broker parses every response head it relays (interim 1xx ones too), so it knows where
 * the body ends and whether the connection can carry the next request. Refused rather than
 * guessed: bare CR or LF, control bytes, obs-fold, a malformed status line, Content-Length
 * together with Transfer-Encoding, conflicting Content-Lengths, a transfer coding other than
 * exactly "chunked", 101 Switching Protocols (the broker never asks for an upgrade).
 * Invariant: a parse that returns Ok has a status in 100..599 and version HTTP/1.0 or 1.1.
 */
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http_body.h"
#include "http_request.h"

namespace tproxy {

struct Response {
    int status = 0;
    std::string version;  // "HTTP/1.1" or "HTTP/1.0"
    std::string reason;
    std::vector<std::pair<std::string, std::string>> headers;  // in order, as received
    size_t head_len = 0;                                       // bytes of the head including the final CRLFCRLF
};

struct ResponseParse {
    ParseStatus status = ParseStatus::Incomplete;
    Response resp;
    std::string error;  // Error: what is wrong (one line)
};

// Parses the head at the start of `buf`; Error past max_head bytes without its end.
ResponseParse parse_response(std::string_view buf, size_t max_head);

struct ResponseFraming {
    Framer body = Framer::none();
    bool keep_alive = false;  // the connection may carry another request after this body
    std::string error;        // non-empty: the framing headers are unusable
};

// The framing of `r`, the final answer (status >= 200) to a request with `method`.
ResponseFraming response_framing(const Response &r, std::string_view method);

}  // namespace tproxy
