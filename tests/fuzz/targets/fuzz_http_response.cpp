// tests/fuzz/targets/fuzz_http_response.cpp — the broker's reader of upstream responses
// (proxy/http_response.h): the head and how its body is framed, on whatever an upstream sends.
// Properties, for any bytes:
//  - no crash, no undefined behaviour, no leak, no hang;
//  - Incomplete only while no CRLFCRLF has been seen under the limit; an Error is one line;
//  - an Ok head ends at the first CRLFCRLF, has a status in 100..599 other than 101, version
//    HTTP/1.0 or 1.1, token header names and clean one-line values, and parses the same from
//    its own bytes alone;
//  - parse → print → parse: the head printed back from what was parsed parses to the same;
//  - framing (final answers): HEAD, 204 and 304 have no body; a body read until close never
//    keeps the connection; keep-alive only in HTTP/1.1; the framer then takes the bytes after
//    the head without reading past its body (http_body's own properties: fuzz_http_body).
#include <string>
#include <string_view>

#include "fuzz_target.h"
#include "http_response.h"
#include "http_util.h"

namespace {

using namespace tproxy;
constexpr size_t kMaxHead = 16384;

std::string print(const Response &r)
{
    std::string s = r.version + " " + std::to_string(r.status) + " " + r.reason + "\r\n";
    for (const auto &[n, v] : r.headers)
        s += n + ": " + v + "\r\n";
    return s + "\r\n";
}

bool same(const Response &a, const Response &b)
{
    return a.status == b.status && a.version == b.version && a.reason == b.reason && a.headers == b.headers;
}

void check_framing(const Response &r, std::string_view method, std::string_view after)
{
    ResponseFraming f = response_framing(r, method);
    FUZZ_ASSERT(tartaros::fuzz::one_line(f.error), f.error);
    if (method == "HEAD" || r.status == 204 || r.status == 304)
        FUZZ_ASSERT(f.body.kind() == Framer::Kind::None && f.body.done() && f.error.empty(), print(r));
    if (f.body.kind() == Framer::Kind::Close)
        FUZZ_ASSERT(!f.keep_alive, print(r));
    if (f.keep_alive)
        FUZZ_ASSERT(r.version == "HTTP/1.1", print(r));
    if (!f.error.empty())
        return;
    size_t used = f.body.feed(after.data(), after.size());
    FUZZ_ASSERT(used <= after.size(), print(r));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view buf(reinterpret_cast<const char *>(data), size);
    ResponseParse p = parse_response(buf, kMaxHead);
    if (p.status == ParseStatus::Incomplete) {
        FUZZ_ASSERT(buf.find("\r\n\r\n") == std::string_view::npos && buf.size() < kMaxHead,
                    std::string(buf.substr(0, 200)));
        return 0;
    }
    if (p.status == ParseStatus::Error) {
        FUZZ_ASSERT(!p.error.empty() && tartaros::fuzz::one_line(p.error), p.error);
        return 0;
    }
    const Response &r = p.resp;
    FUZZ_ASSERT(buf.find("\r\n\r\n") + 4 == r.head_len && r.head_len <= kMaxHead, print(r));
    FUZZ_ASSERT(r.status >= 100 && r.status <= 599 && r.status != 101, print(r));
    FUZZ_ASSERT(r.version == "HTTP/1.1" || r.version == "HTTP/1.0", print(r));
    FUZZ_ASSERT(clean_bytes(r.reason) && tartaros::fuzz::one_line(r.reason), print(r));
    for (const auto &[name, value] : r.headers) {
        FUZZ_ASSERT(is_token(name), print(r));
        FUZZ_ASSERT(clean_bytes(value) && tartaros::fuzz::one_line(value) && trim_ows(value) == value, print(r));
    }
    ResponseParse alone = parse_response(buf.substr(0, r.head_len), kMaxHead);
    FUZZ_ASSERT(alone.status == ParseStatus::Ok && same(alone.resp, r) && alone.resp.head_len == r.head_len, print(r));
    const std::string printed = print(r);
    ResponseParse again = parse_response(printed, printed.size() + 1);
    FUZZ_ASSERT(again.status == ParseStatus::Ok && same(again.resp, r), printed + " => " + again.error);
    FUZZ_ASSERT(print(again.resp) == printed, printed);
    if (r.status >= 200)
        for (std::string_view method : {"GET", "HEAD", "POST"})
            check_framing(r, method, buf.substr(r.head_len));
    return 0;
}
