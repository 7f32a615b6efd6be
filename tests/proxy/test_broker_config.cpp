// The credential broker's command line (proxy/broker_config.h): what it accepts, its
// defaults, every refusal, in listen mode and in channel mode.
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <variant>
#include <vector>

#include "config.h"

namespace {

std::string error_of(const std::vector<std::string> &args)
{
    auto r = tproxy::parse_args(args);
    auto *e = std::get_if<std::string>(&r);
    return e ? *e : "";
}

// A broker-only listen-mode command line with `more` appended (fd 0 stands for the secrets).
std::vector<std::string> listen_args(std::vector<std::string> more)
{
    std::vector<std::string> a = {"--broker-listen", "127.0.0.1:3129",  "--broker-secrets", "0",
                                  "--broker-allow",  "api.example.com", "--capability",     "gh=api.example.com:443"};
    a.insert(a.end(), more.begin(), more.end());
    return a;
}

std::string listen_error(std::vector<std::string> more)
{
    return error_of(listen_args(std::move(more)));
}

}  // namespace

TEST_CASE("broker config: a full listen-mode command line")
{
    auto r = tproxy::parse_args({"--broker-listen",
                                 "127.0.0.1:0",
                                 "--broker-secrets",
                                 "0",
                                 "--broker-auth-header",
                                 "X-Token",
                                 "--broker-allow",
                                 "API.Example.com.",
                                 "--broker-allow",
                                 "*.corp.test",
                                 "--broker-allow-internal",
                                 "--broker-ca-file",
                                 "/etc/ca.pem",
                                 "--capability",
                                 "gh=api.example.com:443",
                                 "--cap-header",
                                 "X-Api-Key",
                                 "--cap-format",
                                 "Bearer {value}",
                                 "--cap-methods",
                                 "GET POST",
                                 "--cap-path-prefixes",
                                 "/repos/a /user",
                                 "--capability",
                                 "v6=[::1]:8443",
                                 "--capability",
                                 "lit=127.0.0.1:9443"});
    REQUIRE(std::holds_alternative<tproxy::Config>(r));
    const auto &c = std::get<tproxy::Config>(r);
    const tproxy::BrokerConfig &b = c.broker;
    CHECK(b.enabled());
    CHECK_FALSE(c.http_proxy());  // no HTTP listener: the broker alone
    CHECK(b.secrets_fd == 0);
    CHECK(b.auth_header == "X-Token");
    CHECK(b.allow == std::vector<std::string>{"api.example.com", "*.corp.test"});
    CHECK(b.allow_internal);
    CHECK(b.ca_file == "/etc/ca.pem");
    REQUIRE(b.caps.size() == 3);
    CHECK(b.caps[0].name == "gh");
    CHECK(b.caps[0].host.text == "api.example.com");
    CHECK(b.caps[0].port == 443);
    CHECK(b.caps[0].header == "X-Api-Key");
    CHECK(b.caps[0].format == "Bearer {value}");
    CHECK(b.caps[0].methods == std::vector<std::string>{"GET", "POST"});
    CHECK(b.caps[0].path_prefixes == std::vector<std::string>{"/repos/a", "/user"});
    CHECK(b.caps[1].host.kind == tproxy::HostKind::V6Literal);
    CHECK(b.caps[1].host.text == "::1");
    CHECK(b.caps[1].port == 8443);
    CHECK(b.caps[2].host.kind == tproxy::HostKind::V4Literal);
    CHECK(b.needs_lookups());
    CHECK(c.needs_lookups());
}

TEST_CASE("broker config: defaults and no lookups for literal hosts")
{
    auto r = tproxy::parse_args({"--broker-listen", "127.0.0.1:3129", "--broker-secrets", "0", "--broker-allow",
                                 "127.0.0.1", "--capability", "a=127.0.0.1:443"});
    REQUIRE(std::holds_alternative<tproxy::Config>(r));
    const auto &c = std::get<tproxy::Config>(r);
    CHECK(c.broker.auth_header == "X-Broker-Auth");
    CHECK_FALSE(c.broker.allow_internal);
    CHECK(c.broker.ca_file.empty());
    CHECK(c.broker.caps[0].header == "Authorization");
    CHECK(c.broker.caps[0].format == "{value}");
    CHECK(c.broker.caps[0].methods.empty());
    CHECK(c.broker.caps[0].path_prefixes.empty());
    CHECK_FALSE(c.needs_lookups());
}

TEST_CASE("broker config: beside the HTTP proxy in listen mode")
{
    auto r = tproxy::parse_args(listen_args({"--listen", "127.0.0.1:3128", "--allow", "a.test"}));
    REQUIRE(std::holds_alternative<tproxy::Config>(r));
    CHECK(std::get<tproxy::Config>(r).http_proxy());
    CHECK(listen_error({"--listen", "127.0.0.1:3128"}).find("no --allow") == 0);
    CHECK(listen_error({"--allow", "a.test"}) ==
          "--allow needs --listen-fd or --listen: there is no HTTP proxy to apply it to");
}

TEST_CASE("broker config: refusals of the broker's flags")
{
    CHECK(listen_error({"--cap-header", "Host"}).find("--cap-header 'Host'") == 0);
    CHECK(listen_error({"--cap-header", "content-length"}) != "");
    CHECK(listen_error({"--cap-header", "Transfer-Encoding"}) != "");
    CHECK(listen_error({"--cap-header", "Proxy-Authorization"}) != "");
    CHECK(listen_error({"--cap-header", "Connection"}) != "");
    CHECK(listen_error({"--cap-header", "Expect"}) != "");
    CHECK(listen_error({"--cap-header", "Bad Name"}) != "");
    CHECK(listen_error({"--cap-header", std::string(65, 'a')}) != "");
    CHECK(listen_error({"--cap-header", "X-Broker-Auth"}) ==
          "capability gh: its header X-Broker-Auth is the broker's auth header");
    CHECK(listen_error({"--broker-auth-header", "Authorization"}) ==
          "capability gh: its header Authorization is the broker's auth header");
    CHECK(listen_error({"--broker-auth-header", "Host"}) != "");
    CHECK(listen_error({"--cap-header", "X-A", "--cap-header", "X-B"}) == "--cap-header given twice for capability gh");
    CHECK(listen_error({"--cap-format", "Bearer"}).find("--cap-format 'Bearer'") == 0);
    CHECK(listen_error({"--cap-format", "{value}{value}"}) != "");
    CHECK(listen_error({"--cap-format", "a\r\n{value}"}) != "");
    CHECK(listen_error({"--cap-format", std::string(1020, 'a') + "{value}"}) != "");
    CHECK(listen_error({"--cap-methods", "get"}) != "");
    CHECK(listen_error({"--cap-methods", "GET  POST"}) != "");
    CHECK(listen_error({"--cap-methods", " GET"}) != "");
    CHECK(listen_error({"--cap-methods", ""}) != "");
    CHECK(listen_error({"--cap-path-prefixes", "repos"}) != "");
    CHECK(listen_error({"--cap-path-prefixes", "/a /b "}) != "");
    CHECK(listen_error({"--capability", "gh=b.test:443"}) == "--capability 'gh=b.test:443': this name is given twice");
    for (const char *bad : {"x", "x=a.test", "x=a.test:0", "x=a.test:65536", "x/y=a.test:443", "=a.test:443",
                            "x=::1:443", "x=[127.0.0.1]:443", "x=a..test:443", "x=127.1:443"})
        CHECK_MESSAGE(listen_error({"--capability", bad}).find("--capability") == 0, bad);
    CHECK(listen_error({"--capability", std::string(65, 'a') + "=a.test:443"}) != "");
    CHECK(listen_error({"--broker-allow", "*"}) != "");
    CHECK(listen_error({"--broker-secrets", "987654"}) != "");
    CHECK(listen_error({"--broker-secrets", "0"}) == "--broker-secrets given twice");
    CHECK(listen_error({"--broker-ca-file", ""}) != "");
    std::vector<std::string> many;
    for (int i = 0; i < 64; i++)
        many.insert(many.end(), {"--capability", "c" + std::to_string(i) + "=a.test:443"});
    CHECK(listen_error(many) == "more than 64 capabilities");
}

TEST_CASE("broker config: what a broker needs and where its flags belong")
{
    CHECK(error_of({"--cap-header", "X-A"}) == "--cap-header needs a --capability before it");
    CHECK(error_of({"--broker-listen", "127.0.0.1:1", "--broker-allow", "a.test", "--capability", "a=a.test:443"}) ==
          "a broker needs --broker-secrets FD");
    CHECK(error_of({"--broker-listen", "127.0.0.1:1", "--broker-secrets", "0", "--capability", "a=a.test:443"}) ==
          "a broker needs at least one --broker-allow");
    CHECK(error_of({"--broker-listen", "127.0.0.1:1", "--broker-secrets", "0", "--broker-allow", "a.test"}) ==
          "a broker needs at least one --capability");
    CHECK(error_of({"--listen-fd", "0", "--allow", "a.test", "--broker-allow", "a.test"}) ==
          "broker flags need --broker-listen");
    CHECK(error_of({"--listen-fd", "0", "--allow", "a.test", "--broker-allow-internal"}) ==
          "broker flags need --broker-listen");
    CHECK(listen_error({"--broker-port", "3129"}) == "--broker-port needs --channel");
    CHECK(error_of({"--broker-listen", "localhost:1"}).find("--broker-listen 'localhost:1'") == 0);
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
    std::string chan = std::to_string(sv[0]);
    CHECK(error_of({"--channel", chan, "--broker-listen", "127.0.0.1:1"}) ==
          "--broker-listen is for listen mode; with --channel give --broker-port");
    CHECK(error_of({"--channel", chan, "--relay", "1", "--capability", "a=a.test:443"}) ==
          "broker flags need --broker-port");
    close(sv[0]);
    close(sv[1]);
}

TEST_CASE("broker config: channel mode with the broker alone and beside other listeners")
{
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
    std::string chan = std::to_string(sv[0]);
    std::vector<std::string> broker = {"--broker-port",  "3129",   "--broker-secrets", "0",
                                       "--broker-allow", "a.test", "--capability",     "a=a.test:443"};
    auto with = [&](std::vector<std::string> more) {
        std::vector<std::string> a = {"--channel", chan};
        a.insert(a.end(), broker.begin(), broker.end());
        a.insert(a.end(), more.begin(), more.end());
        return a;
    };
    auto alone = tproxy::parse_args(with({}));
    REQUIRE(std::holds_alternative<tproxy::Config>(alone));
    const auto &c = std::get<tproxy::Config>(alone);
    CHECK(c.broker.port == 3129);
    CHECK_FALSE(c.http_proxy());
    CHECK(c.needs_lookups());
    CHECK(std::holds_alternative<tproxy::Config>(
        tproxy::parse_args(with({"--proxy-port", "3128", "--allow", "b.test", "--relay", "5432"}))));
    CHECK(error_of(with({"--proxy-port", "3129", "--allow", "b.test"})).find("port 3129 appears twice") == 0);
    CHECK(error_of(with({"--relay", "3129"})).find("port 3129 appears twice") == 0);
    CHECK(error_of(with({"--expose", "0:3129"})).find("port 3129 appears twice") == 0);
    CHECK(error_of(with({"--broker-port", "3130"})) == "--broker-port given twice");
    CHECK(error_of(with({"--allow", "b.test"})) == "--allow needs --proxy-port: there is no HTTP proxy to apply it to");
    close(sv[0]);
    close(sv[1]);
}
