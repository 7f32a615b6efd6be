// tartaros-proxy's network events in the effect log (proxy/effect_log.h): the line of each
// kind of decision, and the --effect-log and --run-id options.
#include <doctest/doctest.h>

#include <string>
#include <variant>
#include <vector>

#include "config.h"
#include "effect_log.h"
#include "json_checker.h"

namespace {

const tproxy::EffectLog kLog(-1, "0123456789abcdef");

std::string line_of(const tproxy::Decision &d)
{
    std::string s = kLog.format(d, 1735689599, 5000);
    REQUIRE(s.back() == '\n');
    s.pop_back();
    CHECK_MESSAGE(tartaros::test::JsonChecker(s).document(), s);
    return s;
}

const std::string kHead =
    "{\"time\":\"2024-12-31T23:59:59.000005Z\",\"run\":\"0123456789abcdef\",\"by\":\"proxy\",\"event\":\"network\",";

std::string error_of(std::vector<std::string> args)
{
    auto r = tproxy::parse_args(args);
    auto *e = std::get_if<std::string>(&r);
    return e ? *e : "";
}

}  // namespace

TEST_CASE("effect log: an allowed request names the host the port and the address")
{
    CHECK(line_of({true, "CONNECT", "allowed.test:443", "127.0.0.1", "pin", 0, "", ""}) ==
          kHead +
              "\"decision\":\"allow\",\"route\":\"http\",\"method\":\"CONNECT\",\"host\":\"allowed.test\","
              "\"port\":443,\"address\":\"127.0.0.1\",\"via\":\"pin\"}");
    CHECK(line_of({true, "GET", "[::1]:8080", "::1", "literal", 0, "", ""}) ==
          kHead +
              "\"decision\":\"allow\",\"route\":\"http\",\"method\":\"GET\",\"host\":\"::1\",\"port\":8080,"
              "\"address\":\"::1\",\"via\":\"literal\"}");
}

TEST_CASE("effect log: a refusal names the status the reason and the detail")
{
    CHECK(line_of({false, "GET", "other.test:80", "", "", 403, "blocked-by-allowlist",
                   "other.test is not in allow_domains; add it to allow_domains to allow it"}) ==
          kHead +
              "\"decision\":\"deny\",\"route\":\"http\",\"method\":\"GET\",\"host\":\"other.test\",\"port\":80,"
              "\"status\":403,\"reason\":\"blocked-by-allowlist\",\"detail\":\"other.test is not in "
              "allow_domains; add it to allow_domains to allow it\"}");
    CHECK(line_of({false, "-", "-", "", "", 400, "bad-request", "a \"quoted\"\x01 head"}) ==
          kHead +
              "\"decision\":\"deny\",\"route\":\"http\",\"host\":null,\"port\":null,\"status\":400,"
              "\"reason\":\"bad-request\",\"detail\":\"a \\\"quoted\\\"\\u0001 head\"}");
}

TEST_CASE("effect log: relays and exposed ports are their own routes and 502 to 504 are failures")
{
    CHECK(line_of({true, "RELAY", "127.0.0.1:5432", "127.0.0.1", "relay", 0, "", ""}) ==
          kHead +
              "\"decision\":\"allow\",\"route\":\"relay\",\"host\":\"127.0.0.1\",\"port\":5432,"
              "\"address\":\"127.0.0.1\",\"via\":\"relay\"}");
    CHECK(line_of({false, "EXPOSE", "-", "", "", 502, "protocol-error", "x"}) ==
          kHead +
              "\"decision\":\"fail\",\"route\":\"expose\",\"host\":null,\"port\":null,\"status\":502,"
              "\"reason\":\"protocol-error\",\"detail\":\"x\"}");
}

TEST_CASE("config: --effect-log and --run-id")
{
    auto r = tproxy::parse_args(
        {"--listen", "127.0.0.1:3128", "--allow", "a.test", "--effect-log", "2", "--run-id", "00ff00ff00ff00ff"});
    REQUIRE(std::holds_alternative<tproxy::Config>(r));
    CHECK(std::get<tproxy::Config>(r).effect_log_fd == 2);
    CHECK(std::get<tproxy::Config>(r).run_id == "00ff00ff00ff00ff");
    CHECK(error_of({"--listen", "127.0.0.1:3128", "--allow", "a.test", "--effect-log", "2"}) ==
          "--effect-log and --run-id go together");
    CHECK(error_of(
              {"--listen", "127.0.0.1:3128", "--allow", "a.test", "--effect-log", "2", "--run-id", "00FF00FF00FF00FF"})
              .find("--run-id") != std::string::npos);
    CHECK(error_of({"--listen", "127.0.0.1:3128", "--allow", "a.test", "--effect-log", "2", "--run-id",
                    "00ff00ff00ff00ff", "--run-id", "00ff00ff00ff00ff"}) == "--run-id given twice");
}

TEST_CASE("effect log: a broker exchange names the capability the path and the bytes")
{
    tproxy::BrokerEvent e{"allow", "gh", "GET", "api.github.com", 443, "/repos/a", 200, 12, 3456, true, "", ""};
    std::string s = kLog.format(e, 1735689599, 5000);
    REQUIRE(s.back() == '\n');
    s.pop_back();
    CHECK_MESSAGE(tartaros::test::JsonChecker(s).document(), s);
    const std::string head =
        "{\"time\":\"2024-12-31T23:59:59.000005Z\",\"run\":\"0123456789abcdef\",\"by\":\"proxy\",\"event\":\"broker\",";
    CHECK(s ==
          head +
              "\"decision\":\"allow\",\"capability\":\"gh\",\"method\":\"GET\",\"host\":\"api.github.com\","
              "\"port\":443,\"path\":\"/repos/a\",\"status\":200,\"bytes_up\":12,\"bytes_down\":3456,"
              "\"complete\":true}");
    e.complete = false;
    e.reason = "upstream-failed";
    e.detail = "the upstream ended the response early";
    CHECK(kLog.format(e, 1735689599, 5000)
              .find("\"complete\":false,\"reason\":\"upstream-failed\",\"detail\":"
                    "\"the upstream ended the response early\"}") != std::string::npos);
}

TEST_CASE("effect log: a broker refusal before the capability is known has nulls")
{
    tproxy::BrokerEvent e{"deny", "", "", "", 0, "", 401, 0, 0, true, "missing-token", "no X-Broker-Auth header"};
    std::string s = kLog.format(e, 1735689599, 5000);
    s.pop_back();
    CHECK_MESSAGE(tartaros::test::JsonChecker(s).document(), s);
    CHECK(s.find("\"decision\":\"deny\",\"capability\":null,\"method\":null,\"host\":null,\"port\":null,"
                 "\"path\":null,\"status\":401,\"bytes_up\":0,\"bytes_down\":0,\"reason\":\"missing-token\","
                 "\"detail\":\"no X-Broker-Auth header\"}") != std::string::npos);
}
