// tartaros-proxy's command line: what it accepts, its defaults, every refusal.
#include <doctest/doctest.h>

#include <string>
#include <variant>
#include <vector>

#include "config.h"

namespace {

std::string error_of(std::vector<std::string> args)
{
    auto r = tproxy::parse_args(args);
    auto *e = std::get_if<std::string>(&r);
    return e ? *e : "";
}

}  // namespace

TEST_CASE("config: a full command line")
{
    auto r = tproxy::parse_args({"--listen",
                                 "127.0.0.1:3128",
                                 "--listen",
                                 "[::1]:3129",
                                 "--allow",
                                 "Allowed.Test",
                                 "--allow",
                                 "*.example.com",
                                 "--deny",
                                 "bad.example.com",
                                 "--host",
                                 "allowed.test=127.0.0.1",
                                 "--ports",
                                 "443,80,8080",
                                 "--max-header-bytes",
                                 "4096",
                                 "--idle-timeout-ms",
                                 "500",
                                 "--header-timeout-ms",
                                 "700",
                                 "--log",
                                 "2",
                                 "--strict"});
    REQUIRE(std::holds_alternative<tproxy::Config>(r));
    const auto &c = std::get<tproxy::Config>(r);
    CHECK(c.listen_addrs.size() == 2);
    CHECK(c.policy.allow == std::vector<std::string>{"allowed.test", "*.example.com"});
    CHECK(c.policy.deny == std::vector<std::string>{"bad.example.com"});
    CHECK(c.policy.pins.size() == 1);
    CHECK(c.policy.ports == std::vector<unsigned>{443, 80, 8080});
    CHECK(c.max_header_bytes == 4096);
    CHECK(c.idle_timeout_ms == 500);
    CHECK(c.header_timeout_ms == 700);
    CHECK(c.log_fd == 2);
    CHECK(c.strict);
}

TEST_CASE("config: defaults")
{
    auto r = tproxy::parse_args({"--listen-fd", "0", "--allow", "a.test"});
    REQUIRE(std::holds_alternative<tproxy::Config>(r));
    const auto &c = std::get<tproxy::Config>(r);
    CHECK(c.policy.ports == std::vector<unsigned>{443, 80});
    CHECK(c.listen_fds == std::vector<int>{0});
    CHECK(c.log_fd == -1);
    CHECK_FALSE(c.strict);
}

TEST_CASE("config: refusals")
{
    const std::vector<std::string> base = {"--listen", "127.0.0.1:1"};
    auto with = [&](std::vector<std::string> more) {
        std::vector<std::string> a = base;
        a.insert(a.end(), more.begin(), more.end());
        return error_of(a);
    };
    CHECK(with({"--allow", "*"}).find("--allow '*'") == 0);
    CHECK(with({"--allow", "a..b"}) != "");
    CHECK(with({"--allow", "a.test", "--deny", "*"}) != "");
    CHECK(with({"--allow", "a.test", "--host", "a.test"}) != "");
    CHECK(with({"--allow", "a.test", "--host", "a.test=999.0.0.1"}) != "");
    CHECK(with({"--allow", "a.test", "--host", "a.test=1.1.1.1", "--host", "A.test.=::1"}).find("pinned twice") !=
          std::string::npos);
    CHECK(with({"--allow", "a.test", "--ports", "0"}) != "");
    CHECK(with({"--allow", "a.test", "--ports", "443,"}) != "");
    CHECK(with({"--allow", "a.test", "--ports", "70000"}) != "");
    CHECK(with({"--allow", "a.test", "--max-header-bytes", "10"}) != "");
    CHECK(with({"--allow", "a.test", "--idle-timeout-ms", "0"}) != "");
    CHECK(with({"--allow", "a.test", "--idle-timeout-ms", "12x"}) != "");
    CHECK(with({"--allow", "a.test", "--log", "987654"}) != "");
    CHECK(with({"--allow", "a.test", "--bogus"}) == "unknown argument '--bogus'");
    CHECK(with({"--allow"}) == "--allow needs a value");
    CHECK(with({}).find("no --allow") == 0);
    CHECK(error_of({"--allow", "a.test"}).find("no listener") == 0);
    CHECK(error_of({"--listen", "localhost:80", "--allow", "a.test"}) != "");
    CHECK(error_of({"--listen", "127.0.0.1", "--allow", "a.test"}) != "");
    CHECK(error_of({"--listen-fd", "987654", "--allow", "a.test"}) != "");
}
