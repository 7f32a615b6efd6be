// The request-head parser: the accepted forms, every refusal, smuggling shapes, sizes.
#include <doctest/doctest.h>

#include <string>

#include "http_request.h"

using tproxy::ParseStatus;
using namespace std::string_literals;

namespace {

tproxy::ParseResult parse(const std::string &s, size_t max = 16384)
{
    return tproxy::parse_request(s, max);
}

// The X-Proxy-Error code of a refused head ("" if not refused).
std::string refused(const std::string &s)
{
    auto r = parse(s);
    return r.status == ParseStatus::Error ? r.err.code : "";
}

}  // namespace

TEST_CASE("http: CONNECT authority form")
{
    auto r = parse("CONNECT Example.com.:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\nEARLY");
    REQUIRE(r.status == ParseStatus::Ok);
    CHECK(r.req.is_connect);
    CHECK(r.req.host.text == "example.com");
    CHECK(r.req.port == 443);
    CHECK(std::string("CONNECT Example.com.:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n").size() == r.req.head_len);
    auto v6 = parse("CONNECT [2001:db8::1]:443 HTTP/1.1\r\n\r\n");
    REQUIRE(v6.status == ParseStatus::Ok);
    CHECK(v6.req.host.kind == tproxy::HostKind::V6Literal);
    CHECK(refused("CONNECT example.com HTTP/1.1\r\n\r\n") == "bad-request");
    CHECK(refused("CONNECT example.com:0 HTTP/1.1\r\n\r\n") == "bad-request");
    CHECK(refused("CONNECT example.com:65536 HTTP/1.1\r\n\r\n") == "bad-request");
    CHECK(refused("CONNECT example.com:+443 HTTP/1.1\r\n\r\n") == "bad-request");
    CHECK(refused("CONNECT [127.0.0.1]:443 HTTP/1.1\r\n\r\n") == "bad-request");
    CHECK(refused("CONNECT http://example.com:443 HTTP/1.1\r\n\r\n") == "bad-request");
    CHECK(refused("CONNECT 127.1:443 HTTP/1.1\r\n\r\n") == "bad-request");
}

TEST_CASE("http: absolute form is rewritten to origin form")
{
    auto r = parse("GET http://Allowed.Test/a/b?x=1 HTTP/1.1\r\nHost: allowed.test\r\n"
                   "Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eA==\r\n"
                   "Connection: keep-alive, X-Hop\r\nX-Hop: 1\r\nKeep-Alive: 5\r\nTE: trailers\r\n"
                   "Upgrade: h2c\r\nAccept: */*\r\n\r\n");
    REQUIRE(r.status == ParseStatus::Ok);
    CHECK(r.req.port == 80);
    CHECK(r.req.path == "/a/b?x=1");
    CHECK(tproxy::upstream_head(r.req) ==
          "GET /a/b?x=1 HTTP/1.1\r\nHost: allowed.test\r\nAccept: */*\r\nConnection: close\r\n\r\n");
    auto q = parse("GET http://a.test?q HTTP/1.0\r\nHost: a.test:80\r\n\r\n");
    REQUIRE(q.status == ParseStatus::Ok);
    CHECK(q.req.path == "/?q");
    auto bare = parse("GET http://a.test:8080 HTTP/1.1\r\nHost: a.test:8080\r\n\r\n");
    REQUIRE(bare.status == ParseStatus::Ok);
    CHECK(bare.req.path == "/");
    CHECK(bare.req.port == 8080);
}

TEST_CASE("http: Host header smuggling")
{
    CHECK(refused("GET http://a.test/ HTTP/1.1\r\nHost: b.test\r\n\r\n") == "host-mismatch");
    CHECK(refused("GET http://a.test/ HTTP/1.1\r\nHost: a.test:81\r\n\r\n") == "host-mismatch");
    CHECK(refused("GET http://a.test/ HTTP/1.1\r\n\r\n") == "host-mismatch");
    CHECK(refused("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n") == "duplicate-host");
    CHECK(refused("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nhost: a.test\r\n\r\n") == "duplicate-host");
    CHECK(refused("CONNECT a.test:443 HTTP/1.1\r\nHost: b.test:443\r\n\r\n") == "host-mismatch");
    CHECK(refused("GET http://a.test/ HTTP/1.1\r\nHost: a.test@b.test\r\n\r\n") == "host-mismatch");
    CHECK(refused("GET http://user@a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n") == "bad-request");
    CHECK(refused("GET http://a.test/#f HTTP/1.1\r\nHost: a.test\r\n\r\n") == "bad-request");
    CHECK(refused("GET http://a.test/ HTTP/1.1\r\nHost: A.TEST.\r\n\r\n") == "");
}

TEST_CASE("http: CRLF injection + bare CR/LF + folding + control bytes")
{
    CHECK(refused("GET http://a.test/ HTTP/1.1\nHost: a.test\n\n") == "bad-request");
    CHECK(refused("GET http://a.test/ HTTP/1.1\r\nHost: a.test\rX: y\r\n\r\n") == "bad-request");
    CHECK(refused("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nX: a\nHost: b.test\r\n\r\n") == "bad-request");
    CHECK(refused("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nX: y\r\n z\r\n\r\n") == "bad-request");
    CHECK(refused("GET http://a.test/ HTTP/1.1\r\nHost : a.test\r\n\r\n") == "bad-request");
    CHECK(refused("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nX: a\x01\r\n\r\n") == "bad-request");
    CHECK(refused("GET http://a.test/ HTTP/1.1\r\nHost: a.test\0\r\n\r\n"s) == "bad-request");
    CHECK(refused("GET http://a.test/\rX: HTTP/1.1\r\nHost: a.test\r\n\r\n") == "bad-request");
    // Percent-encoded CRLF stays encoded: it is path text, never a line break upstream.
    auto enc = parse("GET http://a.test/%0d%0aX:%20y HTTP/1.1\r\nHost: a.test\r\n\r\n");
    REQUIRE(enc.status == ParseStatus::Ok);
    CHECK(tproxy::upstream_head(enc.req).find("GET /%0d%0aX:%20y HTTP/1.1\r\n") == 0);
}

TEST_CASE("http: body framing that two parsers could read differently")
{
    const std::string h = "POST http://a.test/ HTTP/1.1\r\nHost: a.test\r\n";
    CHECK(refused(h + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n") == "bad-request");
    CHECK(refused(h + "Content-Length: 5\r\nContent-Length: 6\r\n\r\n") == "bad-request");
    CHECK(refused(h + "Content-Length: -1\r\n\r\n") == "bad-request");
    CHECK(refused(h + "Content-Length: 5\r\nContent-Length: 5\r\n\r\n") == "");
    CHECK(refused(h + "Transfer-Encoding: gzip, chunked\r\n\r\n") == "unsupported-transfer-encoding");
    CHECK(refused(h + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n") ==
          "unsupported-transfer-encoding");
    CHECK(refused(h + "Transfer-Encoding: Chunked\r\n\r\n") == "");
    CHECK(refused(h + "Connection: content-length\r\nContent-Length: 3\r\n\r\n") == "bad-request");
    CHECK(refused(h + "Connection: close, Host\r\n\r\n") == "bad-request");
    CHECK(refused("POST http://a.test/ HTTP/1.0\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n") ==
          "bad-request");
}

TEST_CASE("http: forms the proxy does not serve")
{
    CHECK(refused("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n") == "not-a-proxy-request");
    CHECK(refused("GET https://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n") == "unsupported-scheme");
    CHECK(refused("GET ftp://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n") == "unsupported-scheme");
    CHECK(refused("GET http://a.test/ HTTP/2.0\r\nHost: a.test\r\n\r\n") == "unsupported-version");
    CHECK(refused("GET http://a.test/ HTTP/1.1 extra\r\nHost: a.test\r\n\r\n") == "bad-request");
    CHECK(refused("GET  http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n") == "bad-request");
    CHECK(refused("G(T http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n") == "bad-request");
    CHECK(refused("\r\n\r\n") == "bad-request");
}

TEST_CASE("http: incomplete heads wait and a bad request line is refused at once")
{
    CHECK(parse("CONNECT a.test:443 HTTP/1.1\r\nHost: a").status == ParseStatus::Incomplete);
    CHECK(parse("CONNECT a.te").status == ParseStatus::Incomplete);
    CHECK(parse("").status == ParseStatus::Incomplete);
    CHECK(refused("garbage\r\n") == "bad-request");
    CHECK(refused("GET / HTTP/1.1\r\n") == "not-a-proxy-request");
}

TEST_CASE("http: sizes")
{
    std::string head = "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n";
    std::string big = head + "X: " + std::string(600, 'a') + "\r\n\r\n";
    CHECK(parse(big, 512).err.status == 431);
    CHECK(parse(big, 512).err.code == std::string("header-too-large"));
    CHECK(parse(big, big.size()).status == ParseStatus::Ok);  // exactly the limit is fine
    CHECK(parse(big.substr(0, 600), 512).err.status == 431);  // incomplete but over the limit
    std::string many = head;
    for (int i = 0; i < 101; i++)
        many += "X" + std::to_string(i) + ": v\r\n";
    CHECK(parse(many + "\r\n").err.status == 431);
    std::string long_uri = "GET http://a.test/" + std::string(9000, 'a') + " HTTP/1.1\r\n";
    CHECK(parse(long_uri + "Host: a.test\r\n\r\n", 65536).err.status == 414);
}

TEST_CASE("http: a tab control byte or DEL in the request target is refused")
{
    for (const std::string &target : {"/a\tb"s, "/a\x01"s, "/a\x7f"s, "/a\x1b[0m"s, "/a\x0b"s}) {
        CAPTURE(target);
        CHECK(refused("GET http://a.test" + target + " HTTP/1.1\r\nHost: a.test\r\n\r\n") == "bad-request");
        auto origin =
            tproxy::parse_request("GET " + target + " HTTP/1.1\r\nHost: a.test\r\n\r\n", 16384, tproxy::Form::Origin);
        CHECK(origin.status == ParseStatus::Error);
    }
    // A tab passes the head's byte check (it is legal between a header's name and value).
    auto tab = tproxy::parse_request("GET /a\tb HTTP/1.1\r\nHost: a.test\r\n\r\n", 16384, tproxy::Form::Origin);
    CHECK(tab.err.detail == "space, tab, control byte or DEL in the request target");
    // Refused as soon as the request line is complete, not at the header deadline.
    CHECK(refused("GET http://a.test/a\tb HTTP/1.1\r\nHost: a") == "bad-request");
    CHECK(refused("GET http://a.test/caf\xc3\xa9 HTTP/1.1\r\nHost: a.test\r\n\r\n") == "");
}
