// Unit tests for the [network] keys of the TOML front-end and for compiler/domains: domain
// patterns (syntax, normalisation, the public-suffix rule), ports, host pins, and the Public
// Suffix List's plain, wildcard, exception and IDN rules.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "domains.h"
#include "frontend_toml.h"
#include "parsed_policy.h"

using namespace tartaros;

namespace {

constexpr const char *kPolicyPath = "/w/proj/policy.toml";

// `body` is the content of the [network] table.
Parsed parse_network(const std::string &body)
{
    Parsed parsed;
    parsed.policy = parse_toml_policy_text("version = 1\n[network]\n" + body, kPolicyPath, parsed.diags);
    return parsed;
}

// The one diagnostic of a [network] table that must fail with exactly one error.
std::string only_error(const std::string &body)
{
    Parsed parsed = parse_network(body);
    CHECK_FALSE(parsed.policy);
    CHECK(parsed.diags.all().size() == 1);
    return summary(parsed.diags);
}

// The rule id of the one error `allow_domains = [raw]` gets (TOML basic-string escapes apply).
std::string domain_rule(const std::string &raw)
{
    Parsed parsed = parse_network("allow_domains = [\"" + raw + "\"]\n");
    CHECK_FALSE(parsed.policy);
    REQUIRE(parsed.diags.all().size() == 1);
    return parsed.diags.all().front().rule_id;
}

std::vector<std::string> values(const std::vector<Located<std::string>> &list)
{
    std::vector<std::string> out;
    for (const auto &item : list)
        out.push_back(item.value);
    return out;
}

std::vector<uint16_t> values(const std::vector<Located<uint16_t>> &list)
{
    std::vector<uint16_t> out;
    for (const auto &item : list)
        out.push_back(item.value);
    return out;
}

void check_at(const SourcePos &pos, uint32_t line, uint32_t col)
{
    CHECK(pos.file == kPolicyPath);
    CHECK(pos.line == line);
    CHECK(pos.col == col);
}

void require_system_list()
{
    INFO("the publicsuffix package (scripts/install-deps) provides " << kPublicSuffixListPath);
    REQUIRE_FALSE(PublicSuffixList::system().empty());
}

}  // namespace

TEST_CASE("network: domains are normalised and keep their positions")
{
    const Parsed parsed =
        parse_network("allow_domains = [\"GitHub.COM.\", \"*.Example.com\", \"192.0.2.7\", \"2001:DB8::0:1\"]\n"
                      "deny_domains = [\"Gist.GitHub.com\"]\n");
    REQUIRE(parsed.policy);
    CHECK(parsed.diags.all().empty());
    const NetworkPolicy &net = parsed.policy->network;
    CHECK(values(net.allow_domains) ==
          std::vector<std::string>{"github.com", "*.example.com", "192.0.2.7", "2001:db8::1"});
    CHECK(values(net.deny_domains) == std::vector<std::string>{"gist.github.com"});
    check_at(net.allow_domains[0].pos, 3, 18);
    check_at(net.allow_domains[1].pos, 3, 33);
    check_at(net.deny_domains[0].pos, 4, 17);
}

TEST_CASE("network: a URL or host with a port is refused")
{
    CHECK(only_error("allow_domains = [\"https://github.com\"]\n") ==
          "3:18: error: 'allow_domains': 'https://github.com' is a URL: write the host name alone, 'github.com' "
          "[domain-syntax]\n");
    CHECK(only_error("allow_domains = [\"github.com:443\"]\n") ==
          "3:18: error: 'allow_domains': 'github.com:443' has a port (the ports the proxy connects to are set by "
          "'domain_ports'): write the host name alone, 'github.com' [domain-syntax]\n");
    CHECK(only_error("deny_domains = [\"github.com/x\"]\n") ==
          "3:17: error: 'deny_domains': 'github.com/x' has a path: write the host name alone, 'github.com' "
          "[domain-syntax]\n");
    CHECK(only_error("allow_domains = [\"git@github.com\"]\n") ==
          "3:18: error: 'allow_domains': 'git@github.com' has a user name: write the host name alone, 'github.com' "
          "[domain-syntax]\n");
    CHECK(only_error("allow_domains = [\"[::1]\"]\n") ==
          "3:18: error: 'allow_domains': '[::1]' has brackets: write the host name alone, '::1' [domain-syntax]\n");
    CHECK(domain_rule("1.2.3.4:80") == "domain-syntax");
    CHECK(domain_rule("ftp://x y") == "domain-syntax");
}

TEST_CASE("network: a wildcard anywhere but a leading star-dot is refused")
{
    CHECK(only_error("allow_domains = [\"a.*.com\"]\n") ==
          "3:18: error: 'allow_domains': 'a.*.com': '*' is only allowed as a leading '*.', as in '*.example.com' "
          "[domain-syntax]\n");
    for (const char *raw : {"*example.com", "*.*.example.com", "example.*", "**.example.com"}) {
        CAPTURE(raw);
        CHECK(domain_rule(raw) == "domain-syntax");
    }
    CHECK(only_error("deny_domains = [\"*\"]\n") ==
          "3:17: error: 'deny_domains': '*' would allow every host: list the domains themselves [domain-too-broad]\n");
}

TEST_CASE("network: empty and malformed domains are refused")
{
    CHECK(only_error("allow_domains = [\"\"]\n") ==
          "3:18: error: 'allow_domains': an empty string is not a domain [domain-syntax]\n");
    CHECK(only_error("allow_domains = [\"exa mple.com\"]\n") ==
          "3:18: error: 'allow_domains': 'exa mple.com' is not a valid host name or IP literal [domain-syntax]\n");
    // "127.1" and "*.1.2.3.4" are the proxy's refusals: a numeric last label is an IPv4 literal or nothing.
    for (const char *raw : {"-a.com", "a..com", "127.1", "010.0.0.1", "*.1.2.3.4", "*.", ".com", "fe80::1%eth0"}) {
        CAPTURE(raw);
        CHECK(domain_rule(raw) == "domain-syntax");
    }
}

TEST_CASE("network: a wildcard over a single label is refused")
{
    CHECK(only_error("allow_domains = [\"*.com\"]\n") ==
          "3:18: error: 'allow_domains': '*.com' is too broad: it matches every name in the top-level domain 'com' "
          "[domain-too-broad]\n");
    CHECK(domain_rule("*.Internal.") == "domain-too-broad");
}

TEST_CASE("network: a wildcard over a public suffix is refused")
{
    require_system_list();
    CHECK(only_error("allow_domains = [\"*.co.uk\"]\n") ==
          "3:18: error: 'allow_domains': '*.co.uk' is too broad: it matches every name anyone registers under the "
          "public suffix 'co.uk' [domain-too-broad]\n");
    CHECK(only_error("deny_domains = [\"*.github.io\"]\n") ==
          "3:17: error: 'deny_domains': '*.github.io' is too broad: it matches every name anyone registers under the "
          "public suffix 'github.io' [domain-too-broad]\n");
    // A wildcard rule ("*.ck") makes every name one label under it a public suffix.
    CHECK(domain_rule("*.anything.ck") == "domain-too-broad");
}

TEST_CASE("network: a wildcard above public suffixes is refused")
{
    require_system_list();
    CHECK(only_error("allow_domains = [\"*.amazonaws.com\"]\n")
              .find("'*.amazonaws.com' is too broad: it also matches every name anyone registers under the public "
                    "suffix") != std::string::npos);
    // "*.kawasaki.jp": every name directly under kawasaki.jp is a public suffix.
    CHECK(domain_rule("*.kawasaki.jp") == "domain-too-broad");
}

TEST_CASE("network: wildcards over registrable names are accepted")
{
    require_system_list();
    const Parsed parsed = parse_network(
        "allow_domains = [\"*.githubusercontent.com\", \"*.example.com\", \"*.example.co.uk\", \"*.www.ck\"]\n");
    REQUIRE(parsed.policy);
    CHECK(parsed.diags.all().empty());
    CHECK(values(parsed.policy->network.allow_domains) ==
          std::vector<std::string>{"*.githubusercontent.com", "*.example.com", "*.example.co.uk", "*.www.ck"});
}

TEST_CASE("network: exact names that are public suffixes are accepted")
{
    require_system_list();
    const Parsed parsed = parse_network("allow_domains = [\"github.io\", \"co.uk\", \"localhost\"]\n");
    REQUIRE(parsed.policy);
    CHECK(values(parsed.policy->network.allow_domains) == std::vector<std::string>{"github.io", "co.uk", "localhost"});
}

TEST_CASE("network: a duplicate domain is a warning and the later copy is dropped")
{
    const Parsed parsed = parse_network("allow_domains = [\"github.com\", \"GitHub.com.\", \"*.example.com\"]\n");
    REQUIRE(parsed.policy);
    CHECK(summary(parsed.diags) ==
          "3:32: warning: 'GitHub.com.' is already listed in 'allow_domains' at line 3 (as 'github.com'); this copy "
          "is ignored [duplicate]\n");
    CHECK(values(parsed.policy->network.allow_domains) == std::vector<std::string>{"github.com", "*.example.com"});
}

TEST_CASE("network: a name in both allow and deny lists is not diagnosed")
{
    const Parsed parsed = parse_network(
        "allow_domains = [\"*.example.com\", \"github.com\"]\ndeny_domains = [\"github.com\", \"unrelated.org\"]\n");
    REQUIRE(parsed.policy);
    CHECK(parsed.diags.all().empty());
    CHECK(values(parsed.policy->network.deny_domains) == std::vector<std::string>{"github.com", "unrelated.org"});
}

TEST_CASE("network: domain lists must be arrays of strings")
{
    CHECK(only_error("allow_domains = \"github.com\"\n") ==
          "3:17: error: 'allow_domains' must be an array of strings, not a string [wrong-type]\n");
    CHECK(only_error("deny_domains = [\"a.com\", 7]\n") ==
          "3:26: error: 'deny_domains' must be an array of strings; element 2 is an integer [wrong-type]\n");
}

TEST_CASE("public suffix list: plain wildcard and exception rules")
{
    const PublicSuffixList list = PublicSuffixList::parse(
        "// comment line\n\nuk\nco.uk\n*.ck\n!www.ck\nwww.ck.example\n*.city.jp   trailing words\r\n");
    CHECK_FALSE(list.empty());
    CHECK(list.is_public_suffix("co.uk"));
    CHECK_FALSE(list.is_public_suffix("example.co.uk"));
    CHECK(list.is_public_suffix("anything.ck"));
    CHECK_FALSE(list.is_public_suffix("www.ck"));
    CHECK_FALSE(list.is_public_suffix("a.www.ck"));
    CHECK_FALSE(list.is_public_suffix("a.anything.ck"));
    CHECK(list.is_public_suffix("x.city.jp"));
    CHECK_FALSE(list.is_public_suffix("city.jp"));
    CHECK(list.is_public_suffix("unlisted"));  // the implicit "*" rule
    CHECK(PublicSuffixList::parse("// co.uk\n  \n").empty());
    CHECK(list.suffix_below("ck") == "*.ck");
    CHECK(list.suffix_below("city.jp") == "*.city.jp");
    CHECK(list.suffix_below("example") == "www.ck.example");
    CHECK(list.suffix_below("ck.example") == "www.ck.example");
    CHECK(list.suffix_below("co.uk").empty());
}

TEST_CASE("public suffix list: the first rule in the list's order is the one below, and copies answer alike")
{
    std::optional<PublicSuffixList> original =
        PublicSuffixList::parse("b.example\n*.example\n!a.b.example\nb.ü\nB.Caps\n");
    const PublicSuffixList copy = *original;
    original.reset();  // the copy keeps the text its rules are read from
    CHECK(copy.suffix_below("example") == "b.example");
    CHECK(copy.suffix_below("xn--tda") == "b.xn--tda");  // kept aside in ASCII form
    CHECK(copy.suffix_below("caps") == "b.caps");
    CHECK(copy.is_public_suffix("c.example"));
    CHECK_FALSE(copy.is_public_suffix("a.b.example"));
    CHECK(copy.is_public_suffix("b.xn--tda"));
}

TEST_CASE("public suffix list: an ASCII rule is taken lower-cased, a malformed one skipped")
{
    const PublicSuffixList list = PublicSuffixList::parse("Co.UK\n.lead.example\ntrail.example.\na..b\n*.\n!.x\n");
    CHECK(list.is_public_suffix("co.uk"));
    CHECK(list.suffix_below("uk") == "co.uk");
    for (const char *name : {"example", "lead.example", "trail.example", "a", "b"}) {
        CAPTURE(name);
        CHECK(list.suffix_below(name).empty());  // the malformed rules added nothing
    }
    CHECK_FALSE(list.is_public_suffix("x.lead.example"));
}

TEST_CASE("public suffix list: IDN rules are matched in their ASCII form")
{
    CHECK(idn_label_to_ascii("bücher") == "xn--bcher-kva");
    CHECK(idn_label_to_ascii("münchen") == "xn--mnchen-3ya");
    CHECK(idn_label_to_ascii("中国") == "xn--fiqs8s");
    CHECK(idn_label_to_ascii("公司") == "xn--55qx5d");
    CHECK(idn_label_to_ascii("plain-ascii") == "plain-ascii");
    CHECK_FALSE(idn_label_to_ascii("\xff\xfe"));
    const PublicSuffixList list = PublicSuffixList::parse("cn\n公司.cn\n*.中国\n");
    CHECK(list.is_public_suffix("xn--55qx5d.cn"));
    CHECK(list.is_public_suffix("a.xn--fiqs8s"));
    DomainError err;
    CHECK_FALSE(check_domain_pattern("*.xn--55qx5d.cn", list, err));
    CHECK(err.rule_id == "domain-too-broad");
}

TEST_CASE("public suffix list: without the file only the single-label rule applies")
{
    const PublicSuffixList list = PublicSuffixList::load("/nonexistent/public_suffix_list.dat");
    CHECK(list.empty());
    DomainError err;
    CHECK(check_domain_pattern("*.co.uk", list, err) == "*.co.uk");
    CHECK_FALSE(check_domain_pattern("*.com", list, err));
    CHECK(err.rule_id == "domain-too-broad");
}

TEST_CASE("network: ports are read with their positions")
{
    const Parsed parsed = parse_network(
        "local_ports = [5432, 6379]\nexpose_ports = [3000]\ndomain_ports = [443, 8443]\nproxy_port = 8888\n");
    REQUIRE(parsed.policy);
    CHECK(parsed.diags.all().empty());
    const NetworkPolicy &net = parsed.policy->network;
    CHECK(values(net.local_ports) == std::vector<uint16_t>{5432, 6379});
    CHECK(values(net.expose_ports) == std::vector<uint16_t>{3000});
    CHECK(values(net.domain_ports) == std::vector<uint16_t>{443, 8443});
    CHECK(net.proxy_port.value == 8888);
    check_at(net.local_ports[1].pos, 3, 22);
    check_at(net.expose_ports[0].pos, 4, 17);
    check_at(net.proxy_port.pos, 6, 14);
}

TEST_CASE("network: defaults when the keys are absent or empty")
{
    Parsed parsed = parse_network("domain_ports = []\n");
    REQUIRE(parsed.policy);
    CHECK(parsed.policy->network.domain_ports.empty());
    CHECK(parsed.policy->network.proxy_port.value == 3128);
    CHECK(parsed.policy->network.proxy_port.pos.line == 0);
    parsed = parse_network("");
    REQUIRE(parsed.policy);
    const NetworkPolicy &net = parsed.policy->network;
    CHECK(net.domain_ports.empty());
    CHECK(net.allow_domains.empty());
    CHECK(net.local_ports.empty());
    CHECK(net.hosts.empty());
}

TEST_CASE("network: out-of-range and non-integer ports are refused")
{
    CHECK(only_error("local_ports = [0]\n") ==
          "3:16: error: 'local_ports': 0 is not a port number (1 to 65535) [invalid-port]\n");
    CHECK(only_error("expose_ports = [70000]\n") ==
          "3:17: error: 'expose_ports': 70000 is not a port number (1 to 65535) [invalid-port]\n");
    CHECK(only_error("domain_ports = [443, \"80\"]\n") ==
          "3:22: error: 'domain_ports' must be an array of port numbers; element 2 is a string [wrong-type]\n");
    CHECK(only_error("local_ports = 5432\n") ==
          "3:15: error: 'local_ports' must be an array of port numbers, not an integer [wrong-type]\n");
    CHECK(only_error("proxy_port = 65536\n") ==
          "3:14: error: 'proxy_port': 65536 is not a port number (1 to 65535) [invalid-port]\n");
    CHECK(only_error("proxy_port = \"3128\"\n") ==
          "3:14: error: 'proxy_port' must be an integer port number (1 to 65535), not a string [wrong-type]\n");
    CHECK(only_error("domain_ports = [-443]\n") ==
          "3:17: error: 'domain_ports': -443 is not a port number (1 to 65535) [invalid-port]\n");
}

TEST_CASE("network: a duplicate port is a warning and the later copy is dropped")
{
    const Parsed parsed = parse_network("local_ports = [5432,\n  5432]\n");
    REQUIRE(parsed.policy);
    CHECK(summary(parsed.diags) ==
          "4:3: warning: port 5432 is already listed in 'local_ports' at line 3; this copy is ignored [duplicate]\n");
    CHECK(values(parsed.policy->network.local_ports) == std::vector<uint16_t>{5432});
}

TEST_CASE("network: a port both local and exposed is refused")
{
    CHECK(only_error("local_ports = [5432, 8080]\nexpose_ports = [8080]\n") ==
          "4:17: error: port 8080 is in both 'expose_ports' and 'local_ports' (line 3): a port is relayed either out "
          "of the sandbox or into it, not both [port-conflict]\n");
    CHECK(only_error("expose_ports = [8080]\nlocal_ports = [8080]\n") ==
          "4:16: error: port 8080 is in both 'local_ports' and 'expose_ports' (line 3): a port is relayed either out "
          "of the sandbox or into it, not both [port-conflict]\n");
}

TEST_CASE("network: a port equal to proxy_port is refused")
{
    CHECK(only_error("local_ports = [3128]\n") ==
          "3:16: error: port 3128 in 'local_ports' is the proxy's own port inside the sandbox (the default "
          "'proxy_port') [port-conflict]\n");
    CHECK(only_error("expose_ports = [9000]\nproxy_port = 9000\n") ==
          "3:17: error: port 9000 in 'expose_ports' is the proxy's own port inside the sandbox ('proxy_port' at "
          "line 4) [port-conflict]\n");
    const Parsed moved = parse_network("local_ports = [3128]\nproxy_port = 3129\ndomain_ports = [3129]\n");
    REQUIRE(moved.policy);
    CHECK(moved.diags.all().empty());
}

TEST_CASE("network: hosts are normalised and their addresses canonicalised")
{
    const Parsed parsed = parse_network("hosts = { \"DB.Internal.\" = \"10.0.0.5\", \"v6.internal\" = \"::0:1\" }\n");
    REQUIRE(parsed.policy);
    CHECK(parsed.diags.all().empty());
    const auto &hosts = parsed.policy->network.hosts;
    REQUIRE(hosts.size() == 2);
    CHECK(hosts[0].first.value == "db.internal");
    CHECK(hosts[0].second.value == "10.0.0.5");
    CHECK(hosts[1].first.value == "v6.internal");
    CHECK(hosts[1].second.value == "::1");
    check_at(hosts[0].first.pos, 3, 11);
    check_at(hosts[0].second.pos, 3, 28);
}

TEST_CASE("network: a hosts entry with a bad address is refused")
{
    CHECK(only_error("hosts = { \"db.internal\" = \"10.0.0.256\" }\n") ==
          "3:27: error: 'hosts': the address of 'db.internal', '10.0.0.256', is not an IPv4 or IPv6 address (IPv6 is "
          "written without brackets) [host-address]\n");
    for (const char *address : {"[::1]", "db.example.com", "", "10.0.0.5:80", "010.0.0.1"}) {
        CAPTURE(address);
        const Parsed parsed = parse_network("hosts = { \"db.internal\" = \"" + std::string(address) + "\" }\n");
        CHECK_FALSE(parsed.policy);
        REQUIRE(parsed.diags.all().size() == 1);
        CHECK(parsed.diags.all().front().rule_id == "host-address");
    }
    CHECK(only_error("hosts = { \"db.internal\" = 5 }\n") ==
          "3:27: error: 'db.internal' must be a string (an IPv4 or IPv6 address), not an integer [wrong-type]\n");
}

TEST_CASE("network: a hosts name that is an IP literal or invalid is refused")
{
    CHECK(only_error("hosts = { \"10.0.0.5\" = \"10.0.0.6\" }\n") ==
          "3:11: error: 'hosts': '10.0.0.5' is an IP literal: only a host name can be given an address "
          "[domain-syntax]\n");
    CHECK(only_error("hosts = { \"::1\" = \"::2\" }\n") ==
          "3:11: error: 'hosts': '::1' is an IP literal: only a host name can be given an address [domain-syntax]\n");
    CHECK(only_error("hosts = { \"*.internal\" = \"10.0.0.6\" }\n") ==
          "3:11: error: 'hosts': '*.internal' is not a valid host name [domain-syntax]\n");
    CHECK(only_error("hosts = [\"db=10.0.0.5\"]\n") ==
          "3:9: error: 'hosts' must be a table of host names to addresses, like { \"db.internal\" = \"10.0.0.5\" }, "
          "not an array [wrong-type]\n");
}

TEST_CASE("network: a host pinned twice is a warning and the later copy is dropped")
{
    const Parsed parsed = parse_network("hosts = { \"db.internal\" = \"10.0.0.5\", \"DB.internal\" = \"10.0.0.6\" }\n");
    REQUIRE(parsed.policy);
    CHECK(summary(parsed.diags) ==
          "3:39: warning: 'DB.internal' is already given an address in 'hosts' at line 3 (as 'db.internal'); this "
          "copy is ignored [duplicate]\n");
    REQUIRE(parsed.policy->network.hosts.size() == 1);
    CHECK(parsed.policy->network.hosts[0].second.value == "10.0.0.5");
}
