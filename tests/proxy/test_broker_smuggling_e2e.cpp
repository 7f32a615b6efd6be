// tests/proxy/test_broker_smuggling_e2e.cpp — the credential broker against upstreams that frame
// requests carelessly (misbehaving_upstream.py): bytes of one agent request never reach the
// upstream as part of another, the credential never comes back in a response head, TRACE is
// never relayed, and a secret in a URL is starred in the logs. Everything is on 127.0.0.1.
#include <doctest/doctest.h>

#include <unistd.h>

#include <string>
#include <vector>

#include "broker_harness.h"

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
// The start of another request, which the broker's next head would complete.
const std::string kSmuggled = "DELETE /repos/otherorg/victim HTTP/1.1\r\nX-Pad: ";

// gh (Bearer, any method), npm (X-Api-Key) and paths (path_prefixes but no methods), all on
// one misbehaving upstream.
struct Fixture {
    HttpsUpstream up{"", TARTAROS_MISBEHAVING_UPSTREAM};
    BrokerProxy proxy;
    Fixture() : proxy(args(up), kToken, {kValue, kValue2, "paths-value-0123456789"})
    {
        REQUIRE_MESSAGE(proxy.pid() > 0, proxy.stderr_text());
    }
    static std::vector<std::string> args(const HttpsUpstream &up)
    {
        std::string port = std::to_string(up.port());
        return {"--broker-allow",
                "localhost",
                "--broker-allow-internal",
                "--broker-ca-file",
                up.ca_file(),
                "--capability",
                "gh=localhost:" + port,
                "--cap-format",
                "Bearer {value}",
                "--capability",
                "npm=localhost:" + port,
                "--cap-header",
                "X-Api-Key",
                "--capability",
                "paths=localhost:" + port,
                "--cap-path-prefixes",
                "/",
                "--header-timeout-ms",
                "3000"};
    }
    std::string req(const std::string &method, const std::string &target, const std::string &extra = "") const
    {
        return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(proxy.port()) +
            "\r\nX-Broker-Auth: " + kToken + "\r\n" + extra + "\r\n";
    }
    // Every request the upstream parsed, one JSON line each.
    std::string seen() const
    {
        std::string all;
        for (const std::string &line : up.requests())
            all += line + "\n";
        return all;
    }
};

std::string length(const std::string &body)
{
    return "Content-Length: " + std::to_string(body.size()) + "\r\n";
}

int conn_of(const std::string &line)
{
    size_t at = line.find("\"conn\": ");
    return at == std::string::npos ? -1 : std::stoi(line.substr(at + 8));
}

bool contains(const std::string &s, const std::string &needle)
{
    return s.find(needle) != std::string::npos;
}

std::string lower(std::string s)
{
    for (char &c : s)
        c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return s;
}

}  // namespace

TEST_CASE("broker smuggling: a body on GET HEAD OPTIONS or DELETE is refused before the upstream")
{
    Fixture f;
    const std::string comment = "POST /repos/myorg/proj/issues/1/comments HTTP/1.1\r\nHost: x\r\n"
                                "Content-Length: 400\r\n\r\n";
    struct Case {
        std::string request;
    } cases[] = {
        {f.req("GET", "/gh/repos/myorg/proj", length(kSmuggled)) + kSmuggled},
        {f.req("GET", "/gh/repos/myorg/proj", length(comment)) + comment},
        {f.req("HEAD", "/gh/repos/myorg/proj", length(kSmuggled)) + kSmuggled},
        {f.req("OPTIONS", "/gh/repos/myorg/proj", length(kSmuggled)) + kSmuggled},
        {f.req("DELETE", "/gh/repos/myorg/proj", length(kSmuggled)) + kSmuggled},
        {f.req("get", "/gh/repos/myorg/proj", length(kSmuggled)) + kSmuggled},
        {f.req("GET", "/gh/repos/myorg/proj", "Transfer-Encoding: chunked\r\n") + "2e\r\n" + kSmuggled +
         "\r\n0\r\n\r\n"},
        {f.req("GET", "/gh/repos/myorg/proj\t/../../x")},
    };
    for (const Case &k : cases) {
        CAPTURE(k.request);
        Client c(f.proxy.port());
        // The next request right behind it: on a reused upstream connection it would complete
        // the smuggled one with its credential.
        c.send(k.request + f.req("GET", "/gh/repos/myorg/proj"));
        std::string r = c.response();
        CAPTURE(r);
        CHECK(status_of(r) == "400");
        CHECK(header_of(r, "X-Broker-Error") == "bad-request");
        CHECK(header_of(r, "Connection") == "close");
        CHECK(c.closed_by_peer());
    }
    std::string seen = f.seen();
    CHECK_MESSAGE(seen.empty(), seen);
    // An empty body is no body: served, and the connection stays.
    Client c(f.proxy.port());
    c.send(f.req("GET", "/gh/repos/myorg/proj", "Content-Length: 0\r\n"));
    CHECK(status_of(c.response()) == "200");
    c.send(f.req("DELETE", "/gh/repos/myorg/proj/x"));
    CHECK(status_of(c.response()) == "200");
    CHECK(f.up.requests().size() == 2);
}

TEST_CASE("broker smuggling: an upstream that answers before reading the body never gets the next request on it")
{
    Fixture f;
    Client c(f.proxy.port());
    c.send(f.req("POST", "/gh/early", length(kSmuggled)) + kSmuggled);
    std::string r = c.response();
    CHECK(status_of(r) == "401");
    c.send(f.req("GET", "/gh/repos/myorg/proj"));  // on the same client connection, if kept
    std::string next = c.response();
    if (next.empty()) {  // the broker ended the connection after the early answer
        Client again(f.proxy.port());
        again.send(f.req("GET", "/gh/repos/myorg/proj"));
        next = again.response();
    }
    CHECK(status_of(next) == "200");
    auto reqs = f.up.requests();
    REQUIRE(reqs.size() == 2);
    CAPTURE(reqs[1]);
    CHECK(contains(reqs[1], "\"method\": \"GET\", \"path\": \"/repos/myorg/proj\""));
    CHECK(conn_of(reqs[1]) != conn_of(reqs[0]));
    CHECK_FALSE(contains(f.seen(), "otherorg"));
}

TEST_CASE("broker smuggling: an upstream that closes mid-body is an error and the connection ends")
{
    Fixture f;
    Client c(f.proxy.port());
    c.send(f.req("PUT", "/gh/cut", "Content-Length: 1048576\r\n") + std::string(32768, 'a'));
    std::string r = c.response();
    CAPTURE(r);
    CHECK(status_of(r) == "502");
    CHECK(header_of(r, "X-Broker-Error") == "bad-upstream-response");
    CHECK(c.closed_by_peer());
    auto reqs = f.up.requests();
    REQUIRE(reqs.size() == 1);
    CHECK(contains(reqs[0], "\"body\": \"aaaaaaaaaaaaaaaa\""));
    Client fresh(f.proxy.port());
    fresh.send(f.req("GET", "/gh/status"));
    CHECK(status_of(fresh.response()) == "200");
}

TEST_CASE("broker smuggling: with Expect 100-continue no body byte goes up before the upstream's 100")
{
    Fixture f;
    Client c(f.proxy.port());
    std::string body(1000, 'b');
    // The client does not wait for the 100 (curl gives up waiting after a second).
    c.send(f.req("POST", "/gh/continue", length(body) + "Expect: 100-continue\r\n") + body);
    std::string cont = c.response();
    CHECK(status_of(cont) == "100");
    std::string r = c.response();
    CHECK(status_of(r) == "200");
    CHECK(body_of(r) == "{\"bytes\": 1000}");
    c.send(f.req("GET", "/gh/status"));
    CHECK(status_of(c.response()) == "200");
    auto reqs = f.up.requests();
    REQUIRE(reqs.size() == 2);
    CHECK(contains(reqs[0], "\"early_body\": 0"));
    CHECK(conn_of(reqs[1]) != conn_of(reqs[0]));  // no reuse after a body
    // A final answer instead of 100: the body is never sent, the client connection ends.
    const std::string whole = "DELETE /repos/otherorg/victim HTTP/1.1\r\nHost: x\r\n\r\n";
    Client d(f.proxy.port());
    d.send(f.req("POST", "/gh/reject", length(whole) + "Expect: 100-continue\r\n") + whole);
    r = d.response();
    CHECK(status_of(r) == "417");
    CHECK(header_of(r, "Connection") == "close");
    CHECK(d.closed_by_peer());
    usleep(300000);  // what the upstream would parse after its answer
    reqs = f.up.requests();
    REQUIRE(reqs.size() == 3);
    CHECK(contains(reqs[2], "\"early_body\": 0"));
    CHECK_FALSE(contains(f.seen(), "otherorg"));
}

TEST_CASE("broker smuggling: pipelined requests to two capabilities arrive each on its own terms")
{
    Fixture f;
    Client c(f.proxy.port());
    const std::string posted = "GET /npm/x HTTP/1.1\r\nX-Api-Key: forged\r\n\r\n";
    c.send(f.req("GET", "/gh/a") + f.req("POST", "/npm/b", length(posted)) + posted + f.req("GET", "/gh/c?x=1") +
           f.req("PUT", "/npm/d", "Transfer-Encoding: chunked\r\n") + "5\r\nhello\r\n0\r\n\r\n" +
           f.req("GET", "/npm/e") + f.req("GET", "/gh/f"));
    const char *paths[] = {"/a", "/b", "/c?x=1", "/d", "/e", "/f"};
    for (const char *p : paths) {
        std::string r = c.response();
        CAPTURE(r);
        CHECK(status_of(r) == "200");
        CHECK(contains(body_of(r), std::string("\"path\": \"") + p + "\""));
    }
    auto reqs = f.up.requests();
    REQUIRE(reqs.size() == 6);
    for (size_t i = 0; i < reqs.size(); i++) {
        CAPTURE(reqs[i]);
        CHECK(contains(reqs[i], std::string("\"path\": \"") + paths[i] + "\""));
        bool gh = i == 0 || i == 2 || i == 5;
        CHECK(contains(reqs[i],
                       gh ? "[\"Authorization\", \"Bearer " + kValue + "\"]" : "[\"X-Api-Key\", \"" + kValue2 + "\"]"));
        CHECK_FALSE(contains(reqs[i], gh ? kValue2 : kValue));
    }
    CHECK(contains(reqs[1], "\"body\": \"GET /npm/x HTTP/1.1\\r\\nX-Api-Key: forged\\r\\n\\r\\n\""));
    CHECK(contains(reqs[3], "\"body\": \"hello\""));
    CHECK_FALSE(contains(f.seen(), "\"path\": \"/npm/x\""));
}

TEST_CASE("broker smuggling: the value never comes back in a response head and TRACE is never relayed")
{
    Fixture f;
    Client c(f.proxy.port());
    for (const char *target : {"/gh/reason", "/gh/lower", "/gh/basic", "/gh/urlenc"}) {
        c.send(f.req("GET", target));
        std::string r = c.response();
        CAPTURE(r);
        CHECK((status_of(r) == "200" || status_of(r) == "302"));
        CHECK_FALSE(contains(lower(r), lower(kValue)));
        CHECK(header_of(r, "X-Seen") == "");
        CHECK(header_of(r, "Location") == "");
    }
    std::string reason = (c.send(f.req("GET", "/gh/reason")), c.response());
    CHECK(reason.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
    for (const char *m : {"TRACE", "TRACK", "trace"}) {
        for (const char *target : {"/paths/x", "/gh/x"}) {
            Client t(f.proxy.port());
            t.send(f.req(m, target));
            std::string r = t.response();
            CAPTURE(r);
            CHECK(status_of(r) == "405");
            CHECK(header_of(r, "X-Broker-Error") == "method-not-allowed");
            CHECK(contains(body_of(r), "never brokered"));
        }
    }
    Client t(f.proxy.port());
    t.send(f.req("CONNECT", "/paths/x"));
    CHECK(status_of(t.response()) == "405");
    CHECK(f.up.requests().size() == 5);  // the reflections only
}

TEST_CASE("broker smuggling: a secret in the URL is starred in the logs")
{
    Fixture f;
    Client c(f.proxy.port());
    c.send(f.req("GET", "/gh/bot" + kToken + "/send;access_token=abcdef123456?key=qwerty"));
    CHECK(status_of(c.response()) == "200");
    c.send(f.req("GET", "/gh/x/" + lower(kValue)));
    CHECK(status_of(c.response()) == "200");
    c.send(f.req("GET", "/" + kToken + "/x"));
    CHECK(status_of(c.response()) == "404");
    CHECK(f.proxy.log_has("allowed BROKER gh GET"));
    std::string logs = f.proxy.log() + f.proxy.effects();
    CAPTURE(logs);
    CHECK_FALSE(contains(logs, kToken.substr(0, 24)));
    CHECK_FALSE(contains(lower(logs), lower(kValue).substr(0, 16)));
    CHECK_FALSE(contains(logs, "abcdef123456"));
    CHECK(contains(logs, "\"path\":\"/bot" + std::string(kToken.size(), '*') + "/send;access_token=************\""));
}
