// tests/proxy/test_broker_e2e.cpp — the credential broker end to end: the real tartaros-proxy
// in listen mode, a real HTTPS upstream with its own test CA (https_upstream.py), raw HTTP/1.1
// clients. Everything is on 127.0.0.1.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "broker_harness.h"
#include "e2e_harness.h"

using broker::body_of;
using broker::BrokerProxy;
using broker::Client;
using broker::header_of;
using broker::HttpsUpstream;
using broker::status_of;

namespace {

const std::string &kToken = broker::kE2eToken;
const std::string &kValue = broker::kE2eValue;
const std::string &kValue2 = broker::kE2eValue2;

struct Options {
    bool allow_internal = true;
    bool ca_file = true;
    std::vector<std::string> extra;
};

// Two capabilities on one upstream: gh by name (Bearer format), npm by IP literal (X-Api-Key).
std::vector<std::string> broker_args(const HttpsUpstream &up, const Options &o)
{
    std::string port = std::to_string(up.port());
    std::vector<std::string> a = {
        "--broker-allow",       "localhost",    "--broker-allow",      "127.0.0.1",    "--capability",
        "gh=localhost:" + port, "--cap-format", "Bearer {value}",      "--capability", "npm=127.0.0.1:" + port,
        "--cap-header",         "X-Api-Key",    "--header-timeout-ms", "3000"};
    if (o.allow_internal)
        a.push_back("--broker-allow-internal");
    if (o.ca_file)
        a.insert(a.end(), {"--broker-ca-file", up.ca_file()});
    a.insert(a.end(), o.extra.begin(), o.extra.end());
    return a;
}

struct Fixture {
    HttpsUpstream up;
    BrokerProxy proxy;
    explicit Fixture(Options o = {}, const std::string &san = "")
        : up(san), proxy(broker_args(up, o), kToken, {kValue, kValue2})
    {
        REQUIRE_MESSAGE(proxy.pid() > 0, proxy.stderr_text());
    }
    std::string host() const { return "127.0.0.1:" + std::to_string(proxy.port()); }
    // A request head for `target` with the token (or `token`) and `extra` header lines.
    std::string req(const std::string &target, const std::string &extra = "", const std::string &token = kToken,
                    const std::string &method = "GET") const
    {
        std::string h = method + " " + target + " HTTP/1.1\r\nHost: " + host() + "\r\n";
        if (!token.empty())
            h += "X-Broker-Auth: " + token + "\r\n";
        return h + extra + "\r\n";
    }
    // One request on a fresh connection; its response.
    std::string once(const std::string &request) const
    {
        Client c(proxy.port());
        c.send(request);
        return c.response();
    }
};

size_t count(const std::string &s, const std::string &needle)
{
    size_t n = 0;
    for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1))
        n++;
    return n;
}

// The upstream connection number of a logged request.
int conn_of(const std::string &line)
{
    size_t at = line.find("\"conn\": ");
    return at == std::string::npos ? -1 : std::stoi(line.substr(at + 8));
}

std::string hex(const unsigned char *d, size_t n)
{
    static const char *digits = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; i++) {
        s.push_back(digits[d[i] >> 4]);
        s.push_back(digits[d[i] & 15]);
    }
    return s;
}

class Sha256 {
public:
    Sha256() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr); }
    ~Sha256() { EVP_MD_CTX_free(ctx_); }
    Sha256(const Sha256 &) = delete;
    Sha256 &operator=(const Sha256 &) = delete;
    void update(const char *p, size_t n) { EVP_DigestUpdate(ctx_, p, n); }
    std::string hex_digest()
    {
        unsigned char d[32];
        unsigned n = 0;
        EVP_DigestFinal_ex(ctx_, d, &n);
        return hex(d, n);
    }

private:
    EVP_MD_CTX *ctx_;
};

// The upstream's download pattern: byte i is i % 251.
std::string pattern_block()
{
    std::string b(251 * 4177, '\0');  // about 1 MiB, a whole number of periods
    for (size_t i = 0; i < b.size(); i++)
        b[i] = static_cast<char>(i % 251);
    return b;
}

std::string refusal_code(const std::string &response)
{
    return header_of(response, "X-Broker-Error");
}

}  // namespace

TEST_CASE("broker e2e: a brokered request arrives with exactly the injected header and never the token")
{
    Fixture f;
    Client c(f.proxy.port());
    c.send(f.req("/gh/status/200?x=1",
                 "Authorization: Basic bWluZQ==\r\nX-Custom: kept\r\nConnection: keep-alive, X-Hop\r\n"
                 "X-Hop: 1\r\nProxy-Authorization: Basic eA==\r\nTE: trailers\r\nKeep-Alive: 5\r\n"));
    std::string r = c.response();
    CHECK(status_of(r) == "200");
    CHECK(body_of(r) == "status 200\n");
    c.send(f.req("/npm/echo"));
    CHECK(status_of(c.response()) == "200");
    auto reqs = f.up.requests();
    REQUIRE(reqs.size() == 2);
    std::string up = std::to_string(f.up.port());
    CAPTURE(reqs[0]);
    CHECK(reqs[0].find("\"method\": \"GET\", \"path\": \"/status/200?x=1\"") != std::string::npos);
    CHECK(reqs[0].find("[\"Host\", \"localhost:" + up + "\"]") != std::string::npos);
    CHECK(reqs[0].find("[\"X-Custom\", \"kept\"]") != std::string::npos);
    CHECK(reqs[0].find("[\"Authorization\", \"Bearer " + kValue + "\"]") != std::string::npos);
    CHECK(count(reqs[0], "uthorization") == 1);  // the injected one only, not the client's
    for (const std::string &gone :
         {kToken, std::string("X-Broker-Auth"), std::string("Basic"), std::string("X-Hop"), std::string("Proxy-"),
          std::string("\"TE\""), std::string("Keep-Alive"), std::string("Connection")})
        CHECK_MESSAGE(reqs[0].find(gone) == std::string::npos, gone);
    CAPTURE(reqs[1]);
    CHECK(reqs[1].find("[\"Host\", \"127.0.0.1:" + up + "\"]") != std::string::npos);
    CHECK(reqs[1].find("[\"X-Api-Key\", \"" + kValue2 + "\"]") != std::string::npos);
    CHECK(reqs[1].find("uthorization") == std::string::npos);
    CHECK(f.proxy.log_has("allowed BROKER gh GET localhost:" + up + " /status/200 status=200 up=0 down=11"));
    CHECK(f.proxy.log_has("allowed BROKER npm GET 127.0.0.1:" + up + " /echo status=200"));
    std::string effects = f.proxy.effects();
    CHECK(effects.find("\"by\":\"proxy\",\"event\":\"broker\",\"decision\":\"allow\",\"capability\":\"gh\","
                       "\"method\":\"GET\",\"host\":\"localhost\",\"port\":" +
                       up +
                       ",\"path\":\"/status/200\","
                       "\"status\":200,\"bytes_up\":0,\"bytes_down\":11,\"complete\":true}") != std::string::npos);
    CHECK(effects.find("x=1") == std::string::npos);  // never the query
}

TEST_CASE("broker e2e: a missing or wrong token and an unknown capability are refused on a kept connection")
{
    Fixture f;
    Client c(f.proxy.port());
    struct Case {
        std::string request, status, code;
    } cases[] = {
        {f.req("/gh/x", "", ""), "401", "missing-token"},
        {f.req("/gh/x", "", kToken.substr(1)), "401", "bad-token"},
        {f.req("/gh/x", "", kToken + "0"), "401", "bad-token"},
        {f.req("/nope/x", "", ""), "401", "missing-token"},  // nothing told without the token
        {f.req("/nope/x"), "404", "unknown-capability"},
        {f.req("/"), "404", "unknown-capability"},
    };
    for (const Case &k : cases) {
        c.send(k.request);
        std::string r = c.response();
        CAPTURE(r);
        CHECK(status_of(r) == k.status);
        CHECK(refusal_code(r) == k.code);
        CHECK(body_of(r).rfind("tartaros-broker: ", 0) == 0);
        CHECK(count(body_of(r), "\n") == 1);
        CHECK(header_of(r, "Connection") == "");  // the connection stays
    }
    c.send(f.req("/gh/status/200"));
    CHECK(status_of(c.response()) == "200");
    CHECK(f.up.requests().size() == 1);
    CHECK(f.proxy.log_has("denied BROKER - GET - - missing-token: no X-Broker-Auth header"));
    CHECK(f.proxy.log_has("denied BROKER - GET - - unknown-capability: no capability named 'nope'"));
    CHECK(f.proxy.effects().find("\"decision\":\"deny\",\"capability\":null,\"method\":\"GET\",\"host\":null,"
                                 "\"port\":null,\"path\":null,\"status\":401") != std::string::npos);
}

TEST_CASE("broker e2e: methods path prefixes and allowed hosts limit a capability")
{
    HttpsUpstream up;
    Options o;
    o.extra = {"--capability",        "lim=localhost:" + std::to_string(up.port()),
               "--cap-methods",       "GET HEAD",
               "--cap-path-prefixes", "/status /download",
               "--capability",        "out=other.test:443"};
    BrokerProxy proxy(broker_args(up, o), kToken, {kValue, kValue2, "lim-value-123", "out-value-456"});
    REQUIRE_MESSAGE(proxy.pid() > 0, proxy.stderr_text());
    std::string host = "127.0.0.1:" + std::to_string(proxy.port());
    auto ask = [&](const std::string &method, const std::string &target) {
        Client c(proxy.port());
        c.send(method + " " + target + " HTTP/1.1\r\nHost: " + host + "\r\nX-Broker-Auth: " + kToken + "\r\n\r\n");
        return c.response(method == "HEAD");
    };
    CHECK(status_of(ask("GET", "/lim/status/200")) == "200");
    CHECK(status_of(ask("GET", "/lim/status")) == "200");  // the prefix itself
    std::string head = ask("HEAD", "/lim/download?bytes=5");
    CHECK(status_of(head) == "200");
    CHECK(header_of(head, "Content-Length") == "5");
    std::string r = ask("GET", "/lim/statusx");
    CHECK(status_of(r) == "403");
    CHECK(refusal_code(r) == "path-not-allowed");
    r = ask("POST", "/lim/status/200");
    CHECK(status_of(r) == "405");
    CHECK(refusal_code(r) == "method-not-allowed");
    r = ask("GET", "/out/x");
    CHECK(status_of(r) == "403");
    CHECK(refusal_code(r) == "host-not-allowed");
    CHECK(up.requests().size() == 3);
}

TEST_CASE("broker e2e: an upstream on an internal address is refused unless allow_internal")
{
    Options o;
    o.allow_internal = false;
    Fixture f(o);
    std::string up = std::to_string(f.up.port());
    for (const char *cap : {"/gh/status/200", "/npm/status/200"}) {
        std::string r = f.once(f.req(cap));
        CAPTURE(r);
        CHECK(status_of(r) == "403");
        CHECK(refusal_code(r) == "blocked-internal-address");
        CHECK(body_of(r).find("allow_internal") != std::string::npos);
    }
    CHECK(f.up.requests().empty());
    CHECK(f.proxy.log_has("denied BROKER gh GET localhost:" + up + " /status/200 blocked-internal-address"));
    CHECK(f.proxy.log_has("denied BROKER npm GET 127.0.0.1:" + up + " /status/200 blocked-internal-address"));
}

TEST_CASE("broker e2e: an upstream certificate from an unknown CA or for another name is refused")
{
    SUBCASE("the system store alone does not know the test CA")
    {
        Options o;
        o.ca_file = false;
        Fixture f(o);
        std::string r = f.once(f.req("/gh/status/200"));
        CAPTURE(r);
        CHECK(status_of(r) == "502");
        CHECK(refusal_code(r) == "upstream-tls");
        CHECK(body_of(r).find("certificate verify failed") != std::string::npos);
        CHECK(f.up.requests().empty());
        CHECK(f.proxy.effects().find("\"decision\":\"fail\",\"capability\":\"gh\"") != std::string::npos);
    }
    SUBCASE("a certificate for other.test only")
    {
        Fixture f({}, "DNS:other.test");
        std::string r = f.once(f.req("/gh/status/200"));
        CAPTURE(r);
        CHECK(refusal_code(r) == "upstream-tls");
        CHECK(body_of(r).find("hostname mismatch") != std::string::npos);
        r = f.once(f.req("/npm/status/200"));
        CAPTURE(r);
        CHECK(refusal_code(r) == "upstream-tls");
        CHECK(body_of(r).find("IP address mismatch") != std::string::npos);
        CHECK(f.up.requests().empty());
    }
}

TEST_CASE("broker e2e: header smuggling shapes are refused and reach nobody")
{
    Fixture f;
    std::string h = "Host: " + f.host() + "\r\n", t = "X-Broker-Auth: " + kToken + "\r\n";
    struct Case {
        std::string request, status, code;
        bool closes;
    } cases[] = {
        {f.req("/gh/x", "X-Broker-Auth: " + kToken + "\r\n"), "400", "bad-request", false},
        {f.req("/gh/x", "Authorization: a\r\nAuthorization: b\r\n"), "400", "bad-request", false},
        {"GET /gh/a\nb HTTP/1.1\r\n" + h + t + "\r\n", "400", "bad-request", true},
        {"GET /gh/a\rb HTTP/1.1\r\n" + h + t + "\r\n", "400", "bad-request", true},
        {"GET /gh/x HTTP/1.1\r\n" + h + t + "X-A: 1\r\nInjected: 2\n\r\n", "400", "bad-request", true},
        {"GET http://" + f.host() + "/gh/x HTTP/1.1\r\n" + h + t + "\r\n", "400", "bad-request", true},
        {"GET https://localhost/x HTTP/1.1\r\n" + h + t + "\r\n", "400", "bad-request", true},
        {"CONNECT localhost:443 HTTP/1.1\r\n" + h + t + "\r\n", "400", "bad-request", true},
        {"GET /gh/x HTTP/1.1\r\nHost: localhost:" + std::to_string(f.up.port()) + "\r\n" + t + "\r\n", "400",
         "host-mismatch", false},
        {"GET /gh/x HTTP/1.1\r\nHost: 127.0.0.1\r\n" + t + "\r\n", "400", "host-mismatch", false},
        {"GET /gh/x HTTP/1.1\r\n" + h + h + t + "\r\n", "400", "bad-request", true},
        {"GET /gh/x HTTP/1.1\r\n" + t + "\r\n", "400", "host-mismatch", true},
        {f.req("/gh/../npm/x"), "400", "bad-request", false},
        {f.req("/gh/%2e%2e/npm/x"), "400", "bad-request", false},
        {f.req("/gh/a/%2E/b"), "400", "bad-request", false},
        {f.req("/gh/a%2fb"), "400", "bad-request", false},
        {f.req("/gh/a%5Cb"), "400", "bad-request", false},
        {f.req("/gh/a\\b"), "400", "bad-request", false},
        {f.req("/gh//evil.test/x"), "400", "bad-request", false},
        {f.req("/gh/x", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", kToken, "POST") + "0\r\n\r\n", "400",
         "bad-request", true},
        {f.req("/gh/x", "Transfer-Encoding: gzip\r\n", kToken, "POST"), "501", "unsupported-transfer-encoding", true},
        {f.req("/gh/x", "Content-Length: 1\r\nContent-Length: 2\r\n", kToken, "POST"), "400", "bad-request", true},
        {"GET /gh/x HTTP/1.0\r\n" + h + t + "\r\n", "505", "unsupported-version", true},
        {"GET /gh/x HTTP/1.1\r\n" + h + t + "X-A: 1\r\n folded\r\n\r\n", "400", "bad-request", true},
    };
    for (const Case &k : cases) {
        CAPTURE(k.request);
        Client c(f.proxy.port());
        c.send(k.request);
        std::string r = c.response();
        CAPTURE(r);
        CHECK(status_of(r) == k.status);
        CHECK(refusal_code(r) == k.code);
        CHECK((header_of(r, "Connection") == "close") == k.closes);
        if (k.closes)
            CHECK(c.closed_by_peer());
    }
    CHECK(f.up.requests().empty());
    // The broker's own name is fine.
    std::string ok = f.once("GET /gh/status/200 HTTP/1.1\r\nHost: localhost:" + std::to_string(f.proxy.port()) +
                            "\r\n" + t + "\r\n");
    CHECK(status_of(ok) == "200");
    CHECK(f.up.requests().size() == 1);
}

TEST_CASE("broker e2e: keep-alive reuses the upstream connection and pipelined requests keep their order")
{
    Fixture f;
    Client c(f.proxy.port());
    for (const char *target : {"/gh/status/200", "/gh/status/201", "/npm/status/202", "/gh/status/203"}) {
        c.send(f.req(target));
        std::string t = target;
        CHECK(status_of(c.response()) == t.substr(t.rfind('/') + 1));
    }
    auto reqs = f.up.requests();
    REQUIRE(reqs.size() == 4);
    CHECK(conn_of(reqs[0]) == conn_of(reqs[1]));  // the same upstream connection
    CHECK(conn_of(reqs[2]) != conn_of(reqs[1]));  // another capability: its own
    CHECK(conn_of(reqs[3]) != conn_of(reqs[2]));
    c.send(f.req("/gh/status/204") + f.req("/gh/status/205") + f.req("/gh/download?bytes=3"));
    CHECK(status_of(c.response()) == "204");
    CHECK(status_of(c.response()) == "205");
    std::string last = c.response();
    CHECK(status_of(last) == "200");
    CHECK(body_of(last) == std::string("\0\1\2", 3));
    reqs = f.up.requests();
    REQUIRE(reqs.size() == 7);
    CHECK(conn_of(reqs[6]) == conn_of(reqs[3]));
    // A long run of pipelined requests refused on a kept connection: answered one by one.
    std::string run;
    for (int i = 0; i < 500; i++)
        run += f.req("/nope" + std::to_string(i));
    c.send(run);
    for (int i = 0; i < 500; i++) {
        std::string r = c.response();
        REQUIRE(status_of(r) == "404");
        CHECK(body_of(r).find("'nope" + std::to_string(i) + "'") != std::string::npos);
    }
    c.send(f.req("/gh/status/200", "Connection: close\r\n"));
    std::string r = c.response();
    CHECK(status_of(r) == "200");
    CHECK(header_of(r, "Connection") == "close");
    CHECK(c.closed_by_peer());
}

TEST_CASE("broker e2e: a kept upstream connection the upstream dropped is replaced once")
{
    Fixture f;
    Client c(f.proxy.port());
    c.send(f.req("/gh/status/200?hangup=1"));
    CHECK(status_of(c.response()) == "200");
    c.send(f.req("/gh/status/201"));
    CHECK(status_of(c.response()) == "201");
    auto reqs = f.up.requests();
    REQUIRE(reqs.size() == 2);
    CHECK(conn_of(reqs[0]) != conn_of(reqs[1]));
    // No answer at all on the kept connection: the request (it has no body) goes once more on
    // a fresh one; no answer there either is a 502 and the client connection stays.
    c.send(f.req("/gh/status/200?drop=1"));
    std::string r = c.response();
    CHECK(status_of(r) == "502");
    CHECK(refusal_code(r) == "bad-upstream-response");
    reqs = f.up.requests();
    REQUIRE(reqs.size() == 4);
    CHECK(conn_of(reqs[2]) == conn_of(reqs[1]));  // tried on the kept connection first
    CHECK(conn_of(reqs[3]) != conn_of(reqs[2]));  // then once on a fresh one
    c.send(f.req("/gh/status/202"));
    CHECK(status_of(c.response()) == "202");
}

TEST_CASE("broker e2e: a chunked upload 100-continue and interim responses go through")
{
    Fixture f;
    Client c(f.proxy.port());
    c.send(f.req("/gh/upload", "Transfer-Encoding: chunked\r\n", kToken, "POST") +
           "5;note=x\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
    std::string r = c.response();
    CAPTURE(r);
    CHECK(status_of(r) == "200");
    unsigned char d[32];
    SHA256(reinterpret_cast<const unsigned char *>("hello world"), 11, d);
    CHECK(body_of(r) == "{\"bytes\": 11, \"sha256\": \"" + hex(d, 32) + "\"}");
    auto reqs = f.up.requests();
    REQUIRE(reqs.size() == 1);
    CHECK(reqs[0].find("[\"Transfer-Encoding\", \"chunked\"]") != std::string::npos);
    std::string body(1000, 'x');
    c.send(f.req("/gh/upload", "Content-Length: 1000\r\nExpect: 100-continue\r\n", kToken, "PUT"));
    std::string cont = c.response();
    CHECK(cont.rfind("HTTP/1.1 100 Continue\r\n", 0) == 0);  // before any body byte was sent
    c.send(body);
    r = c.response();
    CHECK(status_of(r) == "200");
    CHECK(body_of(r).find("\"bytes\": 1000") != std::string::npos);
    c.send(f.req("/gh/hints"));
    std::string hints = c.response();
    CHECK(status_of(hints) == "103");
    CHECK(header_of(hints, "Link") == "</style.css>; rel=preload");
    std::string final_response = c.response();
    CHECK(status_of(final_response) == "200");
    CHECK(body_of(final_response) == "ok");
    CHECK(f.proxy.log_has("allowed BROKER gh PUT localhost:" + std::to_string(f.up.port()) +
                          " /upload status=200 up=1000 down="));
    // Trailer fields in a request are refused, also once the body is on its way upstream.
    c.send(f.req("/gh/upload", "Transfer-Encoding: chunked\r\n", kToken, "POST") + "3\r\nabc\r\n");
    usleep(100000);
    c.send("0\r\nAuthorization: Bearer smuggled\r\n\r\n");
    r = c.response();
    CHECK(status_of(r) == "400");
    CHECK(refusal_code(r) == "bad-request");
    CHECK(body_of(r).find("trailer") != std::string::npos);
    CHECK(c.closed_by_peer());
    for (const std::string &line : f.up.requests())
        CHECK(line.find("smuggled") == std::string::npos);
}

TEST_CASE("broker e2e: 100 MB down and 100 MB up stream through with bounded memory")
{
    Fixture f;
    const size_t total = 100u << 20;
    std::string block = pattern_block();
    Sha256 expected;  // of the first `total` bytes of the pattern
    for (size_t off = 0; off < total; off += block.size())
        expected.update(block.data(), std::min(block.size(), total - off));
    std::string want = expected.hex_digest();
    Client c(f.proxy.port());
    c.send(f.req("/gh/status/200"));  // TLS and the first exchange's buffers: the baseline
    REQUIRE(status_of(c.response()) == "200");
    long before = f.proxy.peak_rss_kib();
    auto start = std::chrono::steady_clock::now();
    c.send(f.req("/gh/download?bytes=" + std::to_string(total)));
    Sha256 down;
    size_t got = 0;
    std::string head = c.response([&](const char *p, size_t n) {
        down.update(p, n);
        got += n;
    });
    double down_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(status_of(head) == "200");
    CHECK(got == total);
    CHECK(down.hex_digest() == want);
    start = std::chrono::steady_clock::now();
    c.send(f.req("/gh/upload", "Content-Length: " + std::to_string(total) + "\r\n", kToken, "PUT"));
    for (size_t off = 0; off < total; off += block.size())
        c.send(block.substr(0, std::min(block.size(), total - off)));
    std::string r = c.response();
    double up_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(status_of(r) == "200");
    CHECK(body_of(r) == "{\"bytes\": " + std::to_string(total) + ", \"sha256\": \"" + want + "\"}");
    long hwm = f.proxy.peak_rss_kib();
    MESSAGE("broker: 100 MiB down in " << down_s << " s (" << 100 / down_s << " MiB/s), up in " << up_s << " s ("
                                       << 100 / up_s << " MiB/s); proxy VmHWM " << before << " KiB before, " << hwm
                                       << " KiB after");
    REQUIRE(before > 0);
    CHECK(hwm - before < 16 * 1024);  // a buffered body would be 100 MiB
#if !defined(__SANITIZE_ADDRESS__)    // ASan's shadow and quarantine alone are about 50 MiB
    CHECK(hwm < 64 * 1024);
#endif
    CHECK(f.proxy.log_has("up=" + std::to_string(total) + " down="));
}

TEST_CASE("broker e2e: the secret appears in no log line no refusal body and no relayed header")
{
    Fixture f;
    std::vector<std::string> responses;
    Client c(f.proxy.port());
    c.send(f.req("/gh/reflect?header=Authorization"));
    std::string reflected = c.response();
    CHECK(status_of(reflected) == "200");
    CHECK(header_of(reflected, "X-Reflected") == "");  // the header holding the value was dropped
    responses.push_back(reflected);
    c.send(f.req("/npm/reflect?header=X-Api-Key"));
    responses.push_back(c.response());
    CHECK(header_of(responses.back(), "X-Reflected") == "");
    for (const char *target : {"/gh/x%2f", "/nope", "/gh/status/200"})
        for (const std::string &token : {std::string(""), std::string("wrong"), kToken}) {
            responses.push_back(f.once(f.req(target, "", token)));
        }
    responses.push_back(f.once(f.req("/gh/x", "Authorization: 1\r\nAuthorization: 2\r\n")));
    CHECK(f.proxy.log_has("allowed BROKER npm GET"));
    std::string everything = f.proxy.log() + f.proxy.effects() + f.proxy.stderr_text();
    for (const std::string &r : responses)
        everything += r;
    for (const std::string &secret : {kValue, kValue2, kToken}) {
        CHECK(everything.find(secret) == std::string::npos);
        CHECK(everything.find(secret.substr(0, 12)) == std::string::npos);
    }
}

TEST_CASE("broker e2e: the proxy holding the secrets is confined and not dumpable")
{
    HttpsUpstream up;
    BrokerProxy proxy(broker_args(up, {}), kToken, {kValue, kValue2}, true);
    REQUIRE_MESSAGE(proxy.pid() > 0, proxy.stderr_text());
    std::string proc = "/proc/" + std::to_string(proxy.pid());
    CHECK(proxy.status_field("Uid").rfind("65534\t", 0) == 0);
    CHECK(proxy.status_field("NoNewPrivs") == "1");
    CHECK(proxy.status_field("Seccomp") == "2");
    CHECK(proxy.status_field("CapEff") == "0000000000000000");
    // Not dumpable: its /proc files belong to root, not to its own uid.
    struct stat st;
    REQUIRE(stat((proc + "/mem").c_str(), &st) == 0);
    CHECK(st.st_uid == 0);
    // A process of the same uid can neither read its memory nor attach to it.
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(10);
        if (open((proc + "/mem").c_str(), O_RDONLY) >= 0 || errno != EACCES)
            _exit(1);
        if (open((proc + "/environ").c_str(), O_RDONLY) >= 0)
            _exit(2);
        if (ptrace(PTRACE_ATTACH, proxy.pid(), nullptr, nullptr) == 0)
            _exit(3);
        _exit(0);
    }
    int st2 = 0;
    waitpid(pid, &st2, 0);
    REQUIRE(WIFEXITED(st2));
    CHECK(WEXITSTATUS(st2) == 0);
    // It still serves.
    Client c(proxy.port());
    c.send("GET /gh/status/200 HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(proxy.port()) +
           "\r\nX-Broker-Auth: " + kToken + "\r\n\r\n");
    CHECK(status_of(c.response()) == "200");
}

TEST_CASE("broker e2e: a bad secrets file or CA file is one line and exit 78")
{
    int code = -1;
    int memfd = broker::secrets_memfd(kToken, {kValue});  // one value for two capabilities
    std::vector<std::string> args = {"--broker-listen", "127.0.0.1:0", "--broker-secrets", std::to_string(memfd),
                                     "--broker-allow",  "a.test",      "--capability",     "a=a.test:443",
                                     "--capability",    "b=a.test:443"};
    std::string err = e2e::run_proxy_cli(args, &code);
    CHECK(code == 78);
    CHECK(err == "tartaros: --broker-secrets: 2 records, expected 3 (the token and one value per --capability)\n");
    close(memfd);
    memfd = broker::secrets_memfd(kToken, {kValue});
    args = {"--broker-listen", "127.0.0.1:0",  "--broker-secrets", std::to_string(memfd), "--broker-allow",
            "a.test",          "--capability", "a=a.test:443",     "--broker-ca-file",    "/nonexistent/ca.pem"};
    err = e2e::run_proxy_cli(args, &code);
    CHECK(code == 78);
    CHECK(err.rfind("tartaros: --broker-ca-file /nonexistent/ca.pem: ", 0) == 0);
    CHECK(err.find(kValue) == std::string::npos);
    close(memfd);
}
