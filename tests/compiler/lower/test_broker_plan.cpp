// Tests of the broker's plan records: lowering ([broker] → TP_SEC_BROKER, BROKER_CAPS, the
// BROKER_HOST names, the broker mode, its environment, the credentials directory's mount and
// Landlock rule), determinism, the compiler's check of them (verify_broker and verify_plan)
// and --explain. The reader's own checks are test_broker_reader.cpp's.
#include <doctest/doctest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "explain.h"
#include "fake_host.h"
#include "frontend_toml.h"
#include "json_checker.h"
#include "lower.h"
#include "lower_broker.h"
#include "plan_reader.h"
#include "verify.h"
#include "verify_broker.h"

using namespace tartaros;

namespace {

SourcePos at(uint32_t line, uint32_t col = 1)
{
    return SourcePos{"/w/policy.toml", line, col};
}

Located<std::string> text(const std::string &value, uint32_t line)
{
    return {value, at(line, 8)};
}

BrokerPolicy broker()
{
    BrokerPolicy b;
    b.pos = at(10);
    b.token_env = text("TARTAROS_BROKER_TOKEN", 11);
    b.allowed_hosts = {text("api.github.com", 12), text("*.npmjs.org", 12)};
    BrokerCapability gh;
    gh.pos = at(14);
    gh.name = text("github", 15);
    gh.host = text("api.github.com", 16);
    gh.value_env = text("GITHUB_TOKEN", 17);
    gh.value_format = text("Bearer {value}", 18);
    gh.methods = {text("GET", 19), text("POST", 19)};
    gh.path_prefixes = {text("/repos/myorg/", 20), text("/user", 20)};
    BrokerCapability npm;
    npm.pos = at(22);
    npm.name = text("npm", 23);
    npm.host = text("registry.npmjs.org", 24);
    npm.port = {8443, at(24)};
    npm.header = text("X-Npm-Auth", 25);
    npm.value_env = text("NPM_TOKEN", 26);
    b.capabilities = {gh, npm};
    return b;
}

Policy broker_policy()
{
    Policy p;
    p.source_path = "/w/policy.toml";
    p.fs.writable_roots = {{"/w", at(3)}};
    p.network.allow_domains = {{"github.com", at(5)}};
    p.broker = broker();
    return p;
}

struct Compiled {
    std::vector<uint8_t> bytes;
    std::vector<uint64_t> words;
    tp_plan plan{};
    Diagnostics diags;
};

void compile(Compiled &out, const Policy &policy)
{
    FakeHost host;
    LowerOptions options;
    options.host = &host;
    out.bytes = lower_policy(policy, options, out.diags);
    REQUIRE_MESSAGE(!out.bytes.empty(), (out.diags.all().empty() ? "" : out.diags.all().back().message));
    out.words.assign(out.bytes.size() / 8 + 1, 0);
    std::memcpy(out.words.data(), out.bytes.data(), out.bytes.size());
    char err[256];
    REQUIRE(tp_plan_open(reinterpret_cast<const uint8_t *>(out.words.data()), static_cast<uint32_t>(out.bytes.size()),
                         &out.plan, err, sizeof err) == 0);
}

std::string str(const tp_plan &p, tp_str s)
{
    return tp_plan_str(&p, s);
}

std::vector<std::string> env_sets(const tp_plan &p)
{
    std::vector<std::string> out;
    for (uint32_t i = 0; i < p.env_count; i++)
        if (p.env[i].op == TP_ENV_SET)
            out.push_back(str(p, p.env[i].name) + "=" + str(p, p.env[i].value));
    return out;
}

std::vector<std::string> mounts(const tp_plan &p)
{
    std::vector<std::string> out;
    for (uint32_t i = 0; i < p.mount_count; i++)
        out.push_back(std::to_string(p.mounts[i].op) + " " + str(p, p.mounts[i].path));
    return out;
}

const tp_mount *credentials_mount(const tp_plan &p)
{
    for (uint32_t i = 0; i < p.mount_count; i++)
        if (p.mounts[i].flags & TP_MNTF_CREDENTIALS)
            return &p.mounts[i];
    return nullptr;
}

const tp_landlock_path *rule_at(const tp_plan &p, const std::string &path)
{
    for (uint32_t i = 0; i < p.landlock_path_count; i++)
        if (str(p, p.landlock_paths[i].path) == path)
            return &p.landlock_paths[i];
    return nullptr;
}

size_t index_of(const std::vector<std::string> &list, const std::string &item)
{
    for (size_t i = 0; i < list.size(); i++)
        if (list[i] == item)
            return i;
    FAIL("no " << item);
    return list.size();
}

}  // namespace

TEST_CASE("broker plan: the broker section and its capabilities carry the policy in order")
{
    Compiled c;
    compile(c, broker_policy());
    REQUIRE(c.plan.broker != nullptr);
    const tp_broker &b = *c.plan.broker;
    CHECK((c.plan.broker_section_flags & TP_SECF_REQUIRED) != 0);
    CHECK(b.port == 3129);
    CHECK(b.flags == 0);
    CHECK(str(c.plan, b.auth_header) == "X-Broker-Auth");
    CHECK(str(c.plan, b.token_env) == "TARTAROS_BROKER_TOKEN");
    CHECK(str(c.plan, b.ca_file).empty());
    CHECK(b.origin.line == 10);
    REQUIRE(c.plan.broker_cap_count == 2);
    const tp_broker_cap &gh = c.plan.broker_caps[0];
    CHECK(str(c.plan, gh.name) == "github");
    CHECK(str(c.plan, gh.host) == "api.github.com");
    CHECK(gh.port == 443);
    CHECK(str(c.plan, gh.header) == "Authorization");
    CHECK(str(c.plan, gh.value_env) == "GITHUB_TOKEN");
    CHECK(str(c.plan, gh.value_format) == "Bearer {value}");
    CHECK(str(c.plan, gh.methods) == "GET POST");
    CHECK(str(c.plan, gh.path_prefixes) == "/repos/myorg/ /user");
    CHECK(gh.origin.line == 14);
    const tp_broker_cap &npm = c.plan.broker_caps[1];
    CHECK(npm.port == 8443);
    CHECK(str(c.plan, npm.header) == "X-Npm-Auth");
    CHECK(str(c.plan, npm.value_format) == "{value}");
    CHECK(str(c.plan, npm.methods).empty());
    CHECK(str(c.plan, npm.path_prefixes).empty());
}

TEST_CASE("broker plan: allow_internal and ca_file reach the section")
{
    Policy p = broker_policy();
    p.broker->allow_internal = {true, at(13)};
    p.broker->ca_file = LocatedPath{"/etc/tartaros/ca.pem", at(13)};
    p.broker->token_env.reset();
    Compiled c;
    compile(c, p);
    CHECK(c.plan.broker->flags == TP_BROKER_ALLOW_INTERNAL);
    CHECK(str(c.plan, c.plan.broker->ca_file) == "/etc/tartaros/ca.pem");
    CHECK(str(c.plan, c.plan.broker->token_env).empty());
}

TEST_CASE("broker plan: the broker mode and its hosts come after the proxy's names")
{
    Compiled c;
    compile(c, broker_policy());
    REQUIRE(c.plan.network != nullptr);
    CHECK(c.plan.network->modes == (TP_NET_PROXY | TP_NET_BROKER));
    CHECK(c.plan.network->proxy_port == 3128);
    std::vector<std::string> names;
    for (uint32_t i = 0; i < c.plan.net_name_count; i++)
        names.push_back(std::to_string(c.plan.net_names[i].kind) + ":" + str(c.plan, c.plan.net_names[i].name));
    CHECK(names == std::vector<std::string>{"1:github.com", "4:api.github.com", "4:*.npmjs.org"});

    Policy only = broker_policy();
    only.network.allow_domains.clear();
    Compiled b;
    compile(b, only);
    REQUIRE(b.plan.network != nullptr);
    CHECK(b.plan.network->modes == TP_NET_BROKER);
    CHECK(b.plan.network->proxy_port == 0);
    CHECK(b.plan.network->origin.line == 10);
    CHECK(b.plan.net_name_count == 2);
    CHECK(b.plan.net_port_count == 0);
}

TEST_CASE("broker plan: the agent gets the broker's URL and credentials directory after the proxy's variables")
{
    Policy p = broker_policy();
    p.broker->port = {4000, at(11)};
    p.env.set = {{{"CI", at(30)}, {"1", at(30)}}};
    Compiled c;
    compile(c, p);
    const std::vector<std::string> set = env_sets(c.plan);
    REQUIRE(set.size() == 10);
    CHECK(set[6] == "no_proxy=localhost,127.0.0.1,::1");
    CHECK(set[7] == "TARTAROS_BROKER_URL=http://127.0.0.1:4000");
    CHECK(set[8] == "CREDENTIALS_DIRECTORY=/run/credentials/tartaros");
    CHECK(set[9] == "CI=1");
    for (uint32_t i = 0; i < c.plan.env_count; i++) {
        const std::string name = str(c.plan, c.plan.env[i].name);
        CHECK(name != "GITHUB_TOKEN");
        CHECK(name != "TARTAROS_BROKER_TOKEN");
    }
    Compiled none;
    compile(none, Policy{});
    for (const std::string &var : env_sets(none.plan))
        CHECK(var.find("BROKER") == std::string::npos);
}

TEST_CASE("broker plan: the credentials directory is a read-only tmpfs inside /run's mask under read_scope all")
{
    Compiled c;
    compile(c, broker_policy());
    const tp_mount *m = credentials_mount(c.plan);
    REQUIRE(m != nullptr);
    CHECK(m->op == TP_MNT_TMPFS);
    CHECK(m->flags == (TP_MNTF_REQUIRED | TP_MNTF_CREDENTIALS));
    CHECK(str(c.plan, m->path) == TP_CREDENTIALS_DIR);
    CHECK(m->origin.line == 10);
    const std::vector<std::string> steps = mounts(c.plan);
    CHECK(index_of(steps, std::to_string(TP_MNT_MASK) + " /run") <
          index_of(steps, std::to_string(TP_MNT_TMPFS) + " " TP_CREDENTIALS_DIR));
    const tp_landlock_path *rule = rule_at(c.plan, TP_CREDENTIALS_DIR);
    REQUIRE(rule != nullptr);
    CHECK(rule->kind == TP_LL_PATH);
    CHECK(rule->access == (TP_LL_FS_READ_FILE | TP_LL_FS_READ_DIR));
    // Optional: the enforcer makes the directory after init checks the required paths, and a
    // run that lost its broker (degraded) has none.
    CHECK(rule->flags == TP_MNTF_OPTIONAL);
    // Without a broker there is neither.
    Compiled none;
    compile(none, Policy{});
    CHECK(credentials_mount(none.plan) == nullptr);
    CHECK(rule_at(none.plan, TP_CREDENTIALS_DIR) == nullptr);
}

TEST_CASE("broker plan: under read_scope granted the mountpoint is made in the empty root")
{
    Policy p = broker_policy();
    p.fs.read_scope.value = ReadScope::Granted;
    p.fs.private_tmp = {true, at(4)};
    Compiled c;
    compile(c, p);
    const std::vector<std::string> steps = mounts(c.plan);
    CHECK(steps.front() == std::to_string(TP_MNT_ROOT_EMPTY) + " /");
    for (const std::string &s : steps)  // the empty root has no /run to mask
        CHECK_FALSE(s.ends_with(" /run"));
    REQUIRE(credentials_mount(c.plan) != nullptr);
    REQUIRE(rule_at(c.plan, TP_CREDENTIALS_DIR) != nullptr);
    CHECK(rule_at(c.plan, TP_CREDENTIALS_DIR)->access == (TP_LL_FS_READ_FILE | TP_LL_FS_READ_DIR));
}

TEST_CASE("broker plan: a policy that shows the host's /run leaves no place for the credentials directory")
{
    auto diagnostic = [](const Policy &p) {
        FakeHost host;
        LowerOptions options;
        options.host = &host;
        Diagnostics diags;
        CHECK(lower_policy(p, options, diags).empty());
        REQUIRE(diags.all().size() == 1);
        CHECK(diags.all()[0].rule_id == "credentials-dir");
        return diags.all()[0].message;
    };
    Policy all = broker_policy();
    all.fs.read_allows = {{"/run", at(6)}};
    CHECK(diagnostic(all) ==
          "[broker] needs its credentials directory /run/credentials/tartaros made inside the sandbox, but read_scope "
          "= \"all\" shows the host's /run/credentials because the policy names /run, where nothing can be created: "
          "name a narrower path than /run (such as /run/user or /run/postgresql), or remove the rule");
    Policy granted = broker_policy();
    granted.fs.read_scope.value = ReadScope::Granted;
    granted.fs.read_allows = {{"/run/credentials", at(6)}};
    CHECK(diagnostic(granted).find("but /run/credentials is the host's directory here") != std::string::npos);
    // A narrower path beneath /run keeps the mask.
    Policy narrow = broker_policy();
    narrow.fs.read_allows = {{"/run/user", at(6)}};
    Compiled c;
    compile(c, narrow);
    CHECK(credentials_mount(c.plan) != nullptr);
}

TEST_CASE("broker plan: inside a writable / the credentials directory is held by its read-only mount")
{
    Policy p = broker_policy();
    p.fs.writable_roots = {{"/", at(3)}};
    Compiled c;
    compile(c, p);
    REQUIRE(credentials_mount(c.plan) != nullptr);
    CHECK(rule_at(c.plan, TP_CREDENTIALS_DIR) == nullptr);  // the writable rule on / covers it; the mount holds
}

TEST_CASE("broker plan: the same policy gives the same bytes")
{
    FakeHost host;
    LowerOptions options;
    options.host = &host;
    Diagnostics d1, d2;
    CHECK(lower_policy(broker_policy(), options, d1) == lower_policy(broker_policy(), options, d2));

    const std::string text =
        "version = 1\n[broker]\nallowed_hosts = [\"api.github.com\", \"*.npmjs.org\"]\n"
        "[[broker.capability]]\nname = \"gh\"\nhost = \"api.github.com\"\nvalue_env = \"GH\"\n"
        "methods = [\"GET\"]\n[[broker.capability]]\nname = \"npm\"\nhost = \"registry.npmjs.org\"\n"
        "value_env = \"NPM\"\n";
    Diagnostics p1, p2;
    const std::optional<Policy> a = parse_toml_policy_text(text, "/w/policy.toml", p1);
    const std::optional<Policy> b = parse_toml_policy_text(text, "/w/policy.toml", p2);
    REQUIRE(a);
    REQUIRE(b);
    const std::vector<uint8_t> first = lower_policy(*a, options, p1);
    REQUIRE(!first.empty());
    CHECK(first == lower_policy(*b, options, p2));
}

TEST_CASE("broker plan: verify_broker catches a plan that differs from the policy")
{
    Compiled c;
    compile(c, broker_policy());
    CHECK(verify_broker(c.plan, broker_policy()) == std::nullopt);
    auto differs = [&](auto edit) {
        Policy other = broker_policy();
        edit(other);
        return verify_broker(c.plan, other);
    };
    CHECK(differs([](Policy &p) { p.broker->port.value = 4000; }) ==
          "broker: the plan's port differs from [broker] port");
    CHECK(differs([](Policy &p) { p.broker->allow_internal.value = true; }) ==
          "broker: the plan's allow_internal differs from the policy's");
    CHECK(differs([](Policy &p) { p.broker->auth_header.value = "X-Other"; }) ==
          "broker: the plan's auth_header differs from the policy's");
    CHECK(differs([](Policy &p) { p.broker->token_env.reset(); }) ==
          "broker: the plan's token_env differs from the policy's");
    CHECK(differs([](Policy &p) {
              p.broker->ca_file = LocatedPath{"/ca.pem", at(13)};
          }) == "broker: the plan's ca_file differs from the policy's");
    CHECK(differs([](Policy &p) { p.broker->capabilities.pop_back(); }) ==
          "broker: the plan has 2 capabilities, the policy 1");
    CHECK(differs([](Policy &p) { std::swap(p.broker->capabilities[0], p.broker->capabilities[1]); }) ==
          "broker: capability npm: the plan names it github");
    CHECK(differs([](Policy &p) { p.broker->capabilities[1].port.value = 443; }) ==
          "broker: capability npm: the plan's upstream differs from its host");
    CHECK(differs([](Policy &p) { p.broker->capabilities[0].value_format.value = "{value}"; }) ==
          "broker: capability github: the plan's header or value_format differs");
    CHECK(differs([](Policy &p) { p.broker->capabilities[0].value_env.value = "OTHER"; }) ==
          "broker: capability github: the plan's value_env differs");
    CHECK(differs([](Policy &p) { p.broker->capabilities[0].methods.pop_back(); }) ==
          "broker: capability github: the plan's methods or path prefixes differ");
    CHECK(differs([](Policy &p) { p.broker->capabilities[0].path_prefixes.clear(); }) ==
          "broker: capability github: the plan's methods or path prefixes differ");
    CHECK(differs([](Policy &p) { p.broker.reset(); }) == "broker: a credentials directory without a broker");

    Compiled none;
    compile(none, Policy{});
    CHECK(verify_broker(none.plan, broker_policy()) == "broker: the plan has no broker section");
}

TEST_CASE("broker plan: verify_plan refuses plans whose broker hosts, variables or credentials disagree")
{
    FakeHost host;
    LowerOptions options;
    options.host = &host;
    Compiled c;
    compile(c, broker_policy());
    CHECK(verify_plan(c.bytes, broker_policy(), options) == std::nullopt);
    Policy hosts = broker_policy();
    hosts.broker->allowed_hosts.pop_back();
    CHECK(verify_plan(c.bytes, hosts, options) ==
          "network: the plan's broker hosts differ from [broker] allowed_hosts");
    Policy env = broker_policy();
    env.env.passthrough.push_back({"NPM_TOKEN", at(30)});
    CHECK(verify_plan(c.bytes, env, options) == "the environment does not match the policy");

    // A plan with no credentials step for a broker policy: the probes see /run/credentials/tartaros
    // at the mask's level, not read.
    Policy plain = broker_policy();
    plain.broker.reset();
    Compiled without;
    compile(without, plain);
    CHECK(verify_plan(without.bytes, broker_policy(), options) != std::nullopt);
}

TEST_CASE("broker plan: the credentials mountpoint must lie in a tmpfs the sandbox made")
{
    const MountStep credentials{TP_MNT_TMPFS, TP_MNTF_REQUIRED | TP_MNTF_CREDENTIALS, TP_CREDENTIALS_DIR, "", "", {}};
    auto from_host = [&](std::vector<MountStep> steps) {
        steps.push_back(credentials);
        const MountStep *host = credentials_parent_from_host(steps);
        return host == nullptr ? std::string() : std::to_string(host->op) + " " + host->path;
    };
    const MountStep root_ro{TP_MNT_ROOT_READONLY, TP_MNTF_REQUIRED, "/", "", "", {}};
    const MountStep root_empty{TP_MNT_ROOT_EMPTY, TP_MNTF_REQUIRED, "/", "", "", {}};
    const MountStep mask_run{TP_MNT_MASK, TP_MNTF_REQUIRED | TP_MNTF_OPTIONAL, "/run", "", "", {}};
    const MountStep bind_run{TP_MNT_BIND, TP_MNTF_RDONLY, "/run", "/run", "", {}};
    const MountStep bind_creds{TP_MNT_BIND, 0, "/run/credentials", "/run/credentials", "", {}};
    const MountStep pin_run{TP_MNT_PIN, TP_MNTF_REQUIRED, "/run", "", "/", {}};
    CHECK(from_host({root_ro, mask_run}) == "");
    CHECK(from_host({root_empty}) == "");
    CHECK(from_host({root_empty, mask_run, pin_run}) == "");  // a pin makes no directory
    CHECK(from_host({root_ro}) == std::to_string(TP_MNT_ROOT_READONLY) + " /");
    CHECK(from_host({root_empty, bind_run}) == std::to_string(TP_MNT_BIND) + " /run");
    CHECK(from_host({root_ro, mask_run, bind_creds}) == std::to_string(TP_MNT_BIND) + " /run/credentials");
    CHECK(credentials_parent_from_host({root_ro}) == nullptr);  // no credentials step: nothing to place
}

TEST_CASE("broker plan: --explain shows the broker, each capability and what it leaves open")
{
    Policy p = broker_policy();
    p.broker->ca_file = LocatedPath{"/etc/tartaros/ca.pem", at(13)};
    Compiled c;
    compile(c, p);
    std::ostringstream text, json;
    std::string err;
    REQUIRE(explain_plan(c.bytes, false, text, err));
    REQUIRE(explain_plan(c.bytes, true, json, err));
    const std::string t = text.str();
    auto has = [&](const std::string &part) {
        CAPTURE(part);
        CHECK(t.find(part) != std::string::npos);
    };
    has("2. network: proxy, broker  policy.toml:5:1\n");
    has("3. broker: 127.0.0.1:3129 inside (required)  policy.toml:10:1\n");
    has("   environment: TARTAROS_BROKER_URL=http://127.0.0.1:3129, CREDENTIALS_DIRECTORY=/run/credentials/tartaros\n");
    has("   token: the launcher's variable TARTAROS_BROKER_TOKEN, read once at start; the agent reads it from "
        "/run/credentials/tartaros/broker-token");
    has("   allowed hosts: api.github.com, *.npmjs.org\n");
    has("   internal addresses: refused\n");
    has("   trusted CAs: the system store and /etc/tartaros/ca.pem\n");
    has("   3.1 capability github -> https://api.github.com:443  policy.toml:14:1\n"
        "        header: Authorization: Bearer {value} ({value} from the launcher's GITHUB_TOKEN)\n"
        "        methods: GET, POST\n"
        "        path prefixes: /repos/myorg/, /user\n");
    has("   3.2 capability npm -> https://registry.npmjs.org:8443  policy.toml:22:1\n"
        "        header: X-Npm-Auth: {value} ({value} from the launcher's NPM_TOKEN)\n"
        "        methods: any\n"
        "        path prefixes: any\n");
    has("an upstream that echoes its request (its headers) shows the value to the agent");
    has("the agent can use every capability with the token");
    has("tmpfs /run/credentials/tartaros [required, credentials]");
    has("only its token is written here, as broker-token (mode 0400), then the tmpfs is made read-only");

    const std::string j = json.str();
    CHECK(test::JsonChecker(j).document());
    CHECK(j.find("\"step\":\"broker\",\"listen\":\"127.0.0.1:3129\",\"required\":true") != std::string::npos);
    CHECK(j.find("\"token\":{\"source\":\"env\",\"env\":\"TARTAROS_BROKER_TOKEN\",\"file\":"
                 "\"/run/credentials/tartaros/broker-token\"}") != std::string::npos);
    CHECK(j.find("{\"name\":\"npm\",\"upstream\":\"https://registry.npmjs.org:8443\",\"host\":\"registry.npmjs.org\","
                 "\"port\":8443,\"header\":\"X-Npm-Auth\",\"value_format\":\"{value}\",\"value_env\":\"NPM_TOKEN\","
                 "\"methods\":[],\"path_prefixes\":[]") != std::string::npos);
    CHECK(j.find("\"modes\":[\"proxy\",\"broker\"]") != std::string::npos);
}

TEST_CASE("broker plan: --explain of a random token and an IPv6 upstream")
{
    Policy p = broker_policy();
    p.broker->token_env.reset();
    p.broker->allow_internal = {true, at(13)};
    p.broker->allowed_hosts.push_back(text("2001:db8::1", 12));
    p.broker->capabilities[1].host.value = "2001:db8::1";
    Compiled c;
    compile(c, p);
    std::ostringstream text_out, json;
    std::string err;
    REQUIRE(explain_plan(c.bytes, false, text_out, err));
    REQUIRE(explain_plan(c.bytes, true, json, err));
    CHECK(text_out.str().find("token: a random 256-bit token made for this run (hex)") != std::string::npos);
    CHECK(text_out.str().find("capability npm -> https://[2001:db8::1]:8443") != std::string::npos);
    CHECK(text_out.str().find("internal addresses: allowed") != std::string::npos);
    CHECK(json.str().find("\"token\":{\"source\":\"random\",\"env\":null") != std::string::npos);
}
