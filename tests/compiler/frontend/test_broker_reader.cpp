// The plan reader's checks of the credential broker's records (ir/plan_reader.cpp): a plan
// written record by record (not through the compiler, so every invariant can be broken on
// purpose) is accepted when consistent and refused, with its reason, for each inconsistency.
#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "plan_reader.h"
#include "plan_writer.h"

using tartaros::ir::PlanWriter;

namespace {

struct BrokerPlan {
    tp_namespaces ns{TP_NS_USER | TP_NS_MOUNT | TP_NS_NET, 0, {}, {}};
    tp_network network{TP_NET_BROKER, 0, 0, {}};
    std::vector<std::pair<uint32_t, std::string>> names{{TP_NAME_BROKER_HOST, "api.github.com"}};
    uint16_t port = 3129, flags = 0;
    std::string auth_header = "X-Broker-Auth", token_env = "", ca_file = "";
    struct Cap {
        std::string name = "github", host = "api.github.com", header = "Authorization", value_env = "GITHUB_TOKEN",
                    format = "Bearer {value}", methods = "GET POST", prefixes = "/repos/ /user";
        uint16_t port = 443;
    };
    std::vector<Cap> caps{Cap{}};
    bool credentials = true;
    std::string credentials_path = TP_CREDENTIALS_DIR;
    uint32_t credentials_op = TP_MNT_TMPFS;
    bool broker_section = true;
    std::vector<uint16_t> local_ports;
};

std::vector<uint8_t> write(const BrokerPlan &b)
{
    PlanWriter w;
    w.set_namespaces(b.ns, false);
    if (b.credentials) {
        tp_mount m{};
        m.op = b.credentials_op;
        m.flags = TP_MNTF_CREDENTIALS;
        m.path = w.str(b.credentials_path);
        w.add_mount(m);
    }
    tp_network n = b.network;
    if (!b.local_ports.empty())
        n.modes |= TP_NET_PORTS;
    w.set_network(n);
    for (uint16_t p : b.local_ports)
        w.add_net_port(tp_net_port{p, TP_PORT_LOCAL, 0, {}});
    for (const auto &[kind, name] : b.names) {
        tp_net_name r{};
        r.kind = kind;
        r.name = w.str(name);
        r.address = w.str("");
        w.add_net_name(r);
    }
    if (b.broker_section) {
        tp_broker br{};
        br.port = b.port;
        br.flags = b.flags;
        br.auth_header = w.str(b.auth_header);
        br.token_env = w.str(b.token_env);
        br.ca_file = w.str(b.ca_file);
        w.set_broker(br, true);
    }
    for (const BrokerPlan::Cap &c : b.caps) {
        tp_broker_cap r{};
        r.name = w.str(c.name);
        r.host = w.str(c.host);
        r.header = w.str(c.header);
        r.value_env = w.str(c.value_env);
        r.value_format = w.str(c.format);
        r.methods = w.str(c.methods);
        r.path_prefixes = w.str(c.prefixes);
        r.port = c.port;
        w.add_broker_cap(r);
    }
    return w.finish();
}

// "" when the reader accepts the plan, else its reason.
std::string open_error(const std::vector<uint8_t> &bytes)
{
    std::vector<uint64_t> words(bytes.size() / 8 + 1, 0);
    std::memcpy(words.data(), bytes.data(), bytes.size());
    tp_plan plan{};
    char err[256] = "";
    int rc = tp_plan_open(reinterpret_cast<const uint8_t *>(words.data()), static_cast<uint32_t>(bytes.size()), &plan,
                          err, sizeof err);
    return rc == 0 ? "" : err;
}

std::string refusal(const std::function<void(BrokerPlan &)> &damage)
{
    BrokerPlan b;
    damage(b);
    return open_error(write(b));
}

}  // namespace

TEST_CASE("broker reader: a consistent plan is accepted and read back")
{
    BrokerPlan b;
    b.caps.push_back({});
    b.caps.back().name = "npm";
    b.caps.back().methods = "";
    b.caps.back().prefixes = "";
    b.token_env = "TARTAROS_BROKER_TOKEN";
    b.ca_file = "/etc/corp/ca.pem";
    std::vector<uint8_t> bytes = write(b);
    REQUIRE(open_error(bytes) == "");
    std::vector<uint64_t> words(bytes.size() / 8 + 1, 0);
    std::memcpy(words.data(), bytes.data(), bytes.size());
    tp_plan plan{};
    char err[256];
    REQUIRE(tp_plan_open(reinterpret_cast<const uint8_t *>(words.data()), static_cast<uint32_t>(bytes.size()), &plan,
                         err, sizeof err) == 0);
    REQUIRE(plan.broker != nullptr);
    CHECK(plan.broker->port == 3129);
    CHECK(plan.broker_section_flags == TP_SECF_REQUIRED);
    CHECK(std::string(tp_plan_str(&plan, plan.broker->token_env)) == "TARTAROS_BROKER_TOKEN");
    REQUIRE(plan.broker_cap_count == 2);
    CHECK(std::string(tp_plan_str(&plan, plan.broker_caps[1].name)) == "npm");
    CHECK(std::string(tp_plan_str(&plan, plan.broker_caps[0].value_format)) == "Bearer {value}");
}

TEST_CASE("broker reader: the broker goes with its mode its names and its credentials directory")
{
    CHECK(refusal([](BrokerPlan &b) {
              b.network.modes = 0;
              b.local_ports = {5432};
              b.broker_section = b.credentials = false;
              b.caps.clear();
          }).find("network name 0: a name without the broker") != std::string::npos);
    CHECK(refusal([](BrokerPlan &b) {
              b.broker_section = false;
              b.caps.clear();
          }).find("the broker mode goes with the broker section") != std::string::npos);
    CHECK(refusal([](BrokerPlan &b) { b.broker_section = false; }).find("broker capabilities but no broker section") !=
          std::string::npos);
    CHECK(refusal([](BrokerPlan &b) { b.names.clear(); }).find("the broker mode with no allowed host") !=
          std::string::npos);
    CHECK(refusal([](BrokerPlan &b) {
              b.names = {{TP_NAME_ALLOW, "github.com"}};
          }).find("a name without the proxy") != std::string::npos);
    CHECK(refusal([](BrokerPlan &b) { b.credentials = false; }).find("a broker needs exactly one") !=
          std::string::npos);
    CHECK(refusal([](BrokerPlan &b) {
              b.credentials_path = "/run/credentials/other";
          }).find("the credentials flag is only for a tmpfs at /run/credentials/tartaros") != std::string::npos);
    CHECK(refusal([](BrokerPlan &b) {
              b.credentials_op = TP_MNT_MASK;
          }).find("the credentials flag is only for a tmpfs") != std::string::npos);
    CHECK(refusal([](BrokerPlan &b) { b.ns.flags = TP_NS_USER | TP_NS_MOUNT; }).find("private network namespace") !=
          std::string::npos);
}

TEST_CASE("broker reader: ports and counts")
{
    CHECK(refusal([](BrokerPlan &b) { b.port = 0; }).find("broker: port 0") != std::string::npos);
    CHECK(refusal([](BrokerPlan &b) { b.local_ports = {3129}; }).find("port 3129 is the broker's") !=
          std::string::npos);
    CHECK(refusal([](BrokerPlan &b) { b.flags = 2; }).find("unknown flags") != std::string::npos);
    CHECK(refusal([](BrokerPlan &b) { b.caps.clear(); }).find("0 capabilities") != std::string::npos);
    CHECK(refusal([](BrokerPlan &b) { b.caps.assign(TP_MAX_BROKER_CAPS + 1, {}); }).find("65 capabilities") !=
          std::string::npos);
    CHECK(refusal([](BrokerPlan &b) { b.caps.push_back({}); }).find("name \"github\" is listed twice") !=
          std::string::npos);
    CHECK(refusal([](BrokerPlan &b) { b.caps[0].port = 0; }).find("port 0 or reserved bits") != std::string::npos);
}

TEST_CASE("broker reader: every string keeps to its character set")
{
    struct Bad {
        std::function<void(BrokerPlan &)> damage;
        const char *reason;
    };
    const Bad bad[] = {
        {[](BrokerPlan &b) { b.auth_header = "X-Broker Auth"; }, "not an HTTP field name"},
        {[](BrokerPlan &b) { b.auth_header = ""; }, "not an HTTP field name"},
        {[](BrokerPlan &b) { b.token_env = "1TOKEN"; }, "not an environment variable name"},
        {[](BrokerPlan &b) { b.token_env = "A=B"; }, "not an environment variable name"},
        {[](BrokerPlan &b) { b.ca_file = "ca.pem"; }, "is not absolute"},
        {[](BrokerPlan &b) { b.caps[0].name = "git/hub"; }, "is not 1..64 of"},
        {[](BrokerPlan &b) { b.caps[0].name = std::string(65, 'a'); }, "is not 1..64 of"},
        {[](BrokerPlan &b) { b.caps[0].host = "API.github.com"; }, "not a normalised host name"},
        {[](BrokerPlan &b) { b.caps[0].host = "*.github.com"; }, "not a normalised host name"},
        {[](BrokerPlan &b) { b.caps[0].host = "api..github.com"; }, "not a normalised host name"},
        {[](BrokerPlan &b) { b.caps[0].host = "10.0.1"; }, "not a normalised host name"},
        {[](BrokerPlan &b) { b.caps[0].header = "Author:ization"; }, "bad header name"},
        {[](BrokerPlan &b) { b.caps[0].value_env = "GITHUB-TOKEN"; }, "value_env name"},
        {[](BrokerPlan &b) { b.caps[0].format = "Bearer"; }, "value_format"},
        {[](BrokerPlan &b) { b.caps[0].format = "{value}{value}"; }, "value_format"},
        {[](BrokerPlan &b) { b.caps[0].format = "Bearer\r\n{value}"; }, "value_format"},
        {[](BrokerPlan &b) { b.caps[0].methods = "GET  POST"; }, "single-spaced lists"},
        {[](BrokerPlan &b) { b.caps[0].methods = "get"; }, "single-spaced lists"},
        {[](BrokerPlan &b) { b.caps[0].methods = "GET "; }, "single-spaced lists"},
        {[](BrokerPlan &b) { b.caps[0].prefixes = "repos/"; }, "single-spaced lists"},
        {[](BrokerPlan &b) { b.caps[0].prefixes = "/a\t/b"; }, "single-spaced lists"},
    };
    for (const Bad &b : bad) {
        std::string why = refusal(b.damage);
        CAPTURE(why);
        CHECK(why.find(b.reason) != std::string::npos);
    }
}
