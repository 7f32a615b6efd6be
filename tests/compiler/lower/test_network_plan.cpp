// Tests of the network sections: lowering ([network] → TP_SEC_NETWORK, NET_PORTS, NET_NAMES
// and the proxy's environment), the compiler's check of them (verify_net), their reading
// (ir/plan_reader refuses every inconsistent or unsafe record) and --explain.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "explain.h"
#include "fake_host.h"
#include "lower_net.h"
#include "plan_reader.h"
#include "plan_writer.h"
#include "verify.h"
#include "verify_net.h"

using namespace tartaros;

namespace {

SourcePos at(uint32_t line)
{
    return SourcePos{"/w/policy.toml", line, 1};
}

Policy network_policy()
{
    Policy p;
    p.source_path = "/w/policy.toml";
    p.network.allow_domains = {{"github.com", at(3)}, {"*.githubusercontent.com", at(3)}};
    p.network.deny_domains = {{"gist.github.com", at(4)}};
    p.network.hosts = {{{"allowed.test", at(5)}, {"127.0.0.1", at(5)}}};
    p.network.local_ports = {{5432, at(6)}, {6379, at(6)}};
    p.network.expose_ports = {{8080, at(7)}};
    return p;
}

// Plan bytes, 8-aligned for the reader.
struct Compiled {
    std::vector<uint64_t> words;
    size_t size = 0;
    tp_plan plan{};
    Diagnostics diags;

    void open(const std::vector<uint8_t> &bytes)
    {
        size = bytes.size();
        words.assign(size / 8 + 1, 0);
        std::memcpy(words.data(), bytes.data(), size);
        char err[256];
        REQUIRE(tp_plan_open(reinterpret_cast<const uint8_t *>(words.data()), static_cast<uint32_t>(size), &plan, err,
                             sizeof err) == 0);
    }
};

void compile(Compiled &out, const Policy &policy)
{
    FakeHost host;
    LowerOptions options;
    options.host = &host;
    std::vector<uint8_t> bytes = lower_policy(policy, options, out.diags);
    REQUIRE_MESSAGE(!bytes.empty(), (out.diags.all().empty() ? "" : out.diags.all().back().message));
    out.open(bytes);
}

std::vector<std::pair<uint16_t, uint16_t>> ports(const tp_plan &p)
{
    std::vector<std::pair<uint16_t, uint16_t>> out;
    for (uint32_t i = 0; i < p.net_port_count; i++)
        out.emplace_back(p.net_ports[i].kind, p.net_ports[i].port);
    return out;
}

std::vector<std::string> names(const tp_plan &p)
{
    std::vector<std::string> out;
    for (uint32_t i = 0; i < p.net_name_count; i++)
        out.push_back(std::to_string(p.net_names[i].kind) + ":" + tp_plan_str(&p, p.net_names[i].name) + "=" +
                      tp_plan_str(&p, p.net_names[i].address));
    return out;
}

// A hand-made plan with every network record, for the reader's refusals.
std::vector<uint8_t> network_plan()
{
    ir::PlanWriter w;
    w.set_namespaces({TP_NS_USER | TP_NS_MOUNT | TP_NS_NET, TP_NS_USER, w.str(""), {1, 1, 0}}, true);
    w.set_network({TP_NET_PROXY | TP_NET_PORTS | TP_NET_EXPOSE, 3128, 0, {3, 1, 0}});
    w.add_net_port({5432, TP_PORT_LOCAL, 0, {6, 1, 0}});
    w.add_net_port({8080, TP_PORT_EXPOSE, 0, {7, 1, 0}});
    w.add_net_port({443, TP_PORT_DESTINATION, 0, {0, 0, 0}});
    w.add_net_name({TP_NAME_ALLOW, 0, w.str("*.example.com"), w.str(""), {3, 1, 0}});
    w.add_net_name({TP_NAME_DENY, 0, w.str("bad.example.com"), w.str(""), {4, 1, 0}});
    w.add_net_name({TP_NAME_PIN, 0, w.str("allowed.test"), w.str("::1"), {5, 1, 0}});
    return w.finish();
}

std::string open_error(std::vector<uint8_t> bytes)
{
    uint64_t sum = tp_checksum(bytes.data(), static_cast<uint32_t>(bytes.size()), offsetof(tp_header, checksum));
    std::memcpy(bytes.data() + offsetof(tp_header, checksum), &sum, sizeof sum);
    std::vector<uint64_t> words(bytes.size() / 8 + 1);
    std::memcpy(words.data(), bytes.data(), bytes.size());
    tp_plan plan;
    char err[256] = "";
    if (tp_plan_open(reinterpret_cast<const uint8_t *>(words.data()), static_cast<uint32_t>(bytes.size()), &plan, err,
                     sizeof err) == 0)
        return "";
    return err;
}

// The reader's refusal of a proxy plan that allows "a.test" and then names `name` as `kind`
// (with `address` for a pin), or "" when it accepts it.
std::string name_error(uint32_t kind, const char *name, const char *address = "")
{
    ir::PlanWriter w;
    w.set_namespaces({TP_NS_USER | TP_NS_MOUNT | TP_NS_NET, TP_NS_USER, w.str(""), {1, 1, 0}}, true);
    w.set_network({TP_NET_PROXY, 3128, 0, {3, 1, 0}});
    w.add_net_name({TP_NAME_ALLOW, 0, w.str("a.test"), w.str(""), {3, 1, 0}});
    w.add_net_name({kind, 0, w.str(name), w.str(address), {3, 1, 0}});
    return open_error(w.finish());
}

size_t section_data(const std::vector<uint8_t> &bytes, uint32_t type)
{
    tp_header h;
    std::memcpy(&h, bytes.data(), sizeof h);
    for (uint32_t i = 0; i < h.section_count; i++) {
        tp_section s;
        std::memcpy(&s, bytes.data() + sizeof h + i * sizeof s, sizeof s);
        if (s.type == type)
            return s.offset;
    }
    FAIL("no section " << type);
    return 0;
}

template <class T>
void put(std::vector<uint8_t> &bytes, size_t off, T v)
{
    std::memcpy(bytes.data() + off, &v, sizeof v);
}

}  // namespace

TEST_CASE("network: a policy that grants nothing writes no network section and no proxy variable")
{
    Compiled c;
    compile(c, Policy{});
    CHECK(c.plan.network == nullptr);
    CHECK(c.plan.net_port_count == 0);
    CHECK(c.plan.net_name_count == 0);
    CHECK((c.plan.ns->flags & TP_NS_NET) != 0);
    for (uint32_t i = 0; i < c.plan.env_count; i++)
        CHECK(std::string(tp_plan_str(&c.plan, c.plan.env[i].name)).find("PROXY") == std::string::npos);
}

TEST_CASE("network: the modes combine and every list is carried in policy order")
{
    Compiled c;
    compile(c, network_policy());
    REQUIRE(c.plan.network != nullptr);
    CHECK(c.plan.network->modes == (TP_NET_PROXY | TP_NET_PORTS | TP_NET_EXPOSE));
    CHECK(c.plan.network->proxy_port == 3128);
    CHECK(c.plan.network->origin.line == 3);
    CHECK(ports(c.plan) ==
          std::vector<std::pair<uint16_t, uint16_t>>{{TP_PORT_LOCAL, 5432},
                                                     {TP_PORT_LOCAL, 6379},
                                                     {TP_PORT_EXPOSE, 8080},
                                                     {TP_PORT_DESTINATION, 443},
                                                     {TP_PORT_DESTINATION, 80}});
    CHECK(names(c.plan) ==
          std::vector<std::string>{
              "1:github.com=", "1:*.githubusercontent.com=", "2:gist.github.com=", "3:allowed.test=127.0.0.1"});
    CHECK((c.plan.ns->flags & TP_NS_NET) != 0);
}

TEST_CASE("network: the proxy variables come first so the policy's own set has the last word")
{
    Policy p = network_policy();
    p.network.proxy_port = {8888, at(8)};
    p.env.set = {{{"NO_PROXY", at(9)}, {"localhost,.internal", at(9)}}};
    Compiled c;
    compile(c, p);
    std::vector<std::string> set;
    for (uint32_t i = 0; i < c.plan.env_count; i++)
        if (c.plan.env[i].op == TP_ENV_SET)
            set.push_back(std::string(tp_plan_str(&c.plan, c.plan.env[i].name)) + "=" +
                          tp_plan_str(&c.plan, c.plan.env[i].value));
    REQUIRE(set.size() == 8);
    CHECK(set[0] == "http_proxy=http://127.0.0.1:8888");
    CHECK(set[3] == "HTTPS_PROXY=http://127.0.0.1:8888");
    CHECK(set[4] == "ALL_PROXY=http://127.0.0.1:8888");
    CHECK(set[5] == "NO_PROXY=localhost,127.0.0.1,::1");
    CHECK(set[7] == "NO_PROXY=localhost,.internal");
}

TEST_CASE("network: ports only start no proxy and set no proxy variable")
{
    Policy p;
    p.network.local_ports = {{5432, at(6)}};
    Compiled c;
    compile(c, p);
    REQUIRE(c.plan.network != nullptr);
    CHECK(c.plan.network->modes == TP_NET_PORTS);
    CHECK(c.plan.network->proxy_port == 0);
    CHECK(c.plan.net_name_count == 0);
    CHECK(ports(c.plan) == std::vector<std::pair<uint16_t, uint16_t>>{{TP_PORT_LOCAL, 5432}});
    CHECK(proxy_environment(p.network).empty());
}

TEST_CASE("network: proxy keys without allow_domains warn that they do nothing")
{
    Policy p;
    p.network.deny_domains = {{"x.example.com", at(4)}};
    p.network.hosts = {{{"a.test", at(5)}, {"127.0.0.1", at(5)}}};
    Compiled c;
    compile(c, p);
    CHECK(c.plan.network == nullptr);
    size_t warnings = 0;
    for (const Diagnostic &d : c.diags.all())
        warnings += d.severity == Severity::Warning && d.rule_id == "proxy-key-unused";
    CHECK(warnings == 2);
}

TEST_CASE("network: the same policy gives the same bytes")
{
    FakeHost host;
    LowerOptions options;
    options.host = &host;
    Diagnostics d1, d2;
    CHECK(lower_policy(network_policy(), options, d1) == lower_policy(network_policy(), options, d2));
}

TEST_CASE("network: verify_net catches a plan that differs from the policy")
{
    Compiled c;
    compile(c, network_policy());
    CHECK(verify_network(c.plan, network_policy()) == std::nullopt);
    Policy other = network_policy();
    other.network.local_ports.pop_back();
    CHECK(verify_network(c.plan, other).value_or("").find("local ports") != std::string::npos);
    other = network_policy();
    other.network.allow_domains.pop_back();
    CHECK(verify_network(c.plan, other).value_or("").find("allowed names") != std::string::npos);
    other = network_policy();
    other.network.hosts.clear();
    CHECK(verify_network(c.plan, other).value_or("").find("pins") != std::string::npos);
    other = network_policy();
    other.network.domain_ports = {{443, at(9)}};
    CHECK(verify_network(c.plan, other).value_or("").find("destination ports") != std::string::npos);
    other = network_policy();
    other.network.proxy_port = {3129, at(9)};
    CHECK(verify_network(c.plan, other).value_or("").find("proxy port") != std::string::npos);
    other = network_policy();
    other.network.allow_domains.clear();
    CHECK(verify_network(c.plan, other).value_or("").find("modes") != std::string::npos);
}

TEST_CASE("network: the reader accepts a consistent plan and refuses each inconsistency")
{
    const std::vector<uint8_t> good = network_plan();
    REQUIRE(open_error(good).empty());
    const size_t net = section_data(good, TP_SEC_NETWORK);
    const size_t port = section_data(good, TP_SEC_NET_PORTS);
    const size_t name = section_data(good, TP_SEC_NET_NAMES);
    struct Damage {
        size_t off;
        uint32_t value;
        const char *reason;
    };
    const Damage u32_damage[] = {
        {net + offsetof(tp_network, modes), 0, "modes 0x0"},
        {net + offsetof(tp_network, modes), 16, "modes 0x10"},
        {net + offsetof(tp_network, modes), TP_NET_PORTS | TP_NET_EXPOSE, "a proxy port goes with"},
        {net + offsetof(tp_network, modes), TP_NET_PROXY | TP_NET_EXPOSE, "do not match the ports"},
        {port + offsetof(tp_net_port, reserved), 1, "reserved bits"},
        {name + offsetof(tp_net_name, kind), 5, "unknown kind 5"},
        {name + offsetof(tp_net_name, reserved), 1, "reserved bits"},
    };
    for (const Damage &d : u32_damage) {
        CAPTURE(std::string(d.reason));
        std::vector<uint8_t> bad = good;
        put<uint32_t>(bad, d.off, d.value);
        CHECK(open_error(bad).find(d.reason) != std::string::npos);
    }
    const Damage u16_damage[] = {
        {net + offsetof(tp_network, proxy_port), 0, "a proxy port goes with"},
        {net + offsetof(tp_network, reserved), 1, "reserved field"},
        {port + offsetof(tp_net_port, port), 0, "port 0"},
        {port + offsetof(tp_net_port, port), 3128, "port 3128 is the proxy's"},
        {port + sizeof(tp_net_port) + offsetof(tp_net_port, port), 5432, "listed twice"},
        {port + 2 * sizeof(tp_net_port) + offsetof(tp_net_port, kind), 4, "unknown kind 4"},
    };
    for (const Damage &d : u16_damage) {
        CAPTURE(std::string(d.reason));
        std::vector<uint8_t> bad = good;
        put<uint16_t>(bad, d.off, static_cast<uint16_t>(d.value));
        CHECK(open_error(bad).find(d.reason) != std::string::npos);
    }
}

TEST_CASE("network: names that could smuggle an option or '=' into the proxy's command line are refused")
{
    for (const char *bad : {"-x", "a=b", "a b", "A.example.com", "*", "*.", "a/b", "x\ny"}) {
        CAPTURE(bad);
        CHECK(name_error(TP_NAME_ALLOW, bad).find("not a normalised host name") != std::string::npos);
    }
    CHECK(name_error(TP_NAME_PIN, "a.test", "1.2.3.4 --allow").find("IP literal") != std::string::npos);
}

// Found by fuzz_plan: the reader took any token of [a-z0-9._:-], so a plan naming "a..b" or
// "1.2.3" passed it and then stopped tartaros-proxy at start-up (names.h refuses them). The
// reader now applies the proxy's own rule (shared/host_rules.h).
TEST_CASE("network: the reader refuses every name, pin and upstream the proxy could not take")
{
    for (const char *bad : {"a..b", ".a", "a.", "-a.b", "a-.b", "1.2.3", "a.0x1f", "010.0.0.1", "256.0.0.1", "1::2::3",
                            ":::", "1:2:3:4:5:6:7:8:9", "::1.2.3.4.5", "*.1.2.3.4", "*.::1", "_._.123"}) {
        CAPTURE(bad);
        CHECK(name_error(TP_NAME_ALLOW, bad).find("not a normalised host name") != std::string::npos);
    }
    for (const char *good : {"a.b", "*.a_b.example", "1.2.3.4", "::1", "::ffff:1.2.3.4", "2001:db8::8:800:200c:417a",
                             "x-1.0a", "0.0.0.0"}) {
        CAPTURE(good);
        CHECK(name_error(TP_NAME_ALLOW, good).empty());
    }
    for (const char *address : {"1.2.3", "01.2.3.4", "::g", "a.test"}) {
        CAPTURE(address);
        CHECK(name_error(TP_NAME_PIN, "a.test", address).find("IP literal") != std::string::npos);
    }
    CHECK(name_error(TP_NAME_PIN, "1.2.3.4", "::1").find("not a normalised host name") != std::string::npos);
}

TEST_CASE("network: the reader refuses relays without the private network namespace or listeners beyond the channel")
{
    ir::PlanWriter w;
    w.set_namespaces({TP_NS_USER | TP_NS_MOUNT, TP_NS_USER, w.str(""), {1, 1, 0}}, true);
    w.set_network({TP_NET_PORTS, 0, 0, {3, 1, 0}});
    w.add_net_port({5432, TP_PORT_LOCAL, 0, {6, 1, 0}});
    CHECK(open_error(w.finish()).find("network namespace") != std::string::npos);

    ir::PlanWriter many;
    many.set_namespaces({TP_NS_USER | TP_NS_MOUNT | TP_NS_NET, TP_NS_USER, many.str(""), {1, 1, 0}}, true);
    many.set_network({TP_NET_PROXY | TP_NET_PORTS, 3128, 0, {3, 1, 0}});
    many.add_net_name({TP_NAME_ALLOW, 0, many.str("a.test"), many.str(""), {3, 1, 0}});
    for (uint16_t p = 1; p <= 64; p++)
        many.add_net_port({static_cast<uint16_t>(10000 + p), TP_PORT_LOCAL, 0, {6, 1, 0}});
    CHECK(open_error(many.finish()).find("listeners inside") != std::string::npos);

    ir::PlanWriter orphan;
    orphan.set_namespaces({TP_NS_USER | TP_NS_MOUNT | TP_NS_NET, TP_NS_USER, orphan.str(""), {1, 1, 0}}, true);
    orphan.add_net_port({5432, TP_PORT_LOCAL, 0, {6, 1, 0}});
    CHECK(open_error(orphan.finish()).find("no network section") != std::string::npos);
}

TEST_CASE("network: --explain names the modes and what each leaves open")
{
    Compiled c;
    compile(c, network_policy());
    std::vector<uint8_t> bytes(c.size);
    std::memcpy(bytes.data(), c.words.data(), c.size);
    std::ostringstream text, json;
    std::string err;
    REQUIRE(explain_plan(bytes, false, text, err));
    REQUIRE(explain_plan(bytes, true, json, err));
    CHECK(text.str().find("network: proxy, ports, expose") != std::string::npos);
    CHECK(text.str().find("allow: github.com, *.githubusercontent.com") != std::string::npos);
    CHECK(text.str().find("local ports (inside -> host 127.0.0.1): 5432, 6379") != std::string::npos);
    CHECK(text.str().find("not another address, not IPv6, not UDP") != std::string::npos);
    CHECK(text.str().find("mediation is lost (a warning, a refusal under --strict) without a mount namespace") !=
          std::string::npos);
    CHECK(json.str().find("\"step\":\"network\",\"modes\":[\"proxy\",\"ports\",\"expose\"]") != std::string::npos);
    CHECK(json.str().find("\"expose_ports\":[8080]") != std::string::npos);
}
