// Unit tests for the [broker] table of the TOML front-end (compiler/frontend_broker): every
// field with its position and default, each error with its exact message, position and rule
// id, the checks against [network], [env] and [filesystem], and the secrets that must never
// be printed back; plus compiler/domains' check_upstream_host.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "domains.h"
#include "frontend_toml.h"
#include "parsed_policy.h"

using namespace tartaros;

namespace {

constexpr const char *kPolicyPath = "/w/proj/policy.toml";

// A broker every test starts from: one capability, all required keys.
const std::string kCapability = "[[broker.capability]]\n"
                                "name = \"github\"\n"
                                "host = \"api.github.com\"\n"
                                "value_env = \"GITHUB_TOKEN\"\n";

Parsed parse(const std::string &text, const std::string &path = kPolicyPath)
{
    Parsed parsed;
    parsed.policy = parse_toml_policy_text("version = 1\n" + text, path, parsed.diags);
    return parsed;
}

// `broker` is the body of the [broker] table; `rest` follows it (capabilities, other tables).
Parsed parse_broker(const std::string &broker, const std::string &rest = kCapability)
{
    return parse("[broker]\n" + broker + rest);
}

// The diagnostics of a policy that must fail, one per line.
std::string errors(const Parsed &parsed)
{
    CHECK_FALSE(parsed.policy);
    return summary(parsed.diags);
}

std::string only_error(const Parsed &parsed)
{
    CHECK(parsed.diags.all().size() == 1);
    return errors(parsed);
}

void check_at(const SourcePos &pos, uint32_t line, uint32_t col)
{
    CHECK(pos.file == kPolicyPath);
    CHECK(pos.line == line);
    CHECK(pos.col == col);
}

std::vector<std::string> values(const std::vector<Located<std::string>> &list)
{
    std::vector<std::string> out;
    for (const auto &item : list)
        out.push_back(item.value);
    return out;
}

std::string printed(const Diagnostics &diags)
{
    std::ostringstream out;
    diags.print(out);
    return out.str();
}

}  // namespace

TEST_CASE("broker: every field is parsed with its position")
{
    const Parsed parsed = parse("[broker]\n"                                                // 2
                                "port = 4000\n"                                             // 3
                                "auth_header = \"X-Agent-Key\"\n"                           // 4
                                "token_env = \"TARTAROS_BROKER_TOKEN\"\n"                   // 5
                                "allowed_hosts = [\"API.GitHub.com.\", \"*.npmjs.org\"]\n"  // 6
                                "allow_internal = true\n"                                   // 7
                                "[[broker.capability]]\n"                                   // 8
                                "name = \"github\"\n"                                       // 9
                                "host = \"API.github.com:8443\"\n"                          // 10
                                "header = \"X-Token\"\n"                                    // 11
                                "value_env = \"GITHUB_TOKEN\"\n"                            // 12
                                "value_format = \"token {value}\"\n"                        // 13
                                "methods = [\"GET\", \"POST\"]\n"                           // 14
                                "path_prefixes = [\"/repos/myorg/\", \"/user\"]\n"          // 15
                                "[[broker.capability]]\n"                                   // 16
                                "name = \"npm\"\n"                                          // 17
                                "host = \"registry.npmjs.org\"\n"                           // 18
                                "value_env = \"NPM_TOKEN\"\n");                             // 19
    REQUIRE(parsed.policy);
    CHECK(parsed.diags.all().empty());
    REQUIRE(parsed.policy->broker);
    const BrokerPolicy &b = *parsed.policy->broker;
    check_at(b.pos, 2, 1);
    CHECK(b.port.value == 4000);
    check_at(b.port.pos, 3, 8);
    CHECK(b.auth_header.value == "X-Agent-Key");
    REQUIRE(b.token_env);
    CHECK(b.token_env->value == "TARTAROS_BROKER_TOKEN");
    check_at(b.token_env->pos, 5, 13);
    CHECK(values(b.allowed_hosts) == std::vector<std::string>{"api.github.com", "*.npmjs.org"});
    check_at(b.allowed_hosts[1].pos, 6, 37);
    CHECK(b.allow_internal.value);
    CHECK_FALSE(b.ca_file);
    REQUIRE(b.capabilities.size() == 2);
    const BrokerCapability &gh = b.capabilities[0];
    check_at(gh.pos, 8, 1);
    CHECK(gh.name.value == "github");
    CHECK(gh.host.value == "api.github.com");
    CHECK(gh.port.value == 8443);
    check_at(gh.port.pos, 10, 8);
    CHECK(gh.header.value == "X-Token");
    CHECK(gh.value_env.value == "GITHUB_TOKEN");
    CHECK(gh.value_format.value == "token {value}");
    CHECK(values(gh.methods) == std::vector<std::string>{"GET", "POST"});
    CHECK(values(gh.path_prefixes) == std::vector<std::string>{"/repos/myorg/", "/user"});
    check_at(gh.path_prefixes[1].pos, 15, 35);
    const BrokerCapability &npm = b.capabilities[1];
    CHECK(npm.port.value == 443);
    CHECK(npm.port.pos.line == 0);
    CHECK(npm.header.value == "Authorization");
    CHECK(npm.value_format.value == "{value}");
    CHECK(npm.methods.empty());
    CHECK(npm.path_prefixes.empty());
}

TEST_CASE("broker: defaults and the policy without a broker")
{
    const Parsed none = parse("[network]\nallow_domains = [\"github.com\"]\n");
    REQUIRE(none.policy);
    CHECK_FALSE(none.policy->broker);

    const Parsed parsed = parse_broker("allowed_hosts = [\"api.github.com\"]\n");
    REQUIRE(parsed.policy);
    CHECK(parsed.diags.all().empty());
    const BrokerPolicy &b = *parsed.policy->broker;
    CHECK(b.port.value == kDefaultBrokerPort);
    CHECK(b.port.pos.line == 0);
    CHECK(b.auth_header.value == "X-Broker-Auth");
    CHECK_FALSE(b.token_env);
    CHECK_FALSE(b.allow_internal.value);
    CHECK_FALSE(b.ca_file);
}

TEST_CASE("broker: capabilities as an inline array and a table made only by [[broker.capability]]")
{
    const Parsed inline_caps =
        parse_broker("capability = [{ name = \"a\", host = \"a.example.com\", value_env = \"A\" }]\n"
                     "allowed_hosts = [\"a.example.com\"]\n",
                     "");
    REQUIRE(inline_caps.policy);
    CHECK(inline_caps.policy->broker->capabilities.size() == 1);

    // Without a [broker] header the table has no position: its first key stands for it.
    const Parsed implicit = parse(kCapability);
    check_at(implicit.policy ? implicit.policy->broker->pos : implicit.diags.all().front().pos, 2, 1);
    CHECK(only_error(implicit) ==
          "2:1: error: [broker] needs 'allowed_hosts': the hosts the broker may connect to, like allowed_hosts = "
          "[\"api.github.com\"] [missing-key]\n");
}

TEST_CASE("broker: the port is fixed, 1 to 65535, and 0 says why")
{
    CHECK(only_error(parse_broker("port = 0\nallowed_hosts = [\"api.github.com\"]\n")) ==
          "3:8: error: 'port' = 0: the broker's port cannot be chosen at run time, because its URL is in the agent's "
          "environment before the run starts; leave 'port' out for 3129 (the network namespace is private to the "
          "run, so no other program holds it) or write a port [invalid-port]\n");
    CHECK(only_error(parse_broker("port = 70000\nallowed_hosts = [\"api.github.com\"]\n")) ==
          "3:8: error: 'port': 70000 is not a port number (1 to 65535) [invalid-port]\n");
    CHECK(only_error(parse_broker("port = \"3129\"\nallowed_hosts = [\"api.github.com\"]\n")) ==
          "3:8: error: 'port' must be an integer port number (1 to 65535), not a string [wrong-type]\n");
}

TEST_CASE("broker: unknown keys get a did you mean and keys that would hold a secret are refused")
{
    CHECK(only_error(parse_broker("allowed_hosts = [\"api.github.com\"]\nallowed_internal = true\n")) ==
          "4:1: error: unknown key 'allowed_internal' in [broker]; did you mean 'allow_internal'? [unknown-key]\n");
    CHECK(
        only_error(parse_broker("allowed_hosts = [\"api.github.com\"]\n", kCapability + "value_fmt = \"{value}\"\n")) ==
        "8:1: error: unknown key 'value_fmt' in [[broker.capability]]; did you mean 'value_env'? [unknown-key]\n");

    const Parsed token = parse_broker("allowed_hosts = [\"api.github.com\"]\n"
                                      "token = \"ghp_0000EXAMPLE0000EXAMPLE0000EXAMPLE0000\"\n");
    CHECK(only_error(token) ==
          "4:1: error: 'token' would write the broker's token in the policy, where everyone who can read the file has "
          "it: name the launcher's variable that holds it with token_env, or leave both out for a random token per "
          "run [secret-in-policy]\n");
    CHECK(printed(token.diags).find("ghp_") == std::string::npos);

    const Parsed value =
        parse_broker("allowed_hosts = [\"api.github.com\"]\n", kCapability + "value = \"s3cr3t-value-here\"\n");
    CHECK(only_error(value) ==
          "8:1: error: 'value' would write the secret in the policy, where everyone who can read the file has it: "
          "name the launcher's variable that holds it with value_env [secret-in-policy]\n");
    CHECK(printed(value.diags).find("s3cr3t") == std::string::npos);
}

TEST_CASE("broker: a secret written where its variable's name belongs is refused and not printed")
{
    const Parsed parsed = parse_broker("allowed_hosts = [\"api.github.com\"]\n"
                                       "token_env = \"ghp_0000EXAMPLE0000EXAMPLE0000EXAMPLE0000\"\n");
    CHECK(only_error(parsed) ==
          "4:14: error: 'token_env' names the launcher's variable that holds the secret, but this looks like a GitHub "
          "token itself: anyone who can read this file or its history has it; revoke it, and write the variable's "
          "name, like \"GITHUB_TOKEN\" [secret-in-policy]\n");
    CHECK(printed(parsed.diags).find("ghp_") == std::string::npos);
    // Ordinary variable names are not secrets.
    const Parsed names = parse_broker("allowed_hosts = [\"api.github.com\"]\ntoken_env = \"TARTAROS_BROKER_TOKEN\"\n",
                                      "[[broker.capability]]\nname = \"n\"\nhost = \"api.github.com\"\n"
                                      "value_env = \"NPM_CONFIG__AUTH_TOKEN_2\"\n");
    CHECK(names.policy);
}

TEST_CASE("broker: required keys and the number of capabilities")
{
    CHECK(errors(parse("[broker]\nallowed_hosts = []\n")) ==
          "3:17: error: 'allowed_hosts' is empty: list the hosts the broker may connect to, like "
          "[\"api.github.com\"] [missing-key]\n"
          "2:1: error: [broker] has no capability: add a [[broker.capability]] table for each credential, with "
          "name, host and value_env [capability-count]\n");
    CHECK(only_error(parse_broker("allowed_hosts = [\"api.github.com\"]\ncapability = []\n", "")) ==
          "4:14: error: 'capability' is empty: add a [[broker.capability]] table for each credential, with name, "
          "host and value_env [capability-count]\n");
    CHECK(errors(parse_broker("allowed_hosts = [\"api.github.com\"]\n", "[[broker.capability]]\nheader = \"X-A\"\n")) ==
          "4:1: error: [[broker.capability]] needs 'name': the first segment of the broker's path for it, like name "
          "= \"github\" [missing-key]\n"
          "4:1: error: [[broker.capability]] needs 'host': the upstream it forwards to, like host = "
          "\"api.github.com\" [missing-key]\n"
          "4:1: error: [[broker.capability]] needs 'value_env': the launcher's variable that holds the credential, "
          "like value_env = \"GITHUB_TOKEN\" [missing-key]\n");
    CHECK(only_error(parse_broker("allowed_hosts = [\"api.github.com\"]\n[broker.capability]\nname = \"x\"\n", "")) ==
          "4:1: error: 'capability' must be an array of tables: write each capability as its own "
          "[[broker.capability]] table, not a table [wrong-type]\n");
    std::string many;
    for (int i = 0; i <= 64; i++)
        many += "[[broker.capability]]\nname = \"c" + std::to_string(i) +
            "\"\nhost = \"api.github.com\"\nvalue_env = \"V\"\n";
    CHECK(only_error(parse_broker("allowed_hosts = [\"api.github.com\"]\n", many)) ==
          "260:1: error: more than 64 capabilities: the broker serves at most that many; split the policy "
          "[capability-count]\n");
}

TEST_CASE("broker: capability names are path segments and unique")
{
    const std::string hosts = "allowed_hosts = [\"api.github.com\"]\n";
    for (const char *bad : {"git hub", "", ".", "..", "a/b", "é"}) {
        CAPTURE(bad);
        const Parsed parsed = parse_broker(hosts,
                                           "[[broker.capability]]\nname = \"" + std::string(bad) +
                                               "\"\nhost = \"api.github.com\"\nvalue_env = \"V\"\n");
        REQUIRE(parsed.diags.all().size() == 1);
        CHECK(parsed.diags.all()[0].rule_id == "capability-name");
    }
    CHECK(only_error(parse_broker(hosts,
                                  "[[broker.capability]]\nname = \"" + std::string(65, 'a') +
                                      "\"\nhost = \"api.github.com\"\nvalue_env = \"V\"\n"))
              .find("[capability-name]") != std::string::npos);
    CHECK(parse_broker(hosts,
                       "[[broker.capability]]\nname = \"My_api-2.v1\"\nhost = \"api.github.com\"\n"
                       "value_env = \"V\"\n")
              .policy);
    CHECK(only_error(parse_broker(hosts, kCapability + kCapability)) ==
          "9:8: error: capability 'github' is already defined at line 5: each name is one path of the broker; "
          "rename one [capability-duplicate]\n");
}

TEST_CASE("broker: capability hosts are hosts with an optional port, matched by allowed_hosts")
{
    auto cap_host = [](const std::string &host,
                       const std::string &allowed = "\"*.example.com\", \"2001:db8::1\", \"192.0.2.7\"") {
        return parse_broker("allowed_hosts = [" + allowed + "]\n",
                            "[[broker.capability]]\nname = \"c\"\nhost = \"" + host + "\"\nvalue_env = \"V\"\n");
    };
    const Parsed v6 = cap_host("[2001:DB8::0:1]:8443");
    REQUIRE(v6.policy);
    CHECK(v6.policy->broker->capabilities[0].host.value == "2001:db8::1");
    CHECK(v6.policy->broker->capabilities[0].port.value == 8443);
    REQUIRE(cap_host("2001:db8::1").policy);
    CHECK(cap_host("2001:db8::1").policy->broker->capabilities[0].port.value == 443);
    CHECK(cap_host("192.0.2.7:444").policy->broker->capabilities[0].port.value == 444);
    CHECK(cap_host("Git.Example.com.").policy->broker->capabilities[0].host.value == "git.example.com");

    CHECK(only_error(cap_host("https://git.example.com/api")) ==
          "6:8: error: 'host': 'https://git.example.com/api' is a URL, not a host: write the host alone (the path of "
          "a request is the agent's), like 'api.github.com' or 'git.example.com:8443' [capability-host]\n");
    CHECK(only_error(cap_host("*.example.com")) ==
          "6:8: error: 'host': '*.example.com': a capability names one host, not a pattern, like 'api.github.com' "
          "or 'git.example.com:8443' [capability-host]\n");
    CHECK(only_error(cap_host("git.example.com:0")) ==
          "6:8: error: 'host': 'git.example.com:0': '0' is not a port number (1 to 65535) [invalid-port]\n");
    CHECK(only_error(cap_host("git.example.com:")) ==
          "6:8: error: 'host': 'git.example.com:': '' is not a port number (1 to 65535) [invalid-port]\n");
    CHECK(only_error(cap_host("[git.example.com]:443")) ==
          "6:8: error: 'host': '[git.example.com]:443': brackets hold an IPv6 address, as in '[2001:db8::1]:8443' "
          "[capability-host]\n");
    CHECK(only_error(cap_host("bad_host!")) ==
          "6:8: error: 'host': 'bad_host!' is not a valid host name or IP address [capability-host]\n");
    CHECK(only_error(cap_host("example.com")) ==
          "6:8: error: 'host': 'example.com' is not matched by [broker] allowed_hosts (line 3): add it there, or "
          "correct the host [capability-host-not-allowed]\n");
    CHECK(only_error(cap_host("192.0.2.8")).find("[capability-host-not-allowed]") != std::string::npos);
}

TEST_CASE("broker: allowed_hosts are checked like allow_domains")
{
    CHECK(errors(parse_broker("allowed_hosts = [\"api.github.com:443\", \"*.com\", \"api.github.com\"]\n")) ==
          "3:18: error: 'allowed_hosts': 'api.github.com:443' has a port (a capability's port is written in its own "
          "host, as 'git.example.com:8443'): write the host name alone, 'api.github.com' [domain-syntax]\n"
          "3:40: error: 'allowed_hosts': '*.com' is too broad: it matches every name in the top-level domain 'com' "
          "[domain-too-broad]\n");
    const Parsed dup = parse_broker("allowed_hosts = [\"api.github.com\", \"API.github.com\"]\n");
    REQUIRE(dup.policy);
    CHECK(summary(dup.diags) ==
          "3:36: warning: 'API.github.com' is already listed in 'allowed_hosts' at line 3; this copy is ignored "
          "[duplicate]\n");
    CHECK(only_error(parse_broker("allowed_hosts = \"api.github.com\"\n")) ==
          "3:17: error: 'allowed_hosts' must be an array of host names, like [\"api.github.com\"], not a string "
          "[wrong-type]\n");
}

TEST_CASE("broker: header names are HTTP field names the broker does not control")
{
    const std::string hosts = "allowed_hosts = [\"api.github.com\"]\n";
    CHECK(only_error(parse_broker(hosts + "auth_header = \"X Auth\"\n")) ==
          "4:15: error: 'auth_header': 'X Auth' is not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~, at "
          "most 64, no ':' or spaces), like \"Authorization\" [header-name]\n");
    for (const char *reserved : {"Host", "content-length", "Transfer-Encoding", "Connection", "Upgrade", "TE",
                                 "Trailer", "Keep-Alive", "Expect", "Proxy-Authorization", "proxy-x"}) {
        CAPTURE(reserved);
        const Parsed parsed = parse_broker(hosts, kCapability + "header = \"" + reserved + "\"\n");
        REQUIRE(parsed.diags.all().size() == 1);
        CHECK(parsed.diags.all()[0].rule_id == "header-reserved");
    }
    CHECK(only_error(parse_broker(hosts + "auth_header = \"Proxy-Authorization\"\n")).find("[header-reserved]") !=
          std::string::npos);
    CHECK(only_error(parse_broker(hosts, kCapability + "header = \"" + std::string(65, 'x') + "\"\n"))
              .find("[header-name]") != std::string::npos);
    CHECK(only_error(parse_broker(hosts, kCapability + "header = \"x-broker-auth\"\n")) ==
          "8:10: error: 'header': 'x-broker-auth' is the header that carries the broker's token (the default "
          "'auth_header'), which the broker strips from every request: pick another auth_header [header-conflict]\n");
    CHECK(only_error(parse_broker(hosts + "auth_header = \"Authorization\"\n")) ==
          "4:15: error: 'auth_header': 'Authorization' is the header capability 'github' injects its credential "
          "into (the default 'header'), and the broker strips the token's header from every request: pick another "
          "auth_header [header-conflict]\n");
}

TEST_CASE("broker: value_format, methods and path prefixes")
{
    const std::string hosts = "allowed_hosts = [\"api.github.com\"]\n";
    auto with = [&](const std::string &line) { return parse_broker(hosts, kCapability + line + "\n"); };
    CHECK(only_error(with("value_format = \"Bearer\"")) ==
          "8:16: error: 'value_format': 'Bearer': it has no {value}: write {value} exactly once, where the secret "
          "goes, like \"Bearer {value}\" [value-format]\n");
    CHECK(only_error(with("value_format = \"{value}{value}\"")).find("it has {value} more than once") !=
          std::string::npos);
    CHECK(only_error(with("value_format = \"Bearer\\t{value}\"")).find("printable ASCII") != std::string::npos);
    CHECK(only_error(with("value_format = \"" + std::string(1020, 'x') + "{value}\"")).find("longer than 1024") !=
          std::string::npos);

    CHECK(only_error(with("methods = [\"get\"]")) ==
          "8:12: error: 'methods': 'get': methods are matched as sent, in upper case: write 'GET' [http-method]\n");
    CHECK(only_error(with("methods = [\"GET /x\"]")) ==
          "8:12: error: 'methods': 'GET /x': a method is one word of letters, at most 32, like GET or POST "
          "[http-method]\n");
    const Parsed dup = with("methods = [\"GET\", \"GET\"]");
    REQUIRE(dup.policy);
    CHECK(summary(dup.diags) ==
          "8:19: warning: 'GET' is already listed in 'methods' at line 8; this copy is ignored "
          "[duplicate]\n");
    CHECK(only_error(with("methods = \"GET\"")) ==
          "8:11: error: 'methods' must be an array of strings, not a string [wrong-type]\n");

    CHECK(only_error(with("path_prefixes = [\"repos\"]")) ==
          "8:18: error: 'path_prefixes': 'repos': a prefix is a path, starting with '/', like '/repos/myorg/' "
          "[path-prefix]\n");
    for (const char *bad : {"/a/../b", "/a/./b", "/a?x=1", "/a#f", "/a%2Fb", "/a%5cb", "/a b", "/caf\xc3\xa9"}) {
        CAPTURE(bad);
        const Parsed parsed = with("path_prefixes = [\"" + std::string(bad) + "\"]");
        REQUIRE(parsed.diags.all().size() == 1);
        CHECK(parsed.diags.all()[0].rule_id == "path-prefix");
    }
    REQUIRE(with("path_prefixes = [\"/\", \"/repos/my%20org/\", \"/a..b/\"]").policy);
}

TEST_CASE("broker: token_env and value_env are variable names")
{
    CHECK(only_error(parse_broker("allowed_hosts = [\"api.github.com\"]\ntoken_env = \"1TOKEN\"\n")) ==
          "4:13: error: 'token_env': '1TOKEN' is not a valid environment variable name (letters, digits and '_', not "
          "starting with a digit, at most 255): it names the launcher's variable that holds the secret, like "
          "\"GITHUB_TOKEN\" [env-name]\n");
    CHECK(only_error(
              parse_broker("allowed_hosts = [\"api.github.com\"]\n",
                           "[[broker.capability]]\nname = \"c\"\nhost = \"api.github.com\"\nvalue_env = \"A-B\"\n"))
              .find("[env-name]") != std::string::npos);
    CHECK(only_error(parse_broker("allowed_hosts = [\"api.github.com\"]\ntoken_env = \"GITHUB_TOKEN\"\n")) ==
          "8:13: error: 'value_env': 'GITHUB_TOKEN' is also 'token_env' (line 4): the agent holds the token, so it "
          "would hold this secret too; give the token its own variable [broker-env-exposed]\n");
}

TEST_CASE("broker: a secret's variable that [env] hands to the agent is an error")
{
    const std::string broker =
        "[broker]\nallowed_hosts = [\"api.github.com\"]\ntoken_env = \"BROKER_TOKEN\"\n" + kCapability;
    CHECK(only_error(parse("[env]\npassthrough = [\"PATH\", \"GITHUB_TOKEN\"]\n" + broker)) ==
          "10:13: error: 'value_env': 'GITHUB_TOKEN' is also in [env] passthrough (line 3): the agent would get the "
          "secret in its environment; remove it from passthrough (the broker reads it from the launcher's "
          "environment itself) [broker-env-exposed]\n");
    CHECK(only_error(parse("[env]\nset = { BROKER_TOKEN = \"x\" }\n" + broker)) ==
          "6:13: error: 'token_env': 'BROKER_TOKEN' is also set by [env] set (line 3): the agent would see that "
          "value, and the secret belongs in the launcher's environment; remove it from set [broker-env-exposed]\n");
    // The default passthrough list counts too.
    CHECK(only_error(parse("[broker]\nallowed_hosts = [\"api.github.com\"]\ntoken_env = \"HOME\"\n" + kCapability)) ==
          "4:13: error: 'token_env': 'HOME' is also in [env] passthrough (its default list): the agent would get the "
          "secret in its environment; remove it from passthrough (the broker reads it from the launcher's "
          "environment itself) [broker-env-exposed]\n");
}

TEST_CASE("broker: [env] may not name the broker's own variables and inherit is only a note")
{
    const std::string broker = "[broker]\nallowed_hosts = [\"api.github.com\"]\n" + kCapability;
    CHECK(errors(parse("[env]\npassthrough = [\"CREDENTIALS_DIRECTORY\"]\nset = { TARTAROS_BROKER_URL = \"x\" }\n" +
                       broker)) ==
          "3:16: error: [env] passthrough names 'CREDENTIALS_DIRECTORY', which the broker sets for the agent (the "
          "broker's URL and the directory of its token file): remove it [broker-env-reserved]\n"
          "4:9: error: [env] set names 'TARTAROS_BROKER_URL', which the broker sets for the agent (the broker's URL "
          "and the directory of its token file): remove it [broker-env-reserved]\n");
    // Without a broker the names are the policy's to use.
    CHECK(parse("[env]\nset = { CREDENTIALS_DIRECTORY = \"/x\" }\n").policy);
    const Parsed inherit = parse("[env]\ninherit = true\n" + broker);
    REQUIRE(inherit.policy);
    CHECK(summary(inherit.diags) ==
          "3:11: note: inherit = true: the broker's variables (token_env and every value_env) are removed from the "
          "agent's environment all the same [broker-env-stripped]\n");
}

TEST_CASE("broker: its port differs from the proxy's and the relayed ports")
{
    const std::string caps = "allowed_hosts = [\"api.github.com\"]\n" + kCapability;
    CHECK(only_error(parse("[network]\nlocal_ports = [3129]\n[broker]\n" + caps)) ==
          "3:16: error: port 3129 in 'local_ports' is the broker's own port inside the sandbox (the default "
          "[broker] 'port') [port-conflict]\n");
    CHECK(only_error(parse("[network]\nexpose_ports = [4000]\n[broker]\nport = 4000\n" + caps)) ==
          "3:17: error: port 4000 in 'expose_ports' is the broker's own port inside the sandbox ([broker] 'port' at "
          "line 5) [port-conflict]\n");
    CHECK(only_error(parse("[broker]\nport = 3128\n" + caps)) ==
          "3:8: error: port 3128 is both the broker's port ([broker] 'port' at line 3) and the proxy's (the default "
          "'proxy_port'): each listens on its own port inside the sandbox [port-conflict]\n");
    CHECK(only_error(parse("[network]\nproxy_port = 3129\n[broker]\n" + caps)) ==
          "3:14: error: port 3129 is both the broker's port (the default [broker] 'port') and the proxy's "
          "('proxy_port' at line 3): each listens on its own port inside the sandbox [port-conflict]\n");
}

TEST_CASE("broker: the broker is one of the 64 listeners the sandbox hands over")
{
    auto ports = [](int n) {
        std::string list;
        for (int i = 0; i < n; i++)
            list += (i ? ", " : "") + std::to_string(10000 + i);
        return "[network]\nlocal_ports = [" + list + "]\n";
    };
    const std::string broker = "[broker]\nallowed_hosts = [\"api.github.com\"]\n" + kCapability;
    CHECK(parse(ports(63) + broker).policy);
    CHECK(only_error(parse(ports(64) + broker)) ==
          "3:457: error: 'local_ports': at most 63 ports besides the broker: the sandbox hands the proxy at most 64 "
          "listeners; this policy lists 64 [listener-count]\n");
    CHECK(parse(ports(64)).policy);
    CHECK(only_error(parse(ports(65))).find("'local_ports': at most 64 ports: ") != std::string::npos);
}

TEST_CASE("broker: no filesystem rule may reach into the credentials directory")
{
    const std::string broker = "[broker]\nallowed_hosts = [\"api.github.com\"]\n" + kCapability;
    CHECK(only_error(parse("[filesystem]\nread_denies = [\"/run/credentials/tartaros/x\"]\n" + broker)) ==
          "3:16: error: read_denies: '/run/credentials/tartaros/x' lies in the broker's credentials directory "
          "/run/credentials/tartaros, which the sandbox makes for the token alone (read-only); remove it "
          "[credentials-dir]\n");
    CHECK(only_error(parse("[filesystem]\nwritable_roots = [\"/run/credentials/tartaros\"]\n" + broker))
              .find("[credentials-dir]") != std::string::npos);
    CHECK(parse("[filesystem]\nread_denies = [\"/run/credentials/tartaros/x\"]\n").policy);
}

TEST_CASE("broker: ca_file is resolved against the policy's directory and must be a regular file")
{
    const std::filesystem::path dir = std::filesystem::path(TARTAROS_BINARY_DIR) / "broker-ca-test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "certs");
    std::ofstream(dir / "certs" / "ca.pem") << "-----BEGIN CERTIFICATE-----\n";
    const std::string policy = (dir / "policy.toml").string();
    auto with = [&](const std::string &ca) {
        return parse("[broker]\nallowed_hosts = [\"api.github.com\"]\nca_file = \"" + ca + "\"\n" + kCapability,
                     policy);
    };
    const Parsed good = with("certs/ca.pem");
    REQUIRE(good.policy);
    REQUIRE(good.policy->broker->ca_file);
    CHECK(good.policy->broker->ca_file->value == (dir / "certs" / "ca.pem").string());
    const Parsed none = with("");
    REQUIRE(none.policy);
    CHECK_FALSE(none.policy->broker->ca_file);
    CHECK(summary(with("certs/missing.pem").diags) ==
          "4:11: error: 'ca_file': 'certs/missing.pem' (" + (dir / "certs" / "missing.pem").string() +
              ") cannot be used: No such file or directory; a relative path is relative to the policy's directory "
              "[ca-file]\n");
    CHECK(summary(with("certs").diags) ==
          "4:11: error: 'ca_file': 'certs' (" + (dir / "certs").string() +
              ") is not a regular file: it must be one PEM file of CA certificates (a bundle) [ca-file]\n");
    CHECK(summary(with("certs/*.pem").diags).find("[glob]") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("domains: check_upstream_host splits the port and normalises the host")
{
    DomainError err;
    const std::optional<UpstreamHost> plain = check_upstream_host("API.GitHub.com", err);
    REQUIRE(plain);
    CHECK(plain->host == "api.github.com");
    CHECK_FALSE(plain->port);
    const std::optional<UpstreamHost> bracketed = check_upstream_host("[::1]", err);
    REQUIRE(bracketed);
    CHECK(bracketed->host == "::1");
    CHECK_FALSE(bracketed->port);
    CHECK_FALSE(check_upstream_host("[::1]x", err));
    CHECK(err.rule_id == "capability-host");
    CHECK_FALSE(check_upstream_host("a.example.com:123456", err));
    CHECK(err.rule_id == "invalid-port");
    CHECK_FALSE(check_upstream_host("user@a.example.com", err));
    CHECK(err.rule_id == "capability-host");
    CHECK_FALSE(check_upstream_host("127.1", err));
    CHECK(err.rule_id == "capability-host");
}
