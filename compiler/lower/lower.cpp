// compiler/lower/lower.cpp — orchestration: policy → trie → filesystem layers → plan bytes. Everything here is a pure function of the policy, the options and what the
// host shows (lower_fs.h): no hash-map order, addresses or clock reach the bytes.
#include "lower.h"

#include <algorithm>
#include <stdexcept>

#include "fs_trie.h"
#include "lower_broker.h"
#include "lower_fs.h"
#include "lower_limits.h"
#include "lower_net.h"
#include "paths.h"
#include "plan_origin.h"
#include "plan_writer.h"
#include "private_dirs.h"
#include "seccomp_lower.h"
#include "seccomp_rules.h"
#include "syscall_rule_checks.h"
#include "syscall_table.h"

namespace tartaros {

namespace {

uint32_t namespace_flags(const Policy &policy)
{
    // Every network mode keeps a private network namespace (lower_net.h).
    uint32_t flags = TP_NS_USER | TP_NS_MOUNT | TP_NS_IPC | TP_NS_UTS | TP_NS_NET | TP_NS_CGROUP;
    if (policy.process.isolate_pids.value)
        flags |= TP_NS_PID;
    return flags;
}

uint64_t required_features(const Policy &policy)
{
    uint64_t features = TP_FEAT_USERNS | TP_FEAT_MOUNTNS | TP_FEAT_NETNS | TP_FEAT_IPCNS | TP_FEAT_UTSNS |
        TP_FEAT_CGROUPNS | TP_FEAT_LANDLOCK | TP_FEAT_SECCOMP | TP_FEAT_OPENAT2 | TP_FEAT_MOUNT_API;
    if (policy.process.isolate_pids.value)
        features |= TP_FEAT_PIDNS;
    return features;
}

// META and the included files (origins name them by their index in Policy::sources).
void write_meta(ir::PlanWriter &w, const Policy &policy)
{
    tp_meta meta{};
    meta.policy_path = w.str(policy.source_path);
    meta.compiler = w.str("tartaros-compile " TARTAROS_VERSION);
    meta.policy_version = static_cast<uint32_t>(policy.version.value);
    w.set_meta(meta);
    for (size_t k = 1; k < policy.sources.size(); k++)
        w.add_source(policy.sources[k].absolute);
}

void write_namespaces(ir::PlanWriter &w, const Policy &policy, const PlanOrigins &origin)
{
    tp_namespaces ns{};
    ns.flags = namespace_flags(policy);
    ns.required = ns.flags;
    ns.origin = origin(policy.process.isolate_pids.pos);
    w.set_namespaces(ns, true);
}

void write_filesystem(ir::PlanWriter &w, const FsLowering &fs, const PlanOrigins &origin)
{
    for (const MountStep &s : fs.mounts) {
        tp_mount m{};
        m.op = s.op;
        m.flags = s.flags;
        m.path = w.str(s.path);
        m.source = w.str(s.source);
        m.anchor = w.str(s.anchor);
        m.origin = origin(s.pos);
        w.add_mount(m);
    }
    w.set_mounts_required(true);

    tp_landlock_ruleset rs{};
    rs.handled_access_fs = kHandledRights;
    rs.scoped = kScopes;
    rs.abi = kLandlockAbi;
    rs.flags = TP_MNTF_REQUIRED;
    w.set_landlock(rs, true);
    for (const LandlockRule &r : fs.landlock) {
        tp_landlock_path p{};
        p.access = r.access;
        p.kind = r.kind;
        p.flags = r.flags;
        p.path = w.str(r.path);
        p.except = w.str(r.except);
        p.origin = origin(r.pos);
        w.add_landlock_path(p);
    }
}

void add_sets(ir::PlanWriter &w, const std::vector<std::pair<std::string, std::string>> &vars, tp_origin origin)
{
    for (const auto &[name, value] : vars) {
        tp_env e{};
        e.op = TP_ENV_SET;
        e.name = w.str(name);
        e.value = w.str(value);
        e.origin = origin;
        w.add_env(e);
    }
}

// The proxy's variables come first, so a policy that sets one itself has the last word; then
// the broker's (the front-end refuses [env] entries that name them).
void write_environment(ir::PlanWriter &w, const Policy &policy, const PlanOrigins &origin)
{
    const SourcePos &proxy_pos =
        policy.network.allow_domains.empty() ? SourcePos{} : policy.network.allow_domains.front().pos;
    add_sets(w, proxy_environment(policy.network), origin(proxy_pos));
    add_sets(w, broker_environment(policy.broker), origin(policy.broker ? policy.broker->pos : SourcePos{}));
    for (const Located<std::string> &name : policy.env.passthrough) {
        tp_env e{};
        e.op = TP_ENV_PASS;
        e.name = w.str(name.value);
        e.origin = origin(name.pos);
        w.add_env(e);
    }
    for (const auto &[name, value] : policy.env.set) {
        tp_env e{};
        e.op = TP_ENV_SET;
        e.name = w.str(name.value);
        e.value = w.str(value.value);
        e.origin = origin(name.pos);
        w.add_env(e);
    }
    tp_exec exec{};
    exec.flags = policy.env.inherit.value ? uint32_t{TP_EXEC_INHERIT_ENV} : 0u;
    exec.origin = origin(policy.env.inherit.pos);
    w.set_exec(exec);
}

// The profile's filter, lowered once per profile in a process: it depends on the profile
// alone, and a process that compiles or lints many policies meets few (libseccomp builds the
// same program every time: the plan stays byte-identical). Bounded, so a stream of different
// policies (a fuzzer's) is simply lowered each time.
std::vector<tp_bpf_insn> lowered_filter(const seccomp::ProfileSpec &spec)
{
    static std::vector<std::pair<seccomp::ProfileSpec, std::vector<tp_bpf_insn>>> lowered;
    for (const auto &[s, prog] : lowered)
        if (s == spec)
            return prog;
    std::vector<tp_bpf_insn> prog = seccomp::lower_seccomp(seccomp::Profile(spec.flags, spec.rules));
    if (lowered.size() < 16)
        lowered.emplace_back(spec, prog);
    return prog;
}

// The filter is loaded last, after Landlock; the section is required like every other layer.
// Its profile is rebuilt from the rule records just written, as --verify and --explain
// rebuild it from the plan.
void write_seccomp(ir::PlanWriter &w, const Policy &policy, const PlanOrigins &origin)
{
    write_syscall_rules(w, policy.syscalls, origin);
    const seccomp::ProfileSpec spec{seccomp_flags(policy),
                                    policy_rules_of(syscall_rule_records(w), OriginNames(policy))};
    tp_seccomp sc{};
    sc.profile = profile_bits(spec.flags);
    sc.table_max_nr = seccomp::kTableMaxNr;
    sc.harden_origin = origin(policy.process.harden_syscalls.pos);
    sc.deny_unix_origin = origin(policy.network.deny_unix.pos);
    w.set_seccomp(sc, lowered_filter(spec), true);
}

std::vector<uint8_t> write_plan(const Policy &policy, const FsLowering &fs, Diagnostics &diags)
{
    const PlanOrigins origin(policy);
    ir::PlanWriter w;
    write_meta(w, policy);
    write_namespaces(w, policy, origin);
    write_filesystem(w, fs, origin);
    write_environment(w, policy, origin);
    write_seccomp(w, policy, origin);
    write_network(w, policy, diags);
    if (policy.broker)
        write_broker(w, *policy.broker, origin);
    write_limits(w, policy.process, origin);
    w.set_required_features(required_features(policy));
    w.set_min_landlock_abi(std::max(landlock_abi_needed(kHandledRights), kScopesAbi));
    return w.finish();
}

// The credentials directory needs a mountpoint the enforcer can create (lower_broker.h).
bool credentials_dir_placeable(const Policy &policy, const FsLowering &fs, Diagnostics &diags)
{
    const MountStep *host = credentials_parent_from_host(fs.mounts);
    if (host == nullptr)
        return true;
    const std::string parent = parent_directory(TP_CREDENTIALS_DIR);
    const std::string why = host->path == "/" && host->op == TP_MNT_ROOT_READONLY
        ? "read_scope = \"all\" shows the host's " + parent + " because the policy names /run"
        : host->path + " is the host's directory here";
    diags.error(host->pos.line != 0 ? host->pos : policy.broker->pos,
                "[broker] needs its credentials directory " TP_CREDENTIALS_DIR " made inside the sandbox, but " + why +
                    ", where nothing can be created: name a narrower path than /run (such as /run/user or "
                    "/run/postgresql), or remove the rule",
                "credentials-dir");
    return false;
}

}  // namespace

seccomp::ProfileFlags seccomp_flags(const Policy &policy)
{
    return {policy.process.harden_syscalls.value, policy.network.deny_unix.value};
}

SourcePos policy_pos(const Policy &policy)
{
    return SourcePos{policy.version.pos.file.empty() ? policy.source_path : policy.version.pos.file, 0, 0};
}

std::vector<uint8_t> lower_unverified(const Policy &policy, const LowerOptions &options, Diagnostics &diags)
{
    const HostView &host = options.host != nullptr ? *options.host : real_host();
    if (!check_syscall_rules(policy, diags) || !check_private_dirs(policy, host, diags))
        return {};
    const FsTrie trie = build_fs_trie(policy, options.plan_path, &host, options.plan_cache_dir);
    const FsLowering fs = lower_filesystem(policy, trie, host, diags);
    if (policy.broker && !credentials_dir_placeable(policy, fs, diags))
        return {};

    std::vector<uint8_t> plan;
    try {
        plan = write_plan(policy, fs, diags);
    } catch (const seccomp::RulesTooIntricate &e) {
        diags.error(policy_pos(policy), std::string("cannot build the seccomp filter: ") + e.what(), "seccomp-build");
        return {};
    } catch (const std::length_error &e) {
        diags.error(policy_pos(policy), std::string("the plan would be too large: ") + e.what(), "plan-size");
        return {};
    } catch (const std::runtime_error &e) {
        diags.error(policy_pos(policy), std::string("cannot build the seccomp filter: ") + e.what(), "seccomp-build");
        return {};
    }
    return plan;
}

}  // namespace tartaros
