// Unit tests of the verifier: correct plans pass; a plan with one Landlock rule corrupted,
// one mount step dropped or moved, or a bad path or flag is refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bpf_check.h"
#include "fake_host.h"
#include "lower.h"
#include "lower_fs.h"
#include "plan_reader.h"
#include "plan_writer.h"
#include "verify.h"

using namespace tartaros;

namespace {

struct EnvEntry {
    uint32_t op;
    std::string name, value;
    tp_origin origin;
};

struct NameEntry {
    uint32_t kind;
    std::string name, address;
    tp_origin origin;
};

// A tp_broker_cap with its strings.
struct CapEntry {
    std::string name, host, header, value_env, value_format, methods, path_prefixes;
    uint16_t port;
    tp_origin origin;
};

// A plan taken apart into editable parts, and put back together in the lowering's order.
struct Decoded {
    std::string policy_path, compiler;
    tp_meta meta{};
    tp_namespaces ns{};
    tp_landlock_ruleset landlock{};
    tp_exec exec{};
    uint64_t features = 0;
    uint32_t min_abi = 0;
    std::vector<MountStep> mounts;
    std::vector<tp_origin> mount_origins;
    std::vector<LandlockRule> rules;
    std::vector<tp_origin> rule_origins;
    std::vector<EnvEntry> env;
    bool has_seccomp = false;
    tp_seccomp seccomp{};
    std::vector<tp_bpf_insn> filter;
    bool has_limits = false, limits_required = false;
    tp_limits limits{};
    std::vector<tp_rlimit> rlimits;
    bool has_network = false;
    tp_network network{};
    std::vector<tp_net_port> net_ports;
    std::vector<NameEntry> net_names;
    bool has_broker = false;
    tp_broker broker{};
    std::string auth_header, token_env, ca_file;
    std::vector<CapEntry> caps;
};

Decoded decode(const std::vector<uint8_t> &bytes)
{
    tp_plan plan{};
    char err[256];
    REQUIRE(tp_plan_open(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan, err, sizeof err) == 0);
    auto s = [&](tp_str v) { return std::string(tp_plan_str(&plan, v)); };
    Decoded d;
    d.meta = *plan.meta;
    d.policy_path = s(plan.meta->policy_path);
    d.compiler = s(plan.meta->compiler);
    d.ns = *plan.ns;
    d.landlock = *plan.landlock;
    d.exec = *plan.exec;
    d.features = plan.header->required_features;
    d.min_abi = plan.header->min_landlock_abi;
    for (uint32_t i = 0; i < plan.mount_count; i++) {
        const tp_mount &m = plan.mounts[i];
        d.mounts.push_back(MountStep{m.op, m.flags, s(m.path), s(m.source), s(m.anchor), {}});
        d.mount_origins.push_back(m.origin);
    }
    for (uint32_t i = 0; i < plan.landlock_path_count; i++) {
        const tp_landlock_path &r = plan.landlock_paths[i];
        d.rules.push_back(LandlockRule{r.kind, r.access, r.flags, s(r.path), s(r.except), {}});
        d.rule_origins.push_back(r.origin);
    }
    for (uint32_t i = 0; i < plan.env_count; i++)
        d.env.push_back(EnvEntry{plan.env[i].op, s(plan.env[i].name), s(plan.env[i].value), plan.env[i].origin});
    if (plan.seccomp) {
        d.has_seccomp = true;
        d.seccomp = *plan.seccomp;
        d.filter.assign(plan.seccomp_prog, plan.seccomp_prog + plan.seccomp_insn_count);
    }
    if (plan.limits) {
        d.has_limits = true;
        d.limits = *plan.limits;
        d.limits_required = (plan.limits_section_flags & TP_SECF_REQUIRED) != 0;
    }
    d.rlimits.assign(plan.rlimits, plan.rlimits + plan.rlimit_count);
    if (plan.network) {
        d.has_network = true;
        d.network = *plan.network;
        d.net_ports.assign(plan.net_ports, plan.net_ports + plan.net_port_count);
        for (uint32_t i = 0; i < plan.net_name_count; i++) {
            const tp_net_name &n = plan.net_names[i];
            d.net_names.push_back(NameEntry{n.kind, s(n.name), s(n.address), n.origin});
        }
    }
    if (plan.broker) {
        d.has_broker = true;
        d.broker = *plan.broker;
        d.auth_header = s(plan.broker->auth_header);
        d.token_env = s(plan.broker->token_env);
        d.ca_file = s(plan.broker->ca_file);
        for (uint32_t i = 0; i < plan.broker_cap_count; i++) {
            const tp_broker_cap &c = plan.broker_caps[i];
            d.caps.push_back(CapEntry{s(c.name), s(c.host), s(c.header), s(c.value_env), s(c.value_format),
                                      s(c.methods), s(c.path_prefixes), c.port, c.origin});
        }
    }
    return d;
}

std::vector<uint8_t> encode(const Decoded &d)
{
    ir::PlanWriter w;
    tp_meta meta = d.meta;
    meta.policy_path = w.str(d.policy_path);
    meta.compiler = w.str(d.compiler);
    w.set_meta(meta);
    w.set_namespaces(d.ns, true);
    for (size_t i = 0; i < d.mounts.size(); i++) {
        const MountStep &m = d.mounts[i];
        tp_mount out{};
        out.op = m.op;
        out.flags = m.flags;
        out.path = w.str(m.path);
        out.source = w.str(m.source);
        out.anchor = w.str(m.anchor);
        out.origin = i < d.mount_origins.size() ? d.mount_origins[i] : tp_origin{};
        w.add_mount(out);
    }
    w.set_mounts_required(true);
    w.set_landlock(d.landlock, true);
    for (size_t i = 0; i < d.rules.size(); i++) {
        const LandlockRule &r = d.rules[i];
        tp_landlock_path out{};
        out.access = r.access;
        out.kind = r.kind;
        out.flags = r.flags;
        out.path = w.str(r.path);
        out.except = w.str(r.except);
        out.origin = i < d.rule_origins.size() ? d.rule_origins[i] : tp_origin{};
        w.add_landlock_path(out);
    }
    for (const EnvEntry &e : d.env)
        w.add_env(tp_env{e.op, 0, w.str(e.name), w.str(e.value), e.origin});
    w.set_exec(d.exec);
    if (d.has_seccomp)
        w.set_seccomp(d.seccomp, d.filter, true);
    if (d.has_limits)
        w.set_limits(d.limits, d.limits_required);
    for (const tp_rlimit &r : d.rlimits)
        w.add_rlimit(r);
    if (d.has_network)
        w.set_network(d.network);
    for (const tp_net_port &p : d.net_ports)
        w.add_net_port(p);
    for (const NameEntry &n : d.net_names)
        w.add_net_name(tp_net_name{n.kind, 0, w.str(n.name), w.str(n.address), n.origin});
    if (d.has_broker) {
        tp_broker b = d.broker;
        b.auth_header = w.str(d.auth_header);
        b.token_env = w.str(d.token_env);
        b.ca_file = w.str(d.ca_file);
        w.set_broker(b, true);
    }
    for (const CapEntry &c : d.caps)
        w.add_broker_cap(tp_broker_cap{w.str(c.name), w.str(c.host), w.str(c.header), w.str(c.value_env),
                                       w.str(c.value_format), w.str(c.methods), w.str(c.path_prefixes), c.port, 0, 0,
                                       c.origin});
    w.set_required_features(d.features);
    w.set_min_landlock_abi(d.min_abi);
    return w.finish();
}

LocatedPath rule_at(const std::string &path, uint32_t line)
{
    return {path, SourcePos{"/w/policy.toml", line, 3}};
}

Policy workspace_policy()
{
    Policy p;
    p.source_path = "/w/policy.toml";
    p.fs.writable_roots = {rule_at("/w", 4)};
    p.fs.write_denies = {rule_at("/w/.git/hooks", 5)};
    p.fs.read_denies = {rule_at("/home/u/.ssh", 6), rule_at("/w/secret", 7)};
    p.fs.read_allows = {rule_at("/home/u/.ssh/pub", 8)};
    p.fs.private_tmp.value = true;
    p.env.passthrough = {{"PATH", {}}};
    return p;
}

struct Fixture {
    FakeHost host;
    Policy policy;
    LowerOptions options;
    std::vector<uint8_t> plan;

    explicit Fixture(Policy p = workspace_policy(), FakeHost h = {}) : host(std::move(h)), policy(std::move(p))
    {
        options.plan_path = "/w/plan.bin";
        options.host = &host;
        Diagnostics diags;
        plan = lower_policy(policy, options, diags);
        REQUIRE(!plan.empty());
    }

    // Verifies the plan after `edit`; returns the verifier's complaint ("" = accepted).
    std::string verify_edited(const std::function<void(Decoded &)> &edit) const
    {
        Decoded d = decode(plan);
        edit(d);
        const Failure failure = verify_plan(encode(d), policy, options);
        CHECK((!failure || !failure->empty()));
        return failure.value_or("");
    }
};

MountStep &step_at(Decoded &d, uint32_t op, const std::string &path)
{
    auto it = std::find_if(d.mounts.begin(), d.mounts.end(),
                           [&](const MountStep &m) { return m.op == op && m.path == path; });
    REQUIRE(it != d.mounts.end());
    return *it;
}

void drop_step(Decoded &d, uint32_t op, const std::string &path)
{
    const MountStep &victim = step_at(d, op, path);
    const size_t index = static_cast<size_t>(&victim - d.mounts.data());
    d.mounts.erase(d.mounts.begin() + static_cast<std::ptrdiff_t>(index));
    d.mount_origins.erase(d.mount_origins.begin() + static_cast<std::ptrdiff_t>(index));
}

LandlockRule &rule_on(Decoded &d, uint32_t kind, const std::string &path)
{
    auto it = std::find_if(d.rules.begin(), d.rules.end(),
                           [&](const LandlockRule &r) { return r.kind == kind && r.path == path; });
    REQUIRE(it != d.rules.end());
    return *it;
}

}  // namespace

TEST_CASE("verify: the lowering's own plans pass, and the test's re-encoding is exact")
{
    Fixture f;
    CHECK(encode(decode(f.plan)) == f.plan);
    CHECK(verify_plan(f.plan, f.policy, f.options) == std::nullopt);

    f.host.kinds = {{"/usr", HostKind::Directory}, {"/bin", HostKind::Symlink}, {"/lib64", HostKind::Symlink}};
    f.host.links = {{"/bin", "usr/bin"}, {"/lib64", "/usr/lib64"}};
    f.policy.fs.read_scope.value = ReadScope::Granted;
    Diagnostics diags;
    const std::vector<uint8_t> granted = lower_policy(f.policy, f.options, diags);
    REQUIRE(!granted.empty());
    CHECK(verify_plan(granted, f.policy, f.options) == std::nullopt);
}

TEST_CASE("verify: a corrupted Landlock rule is refused")
{
    Fixture f;
    SUBCASE("an expansion that excepts the wrong child grants the denied one")
    {
        const std::string err = f.verify_edited([](Decoded &d) { rule_on(d, TP_LL_EXPAND, "/home/u").except = "pub"; });
        CHECK(err.find("/home/u/.ssh") != std::string::npos);
        CHECK(err.find("Landlock grants") != std::string::npos);
    }
    SUBCASE("a writable root that only gets read")
    {
        const std::string err = f.verify_edited([](Decoded &d) { rule_on(d, TP_LL_PATH, "/w").access = kReadRights; });
        CHECK(err.find("/w") != std::string::npos);
    }
    SUBCASE("file rights on an expanded directory reach its denied child")
    {
        const std::string err =
            f.verify_edited([](Decoded &d) { rule_on(d, TP_LL_PATH, "/home/u").access |= TP_LL_FS_READ_FILE; });
        CHECK(err.find(".ssh") != std::string::npos);
    }
    SUBCASE("a right outside the handled set")
    {
        const std::string err =
            f.verify_edited([](Decoded &d) { rule_on(d, TP_LL_PATH, "/tmp").access |= 1ull << 20; });
        CAPTURE(err);
        CHECK(err.find("handled") != std::string::npos);  // the reader or the verifier
    }
    SUBCASE("a rule moved to another path")
    {
        CHECK(f.verify_edited([](Decoded &d) { rule_on(d, TP_LL_PATH, "/home/u/.ssh/pub").path = "/home/u/.ssh"; }) !=
              "");
    }
    SUBCASE("an expansion without its own READ_DIR rule")
    {
        const std::string err = f.verify_edited([](Decoded &d) {
            d.rules.erase(std::find_if(d.rules.begin(), d.rules.end(), [](const LandlockRule &r) {
                return r.kind == TP_LL_PATH && r.path == "/home";
            }));
            d.rule_origins.pop_back();
        });
        CHECK(err.find("READ_DIR") != std::string::npos);
    }
    SUBCASE("handled rights reduced")
    {
        const std::string err = f.verify_edited([](Decoded &d) { d.landlock.handled_access_fs = kReadRights; });
        CAPTURE(err);
        CHECK(err.find("handle") != std::string::npos);
    }
}

TEST_CASE("verify: a dropped or misplaced mount step is refused")
{
    Fixture f;
    SUBCASE("the mask of a read deny")
    {
        const std::string err = f.verify_edited([](Decoded &d) { drop_step(d, TP_MNT_MASK, "/home/u/.ssh"); });
        CHECK(err.find("mount layer") != std::string::npos);
    }
    SUBCASE("a mount-only write deny")
    {
        const std::string err = f.verify_edited([](Decoded &d) { drop_step(d, TP_MNT_WRITE_DENY, "/w/.git/hooks"); });
        CHECK(err.find("/w/.git/hooks") != std::string::npos);
    }
    SUBCASE("a mount-only read deny inside the writable root")
    {
        CHECK(f.verify_edited([](Decoded &d) { drop_step(d, TP_MNT_MASK, "/w/secret"); }) != "");
    }
    SUBCASE("the automatic write deny of the plan")
    {
        CHECK(f.verify_edited([](Decoded &d) { drop_step(d, TP_MNT_WRITE_DENY, "/w/plan.bin"); }) != "");
    }
    SUBCASE("the pin between the root and a write deny")
    {
        const std::string err = f.verify_edited([](Decoded &d) { drop_step(d, TP_MNT_PIN, "/w/.git"); });
        CHECK(err.find("not pinned") != std::string::npos);
    }
    SUBCASE("the bind back of an allow inside a deny")
    {
        CHECK(f.verify_edited([](Decoded &d) { drop_step(d, TP_MNT_BIND, "/home/u/.ssh/pub"); }) != "");
    }
    SUBCASE("a child mounted before its parent's mask")
    {
        const std::string err = f.verify_edited([](Decoded &d) {
            auto mask = std::find_if(d.mounts.begin(), d.mounts.end(),
                                     [](const MountStep &m) { return m.path == "/home/u/.ssh"; });
            auto bind = std::find_if(d.mounts.begin(), d.mounts.end(),
                                     [](const MountStep &m) { return m.path == "/home/u/.ssh/pub"; });
            REQUIRE(mask < bind);
            std::iter_swap(mask, bind);
        });
        CHECK(err.find("covers the earlier step") != std::string::npos);
    }
    SUBCASE("an empty root instead of a read-only one")
    {
        CHECK(f.verify_edited([](Decoded &d) { d.mounts[0].op = TP_MNT_ROOT_EMPTY; }) != "");
    }
    SUBCASE("a write deny anchored at a directory that is not a writable mount")
    {
        const std::string err =
            f.verify_edited([](Decoded &d) { step_at(d, TP_MNT_WRITE_DENY, "/w/.git/hooks").anchor = "/w/.git"; });
        CHECK(err.find("anchor") != std::string::npos);
    }
    SUBCASE("both absent-target flags")
    {
        const std::string err = f.verify_edited(
            [](Decoded &d) { step_at(d, TP_MNT_WRITE_DENY, "/w/.git/hooks").flags |= TP_MNTF_MATERIALIZE_DIR; });
        CHECK(err.find("absent-target") != std::string::npos);
    }
    SUBCASE("a path that is not normalised")
    {
        const std::string err =
            f.verify_edited([](Decoded &d) { step_at(d, TP_MNT_MASK, "/w/secret").path = "/w/./secret"; });
        CHECK(err.find("normalised") != std::string::npos);
    }
}

TEST_CASE("verify: a private dir is a fresh tmpfs of its own, with nothing mounted into it")
{
    Policy p = workspace_policy();
    p.fs.private_dirs = {rule_at("/w/.sockets", 9)};
    FakeHost host;
    host.kinds["/w/.sockets"] = HostKind::Directory;
    Fixture f(p, host);
    CHECK(f.verify_edited([](Decoded &) {}) == "");
    SUBCASE("the host's directory bound writable instead: every probe still sees write")
    {
        const std::string err = f.verify_edited([](Decoded &d) {
            MountStep &s = step_at(d, TP_MNT_TMPFS, "/w/.sockets");
            s.op = TP_MNT_BIND;
            s.source = "/w/.sockets";
            s.flags = 0;
        });
        CHECK(err == "/w/.sockets is private in the policy, but no private tmpfs is mounted there");
    }
    SUBCASE("the tmpfs dropped")
    {
        const std::string err = f.verify_edited([](Decoded &d) { drop_step(d, TP_MNT_TMPFS, "/w/.sockets"); });
        CHECK(err == "/w/.sockets is private in the policy, but no private tmpfs is mounted there");
    }
    SUBCASE("a private tmpfs the policy does not ask for")
    {
        const std::string err =
            f.verify_edited([](Decoded &d) { step_at(d, TP_MNT_TMPFS, "/w/.sockets").path = "/w/.other"; });
        CHECK(err.find("(TMPFS /w/.other) is a private tmpfs the policy does not ask for") != std::string::npos);
    }
    SUBCASE("a host path bound into it")
    {
        const std::string err = f.verify_edited([](Decoded &d) {
            d.mounts.push_back(MountStep{TP_MNT_BIND, TP_MNTF_RDONLY, "/w/.sockets/x", "/etc", "", {}});
            d.mount_origins.push_back(tp_origin{});
        });
        CHECK(err == "the private dir /w/.sockets has BIND /w/.sockets/x mounted into it");
    }
}

TEST_CASE("verify: Landlock without its scopes is refused")
{
    Fixture f;
    CHECK(f.verify_edited([](Decoded &d) { d.landlock.scoped = TP_LL_SCOPE_SIGNAL; }) ==
          "Landlock scopes 0x2 instead of abstract unix sockets and signals");
    CHECK(f.verify_edited([](Decoded &d) { d.min_abi = 5; }) ==
          "Landlock scopes 0x3 instead of abstract unix sockets and signals");
}

TEST_CASE("verify: a seccomp filter that is not the policy's profile is refused")
{
    Fixture f;
    CHECK(f.verify_edited([](Decoded &d) { d.has_seccomp = false; }) ==
          "the plan reader refuses it: the header requires seccomp, but the plan has no seccomp filter");
    CHECK(f.verify_edited([](Decoded &d) {
        d.has_seccomp = false;
        d.features &= ~uint64_t{TP_FEAT_SECCOMP};
    }) == "the seccomp section is missing");
    CHECK(f.verify_edited([](Decoded &d) { d.seccomp.profile &= ~TP_SC_HARDEN; }) ==
          "the seccomp profile 0x0 does not match the policy");
    // ptrace's refusal (the only ERRNO(EPERM) return) becomes ALLOW: every refused call passes.
    const std::string err = f.verify_edited([](Decoded &d) {
        for (tp_bpf_insn &in : d.filter)
            if (in.code == (TP_BPF_RET | TP_BPF_K) && in.k == (TP_RET_ERRNO | 1u))
                in.k = TP_RET_ALLOW;
    });
    CHECK(err.rfind("seccomp: ", 0) == 0);
    CHECK(err.find("returns ALLOW, the profile says ERRNO(EPERM)") != std::string::npos);
    CHECK(f.verify_edited([](Decoded &d) { d.filter.back().k = TP_RET_ERRNO | 5000u; }) ==
          "the plan reader refuses it: seccomp program refused: instruction " +
              std::to_string(decode(f.plan).filter.size() - 1) +
              ": return value 0x00051388 is not KILL_PROCESS, KILL_THREAD, ERRNO(1..4095) or ALLOW");
}

TEST_CASE("verify: limits or rlimits that are not the policy's are refused")
{
    Fixture f;
    CHECK(f.verify_edited([](Decoded &d) { d.rlimits.clear(); }) ==
          "limits: the plan sets 0 rlimits, the policy 1 (core included)");
    CHECK(f.verify_edited([](Decoded &d) { d.rlimits[0].hard = d.rlimits[0].soft = TP_RLIM_INFINITY; }) ==
          "limits: rlimit resource 4 differs from the policy's");
    CHECK(f.verify_edited([](Decoded &d) {
        d.has_limits = true;
        d.limits_required = true;
        d.limits.timeout_ms = 1000;
        d.limits.grace_ms = 1000;
    }) == "limits: the plan has a limits section, the policy sets no limit");
}

namespace {

Policy broker_workspace_policy()
{
    Policy p = workspace_policy();
    BrokerPolicy b;
    b.pos = SourcePos{"/w/policy.toml", 10, 1};
    b.allowed_hosts = {{"api.github.com", SourcePos{"/w/policy.toml", 11, 3}}};
    BrokerCapability cap;
    cap.pos = SourcePos{"/w/policy.toml", 12, 1};
    cap.name = {"github", SourcePos{"/w/policy.toml", 13, 3}};
    cap.host = {"api.github.com", SourcePos{"/w/policy.toml", 14, 3}};
    cap.value_env = {"GITHUB_TOKEN", SourcePos{"/w/policy.toml", 15, 3}};
    cap.methods = {{"GET", SourcePos{"/w/policy.toml", 16, 3}}};
    b.capabilities = {cap};
    p.broker = b;
    return p;
}

size_t credentials_step(const Decoded &d)
{
    for (size_t i = 0; i < d.mounts.size(); i++)
        if (d.mounts[i].flags & TP_MNTF_CREDENTIALS)
            return i;
    FAIL("no credentials step");
    return 0;
}

}  // namespace

TEST_CASE("verify: the broker's records and its credentials directory are checked against the policy")
{
    Fixture f(broker_workspace_policy());
    CHECK(f.verify_edited([](Decoded &) {}) == "");
    CHECK(f.verify_edited([](Decoded &d) { d.caps[0].methods = "GET POST"; }) ==
          "broker: capability github: the plan's methods or path prefixes differ");
    CHECK(f.verify_edited([](Decoded &d) { d.caps[0].host = "api.github.com.evil.example"; }) ==
          "broker: capability github: the plan's upstream differs from its host");
    CHECK(f.verify_edited([](Decoded &d) { d.net_names.back().name = "*.github.com"; }) ==
          "network: the plan's broker hosts differ from [broker] allowed_hosts");
    CHECK(f.verify_edited([](Decoded &d) {
        for (EnvEntry &e : d.env)
            if (e.name == "TARTAROS_BROKER_URL")
                e.value = "http://127.0.0.1:9999";
    }) == "broker: the plan does not point the environment at the broker after the proxy");
    // An ordinary (writable) tmpfs instead of the credentials directory: the reader refuses it.
    CHECK(f.verify_edited([](Decoded &d) {
               d.mounts[credentials_step(d)].flags &= ~TP_MNTF_CREDENTIALS;
           }).find("credentials directories") != std::string::npos);
    // Landlock's execute right on the token file: more than the credentials directory's rights.
    CHECK(f.verify_edited([](Decoded &d) {
               rule_on(d, TP_LL_PATH, TP_CREDENTIALS_DIR).access |= TP_LL_FS_EXECUTE;
           }).find("Landlock grants") != std::string::npos);
    // Its mountpoint in the host's /run: the mask that holds it dropped.
    CHECK(f.verify_edited([](Decoded &d) { drop_step(d, TP_MNT_MASK, "/run"); }).find("/run") != std::string::npos);
    CHECK(f.verify_edited([](Decoded &d) { drop_step(d, TP_MNT_TMPFS, TP_CREDENTIALS_DIR); }) != "");
}

TEST_CASE("verify: damaged bytes are refused by the reader")
{
    Fixture f;
    std::vector<uint8_t> cut(f.plan.begin(), f.plan.end() - 8);
    CHECK(verify_plan(cut, f.policy, f.options).value_or("").find("plan reader") != std::string::npos);
}

TEST_CASE("verify: a plan alone: the reader, then its seccomp filter against the rules it states")
{
    Fixture f;
    CHECK(verify_plan_alone(f.plan) == std::nullopt);

    // One instruction of the filter changed, the checksum resealed: the reader accepts the
    // bytes, the interpreter finds every refused ptrace call allowed.
    Decoded d = decode(f.plan);
    for (tp_bpf_insn &in : d.filter)
        if (in.code == (TP_BPF_RET | TP_BPF_K) && in.k == (TP_RET_ERRNO | 1u))
            in.k = TP_RET_ALLOW;
    std::string err = verify_plan_alone(encode(d)).value_or("");
    CHECK(err.rfind("seccomp: ", 0) == 0);
    CHECK(err.find("returns ALLOW, the profile says ERRNO(EPERM)") != std::string::npos);

    // A byte flipped without resealing, and a cut plan: the reader refuses them.
    std::vector<uint8_t> flipped = f.plan;
    flipped[flipped.size() / 2] ^= 0x10;
    CHECK(verify_plan_alone(flipped).value_or("").rfind("the plan reader refuses it: ", 0) == 0);
    const std::vector<uint8_t> cut(f.plan.begin(), f.plan.end() - 8);
    CHECK(verify_plan_alone(cut).value_or("").rfind("the plan reader refuses it: ", 0) == 0);
}

namespace {

std::string describe(const Policy &p)
{
    std::string out = p.fs.read_scope.value == ReadScope::Granted ? "granted" : "all";
    out += p.fs.materialize.value ? " materialize" : "";
    out += p.fs.private_tmp.value ? " private_tmp" : "";
    out += p.process.isolate_proc.value ? " isolate_proc" : "";
    auto list = [&](const char *name, const std::vector<LocatedPath> &paths) {
        out += std::string(" ") + name + "=[";
        for (const LocatedPath &l : paths)
            out += l.value + " ";
        out += "]";
    };
    list("allow", p.fs.read_allows);
    list("deny", p.fs.read_denies);
    list("roots", p.fs.writable_roots);
    list("wdeny", p.fs.write_denies);
    list("private", p.fs.private_dirs);
    return out;
}

}  // namespace

TEST_CASE("verify: random policies over a small path universe all lower and verify, with and without a broker")
{
    const std::vector<std::string> universe = {"/",
                                               "/a",
                                               "/a/b",
                                               "/a/b/c",
                                               "/a/b/c/d",
                                               "/a/d",
                                               "/tmp",
                                               "/tmp/p",
                                               "/tmp/p/q",
                                               "/dev",
                                               "/dev/shm",
                                               "/dev/null",
                                               "/proc",
                                               "/proc/sys",
                                               "/usr",
                                               "/usr/bin",
                                               "/bin",
                                               "/bin/sh",
                                               "/lib",
                                               "/etc",
                                               "/etc/shadow",
                                               "/home/u",
                                               "/home/u/w",
                                               "/home/u/w/.git",
                                               "/home/u/w/.git/hooks",
                                               "/home/u/w/.git/hooks/x",
                                               "/home/u/w/policy.toml",
                                               "/home/u/w/src/a.c",
                                               "/run",
                                               "/run/user",
                                               "/run/credentials"};
    FakeHost host;
    host.kinds = {{"/usr", HostKind::Directory},      {"/bin", HostKind::Symlink},
                  {"/lib", HostKind::Symlink},        {"/home/u/w/policy.toml", HostKind::File},
                  {"/a/b", HostKind::Directory},      {"/a/d", HostKind::Directory},
                  {"/tmp/p", HostKind::Directory},    {"/home/u/w", HostKind::Directory},
                  {"/run/user", HostKind::Directory}, {"/etc", HostKind::Directory}};
    host.links = {{"/bin", "usr/bin"}, {"/lib", "/usr/lib"}};
    std::mt19937 rng(20261130);
    auto coin = [&] { return (rng() & 1u) != 0; };
    auto pick = [&] {
        std::vector<LocatedPath> out;
        const auto n = static_cast<unsigned>(rng() % 5);
        for (unsigned i = 0; i < n; i++) {
            const std::string &p = universe[rng() % universe.size()];
            if (std::none_of(out.begin(), out.end(), [&](const LocatedPath &l) { return l.value == p; }))
                out.push_back(rule_at(p, i + 1));
        }
        return out;
    };
    int broker_plans = 0, private_plans = 0, private_refused = 0;
    for (int round = 0; round < 2000; round++) {
        Policy p;
        p.source_path = "/home/u/w/policy.toml";
        p.fs.read_scope.value = coin() ? ReadScope::Granted : ReadScope::All;
        p.fs.materialize.value = coin();
        p.fs.private_tmp.value = coin();
        p.process.isolate_proc.value = coin();
        p.process.isolate_pids.value = coin();
        p.fs.read_allows = pick();
        p.fs.read_denies = pick();
        p.fs.writable_roots = pick();
        p.fs.write_denies = pick();
        LowerOptions options;
        options.plan_path = coin() ? "/home/u/w/plan.bin" : "";
        options.host = &host;
        if (coin())
            p.broker = broker_workspace_policy().broker;
        // Private dirs that exist on the host, wherever the picks put them (refused or not).
        if (coin())
            for (const LocatedPath &dir : pick())
                if (host.kind(dir.value) == HostKind::Directory)
                    p.fs.private_dirs.push_back(dir);
        Diagnostics diags;
        const std::vector<uint8_t> plan = lower_policy(p, options, diags);
        CAPTURE(round);
        CAPTURE(describe(p) + (p.broker ? " broker" : ""));
        CAPTURE((diags.all().empty() ? std::string() : diags.all().back().message));
        // A broker's credentials directory needs a /run the sandbox makes: a policy that shows
        // the host's is refused, and nothing else is.
        if (plan.empty() && p.broker && diags.all().back().rule_id == "credentials-dir")
            continue;
        // A private dir refused is refused for being one: nothing else about the policy.
        if (plan.empty() && !p.fs.private_dirs.empty()) {
            for (const Diagnostic &d : diags.all())
                if (d.severity == Severity::Error)
                    REQUIRE(d.rule_id == "private-dir");
            private_refused++;
            continue;
        }
        REQUIRE(!plan.empty());
        broker_plans += p.broker.has_value();
        private_plans += !p.fs.private_dirs.empty();
    }
    CHECK(broker_plans > 500);
    CHECK(private_plans > 50);
    CHECK(private_refused > 50);
}
