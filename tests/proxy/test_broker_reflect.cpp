// What the broker refuses before anything reaches an upstream (methods that echo or tunnel,
// bodies where the method takes none), the value found in a response head however it is
// re-encoded (proxy/broker_reflect.h), and secrets starred in log text (proxy/broker_mask.h).
#include <doctest/doctest.h>

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <string>
#include <vector>

#include "broker_mask.h"
#include "broker_reflect.h"
#include "broker_request.h"

namespace {

const std::string kToken = "0123456789abcdef0123456789abcdef";
const std::string kValue = "ghp_TOPSECRETvalue0123456789abcdef";

std::string base64(const std::string &s)
{
    std::string out(4 * ((s.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char *>(out.data()),
                            reinterpret_cast<const unsigned char *>(s.data()), static_cast<int>(s.size()));
    out.resize(static_cast<size_t>(n));
    return out;
}

std::string url_safe(std::string s)
{
    for (char &c : s)
        c = c == '+' ? '-' : c == '/' ? '_' : c;
    return s;
}

std::string percent_all(const std::string &s)
{
    static const char *hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s)
        out += std::string("%") + hex[c >> 4] + hex[c & 15];
    return out;
}

std::string lower(std::string s)
{
    for (char &c : s)
        c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return s;
}

// The code broker_decide gives a request to the capability `any` (no methods, no prefixes).
std::string code(const std::string &method, const std::string &headers = "", const std::string &token = kToken)
{
    tproxy::BrokerConfig b;
    b.allow = {"x.test"};
    tproxy::Capability any;
    any.name = "any";
    any.host = {"x.test", tproxy::HostKind::Name};
    b.caps = {any};
    tproxy::BrokerSecrets s;
    SHA256(reinterpret_cast<const unsigned char *>(kToken.data()), kToken.size(), s.token_digest);
    tproxy::OwnAddress own{{"127.0.0.1"}, 3129};
    std::string head = method + " /any/x HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n" + headers +
        (token.empty() ? "" : "X-Broker-Auth: " + token + "\r\n") + "\r\n";
    auto p = tproxy::parse_request(head, 16384, tproxy::Form::Origin);
    REQUIRE_MESSAGE(p.status == tproxy::ParseStatus::Ok, p.err.detail);
    auto d = tproxy::broker_decide(p.req, b, s, own);
    return d.refusal ? d.refusal->code : "";
}

}  // namespace

TEST_CASE("broker reflect: TRACE TRACK and CONNECT are refused whatever the capability allows")
{
    for (const char *m : {"TRACE", "TRACK", "CONNECT", "trace", "Track", "connect"}) {
        CAPTURE(m);
        CHECK(code(m) == "method-not-allowed");
        CHECK(code(m, "", "") == "method-not-allowed");  // before the token: it tells nothing
    }
    CHECK(code("GET") == "");
    CHECK(code("PATCH") == "");
}

TEST_CASE("broker reflect: a body only where the method takes one")
{
    for (const char *m : {"GET", "HEAD", "OPTIONS", "DELETE", "get", "Delete"}) {
        CAPTURE(m);
        CHECK(code(m, "Content-Length: 5\r\n") == "bad-request");
        CHECK(code(m, "Content-Length: 00\r\n") == "");  // an empty body is no body
        CHECK(code(m, "Transfer-Encoding: chunked\r\n") == "bad-request");
        CHECK(code(m, "Content-Length: 99999999999999999999999\r\n") == "bad-request");
    }
    for (const char *m : {"POST", "PUT", "PATCH", "PROPFIND"}) {
        CAPTURE(m);
        CHECK(code(m, "Content-Length: 5\r\n") == "");
        CHECK(code(m, "Transfer-Encoding: chunked\r\n") == "");
    }
    CHECK(code("POST", "Content-Length: 5\r\nExpect: 100-Continue\r\n") == "");
    CHECK(code("POST", "Content-Length: 5\r\nExpect: 100-continue, x\r\n") == "expectation-failed");
    CHECK(code("POST", "Content-Length: 5\r\nExpect: 100-continue\r\nExpect: 100-continue\r\n") ==
          "expectation-failed");
    auto req = [](const std::string &h) {
        return tproxy::parse_request("POST /a HTTP/1.1\r\nHost: h\r\n" + h + "\r\n", 16384, tproxy::Form::Origin).req;
    };
    CHECK(tproxy::expects_continue(req("Content-Length: 5\r\nExpect: 100-continue\r\n")));
    CHECK_FALSE(tproxy::expects_continue(req("Content-Length: 0\r\nExpect: 100-continue\r\n")));
    CHECK_FALSE(tproxy::has_body(req("Content-Length: 0\r\n")));
    CHECK(tproxy::has_body(req("Transfer-Encoding: chunked\r\n")));
}

TEST_CASE("broker reflect: the value is found however a response re-encodes it")
{
    tproxy::ValueFinder f(kValue);
    const std::vector<std::string> reflections = {kValue,
                                                  "Bearer " + kValue,
                                                  lower("Bearer " + kValue),
                                                  "BEARER GHP_TOPSECRETVALUE0123456789ABCDEF",
                                                  "https://x.test/cb?t=" + percent_all(kValue),
                                                  "a%2520" + kValue.substr(0, 3) + "%25" + "5F" + kValue.substr(4),
                                                  "Basic " + base64("user:" + kValue),
                                                  "Basic " + base64("x-access-token:" + kValue),
                                                  "Basic " + base64("ab:" + kValue),
                                                  lower("Basic " + base64("me:" + kValue)),
                                                  url_safe(base64("?!>" + kValue + "~~")),
                                                  base64(kValue),
                                                  percent_all("Basic " + base64("u:" + kValue))};
    for (const std::string &text : reflections) {
        CAPTURE(text);
        CHECK(f.found_in(text));
    }
    for (const std::string &text :
         {std::string("Bearer ghp_other"), base64("user:password"), kValue.substr(1), std::string("")})
        CHECK_FALSE(f.found_in(text));
    CHECK_FALSE(tproxy::ValueFinder("").found_in("anything"));
}

TEST_CASE("broker reflect: a reason phrase or header holding the value is replaced or dropped")
{
    std::string head = "HTTP/1.1 401 bad credentials: bearer " + lower(kValue) +
        "\r\nContent-Length: 2\r\n"
        "X-Seen: Basic " +
        base64("user:" + kValue) + "\r\nLocation: /cb?t=" + percent_all(kValue) + "\r\nX-Fine: 1\r\n\r\nok";
    auto r = tproxy::parse_response(head, 65536);
    REQUIRE(r.status == tproxy::ParseStatus::Ok);
    tproxy::ClientHead h = tproxy::client_response_head(r.resp, tproxy::ValueFinder(kValue), false);
    CHECK(h.text == "HTTP/1.1 401 Unauthorized\r\nContent-Length: 2\r\nX-Fine: 1\r\n\r\n");
    CHECK(h.dropped == 3);
    auto odd = tproxy::parse_response("HTTP/1.1 599 " + kValue + "\r\nContent-Length: 0\r\n\r\n", 65536);
    REQUIRE(odd.status == tproxy::ParseStatus::Ok);
    CHECK(tproxy::client_response_head(odd.resp, tproxy::ValueFinder(kValue), false)
              .text.starts_with("HTTP/1.1 599 \r\n"));
}

TEST_CASE("broker mask: the token the values and credential parameters are starred in log text")
{
    tproxy::BrokerSecrets s;
    s.token_print = tproxy::token_print(kToken);
    tproxy::Secret v(kValue.size());
    kValue.copy(v.data(), kValue.size());
    s.values.push_back(std::move(v));
    std::string stars(kToken.size(), '*');
    CHECK(tproxy::mask_for_log("/bot" + kToken + "/send", s) == "/bot" + stars + "/send");
    CHECK(tproxy::mask_for_log("/a/" + kToken + kToken, s) == "/a/" + stars + stars);
    CHECK(tproxy::mask_for_log("/x/" + lower(kValue) + "/y", s) == "/x/" + std::string(kValue.size(), '*') + "/y");
    CHECK(tproxy::mask_for_log("/x/" + percent_all(kValue), s) == std::string(3 + 3 * kValue.size(), '*'));
    CHECK(tproxy::mask_for_log("/x;access_token=abc123;page=2", s) == "/x;access_token=******;page=2");
    CHECK(tproxy::mask_for_log("/x?api-key=k1&Signature=zz&q=1", s) == "/x?api-key=**&Signature=**&q=1");
    CHECK(tproxy::mask_for_log("/repos/a/issues", s) == "/repos/a/issues");
    CHECK(tproxy::mask_for_log("no capability named 'x" + kToken + "'", s) == "no capability named 'x" + stars + "'");
    CHECK(tproxy::token_print("short").len == 0);
}
