// Host normalisation, IP-literal detection, pattern matching and the pre-lookup decision.
#include <doctest/doctest.h>

#include <string>

#include "names.h"

using tproxy::HostKind;

namespace {

std::string norm(const char *s)
{
    auto h = tproxy::normalize_host(s);
    return h ? h->text : "<invalid>";
}

tproxy::Policy policy(std::initializer_list<const char *> allow, std::initializer_list<const char *> deny)
{
    tproxy::Policy p;
    for (const char *a : allow)
        p.allow.push_back(*tproxy::normalize_pattern(a));
    for (const char *d : deny)
        p.deny.push_back(*tproxy::normalize_pattern(d));
    p.ports = {443, 80};
    return p;
}

tproxy::Verdict verdict(const tproxy::Policy &p, const char *host, unsigned port = 443)
{
    return tproxy::decide(p, *tproxy::normalize_host(host), port).verdict;
}

}  // namespace

TEST_CASE("names: case + one trailing dot + canonical literals")
{
    CHECK(norm("Example.COM") == "example.com");
    CHECK(norm("example.com.") == "example.com");
    CHECK(norm("example.com..") == "<invalid>");
    CHECK(norm("2001:DB8:0:0::1") == "2001:db8::1");
    CHECK(tproxy::normalize_host("::1")->kind == HostKind::V6Literal);
    CHECK(tproxy::normalize_host("8.8.8.8")->kind == HostKind::V4Literal);
    CHECK(tproxy::normalize_host("a-b_c.example")->kind == HostKind::Name);
}

TEST_CASE("names: numeric forms that resolvers would turn into addresses are refused")
{
    for (const char *s :
         {"127.1", "2130706433", "0x7f.0.0.1", "0x7f000001", "010.0.0.1", "127.0.0.1.", "1.2.3.4.5", "example.123"}) {
        CAPTURE(s);
        if (std::string(s) == "127.0.0.1.")
            CHECK(norm(s) == "127.0.0.1");  // the trailing dot only
        else
            CHECK(norm(s) == "<invalid>");
    }
}

TEST_CASE("names: malformed names are refused")
{
    std::string long_label(64, 'a');
    std::string long_name;
    for (int i = 0; i < 64; i++)
        long_name += "abc.";
    long_name += "com";
    for (const std::string &s :
         {std::string(""), std::string("."), std::string("a..b"), std::string(".a"), std::string("-a.com"),
          std::string("a-.com"), std::string("a b.com"), std::string("a\r\nb"), std::string("a%2e.com"),
          std::string("fe80::1%eth0"), long_label + ".com", long_name, std::string("*.com")}) {
        CAPTURE(s);
        CHECK_FALSE(tproxy::normalize_host(s));
    }
}

TEST_CASE("names: patterns")
{
    CHECK(*tproxy::normalize_pattern("*.Example.com.") == "*.example.com");
    CHECK_FALSE(tproxy::normalize_pattern("*"));
    CHECK_FALSE(tproxy::normalize_pattern("*."));
    CHECK_FALSE(tproxy::normalize_pattern("a.*.com"));
    CHECK_FALSE(tproxy::normalize_pattern("*.1.2.3"));
    CHECK(tproxy::pattern_matches("*.example.com", "a.example.com"));
    CHECK(tproxy::pattern_matches("*.example.com", "a.b.example.com"));
    CHECK_FALSE(tproxy::pattern_matches("*.example.com", "example.com"));
    CHECK_FALSE(tproxy::pattern_matches("*.example.com", "badexample.com"));
    CHECK(tproxy::pattern_matches("example.com", "example.com"));
    CHECK_FALSE(tproxy::pattern_matches("example.com", "a.example.com"));
}

TEST_CASE("names: deny wins + allow-list + ports + literals")
{
    auto p = policy({"*.example.com", "exact.test", "93.184.216.34"}, {"evil.example.com"});
    CHECK(verdict(p, "api.example.com") == tproxy::Verdict::Allow);
    CHECK(verdict(p, "EVIL.example.com.") == tproxy::Verdict::DenyDenylist);
    CHECK(verdict(p, "example.com") == tproxy::Verdict::DenyAllowlist);
    CHECK(verdict(p, "exact.test") == tproxy::Verdict::Allow);
    CHECK(verdict(p, "sub.exact.test") == tproxy::Verdict::DenyAllowlist);
    CHECK(verdict(p, "api.example.com", 8080) == tproxy::Verdict::DenyPort);
    CHECK(verdict(p, "evil.example.com", 8080) == tproxy::Verdict::DenyDenylist);
    CHECK(verdict(p, "93.184.216.34") == tproxy::Verdict::Allow);
    CHECK(verdict(p, "1.1.1.1") == tproxy::Verdict::DenyAllowlist);
    CHECK(verdict(p, "::1") == tproxy::Verdict::DenyAllowlist);
    auto deny_all = policy({"a.example.com"}, {"*.example.com"});
    CHECK(verdict(deny_all, "a.example.com") == tproxy::Verdict::DenyDenylist);
}

TEST_CASE("names: pins")
{
    auto p = policy({"allowed.test", "other.test"}, {});
    p.pins.push_back(*tproxy::parse_pin_address("Allowed.Test.", "127.0.0.1"));
    auto d = tproxy::decide(p, *tproxy::normalize_host("allowed.test"), 443);
    REQUIRE(d.verdict == tproxy::Verdict::Allow);
    REQUIRE(d.pin != nullptr);
    CHECK(d.pin->addr.ss_family == AF_INET);
    CHECK(tproxy::decide(p, *tproxy::normalize_host("other.test"), 443).pin == nullptr);
    CHECK(tproxy::parse_pin_address("v6.test", "::1")->addr.ss_family == AF_INET6);
    CHECK_FALSE(tproxy::parse_pin_address("x.test", "127.1"));
    CHECK_FALSE(tproxy::parse_pin_address("x.test", "localhost"));
    CHECK_FALSE(tproxy::parse_pin_address("bad name", "127.0.0.1"));
}
