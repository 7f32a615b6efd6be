/* proxy/http_request.h — parsing a client's request head, and the head sent upstream.
 *
 * The parser is strict on purpose: anything two HTTP implementations could read differently
 * (bare LF or CR, obs-fold, whitespace before a colon, control bytes, two Host headers, both
 * Content-Length and Transfer-Encoding, conflicting Content-Length, a target whose host
 * differs from Host) is refused rather than repaired, so the host the proxy checks is the
 * host the upstream serves. Only two forms are accepted:
 *   CONNECT host:port HTTP/1.x                         (authority form; port required)
 *   METHOD http://host[:port]/path?query HTTP/1.x      (absolute form; http only)
 * Invariant: a parse that returns Ok has a normalised host (names.h) and a port in 1..65535.
 */
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "names.h"

namespace tproxy {

enum class ParseStatus { Incomplete, Ok, Error };
enum class Form { Proxy, Origin };

struct ParseError {
    int status = 0;         // 400, 414, 431, 501
    const char *code = "";  // X-Proxy-Error value
    std::string detail;     // one line for the body and the log
};

struct Request {
    bool is_connect = false;
    std::string method;
    Host host;
    unsigned port = 0;
    std::string path;     // origin form ("/x?y"), as received in Form::Origin; empty for CONNECT
    std::string version;  // "HTTP/1.1"
    std::vector<std::pair<std::string, std::string>> headers;  // in order, as received
    size_t head_len = 0;                                       // bytes of the head including the final CRLFCRLF
};

struct ParseResult {
    ParseStatus status = ParseStatus::Incomplete;
    Request req;
    ParseError err;
};

// Parses the head at the start of `buf`. Incomplete while no CRLFCRLF has been seen within
// max_head bytes; past that it is Error 431 (so a caller never buffers more than max_head).
ParseResult parse_request(std::string_view buf, size_t max_head, Form form = Form::Proxy);

// The values of every header named `name` (case-insensitive), in order.
std::vector<std::string_view> header_values(const Request &r, std::string_view name);

// Connection, Keep-Alive, TE, Trailer, Upgrade, Proxy-* and any header Connection names.
bool is_hop_by_hop(const Request &r, std::string_view name);

// The head forwarded upstream for an absolute-form request: origin-form request line,
// hop-by-hop and Proxy-* headers (and any header named in Connection) removed,
// "Connection: close" added, since each client connection carries one upstream exchange.
std::string upstream_head(const Request &r);

}  // namespace tproxy
