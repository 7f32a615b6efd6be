// The broker's decisions and rewrites (proxy/broker_request.h): every refusal and its order,
// paths and prefixes, the upstream head byte for byte, the response head relayed.
#include <doctest/doctest.h>

#include <openssl/sha.h>

#include <cstring>
#include <string>

#include "broker_request.h"

namespace {

const std::string kToken = "0123456789abcdef0123456789abcdef";

struct Setup {
    tproxy::BrokerConfig b;
    tproxy::BrokerSecrets s;
    tproxy::OwnAddress own{{"127.0.0.1", "localhost"}, 3129};

    Setup()
    {
        b.allow = {"api.example.com", "*.corp.test"};
        tproxy::Capability gh;
        gh.name = "gh";
        gh.host = {"api.example.com", tproxy::HostKind::Name};
        gh.format = "Bearer {value}";
        gh.methods = {"GET", "POST"};
        gh.path_prefixes = {"/repos/a", "/status/"};
        tproxy::Capability any;
        any.name = "any.thing_1";
        any.host = {"x.corp.test", tproxy::HostKind::Name};
        any.port = 8443;
        any.header = "X-Key";
        tproxy::Capability outside;
        outside.name = "outside";
        outside.host = {"evil.test", tproxy::HostKind::Name};
        b.caps = {gh, any, outside};
        SHA256(reinterpret_cast<const unsigned char *>(kToken.data()), kToken.size(), s.token_digest);
    }

    tproxy::BrokerDecision decide(const std::string &head)
    {
        auto p = tproxy::parse_request(head, 16384, tproxy::Form::Origin);
        REQUIRE_MESSAGE(p.status == tproxy::ParseStatus::Ok, p.err.detail);
        return tproxy::broker_decide(p.req, b, s, own);
    }

    // The code a request gets, or "" when it passes.
    std::string code(const std::string &line, const std::string &headers = "", const std::string &token = kToken)
    {
        std::string head = line + "\r\nHost: 127.0.0.1:3129\r\n" + headers;
        if (!token.empty())
            head += "X-Broker-Auth: " + token + "\r\n";
        auto d = decide(head + "\r\n");
        return d.refusal ? d.refusal->code : "";
    }
};

}  // namespace

TEST_CASE("broker request: an allowed request and its target")
{
    Setup t;
    auto d = t.decide("GET /gh/repos/a/issues?state=open&x=%2F HTTP/1.1\r\nHost: localhost:3129\r\n"
                      "X-Broker-Auth: " +
                      kToken + "\r\n\r\n");
    CHECK_FALSE(d.refusal);
    CHECK(d.cap == 0);
    CHECK(d.path == "/repos/a/issues?state=open&x=%2F");  // the query is not checked, only kept
    CHECK(d.log_path == "/repos/a/issues");
    auto root = t.decide("PUT /any.thing_1 HTTP/1.1\r\nHost: 127.0.0.1:3129\r\nX-Broker-Auth: " + kToken + "\r\n\r\n");
    CHECK_FALSE(root.refusal);
    CHECK(root.path == "/");
    auto query =
        t.decide("PUT /any.thing_1?q=1 HTTP/1.1\r\nHost: 127.0.0.1:3129\r\nX-Broker-Auth: " + kToken + "\r\n\r\n");
    CHECK(query.path == "/?q=1");
    CHECK(query.log_path == "/");
}

TEST_CASE("broker request: each refusal and its code")
{
    Setup t;
    CHECK(t.code("GET /gh/repos/a HTTP/1.1") == "");
    CHECK(t.code("GET /gh/repos/a HTTP/1.1", "", "") == "missing-token");
    CHECK(t.code("GET /gh/repos/a HTTP/1.1", "", kToken + "x") == "bad-token");
    CHECK(t.code("GET /gh/repos/a HTTP/1.1", "", "wrong") == "bad-token");
    CHECK(t.code("GET /nope/x HTTP/1.1") == "unknown-capability");
    CHECK(t.code("GET / HTTP/1.1") == "unknown-capability");
    CHECK(t.code("GET /outside/x HTTP/1.1") == "host-not-allowed");
    CHECK(t.code("DELETE /gh/repos/a HTTP/1.1") == "method-not-allowed");
    CHECK(t.code("get /gh/repos/a HTTP/1.1") == "method-not-allowed");
    CHECK(t.code("GET /gh/repos/ab HTTP/1.1") == "path-not-allowed");
    CHECK(t.code("GET /gh/repos HTTP/1.1") == "path-not-allowed");
    CHECK(t.code("GET /gh/status/200 HTTP/1.1") == "");
    CHECK(t.code("GET /gh/status HTTP/1.1") == "path-not-allowed");
    CHECK(t.code("GET /gh/repos/a HTTP/1.1", "Authorization: mine\r\n") == "");
    CHECK(t.code("GET /gh/repos/a HTTP/1.1", "Authorization: a\r\nauthorization: b\r\n") == "bad-request");
    CHECK(t.code("GET /gh/repos/a HTTP/1.1", "X-Broker-Auth: " + kToken + "\r\n") == "bad-request");
    CHECK(t.code("GET /gh/a/../repos/a HTTP/1.1") == "bad-request");
    auto other_host =
        t.decide("GET /gh/repos/a HTTP/1.1\r\nHost: api.example.com\r\nX-Broker-Auth: " + kToken + "\r\n\r\n");
    REQUIRE(other_host.refusal);
    CHECK(std::string(other_host.refusal->code) == "host-mismatch");
    auto other_port = t.decide("GET /gh/repos/a HTTP/1.1\r\nHost: 127.0.0.1:3128\r\n\r\n");
    CHECK(std::string(other_port.refusal->code) == "host-mismatch");
}

TEST_CASE("broker request: the token is checked before the capability is named")
{
    Setup t;
    // Without the token nobody learns which capabilities exist, or their limits.
    CHECK(t.code("GET /nope/x HTTP/1.1", "", "") == "missing-token");
    CHECK(t.code("GET /nope/x HTTP/1.1", "", "bad") == "bad-token");
    CHECK(t.code("DELETE /gh/x HTTP/1.1", "", "bad") == "bad-token");
    // Syntax comes first: it needs no secret to judge.
    CHECK(t.code("GET /gh/%2e%2e/x HTTP/1.1", "", "") == "bad-request");
    auto d = t.decide("GET /gh/repos/a HTTP/1.1\r\nHost: 127.0.0.1:3129\r\nX-Broker-Auth: bad\r\n\r\n");
    REQUIRE(d.refusal);
    CHECK(d.cap == -1);
    CHECK(d.refusal->body.find("bad") == std::string::npos);  // never echoes the token
}

TEST_CASE("broker request: ambiguous paths")
{
    for (const char *ok :
         {"/gh/a", "/gh/a/b.c", "/gh/.well-known/x", "/gh/a..b", "/gh/%41", "/gh/a/", "/gh/%20x", "/gh/..a", "/gh/a."})
        CHECK_MESSAGE(tproxy::path_defect(ok) == "", ok);
    for (const char *bad : {"/gh/..", "/gh/../x", "/gh/./x", "/gh/a/.", "/gh/%2e%2e/x", "/gh/%2E/x", "/gh/.%2e/x",
                            "/gh/a%2fb", "/gh/a%2Fb", "/gh/a%5cb", "/gh/a\\b", "/gh//x", "//gh/x", "/gh/%", "/gh/%2",
                            "/gh/%zz", "/gh/%00", "/gh/a%2e"})
        CHECK_MESSAGE(tproxy::path_defect(bad) != "", bad);
}

TEST_CASE("broker request: prefixes match on a segment boundary")
{
    CHECK(tproxy::prefix_allows("/repos/a", "/repos/a"));
    CHECK(tproxy::prefix_allows("/repos/a", "/repos/a/"));
    CHECK(tproxy::prefix_allows("/repos/a", "/repos/a/issues"));
    CHECK_FALSE(tproxy::prefix_allows("/repos/a", "/repos/ab"));
    CHECK_FALSE(tproxy::prefix_allows("/repos/a", "/repos"));
    CHECK_FALSE(tproxy::prefix_allows("/repos/a", "/Repos/a"));
    CHECK(tproxy::prefix_allows("/repos/", "/repos/x"));
    CHECK_FALSE(tproxy::prefix_allows("/repos/", "/repos"));
    CHECK(tproxy::prefix_allows("/", "/anything"));
}

TEST_CASE("broker request: the upstream head has exactly one injected header")
{
    Setup t;
    auto p = tproxy::parse_request("POST /gh/repos/a?x=1 HTTP/1.1\r\nHost: 127.0.0.1:3129\r\nX-Broker-Auth: " + kToken +
                                       "\r\nauthorization: Basic mine\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\n"
                                       "Keep-Alive: 5\r\nTE: trailers\r\nUpgrade: h2c\r\nProxy-Authorization: x\r\n"
                                       "Accept: */*\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\nabc",
                                   16384, tproxy::Form::Origin);
    REQUIRE(p.status == tproxy::ParseStatus::Ok);
    tproxy::Secret line(std::strlen("Authorization: Bearer V\r\n"));
    std::memcpy(line.data(), "Authorization: Bearer V\r\n", line.size());
    tproxy::Secret head = tproxy::upstream_request_head(p.req, t.b, t.b.caps[0], "/repos/a?x=1", line, false);
    CHECK(head.view() ==
          "POST /repos/a?x=1 HTTP/1.1\r\nHost: api.example.com\r\nAccept: */*\r\n"
          "Content-Length: 3\r\nExpect: 100-continue\r\nAuthorization: Bearer V\r\n\r\n");
    tproxy::Secret closing = tproxy::upstream_request_head(p.req, t.b, t.b.caps[1], "/", line, true);
    CHECK(std::string(closing.view()).find("Host: x.corp.test:8443\r\n") != std::string::npos);
    CHECK(std::string(closing.view()).find("authorization: Basic mine") != std::string::npos);  // not X-Key's
    CHECK(std::string(closing.view()).ends_with("Connection: close\r\n\r\n"));
    tproxy::Capability v6;
    v6.host = {"::1", tproxy::HostKind::V6Literal};
    v6.port = 443;
    CHECK(std::string(tproxy::upstream_request_head(p.req, t.b, v6, "/", line, false).view()).find("Host: [::1]\r\n") !=
          std::string::npos);
}

TEST_CASE("broker request: the response head drops hop-by-hop headers and the value")
{
    auto r = tproxy::parse_response(
        "HTTP/1.1 200 OK\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\nKeep-Alive: timeout=5\r\n"
        "Content-Length: 2\r\nX-Echo: Bearer V4LUE-123\r\nV4LUE-123: name\r\nSet-Cookie: a=b\r\n\r\nok",
        65536);
    REQUIRE(r.status == tproxy::ParseStatus::Ok);
    tproxy::ClientHead h = tproxy::client_response_head(r.resp, tproxy::ValueFinder("V4LUE-123"), false);
    CHECK(h.text == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nSet-Cookie: a=b\r\n\r\n");
    CHECK(h.dropped == 2);
    CHECK_FALSE(h.framing_dropped);
    CHECK(tproxy::client_response_head(r.resp, tproxy::ValueFinder("2"), true).framing_dropped);
    CHECK(tproxy::client_response_head(r.resp, tproxy::ValueFinder("zzz"), true)
              .text.ends_with("Connection: close\r\n\r\n"));
}

TEST_CASE("broker request: framing and connection of a request")
{
    auto parse = [](const std::string &h) {
        auto p = tproxy::parse_request(h, 16384, tproxy::Form::Origin);
        REQUIRE(p.status == tproxy::ParseStatus::Ok);
        return p.req;
    };
    auto none = tproxy::request_body(parse("GET /a HTTP/1.1\r\nHost: h\r\n\r\n"));
    REQUIRE(none);
    CHECK(none->kind() == tproxy::Framer::Kind::None);
    auto len = tproxy::request_body(parse("PUT /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n"));
    REQUIRE(len);
    CHECK(len->kind() == tproxy::Framer::Kind::Length);
    auto chunked = tproxy::request_body(parse("PUT /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"));
    CHECK(chunked->kind() == tproxy::Framer::Kind::Chunked);
    CHECK_FALSE(
        tproxy::request_body(parse("PUT /a HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n")));
    CHECK(tproxy::wants_close(parse("GET /a HTTP/1.1\r\nHost: h\r\nConnection: x, Close\r\n\r\n")));
    CHECK_FALSE(tproxy::wants_close(parse("GET /a HTTP/1.1\r\nHost: h\r\nConnection: keep-alive\r\n\r\n")));
    tproxy::Request r = parse("GET /a HTTP/1.1\r\nHost: h\r\nX-Broker-Auth: secret-token-long-enough\r\n\r\n");
    tproxy::wipe_request(r);
    CHECK(r.headers.empty());
    CHECK(r.method == "GET");
}

TEST_CASE("broker request: the broker's parser takes origin form and HTTP/1.1 only")
{
    auto code = [](const std::string &h) {
        auto p = tproxy::parse_request(h, 16384, tproxy::Form::Origin);
        return p.status == tproxy::ParseStatus::Error ? std::string(p.err.code) : "";
    };
    CHECK(code("GET /gh/x HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n\r\n") == "");
    CHECK(code("GET http://127.0.0.1:3129/gh/x HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n\r\n") == "bad-request");
    CHECK(code("CONNECT 127.0.0.1:3129 HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n\r\n") == "bad-request");
    CHECK(code("GET * HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n\r\n") == "bad-request");
    CHECK(code("GET /gh/x#f HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n\r\n") == "bad-request");
    CHECK(code("GET /gh/x HTTP/1.0\r\nHost: 127.0.0.1:3129\r\n\r\n") == "unsupported-version");
    CHECK(code("GET /gh/x HTTP/1.1\r\n\r\n") == "host-mismatch");
    CHECK(code("GET /gh/x HTTP/1.1\r\nHost: a b\r\n\r\n") == "host-mismatch");
    CHECK(code("GET /gh/x HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n") == "bad-request");
    CHECK(code("GET /gh/x HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n") ==
          "bad-request");
    CHECK(code("GET /gh/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n") == "unsupported-transfer-encoding");
    CHECK(code("GET /gh/x\nHTTP/1.1\r\nHost: a\r\n\r\n") == "bad-request");
    CHECK(code("GET /gh/x\r\nHTTP/1.1\r\nHost: a\r\n\r\n") == "bad-request");
    CHECK(code("GET /gh/x HTTP/1.1\r\nHost: a\r\nX: 1\r\n folded\r\n\r\n") == "bad-request");
}
