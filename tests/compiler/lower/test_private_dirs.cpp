// Unit tests of private_dirs: the trie levels, the lowering (a TMPFS after the bind that holds
// it, Landlock write only where nothing grants it yet), the implied denies left out beneath
// one, and every refusal with its exact diagnostic.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "explain.h"
#include "fake_host.h"
#include "frontend.h"
#include "fs_trie.h"
#include "paths.h"
#include "plan_reader.h"
#include "print_policy.h"
#include "verify.h"

using namespace tartaros;

namespace {

LocatedPath at(const std::string &path, uint32_t line)
{
    return {path, SourcePos{"/w/policy.toml", line, 3}};
}

// The workspace of the integration test: /w writable, /w/.sockets private.
Policy sockets_policy()
{
    Policy p;
    p.source_path = "/w/policy.toml";
    p.fs.writable_roots = {at("/w", 3)};
    p.fs.private_dirs = {at("/w/.sockets", 4)};
    return p;
}

FakeHost host_with(std::initializer_list<const char *> dirs)
{
    FakeHost host;
    for (const char *d : dirs)
        host.kinds[d] = HostKind::Directory;
    return host;
}

// The verified plan of `p` on `host`; empty when refused.
std::vector<uint8_t> lowered(const Policy &p, const HostView &host, Diagnostics &diags)
{
    LowerOptions options;
    options.host = &host;
    return lower_policy(p, options, diags);
}

// The printed diagnostics of lowering `p` on `host` (no plan expected), one per line.
std::string refusals(const Policy &p, const HostView &host)
{
    Diagnostics diags;
    CHECK(lowered(p, host, diags).empty());
    std::ostringstream out;
    for (const Diagnostic &d : diags.all())
        if (d.severity == Severity::Error)
            out << position_text(d.pos) << ": " << d.message << " [" << d.rule_id << "]\n";
    return out.str();
}

struct Step {
    uint32_t op;
    std::string path;
    uint32_t flags;
    bool operator==(const Step &) const = default;
};

std::vector<Step> steps_of(const std::vector<uint8_t> &bytes)
{
    tp_plan plan{};
    char err[256];
    REQUIRE(tp_plan_open(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan, err, sizeof err) == 0);
    std::vector<Step> steps;
    for (uint32_t i = 0; i < plan.mount_count; i++)
        steps.push_back({plan.mounts[i].op, tp_plan_str(&plan, plan.mounts[i].path), plan.mounts[i].flags});
    return steps;
}

// Landlock PATH rules as "path access" lines.
std::vector<std::string> write_rules_of(const std::vector<uint8_t> &bytes)
{
    tp_plan plan{};
    char err[256];
    REQUIRE(tp_plan_open(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan, err, sizeof err) == 0);
    std::vector<std::string> rules;
    for (uint32_t i = 0; i < plan.landlock_path_count; i++)
        if (plan.landlock_paths[i].access == kWriteRights)
            rules.push_back(tp_plan_str(&plan, plan.landlock_paths[i].path));
    return rules;
}

}  // namespace

TEST_CASE("private dirs: the trie makes them writable, whatever holds them")
{
    Policy p = sockets_policy();
    p.fs.read_denies = {at("/home/u/.cache", 5)};
    p.fs.private_dirs.push_back(at("/home/u/.cache/tool", 6));
    p.fs.private_dirs.push_back(at("/srv/scratch", 7));
    const FsTrie trie = build_fs_trie(p, "");
    CHECK(trie.find("/w/.sockets")->deciding_rule()->kind == RuleKind::PrivateDir);
    CHECK(trie.level_at("/w/.sockets/x.sock") == Level::Write);
    CHECK(trie.level_at("/home/u/.cache") == Level::None);
    CHECK(trie.level_at("/home/u/.cache/tool/f") == Level::Write);  // inside a deny: its own tmpfs
    CHECK(trie.level_at("/srv") == Level::Read);
    CHECK(trie.level_at("/srv/scratch") == Level::Write);  // outside every writable root
    CHECK(trie.find("/w/.sockets")->deciding_rule()->pos.line == 4);
}

TEST_CASE("private dirs: no implied deny beneath one (the policy file, the plan, git's files)")
{
    Policy p = sockets_policy();
    p.source_path = "/w/.sockets/policy.toml";
    FakeHost host = host_with({"/w/.sockets", "/w/repo/.git"});
    p.fs.write_denies = {at("/w/repo/.git/hooks", 5)};
    p.fs.private_dirs.push_back(at("/w/repo/.git/worktrees", 6));
    host.kinds["/w/repo/.git/worktrees"] = HostKind::Directory;
    const FsTrie trie = build_fs_trie(p, "/w/.sockets/plan.bin", &host);
    CHECK(trie.find("/w/.sockets/policy.toml") == nullptr);
    CHECK(trie.find("/w/.sockets/plan.bin") == nullptr);
    CHECK_FALSE(trie.find("/w/repo/.git/worktrees")->has_rule(RuleKind::WriteDeny));
    CHECK(trie.find("/w/repo/.git/config")->has_rule(RuleKind::WriteDeny));  // outside it: still protected

    p.fs.private_dirs.clear();  // the control: without the private dir both are implied
    p.source_path = "/w/policy.toml";
    const FsTrie plain = build_fs_trie(p, "/w/.sockets/plan.bin", &host);
    CHECK(plain.find("/w/.sockets/plan.bin")->has_rule(RuleKind::WriteDeny));
    CHECK(plain.find("/w/repo/.git/worktrees")->has_rule(RuleKind::WriteDeny));
}

TEST_CASE("private dirs: lowered to a TMPFS after the bind that holds it, in walk order")
{
    Policy p = sockets_policy();
    p.fs.write_denies = {at("/w/zz", 5)};
    p.fs.private_dirs.push_back(at("/srv/scratch", 6));
    const FakeHost host = host_with({"/w/.sockets", "/srv/scratch", "/w/zz"});
    Diagnostics diags;
    const std::vector<uint8_t> plan = lowered(p, host, diags);
    REQUIRE_MESSAGE(!plan.empty(), (diags.all().empty() ? "" : diags.all().back().message));
    const std::vector<Step> want = {
        {TP_MNT_ROOT_READONLY, "/", TP_MNTF_REQUIRED},
        {TP_MNT_DEV, "/dev", TP_MNTF_REQUIRED},
        {TP_MNT_PROC, "/proc", TP_MNTF_REQUIRED},
        {TP_MNT_MASK, "/run", TP_MNTF_REQUIRED | TP_MNTF_OPTIONAL},
        {TP_MNT_TMPFS, "/srv/scratch", TP_MNTF_REQUIRED},
        {TP_MNT_BIND, "/w", 0},
        {TP_MNT_TMPFS, "/w/.sockets", TP_MNTF_REQUIRED},
        {TP_MNT_WRITE_DENY, "/w/policy.toml", TP_MNTF_REQUIRED | TP_MNTF_MASK_ABSENT},
        {TP_MNT_WRITE_DENY, "/w/zz", TP_MNTF_REQUIRED | TP_MNTF_MASK_ABSENT},
    };
    CHECK(steps_of(plan) == want);
    // Landlock: the writable root covers /w/.sockets; /srv/scratch needs a rule of its own.
    CHECK(write_rules_of(plan) == std::vector<std::string>{"/dev/shm", "/srv/scratch", "/w"});
    CHECK_FALSE(diags.has_errors());

    // --explain: the step with its policy line, and what it means.
    std::ostringstream text;
    std::string err;
    REQUIRE(explain_plan(plan, false, text, err));
    CHECK(text.str().find("tmpfs /w/.sockets [required]  policy.toml:4:3\n"
                          "        - a private dir (private_dirs): writable, starts empty and hides what the host has "
                          "here; what the sandbox writes here (its unix sockets too) never reaches the host and is "
                          "discarded after the run\n") != std::string::npos);
}

TEST_CASE("private dirs: where one cannot lie, with the exact diagnostics")
{
    const FakeHost host = host_with({"/w/.sockets", "/w/a", "/w/a/b", "/tmp/x", "/usr", "/run"});
    SUBCASE("the root, system and kernel directories, /tmp")
    {
        Policy p;
        p.fs.private_dirs = {at("/", 1),        at("/usr", 2), at("/proc/x", 3),
                             at("/dev/shm", 4), at("/sys", 5), at("/tmp", 6)};
        CHECK(refusals(p, host) ==
              "/w/policy.toml:1:3: private_dirs: '/' would hide the whole host, the system's programs too: name a "
              "directory of its own [private-dir]\n"
              "/w/policy.toml:2:3: private_dirs: '/usr' is a system directory every program needs: name a "
              "directory of its own [private-dir]\n"
              "/w/policy.toml:3:3: private_dirs: '/proc/x' lies in /proc, which the sandbox builds itself: name a "
              "directory of its own [private-dir]\n"
              "/w/policy.toml:4:3: private_dirs: '/dev/shm' lies in /dev, which the sandbox builds itself: name a "
              "directory of its own [private-dir]\n"
              "/w/policy.toml:5:3: private_dirs: '/sys' lies in /sys, which the sandbox builds itself: name a "
              "directory of its own [private-dir]\n"
              "/w/policy.toml:6:3: private_dirs: '/tmp' is /tmp: say private_tmp = true for a private /tmp "
              "[private-dir]\n");
    }
    SUBCASE("beneath the private /tmp; without private_tmp it is allowed")
    {
        Policy p;
        p.fs.private_tmp = {true, SourcePos{"/w/policy.toml", 2, 15}};
        p.fs.private_dirs = {at("/tmp/x", 3)};
        CHECK(refusals(p, host) ==
              "/w/policy.toml:3:3: private_dirs: '/tmp/x' lies in the private /tmp (private_tmp = true), which is "
              "the sandbox's own already: remove it [private-dir]\n");
        p.fs.private_tmp.value = false;
        Diagnostics diags;
        CHECK_FALSE(lowered(p, host, diags).empty());
    }
    SUBCASE("one beneath another")
    {
        Policy p;
        p.fs.private_dirs = {at("/w/a/b", 3), at("/w/a", 4)};
        CHECK(refusals(p, host) ==
              "/w/policy.toml:3:3: private_dirs: '/w/a/b' lies in the private directory '/w/a' (line 4), which is "
              "the sandbox's own already: remove it [private-dir]\n");
    }
    SUBCASE("any other rule at or beneath one")
    {
        Policy p = sockets_policy();
        p.fs.writable_roots.push_back(at("/w/.sockets/ws", 5));
        p.fs.read_allows = {at("/w/.sockets", 6)};
        p.fs.read_denies = {at("/w/.sockets/secret", 7)};
        p.fs.write_denies = {at("/w/.sockets/ro", 8)};
        CHECK(refusals(p, host) ==
              "/w/policy.toml:6:3: read_allows: '/w/.sockets' lies in the private directory '/w/.sockets' "
              "(private_dirs at line 4), which starts empty and shows nothing of the host: remove one of the two "
              "[private-dir]\n"
              "/w/policy.toml:7:3: read_denies: '/w/.sockets/secret' lies in the private directory '/w/.sockets' "
              "(private_dirs at line 4), which starts empty and shows nothing of the host: remove one of the two "
              "[private-dir]\n"
              "/w/policy.toml:5:3: writable_roots: '/w/.sockets/ws' lies in the private directory '/w/.sockets' "
              "(private_dirs at line 4), which starts empty and shows nothing of the host: remove one of the two "
              "[private-dir]\n"
              "/w/policy.toml:8:3: write_denies: '/w/.sockets/ro' lies in the private directory '/w/.sockets' "
              "(private_dirs at line 4), which starts empty and shows nothing of the host: remove one of the two "
              "[private-dir]\n");
    }
    SUBCASE("a flag's private dir is named by its flag")
    {
        Policy p = sockets_policy();
        p.fs.private_dirs = {{"/w/.sockets", SourcePos{"--private-dir", 0, 0}}};
        p.fs.read_denies = {at("/w/.sockets/secret", 7)};
        CHECK(refusals(p, host).find("(private_dirs at --private-dir)") != std::string::npos);
    }
    SUBCASE("absent, a symlink or a file on the host")
    {
        FakeHost odd = host;
        odd.kinds["/w/link"] = HostKind::Symlink;
        odd.links["/w/link"] = "/etc";
        odd.kinds["/w/file"] = HostKind::File;
        Policy p;
        p.fs.private_dirs = {at("/w/absent", 1), at("/w/link", 2), at("/w/file", 3)};
        CHECK(refusals(p, odd) ==
              "/w/policy.toml:1:3: private_dirs: '/w/absent' does not exist: create the directory first (mkdir -p "
              "/w/absent); the private tmpfs is mounted on it [private-dir]\n"
              "/w/policy.toml:2:3: private_dirs: '/w/link' is a symlink (to '/etc'): name the directory itself "
              "[private-dir]\n"
              "/w/policy.toml:3:3: private_dirs: '/w/file' is not a directory [private-dir]\n");
    }
    SUBCASE("the broker's credentials directory, or one holding it")
    {
        Policy p;
        p.broker.emplace();
        p.broker->pos = {"/w/policy.toml", 9, 1};
        p.fs.private_dirs = {at("/run", 2)};
        CHECK(refusals(p, host).find("/w/policy.toml:2:3: private_dirs: '/run' takes the broker's credentials "
                                     "directory /run/credentials/tartaros, which the sandbox makes for the token "
                                     "alone: name a narrower or another directory [private-dir]\n") == 0);
    }
    SUBCASE("more than TP_MAX_PRIVATE_DIRS")
    {
        FakeHost many;
        Policy p;
        for (uint32_t i = 0; i <= TP_MAX_PRIVATE_DIRS; i++) {
            const std::string dir = "/w/d" + std::to_string(i);
            many.kinds[dir] = HostKind::Directory;
            p.fs.private_dirs.push_back(at(dir, i + 1));
        }
        CHECK(refusals(p, many) ==
              "/w/policy.toml:17:3: private_dirs: more than 16 directories; the mediator "
              "knows at most that many as the sandbox's own [private-dir]\n");
        p.fs.private_dirs.pop_back();
        Diagnostics diags;
        CHECK_FALSE(lowered(p, many, diags).empty());
    }
}

TEST_CASE("private dirs: the .tart statement, a paths group in it, and --print-policy read back as TOML does")
{
    Diagnostics diags;
    const std::optional<Policy> toml = parse_policy_text(
        "version = 1\n[filesystem]\nprivate_dirs = [\"ws/.sockets\", \"~/.cache/tool\"]\n", "/w/p.toml", diags);
    const std::optional<Policy> tart = parse_policy_text(
        "version 1;\npaths caches = [\"~/.cache/tool\"];\nfilesystem { private_dirs \"ws/.sockets\", @caches; }\n",
        "/w/p.tart", diags);
    REQUIRE_MESSAGE(toml.has_value(), (diags.all().empty() ? "" : diags.all().back().message));
    REQUIRE_MESSAGE(tart.has_value(), (diags.all().empty() ? "" : diags.all().back().message));
    std::vector<std::string> expected = {"/w/ws/.sockets", policy_home().value_or("") + "/.cache/tool"};
    for (const Policy *p : {&*toml, &*tart}) {
        std::vector<std::string> got;
        for (const LocatedPath &dir : p->fs.private_dirs)
            got.push_back(dir.value);
        CHECK(got == expected);
    }
    CHECK(toml->fs.private_dirs[0].pos.line == 3);
    const std::string printed = print_policy(*toml);
    CHECK(printed.find("    private_dirs\n        \"/w/ws/.sockets\",\n") != std::string::npos);
    CHECK(print_policy(*tart) == printed);
}
