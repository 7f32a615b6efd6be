// Unit tests of the lowering: representative policies into exact mount steps and Landlock
// rules (op, path, flags, source, anchor, order), the automatic write-denies, absent-target
// flags, symlinked system paths, diagnostics and determinism.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "fake_host.h"
#include "lower_fs.h"
#include "plan_reader.h"
#include "verify.h"

using namespace tartaros;

namespace {

constexpr uint32_t REQ = TP_MNTF_REQUIRED;
constexpr uint32_t OPT = TP_MNTF_OPTIONAL;
constexpr uint32_t RO = TP_MNTF_RDONLY;
constexpr uint32_t MASK_ABSENT = TP_MNTF_MASK_ABSENT;
constexpr uint32_t MAT_DIR = TP_MNTF_MATERIALIZE_DIR;
constexpr uint32_t MAT_FILE = TP_MNTF_MATERIALIZE_FILE;
// A git file beside a write-denied .git/hooks (implied_denies.h), made for the run if absent.
constexpr uint32_t GIT_FILE = TP_MNTF_REQUIRED | TP_MNTF_GIT | TP_MNTF_PLACEHOLDER | TP_MNTF_MATERIALIZE_FILE;
constexpr uint32_t GIT_DIR = TP_MNTF_REQUIRED | TP_MNTF_GIT | TP_MNTF_PLACEHOLDER | TP_MNTF_MATERIALIZE_DIR;
constexpr uint64_t READ = kReadRights;
constexpr uint64_t WRITE = kWriteRights;
constexpr uint64_t DIR = TP_LL_FS_READ_DIR;
constexpr uint64_t DEVFILE = TP_LL_FS_WRITE_FILE | TP_LL_FS_READ_FILE | TP_LL_FS_TRUNCATE | TP_LL_FS_IOCTL_DEV;

struct Step {
    uint32_t op;
    std::string path;
    uint32_t flags;
    std::string source = "";
    std::string anchor = "";
    bool operator==(const Step &) const = default;
};
std::ostream &operator<<(std::ostream &out, const Step &s)
{
    return out << "{op " << s.op << ' ' << s.path << " flags 0x" << std::hex << s.flags << std::dec << " src '"
               << s.source << "' anchor '" << s.anchor << "'}";
}

struct Rule {
    uint32_t kind;
    std::string path;
    uint64_t access;
    uint32_t flags;
    std::string except = "";
    bool operator==(const Rule &) const = default;
};
std::ostream &operator<<(std::ostream &out, const Rule &r)
{
    return out << "{kind " << r.kind << ' ' << r.path << " access 0x" << std::hex << r.access << " flags 0x" << r.flags
               << std::dec << " except '" << r.except << "'}";
}

struct Lowered {
    std::vector<uint8_t> bytes;
    tp_plan plan{};
    std::vector<Step> steps;
    std::vector<Rule> rules;
    std::vector<tp_origin> step_origins;
    Diagnostics diags;
};

LocatedPath rule_at(const std::string &path, uint32_t line)
{
    return {path, SourcePos{"/w/policy.toml", line, 3}};
}

void lower(Lowered &out, const Policy &policy, const HostView &host, const std::string &plan_path = "")
{
    LowerOptions options;
    options.plan_path = plan_path;
    options.host = &host;
    out.bytes = lower_policy(policy, options, out.diags);
    REQUIRE_MESSAGE(!out.bytes.empty(), (out.diags.all().empty() ? "" : out.diags.all().back().message));
    char err[256];
    REQUIRE(tp_plan_open(out.bytes.data(), static_cast<uint32_t>(out.bytes.size()), &out.plan, err, sizeof err) == 0);
    for (uint32_t i = 0; i < out.plan.mount_count; i++) {
        const tp_mount &m = out.plan.mounts[i];
        out.steps.push_back(Step{m.op, tp_plan_str(&out.plan, m.path), m.flags, tp_plan_str(&out.plan, m.source),
                                 tp_plan_str(&out.plan, m.anchor)});
        out.step_origins.push_back(m.origin);
    }
    for (uint32_t i = 0; i < out.plan.landlock_path_count; i++) {
        const tp_landlock_path &r = out.plan.landlock_paths[i];
        out.rules.push_back(
            Rule{r.kind, tp_plan_str(&out.plan, r.path), r.access, r.flags, tp_plan_str(&out.plan, r.except)});
    }
}

template <class T>
void check_list(const std::vector<T> &got, const std::vector<T> &want)
{
    for (size_t i = 0; i < std::max(got.size(), want.size()); i++) {
        CAPTURE(i);
        if (i >= got.size())
            FAIL_CHECK("missing: " << want[i]);
        else if (i >= want.size())
            FAIL_CHECK("unexpected: " << got[i]);
        else
            CHECK(got[i] == want[i]);
    }
}

std::vector<Rule> device_rules()
{
    return {{TP_LL_PATH, "/dev/full", DEVFILE, OPT},
            {TP_LL_PATH, "/dev/null", DEVFILE, OPT},
            {TP_LL_PATH, "/dev/pts", DEVFILE | TP_LL_FS_READ_DIR, OPT},
            {TP_LL_PATH, "/dev/shm", WRITE, OPT},
            {TP_LL_PATH, "/dev/tty", DEVFILE, OPT},
            {TP_LL_PATH, "/dev/zero", DEVFILE, OPT}};
}

size_t count_rule_id(const Diagnostics &diags, const std::string &id, Severity severity)
{
    return static_cast<size_t>(std::count_if(diags.all().begin(), diags.all().end(), [&](const Diagnostic &d) {
        return d.rule_id == id && d.severity == severity;
    }));
}

// A workspace policy in scope "all": the shape of examples/agent.toml.
Policy workspace_policy()
{
    Policy p;
    p.fs.writable_roots = {rule_at("/w", 4)};
    p.fs.write_denies = {rule_at("/w/.git/hooks", 5), rule_at("/w/.git/config", 5)};
    p.fs.read_denies = {rule_at("/home/u/.ssh", 6)};
    p.fs.private_tmp.value = true;
    return p;
}

}  // namespace

TEST_CASE("lower: a workspace policy in scope all")
{
    FakeHost host;
    host.kinds["/w/.git/config"] = HostKind::File;  // exists: no effect without materialize
    host.kinds["/w/.git"] = HostKind::Directory;    // a repository: its git files are protected too
    Lowered l;
    lower(l, workspace_policy(), host);
    check_list(l.steps,
               {
                   {TP_MNT_ROOT_READONLY, "/", REQ},
                   {TP_MNT_DEV, "/dev", REQ},
                   {TP_MNT_PROC, "/proc", REQ},
                   {TP_MNT_TMPFS, "/tmp", REQ},
                   {TP_MNT_MASK, "/home/u/.ssh", REQ | OPT},
                   {TP_MNT_MASK, "/run", REQ | OPT},  // implied: host unix sockets
                   {TP_MNT_BIND, "/w", 0, "/w"},
                   {TP_MNT_PIN, "/w/.git", REQ | OPT, "", "/w"},
                   {TP_MNT_WRITE_DENY, "/w/.git/commondir", GIT_FILE, ".\n", "/w"},
                   {TP_MNT_WRITE_DENY, "/w/.git/config", REQ | MASK_ABSENT, "", "/w"},
                   {TP_MNT_WRITE_DENY, "/w/.git/config.worktree", GIT_FILE, "", "/w"},
                   {TP_MNT_WRITE_DENY, "/w/.git/hooks", REQ | MASK_ABSENT, "", "/w"},
                   {TP_MNT_WRITE_DENY, "/w/.git/worktrees", GIT_DIR, "", "/w"},
               });
    std::vector<Rule> want = {
        {TP_LL_EXPAND, "/", READ, 0, "home/run"},
        {TP_LL_PATH, "/", DIR, 0},
    };
    for (const Rule &r : device_rules())
        want.push_back(r);
    for (const Rule &r : std::vector<Rule>{{TP_LL_EXPAND, "/home", READ, OPT, "u"},
                                           {TP_LL_PATH, "/home", DIR, OPT},
                                           {TP_LL_EXPAND, "/home/u", READ, OPT, ".ssh"},
                                           {TP_LL_PATH, "/home/u", DIR, OPT},
                                           {TP_LL_PATH, "/tmp", WRITE, 0},
                                           {TP_LL_PATH, "/w", WRITE, 0}})
        want.push_back(r);
    check_list(l.rules, want);

    CHECK(l.plan.ns->flags ==
          (TP_NS_USER | TP_NS_MOUNT | TP_NS_PID | TP_NS_NET | TP_NS_IPC | TP_NS_UTS | TP_NS_CGROUP));
    CHECK(l.plan.ns->required == l.plan.ns->flags);
    CHECK(l.plan.landlock->handled_access_fs == TP_LL_FS_ALL_ABI7);
    CHECK(l.plan.landlock->abi == 7);
    CHECK(l.plan.landlock->scoped == (TP_LL_SCOPE_ABSTRACT_UNIX_SOCKET | TP_LL_SCOPE_SIGNAL));
    CHECK(l.plan.landlock->handled_access_net == 0);
    CHECK(l.plan.header->min_landlock_abi == 6);  // the scopes; the rights alone need 5
    CHECK((l.plan.header->required_features & (TP_FEAT_USERNS | TP_FEAT_MOUNTNS | TP_FEAT_LANDLOCK)) ==
          (TP_FEAT_USERNS | TP_FEAT_MOUNTNS | TP_FEAT_LANDLOCK));
    CHECK((l.plan.mounts_section_flags & TP_SECF_REQUIRED) != 0);

    // Origins: each step points at the policy line that caused it.
    CHECK(l.step_origins[4].line == 6);  // MASK /home/u/.ssh
    CHECK(l.step_origins[5].line == 0);  // MASK /run, implied
    CHECK(l.step_origins[6].line == 4);  // BIND /w
    CHECK(l.step_origins[7].line == 5);  // PIN for the write deny
    CHECK(l.step_origins[0].line == 0);  // implied default scope

    CHECK(count_rule_id(l.diags, "mount-only", Severity::Note) == 2);
    CHECK_FALSE(l.diags.has_errors());
}

TEST_CASE("lower: granted scope binds system paths back, symlinks as SYMLINK steps")
{
    FakeHost host;
    host.kinds = {{"/usr", HostKind::Directory},
                  {"/etc", HostKind::Directory},
                  {"/bin", HostKind::Symlink},
                  {"/lib", HostKind::Symlink},
                  {"/sbin", HostKind::Symlink}};  // no /lib64 on this host
    host.links = {{"/bin", "usr/bin"}, {"/lib", "usr/lib"}, {"/sbin", "usr/sbin"}};
    Policy p;
    p.fs.read_scope = {ReadScope::Granted, SourcePos{"/w/policy.toml", 2, 1}};
    p.fs.writable_roots = {rule_at("/home/u/proj", 3)};
    p.fs.read_allows = {rule_at("/opt/tools", 4)};
    Lowered l;
    lower(l, p, host);
    check_list(l.steps,
               {
                   {TP_MNT_ROOT_EMPTY, "/", REQ},
                   {TP_MNT_SYMLINK, "/bin", 0, "usr/bin"},
                   {TP_MNT_BIND, "/etc", RO | OPT, "/etc"},
                   {TP_MNT_SYMLINK, "/lib", 0, "usr/lib"},
                   {TP_MNT_BIND, "/lib64", RO | OPT, "/lib64"},
                   {TP_MNT_SYMLINK, "/sbin", 0, "usr/sbin"},
                   {TP_MNT_BIND, "/usr", RO | OPT, "/usr"},
                   {TP_MNT_DEV, "/dev", REQ},
                   {TP_MNT_PROC, "/proc", REQ},
                   {TP_MNT_BIND, "/home/u/proj", 0, "/home/u/proj"},
                   {TP_MNT_BIND, "/opt/tools", RO | OPT, "/opt/tools"},
               });
    std::vector<Rule> want = {{TP_LL_PATH, "/", DIR, 0}, {TP_LL_PATH, "/dev", READ, 0}};
    for (const Rule &r : device_rules())
        want.push_back(r);
    for (const Rule &r : std::vector<Rule>{{TP_LL_PATH, "/etc", READ, OPT},
                                           {TP_LL_PATH, "/home/u/proj", WRITE, 0},
                                           {TP_LL_PATH, "/lib64", READ, OPT},
                                           {TP_LL_PATH, "/opt/tools", READ, OPT},
                                           {TP_LL_PATH, "/proc", READ, 0},
                                           {TP_LL_PATH, "/usr", READ, OPT}})
        want.push_back(r);
    check_list(l.rules, want);
    CHECK(l.step_origins[1].line == 2);  // the symlink comes from read_scope
}

TEST_CASE("lower: granted scope without isolate_proc binds the host's /proc")
{
    FakeHost host;
    Policy p;
    p.fs.read_scope.value = ReadScope::Granted;
    p.process.isolate_proc.value = false;
    p.process.isolate_pids.value = false;
    Lowered l;
    lower(l, p, host);
    CHECK(std::find(l.steps.begin(), l.steps.end(), Step{TP_MNT_BIND, "/proc", RO | OPT, "/proc"}) != l.steps.end());
    for (const Step &s : l.steps)
        CHECK(s.op != TP_MNT_PROC);
    CHECK((l.plan.ns->flags & TP_NS_PID) == 0);
    CHECK((l.plan.header->required_features & TP_FEAT_PIDNS) == 0);
}

TEST_CASE("lower: the policy file and the plan are write-denied when inside a writable root")
{
    FakeHost host;
    host.kinds["/w/policy.toml"] = HostKind::File;
    Policy p;
    p.source_path = "/w/policy.toml";
    p.fs.writable_roots = {rule_at("/w", 2)};
    p.fs.materialize.value = true;
    Lowered l;
    lower(l, p, host, "/w/build/plan.bin");  // the plan does not exist yet: still a file
    check_list(l.steps,
               {
                   {TP_MNT_ROOT_READONLY, "/", REQ},
                   {TP_MNT_DEV, "/dev", REQ},
                   {TP_MNT_PROC, "/proc", REQ},
                   {TP_MNT_MASK, "/run", REQ | OPT},
                   {TP_MNT_BIND, "/w", 0, "/w"},
                   {TP_MNT_PIN, "/w/build", REQ | MAT_DIR, "", "/w"},
                   {TP_MNT_WRITE_DENY, "/w/build/plan.bin", REQ | MAT_FILE, "", "/w"},
                   {TP_MNT_WRITE_DENY, "/w/policy.toml", REQ | MAT_FILE, "", "/w"},
               });
    CHECK(l.step_origins[6].line == 0);
    CHECK(l.step_origins[7].line == 0);
    CHECK(count_rule_id(l.diags, "mount-only", Severity::Note) == 0);  // implied rules make no noise

    Lowered outside;
    lower(outside, p, host, "/var/plan.bin");
    for (const Step &s : outside.steps)
        CHECK(s.path != "/var/plan.bin");
}

TEST_CASE("lower: absent deny targets are materialized or masked, by the filesystem's word only")
{
    FakeHost host;
    host.kinds["/w/.env"] = HostKind::File;
    Policy p;
    p.fs.writable_roots = {rule_at("/w", 1)};
    p.fs.write_denies = {rule_at("/w/.env", 2), rule_at("/w/notes.txt", 3), rule_at("/w/.git/hooks", 4)};
    p.fs.read_denies = {rule_at("/w/secrets", 5)};

    SUBCASE("materialize")
    {
        p.fs.materialize.value = true;
        Lowered l;
        lower(l, p, host);
        check_list(l.steps,
                   {
                       {TP_MNT_ROOT_READONLY, "/", REQ},
                       {TP_MNT_DEV, "/dev", REQ},
                       {TP_MNT_PROC, "/proc", REQ},
                       {TP_MNT_MASK, "/run", REQ | OPT},
                       {TP_MNT_BIND, "/w", 0, "/w"},
                       {TP_MNT_WRITE_DENY, "/w/.env", REQ | MAT_FILE, "", "/w"},
                       {TP_MNT_PIN, "/w/.git", REQ | MAT_DIR, "", "/w"},
                       {TP_MNT_WRITE_DENY, "/w/.git/hooks", REQ | MAT_DIR, "", "/w"},
                       {TP_MNT_WRITE_DENY, "/w/notes.txt", REQ | MAT_DIR, "", "/w"},
                       {TP_MNT_MASK, "/w/secrets", REQ | MAT_DIR, "", "/w"},
                   });
    }
    SUBCASE("mask absent")
    {
        Lowered l;
        lower(l, p, host);
        check_list(l.steps,
                   {
                       {TP_MNT_ROOT_READONLY, "/", REQ},
                       {TP_MNT_DEV, "/dev", REQ},
                       {TP_MNT_PROC, "/proc", REQ},
                       {TP_MNT_MASK, "/run", REQ | OPT},
                       {TP_MNT_BIND, "/w", 0, "/w"},
                       {TP_MNT_WRITE_DENY, "/w/.env", REQ | MASK_ABSENT, "", "/w"},
                       {TP_MNT_PIN, "/w/.git", REQ | OPT, "", "/w"},
                       {TP_MNT_WRITE_DENY, "/w/.git/hooks", REQ | MASK_ABSENT, "", "/w"},
                       {TP_MNT_WRITE_DENY, "/w/notes.txt", REQ | MASK_ABSENT, "", "/w"},
                       {TP_MNT_MASK, "/w/secrets", REQ | MASK_ABSENT, "", "/w"},
                   });
        CHECK(count_rule_id(l.diags, "mount-only", Severity::Note) == 4);
    }
}

TEST_CASE("lower: a deny target the policy declares a file is materialized as a file")
{
    FakeHost host;
    Policy p;
    p.fs.writable_roots = {rule_at("/w", 1)};
    p.fs.write_denies = {rule_at("/w/.git/config", 2), rule_at("/w/.git/hooks", 3)};
    p.fs.file_targets = {"/w/.git/config"};
    p.fs.materialize.value = true;
    Lowered l;
    lower(l, p, host);
    check_list(l.steps,
               {
                   {TP_MNT_ROOT_READONLY, "/", REQ},
                   {TP_MNT_DEV, "/dev", REQ},
                   {TP_MNT_PROC, "/proc", REQ},
                   {TP_MNT_MASK, "/run", REQ | OPT},
                   {TP_MNT_BIND, "/w", 0, "/w"},
                   {TP_MNT_PIN, "/w/.git", REQ | MAT_DIR, "", "/w"},
                   {TP_MNT_WRITE_DENY, "/w/.git/config", REQ | MAT_FILE, "", "/w"},
                   {TP_MNT_WRITE_DENY, "/w/.git/hooks", REQ | MAT_DIR, "", "/w"},
               });
}

TEST_CASE("lower: a deny with allowed descendants is masked, then they are bound back")
{
    FakeHost host;
    Policy p;
    p.fs.read_denies = {rule_at("/home/u", 1)};
    p.fs.read_allows = {rule_at("/home/u/pub", 2)};
    p.fs.writable_roots = {rule_at("/home/u/proj", 3), rule_at("/home/u/proj/sub", 4)};
    p.fs.write_denies = {rule_at("/home/u/proj/sub/.git", 5), rule_at("/etc/hosts", 6)};
    Lowered l;
    lower(l, p, host);
    check_list(l.steps,
               {
                   {TP_MNT_ROOT_READONLY, "/", REQ},
                   {TP_MNT_DEV, "/dev", REQ},
                   {TP_MNT_PROC, "/proc", REQ},
                   {TP_MNT_MASK, "/home/u", REQ | OPT},
                   {TP_MNT_BIND, "/home/u/proj", 0, "/home/u/proj"},
                   {TP_MNT_BIND, "/home/u/proj/sub", 0, "/home/u/proj/sub"},  // nested root: own mount
                   {TP_MNT_WRITE_DENY, "/home/u/proj/sub/.git", REQ | MASK_ABSENT, "", "/home/u/proj/sub"},
                   {TP_MNT_BIND, "/home/u/pub", RO | OPT, "/home/u/pub"},
                   {TP_MNT_MASK, "/run", REQ | OPT},
               });
    std::vector<Rule> want = {{TP_LL_EXPAND, "/", READ, 0, "home/run"}, {TP_LL_PATH, "/", DIR, 0}};
    for (const Rule &r : device_rules())
        want.push_back(r);
    for (const Rule &r : std::vector<Rule>{{TP_LL_EXPAND, "/home", READ, OPT, "u"},
                                           {TP_LL_PATH, "/home", DIR, OPT},
                                           {TP_LL_PATH, "/home/u/proj", WRITE, 0},
                                           {TP_LL_PATH, "/home/u/pub", READ, OPT}})
        want.push_back(r);
    check_list(l.rules, want);
    CHECK(count_rule_id(l.diags, "write-deny-outside-roots", Severity::Warning) == 1);
    CHECK(count_rule_id(l.diags, "mount-only", Severity::Note) == 1);
}

TEST_CASE("lower: denies inside a writable root expand nothing above it")
{
    FakeHost host;
    Policy p;
    p.fs.writable_roots = {rule_at("/home/u/proj", 1)};
    p.fs.read_denies = {rule_at("/home/u/proj/.env", 2)};
    p.fs.read_allows = {rule_at("/run", 3), rule_at("/tmp", 3)};  // named: no implied deny expands / either
    Lowered l;
    lower(l, p, host);
    std::vector<Rule> want = {{TP_LL_PATH, "/", READ, 0}};
    for (const Rule &r : device_rules())
        want.push_back(r);
    want.push_back({TP_LL_PATH, "/home/u/proj", WRITE, 0});
    check_list(l.rules, want);
    CHECK(std::find(l.steps.begin(), l.steps.end(),
                    Step{TP_MNT_MASK, "/home/u/proj/.env", REQ | MASK_ABSENT, "", "/home/u/proj"}) != l.steps.end());
    CHECK(count_rule_id(l.diags, "mount-only", Severity::Note) == 1);
}

TEST_CASE("lower: /run, where host services keep their sockets, is hidden unless named; the host's /tmp is not")
{
    FakeHost host;
    Policy p;
    p.fs.writable_roots = {rule_at("/w", 1)};
    auto has_mask = [](const Lowered &l, const char *path) {
        return std::find(l.steps.begin(), l.steps.end(), Step{TP_MNT_MASK, path, REQ | OPT}) != l.steps.end();
    };
    auto has_run_mask = [&](const Lowered &l) { return has_mask(l, "/run"); };
    auto has_step_at = [](const Lowered &l, const char *path) {
        return std::any_of(l.steps.begin(), l.steps.end(), [&](const Step &s) { return s.path == path; });
    };
    Lowered all;
    lower(all, p, host);
    CHECK(has_run_mask(all));
    CHECK(all.step_origins[3].line == 0);
    CHECK_FALSE(has_step_at(all, "/tmp"));  // read-only like the rest of "all"

    p.fs.private_tmp.value = true;  // the private tmpfs replaces the host's /tmp
    Lowered private_tmp;
    lower(private_tmp, p, host);
    CHECK(std::find(private_tmp.steps.begin(), private_tmp.steps.end(), Step{TP_MNT_TMPFS, "/tmp", REQ}) !=
          private_tmp.steps.end());
    p.fs.private_tmp.value = false;

    p.fs.read_denies = {rule_at("/tmp", 2)};  // the way to hide the host's /tmp whole
    Lowered hidden;
    lower(hidden, p, host);
    CHECK(has_mask(hidden, "/tmp"));
    p.fs.read_denies = {};

    p.fs.read_allows = {rule_at("/run/postgresql", 2)};  // re-opens that socket directory only
    Lowered reopened;
    lower(reopened, p, host);
    CHECK(has_run_mask(reopened));
    CHECK(std::find(reopened.steps.begin(), reopened.steps.end(),
                    Step{TP_MNT_BIND, "/run/postgresql", RO | OPT, "/run/postgresql"}) != reopened.steps.end());

    p.fs.read_allows = {rule_at("/run", 2)};
    Lowered named;
    lower(named, p, host);
    CHECK_FALSE(has_run_mask(named));

    p.fs.read_allows = {};
    p.fs.read_scope = {ReadScope::Granted, SourcePos{"p", 3, 1}};
    Lowered granted;
    lower(granted, p, host);
    CHECK_FALSE(has_run_mask(granted));  // never bound back in the first place
    for (const Step &s : granted.steps)
        CHECK(s.path.rfind("/run", 0) != 0);
}

TEST_CASE("lower: the private /tmp binds the granted paths beneath it from the host; its denies are moot")
{
    FakeHost host;
    Policy p;
    p.fs.private_tmp.value = true;
    p.fs.writable_roots = {rule_at("/tmp/lab/ws", 1)};
    p.fs.read_allows = {rule_at("/tmp/pub", 2), rule_at("/tmp/deep/er/pub", 2)};
    p.fs.read_denies = {rule_at("/tmp/lab/secret", 3), rule_at("/tmp/lab/ws/.env", 4)};
    p.fs.write_denies = {rule_at("/tmp/other", 5), rule_at("/tmp/lab/ws/.git/hooks", 6)};
    p.fs.materialize.value = true;
    Lowered l;
    lower(l, p, host);
    check_list(l.steps,
               {
                   {TP_MNT_ROOT_READONLY, "/", REQ},
                   {TP_MNT_DEV, "/dev", REQ},
                   {TP_MNT_PROC, "/proc", REQ},
                   {TP_MNT_TMPFS, "/tmp", REQ},
                   {TP_MNT_MASK, "/run", REQ | OPT},
                   {TP_MNT_BIND, "/tmp/deep/er/pub", RO | OPT, "/tmp/deep/er/pub"},  // no PIN on the way
                   {TP_MNT_BIND, "/tmp/lab/ws", 0, "/tmp/lab/ws"},
                   {TP_MNT_MASK, "/tmp/lab/ws/.env", REQ | MAT_DIR, "", "/tmp/lab/ws"},
                   {TP_MNT_PIN, "/tmp/lab/ws/.git", REQ | MAT_DIR, "", "/tmp/lab/ws"},
                   {TP_MNT_WRITE_DENY, "/tmp/lab/ws/.git/hooks", REQ | MAT_DIR, "", "/tmp/lab/ws"},
                   {TP_MNT_BIND, "/tmp/pub", RO | OPT, "/tmp/pub"},
               });
    // The host's /tmp/lab/secret and /tmp/other are not in the private /tmp: nothing to hide.
    CHECK(count_rule_id(l.diags, "private-tmp-hides", Severity::Note) == 2);
    CHECK(l.diags.error_count() == 0);
}

TEST_CASE("lower: a deny written through a host symlink is reported")
{
    FakeHost host;
    host.kinds = {{"/home", HostKind::Symlink}, {"/w/link", HostKind::Symlink}};
    host.links = {{"/home", "var/home"}, {"/w/link", "/elsewhere"}};
    Policy p;
    p.fs.read_denies = {rule_at("/home/u/.ssh", 1)};
    p.fs.writable_roots = {rule_at("/w", 2)};
    p.fs.write_denies = {rule_at("/w/link/x", 3)};  // inside a writable root: the enforcer's business
    Lowered l;
    lower(l, p, host);
    REQUIRE(count_rule_id(l.diags, "symlink-in-path", Severity::Warning) == 1);
    for (const Diagnostic &d : l.diags.all())
        if (d.rule_id == "symlink-in-path") {
            CHECK(d.pos.line == 1);
            CHECK(d.message.find("/home -> var/home") != std::string::npos);
        }
}

TEST_CASE("lower: environment, exec and meta follow the policy")
{
    FakeHost host;
    Policy p;
    p.source_path = "/etc/tartaros/p.toml";
    p.env.inherit = {true, SourcePos{"p", 7, 1}};
    p.env.passthrough = {{"PATH", SourcePos{"p", 8, 1}}, {"HOME", SourcePos{"p", 8, 9}}};
    p.env.set = {{{"CI", SourcePos{"p", 9, 1}}, {"1", SourcePos{"p", 9, 6}}},
                 {{"A", SourcePos{"p", 10, 1}}, {"x=y", SourcePos{"p", 10, 5}}}};
    Lowered l;
    lower(l, p, host);
    REQUIRE(l.plan.env_count == 4);
    CHECK(l.plan.env[0].op == TP_ENV_PASS);
    CHECK(std::string(tp_plan_str(&l.plan, l.plan.env[1].name)) == "HOME");
    CHECK(l.plan.env[2].op == TP_ENV_SET);
    CHECK(std::string(tp_plan_str(&l.plan, l.plan.env[2].name)) == "CI");
    CHECK(std::string(tp_plan_str(&l.plan, l.plan.env[3].value)) == "x=y");
    CHECK(l.plan.env[3].origin.line == 10);
    CHECK(l.plan.exec->flags == TP_EXEC_INHERIT_ENV);
    CHECK(l.plan.exec->origin.line == 7);
    CHECK(std::string(tp_plan_str(&l.plan, l.plan.meta->policy_path)) == "/etc/tartaros/p.toml");
    CHECK(std::string(tp_plan_str(&l.plan, l.plan.meta->compiler)) == "tartaros-compile " TARTAROS_VERSION);
    CHECK(l.plan.meta->policy_version == 1);
}

TEST_CASE("lower: the same policy gives the same bytes")
{
    FakeHost host;
    host.kinds["/bin"] = HostKind::Symlink;
    host.links["/bin"] = "usr/bin";
    Policy p = workspace_policy();
    p.fs.read_allows = {rule_at("/opt/b", 9), rule_at("/opt/a", 10)};
    p.fs.read_scope.value = ReadScope::Granted;
    p.source_path = "/w/policy.toml";
    Lowered first, second;
    lower(first, p, host, "/w/plan.bin");
    lower(second, p, host, "/w/plan.bin");
    CHECK(first.bytes == second.bytes);

    // And the real host lowering is deterministic too.
    Diagnostics d1, d2;
    CHECK(lower_policy(p, LowerOptions{"/w/plan.bin"}, d1) == lower_policy(p, LowerOptions{"/w/plan.bin"}, d2));
}
