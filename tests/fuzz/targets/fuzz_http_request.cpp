// tests/fuzz/targets/fuzz_http_request.cpp — the proxy's request head parser
// (proxy/http_request.h) on whatever a sandboxed client sends, in both forms (Proxy: the
// egress proxy's absolute and CONNECT forms; Origin: the broker's).
// Properties, for any bytes:
//  - no crash, no undefined behaviour, no leak, no hang (libFuzzer's -timeout);
//  - Incomplete only while no CRLFCRLF has been seen and the buffer is under the limit;
//  - an Error is well-formed: status 400, 414, 431, 501 or 505, a code, a one-line detail;
//  - an Ok head ends at the first CRLFCRLF, has a normalised host (normalize_host gives it
//    back unchanged) and a port in 1..65535, token header names and one-line values, and
//    parses to the same request from its own bytes alone (what follows a head never changes
//    it);
//  - parse → print → parse: the head the proxy sends upstream (upstream_head) parses in
//    Origin form to the same method, target, host and port, with exactly the end-to-end
//    headers and one "Connection: close", and prints to the same bytes again.
#include <string>
#include <string_view>

#include "fuzz_target.h"
#include "http_request.h"
#include "http_util.h"
#include "names.h"

namespace {

using namespace tproxy;
constexpr size_t kMaxHead = 16384;

std::string describe(const Request &r)
{
    std::string s = r.method + " " + r.host.text + ":" + std::to_string(r.port) + " " + r.path + " " + r.version;
    for (const auto &[n, v] : r.headers)
        s += " | " + n + ": " + v;
    return s;
}

bool same(const Request &a, const Request &b)
{
    return a.is_connect == b.is_connect && a.method == b.method && a.host.text == b.host.text &&
        a.host.kind == b.host.kind && a.port == b.port && a.path == b.path && a.version == b.version &&
        a.headers == b.headers && a.head_len == b.head_len;
}

void check_error(const ParseError &e)
{
    FUZZ_ASSERT(e.status == 400 || e.status == 414 || e.status == 431 || e.status == 501 || e.status == 505,
                std::to_string(e.status));
    FUZZ_ASSERT(e.code != nullptr && *e.code != '\0', e.detail);
    FUZZ_ASSERT(tartaros::fuzz::one_line(e.detail), e.detail);
}

// What the upstream must receive for `r` (absolute form, not CONNECT), printed and parsed again.
void check_upstream(const Request &r)
{
    const std::string head = upstream_head(r);
    size_t end_to_end = 0;
    for (const auto &[name, value] : r.headers)
        end_to_end += !is_hop_by_hop(r, name);
    if (end_to_end + 1 > 100)
        return;  // with its "Connection: close", over the proxy's own limit of 100 header lines
    ParseResult again = parse_request(head, head.size() + 1, Form::Origin);
    FUZZ_ASSERT(again.status == ParseStatus::Ok, head + " => " + again.err.detail);
    const Request &u = again.req;
    FUZZ_ASSERT(u.method == r.method && u.path == r.path && u.version == r.version, head);
    FUZZ_ASSERT(u.host.text == r.host.text && u.port == r.port, head);
    FUZZ_ASSERT(u.head_len == head.size(), head);
    size_t kept = 0;
    for (const auto &[name, value] : r.headers)
        if (!is_hop_by_hop(r, name)) {
            FUZZ_ASSERT(kept < u.headers.size() && u.headers[kept].first == name && u.headers[kept].second == value,
                        head);
            kept++;
        }
    FUZZ_ASSERT(u.headers.size() == kept + 1, head);
    FUZZ_ASSERT(u.headers.back().first == "Connection" && u.headers.back().second == "close", head);
    // The proxy's own "Connection: close" makes a header named "close" a connection option
    // for the upstream, which drops it: printed again, the head loses that one line.
    if (header_values(r, "close").empty())
        FUZZ_ASSERT(upstream_head(u) == head, head);
}

void check_ok(std::string_view buf, const Request &r, Form form)
{
    FUZZ_ASSERT(r.head_len >= 4 && r.head_len <= buf.size() && r.head_len <= kMaxHead, describe(r));
    FUZZ_ASSERT(buf.find("\r\n\r\n") + 4 == r.head_len, describe(r));
    FUZZ_ASSERT(r.port >= 1 && r.port <= 65535, describe(r));
    auto h = normalize_host(r.host.text);
    FUZZ_ASSERT(h && h->text == r.host.text && h->kind == r.host.kind, describe(r));
    FUZZ_ASSERT(is_token(r.method), describe(r));
    FUZZ_ASSERT(r.version == "HTTP/1.1" || r.version == "HTTP/1.0", describe(r));
    if (form == Form::Proxy && r.is_connect)
        FUZZ_ASSERT(r.path.empty(), describe(r));
    else
        FUZZ_ASSERT(!r.path.empty() && r.path[0] == '/', describe(r));
    for (const auto &[name, value] : r.headers) {
        FUZZ_ASSERT(is_token(name), describe(r));
        FUZZ_ASSERT(clean_bytes(value) && value.find_first_of("\r\n") == std::string::npos, describe(r));
        FUZZ_ASSERT(trim_ows(value) == value, describe(r));
    }
    FUZZ_ASSERT(header_values(r, "Host").size() <= 1, describe(r));
    ParseResult alone = parse_request(buf.substr(0, r.head_len), kMaxHead, form);
    FUZZ_ASSERT(alone.status == ParseStatus::Ok && same(alone.req, r), describe(r));
    if (form == Form::Proxy && !r.is_connect && r.version == "HTTP/1.1")
        check_upstream(r);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view buf(reinterpret_cast<const char *>(data), size);
    for (Form form : {Form::Proxy, Form::Origin}) {
        ParseResult p = parse_request(buf, kMaxHead, form);
        switch (p.status) {
        case ParseStatus::Incomplete:
            FUZZ_ASSERT(buf.find("\r\n\r\n") == std::string_view::npos, std::string(buf.substr(0, 200)));
            FUZZ_ASSERT(buf.size() < kMaxHead, std::to_string(buf.size()));
            break;
        case ParseStatus::Error: check_error(p.err); break;
        case ParseStatus::Ok: check_ok(buf, p.req, form); break;
        }
    }
    return 0;
}
