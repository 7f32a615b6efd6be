// The internal-address classifier: every refused range, its boundaries and embedded IPv4.
#include <doctest/doctest.h>

#include <arpa/inet.h>

#include <string>

#include "addr_class.h"

namespace {

bool internal(const std::string &text)
{
    if (text.find(':') != std::string::npos) {
        in6_addr a;
        REQUIRE(inet_pton(AF_INET6, text.c_str(), &a) == 1);
        return tproxy::classify_v6(a).internal;
    }
    in_addr a;
    REQUIRE(inet_pton(AF_INET, text.c_str(), &a) == 1);
    return tproxy::classify_v4(a).internal;
}

}  // namespace

TEST_CASE("addr_class: every internal IPv4 range with first and last address")
{
    const char *inside[] = {
        "0.0.0.0",     "0.255.255.255",  "10.0.0.0",        "10.255.255.255", "100.64.0.0",      "100.127.255.255",
        "127.0.0.0",   "127.0.0.1",      "127.255.255.255", "169.254.0.0",    "169.254.169.254", "169.254.255.255",
        "172.16.0.0",  "172.31.255.255", "192.0.0.0",       "192.0.0.255",    "192.0.2.0",       "192.0.2.255",
        "192.88.99.1", "192.168.0.0",    "192.168.255.255", "198.18.0.0",     "198.19.255.255",  "198.51.100.7",
        "203.0.113.9", "224.0.0.0",      "239.255.255.255", "240.0.0.0",      "255.255.255.255",
    };
    for (const char *a : inside) {
        CAPTURE(a);
        CHECK(internal(a));
    }
}

TEST_CASE("addr_class: public IPv4 just outside each range")
{
    const char *outside[] = {
        "1.0.0.0",         "9.255.255.255",   "11.0.0.0",        "100.63.255.255",  "100.128.0.0",
        "126.255.255.255", "128.0.0.0",       "169.253.255.255", "169.255.0.0",     "172.15.255.255",
        "172.32.0.0",      "191.255.255.255", "192.0.1.0",       "192.0.3.0",       "192.167.255.255",
        "192.169.0.0",     "198.17.255.255",  "198.20.0.0",      "223.255.255.255", "8.8.8.8",
    };
    for (const char *a : outside) {
        CAPTURE(a);
        CHECK_FALSE(internal(a));
    }
}

TEST_CASE("addr_class: IPv6 outside global unicast and the reserved blocks inside it")
{
    const char *inside[] = {
        "::",
        "::1",
        "::ffff:127.0.0.1",
        "::ffff:8.8.8.8",
        "::127.0.0.1",
        "::ffff:0:10.0.0.1",
        "100::1",
        "fc00::",
        "fdff:ffff::1",
        "fe80::1",
        "febf:ffff::1",
        "fec0::1",
        "ff02::1",
        "2001:db8::1",
        "2001::1",
        "2001:1ff:ffff::1",
        "2002:7f00:1::",
        "3fff::1",
        "3fff:fff::1",
        "64:ff9b:1::a00:1",
        "64:ff9b::127.0.0.1",
        "64:ff9b::10.1.2.3",
        "64:ff9b::192.168.1.1",
        "5f00::1",
        "1fff:ffff::1",
        "4000::1",
    };
    for (const char *a : inside) {
        CAPTURE(a);
        CHECK(internal(a));
    }
}

TEST_CASE("addr_class: public IPv6 and NAT64 of a public IPv4")
{
    const char *outside[] = {"2000::1",      "2001:200::1",  "2001:4860:4860::8888", "2003::1",
                             "2a00:1450::1", "3ffe:ffff::1", "3fff:1000::1",         "64:ff9b::8.8.8.8"};
    for (const char *a : outside) {
        CAPTURE(a);
        CHECK_FALSE(internal(a));
    }
}

TEST_CASE("addr_class: the range is named and an unknown family is internal")
{
    in_addr a;
    inet_pton(AF_INET, "100.100.1.1", &a);
    CHECK(std::string(tproxy::classify_v4(a).range) == "cgnat 100.64.0.0/10");
    sockaddr_storage ss{};
    ss.ss_family = AF_UNIX;
    CHECK(tproxy::classify(reinterpret_cast<sockaddr *>(&ss)).internal);
}
