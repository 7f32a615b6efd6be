// Body framing (proxy/http_body.h) and response heads (proxy/http_response.h): where a body
// ends however its bytes are split, every malformed shape, and how a response is framed.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "http_body.h"
#include "http_response.h"

namespace {

// Feeds `s` in pieces of `step` bytes; how many belong to the body.
size_t feed_in_steps(tproxy::Framer &f, const std::string &s, size_t step)
{
    size_t used = 0;
    for (size_t i = 0; i < s.size(); i += step) {
        size_t n = std::min(step, s.size() - i);
        size_t took = f.feed(s.data() + i, n);
        used += took;
        if (took < n)
            break;
    }
    return used;
}

tproxy::Response response(const std::string &head)
{
    auto p = tproxy::parse_response(head, 65536);
    REQUIRE_MESSAGE(p.status == tproxy::ParseStatus::Ok, p.error);
    return p.resp;
}

}  // namespace

TEST_CASE("http body: a length ends exactly and leaves what follows")
{
    auto f = tproxy::Framer::length(5);
    CHECK(f.feed("abc", 3) == 3);
    CHECK_FALSE(f.done());
    CHECK(f.feed("deGET", 5) == 2);
    CHECK(f.done());
    CHECK(f.feed("x", 1) == 0);
    auto empty = tproxy::Framer::length(0);
    CHECK(empty.done());
    auto cut = tproxy::Framer::length(5);
    cut.feed("ab", 2);
    cut.finish_at_eof();
    CHECK(cut.failed());
    CHECK(tproxy::Framer::none().done());
}

TEST_CASE("http body: a close-delimited body ends at EOF")
{
    auto f = tproxy::Framer::until_close();
    CHECK(f.feed("anything", 8) == 8);
    CHECK_FALSE(f.done());
    f.finish_at_eof();
    CHECK(f.done());
}

TEST_CASE("http body: chunked bodies end where they end however they are split")
{
    const std::string body = "5;ext=1\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n\r\n";
    for (size_t step : {1u, 2u, 3u, 7u, 1000u}) {
        CAPTURE(step);
        auto f = tproxy::Framer::chunked(false);
        CHECK(feed_in_steps(f, body + "NEXT", step) == body.size());
        CHECK(f.done());
    }
    auto trailers = tproxy::Framer::chunked(true);
    std::string with = "3\r\nabc\r\n0\r\nX-Sum: 1\r\nX-Other: 2\r\n\r\n";
    CHECK(feed_in_steps(trailers, with, 1) == with.size());
    CHECK(trailers.done());
}

TEST_CASE("http body: malformed chunked framing is an error")
{
    for (const char *bad :
         {"x\r\n", "\r\n", ";a\r\n", "5\nhello\r\n0\r\n\r\n", "5\r\nhelloX\r\n", "5\r\nhello\n0\r\n\r\n",
          "11111111111111111\r\n", "5 \r\nhello\r\n", "0\r\nX: 1\r\n\r\n", "0\r\n\n", "5;\x01\r\n"}) {
        CAPTURE(bad);
        auto f = tproxy::Framer::chunked(false);
        std::string s = bad;
        f.feed(s.data(), s.size());
        CHECK(f.failed());
        CHECK(std::string(f.error()) != "");
    }
    auto fold = tproxy::Framer::chunked(true);
    std::string s = "0\r\n folded\r\n\r\n";
    fold.feed(s.data(), s.size());
    CHECK(fold.failed());
    auto cut = tproxy::Framer::chunked(false);
    cut.feed("5\r\nhe", 5);
    cut.finish_at_eof();
    CHECK(cut.failed());
    auto max = tproxy::Framer::chunked(false);
    std::string big = "ffffffffffffffff\r\n";
    CHECK(max.feed(big.data(), big.size()) == big.size());  // 16 digits: still a size
    CHECK_FALSE(max.failed());
}

TEST_CASE("http response: heads and their refusals")
{
    auto r = response("HTTP/1.1 404 Not Found\r\nA: 1\r\nB:2 \r\n\r\nbody");
    CHECK(r.status == 404);
    CHECK(r.reason == "Not Found");
    CHECK(r.headers.size() == 2);
    CHECK(r.headers[1].second == "2");
    CHECK(response("HTTP/1.1 204\r\n\r\n").reason == "");
    CHECK(tproxy::parse_response("HTTP/1.1 200 OK\r\nA: 1\r\n", 65536).status == tproxy::ParseStatus::Incomplete);
    for (const char *bad : {"HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 600 X\r\n\r\n",
                            "HTTP/1.1 200OK\r\n\r\n", "HTTP/1.1 101 Switching Protocols\r\n\r\n",
                            "HTTP/1.1 200 OK\nA: 1\r\n\r\n", "HTTP/1.1 200 OK\r\nA : 1\r\n\r\n",
                            "HTTP/1.1 200 OK\r\nA: 1\r\n folded\r\n\r\n", "HTTP/1.1 200 OK\r\nA: \x01\r\n\r\n"})
        CHECK_MESSAGE(tproxy::parse_response(bad, 65536).status == tproxy::ParseStatus::Error, bad);
    std::string huge = "HTTP/1.1 200 OK\r\nA: " + std::string(70000, 'a');
    CHECK(tproxy::parse_response(huge, 65536).status == tproxy::ParseStatus::Error);
}

TEST_CASE("http response: how the body is framed and whether the connection stays")
{
    using K = tproxy::Framer::Kind;
    auto f = tproxy::response_framing(response("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"), "GET");
    CHECK(f.body.kind() == K::Length);
    CHECK(f.keep_alive);
    CHECK(f.error.empty());
    CHECK(tproxy::response_framing(response("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"), "HEAD").body.kind() ==
          K::None);
    CHECK(tproxy::response_framing(response("HTTP/1.1 204 No Content\r\n\r\n"), "GET").body.kind() == K::None);
    CHECK(tproxy::response_framing(response("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n"), "GET")
              .body.kind() == K::None);
    CHECK(tproxy::response_framing(response("HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n"), "GET")
              .body.kind() == K::Chunked);
    auto close = tproxy::response_framing(response("HTTP/1.1 200 OK\r\n\r\n"), "GET");
    CHECK(close.body.kind() == K::Close);
    CHECK_FALSE(close.keep_alive);
    CHECK_FALSE(
        tproxy::response_framing(response("HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 1\r\n\r\n"), "GET")
            .keep_alive);
    CHECK_FALSE(tproxy::response_framing(response("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\n"), "GET").keep_alive);
    for (const char *bad : {"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
                            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
                            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                            "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
                            "HTTP/1.1 200 OK\r\nContent-Length: 1234567890123456789\r\n\r\n"})
        CHECK_MESSAGE(!tproxy::response_framing(response(bad), "GET").error.empty(), bad);
}
