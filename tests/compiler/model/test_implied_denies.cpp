// Unit tests of the write denies implied from the host (implied_denies.h): git's
// code-running files beside a write-denied hooks directory, symlink targets, host path
// resolution, and how the lowering marks them (flags, placeholder content, notes).
#include <doctest/doctest.h>

#include <string>

#include "fake_host.h"
#include "implied_denies.h"
#include "plan_reader.h"
#include "verify.h"

using namespace tartaros;

namespace {

LocatedPath rule_at(const std::string &path, uint32_t line)
{
    return {path, SourcePos{"/w/policy.toml", line, 3}};
}

Policy hooks_policy(const std::string &hooks)
{
    Policy p;
    p.source_path = "/elsewhere/policy.toml";
    p.fs.writable_roots = {rule_at("/w", 1)};
    p.fs.write_denies = {rule_at(hooks, 2)};
    return p;
}

const FsRule *implied_deny(const FsTrie &trie, const std::string &path)
{
    const FsNode *n = trie.find(path);
    const FsRule *r = n != nullptr ? n->find_rule(RuleKind::WriteDeny) : nullptr;
    return r != nullptr && r->implied ? r : nullptr;
}

struct StepView {
    uint32_t flags = 0;
    std::string source;
    bool found = false;
};

StepView step_at(const std::vector<uint8_t> &bytes, const std::string &path)
{
    tp_plan plan{};
    char err[256];
    REQUIRE(tp_plan_open(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan, err, sizeof err) == 0);
    for (uint32_t i = 0; i < plan.mount_count; i++)
        if (tp_plan_str(&plan, plan.mounts[i].path) == path && plan.mounts[i].op == TP_MNT_WRITE_DENY)
            return {plan.mounts[i].flags, tp_plan_str(&plan, plan.mounts[i].source), true};
    return {};
}

}  // namespace

TEST_CASE("implied denies: a .git/hooks deny protects config, commondir, config.worktree and worktrees")
{
    FakeHost host;
    host.kinds = {
        {"/w", HostKind::Directory}, {"/w/.git", HostKind::Directory}, {"/w/.git/hooks", HostKind::Directory}};
    const FsTrie trie = build_fs_trie(hooks_policy("/w/.git/hooks"), "", &host);
    for (const char *name : {"config", "commondir", "config.worktree", "worktrees"}) {
        CAPTURE(name);
        const FsRule *r = implied_deny(trie, std::string("/w/.git/") + name);
        REQUIRE(r != nullptr);
        CHECK(r->by == ImpliedBy::GitHooks);
        CHECK(r->via == "/w/.git/hooks");
        CHECK(r->pos.line == 2);
        CHECK(trie.level_at(std::string("/w/.git/") + name) == Level::Read);
    }
    CHECK(trie.level_at("/w/.git/objects") == Level::Write);
    CHECK(trie.level_at("/w/.git/info/attributes") == Level::Write);
    CHECK(build_fs_trie(hooks_policy("/w/.git/hooks"), "").find("/w/.git/config") == nullptr);  // no host: none
}

TEST_CASE("implied denies: only a git directory's hooks")
{
    FakeHost host;
    SUBCASE("a gitfile is a repository elsewhere")
    {
        host.kinds = {{"/w/.git", HostKind::File}};
        CHECK(implied_deny(build_fs_trie(hooks_policy("/w/.git/hooks"), "", &host), "/w/.git/config") == nullptr);
    }
    SUBCASE("a directory named otherwise needs HEAD, objects and refs")
    {
        host.kinds = {{"/w", HostKind::Directory},
                      {"/w/repo.git", HostKind::Directory},
                      {"/w/repo.git/HEAD", HostKind::File},
                      {"/w/repo.git/objects", HostKind::Directory}};
        CHECK(implied_deny(build_fs_trie(hooks_policy("/w/repo.git/hooks"), "", &host), "/w/repo.git/config") ==
              nullptr);
        host.kinds["/w/repo.git/refs"] = HostKind::Directory;
        CHECK(implied_deny(build_fs_trie(hooks_policy("/w/repo.git/hooks"), "", &host), "/w/repo.git/config") !=
              nullptr);
    }
    SUBCASE("a .git that is a symlink out of the writable roots leads somewhere read-only")
    {
        host.kinds = {{"/w", HostKind::Directory}, {"/w/.git", HostKind::Symlink}};
        host.links = {{"/w/.git", "/srv/repo.git"}};
        CHECK(implied_deny(build_fs_trie(hooks_policy("/w/.git/hooks"), "", &host), "/w/.git/config") == nullptr);
    }
    SUBCASE("a directory of hooks elsewhere")
    {
        CHECK(implied_deny(build_fs_trie(hooks_policy("/w/tools/hooks"), "", &host), "/w/tools/config") == nullptr);
    }
    SUBCASE("a repository not created yet: git init must work in the sandbox")
    {
        CHECK(implied_deny(build_fs_trie(hooks_policy("/w/.git/hooks"), "", &host), "/w/.git/config") == nullptr);
    }
    SUBCASE("a file the policy names keeps its own rule")
    {
        host.kinds = {{"/w", HostKind::Directory}, {"/w/.git", HostKind::Directory}};
        Policy p = hooks_policy("/w/.git/hooks");
        p.fs.write_denies.push_back(rule_at("/w/.git/config", 3));
        const FsTrie trie = build_fs_trie(p, "", &host);
        CHECK(implied_deny(trie, "/w/.git/config") == nullptr);
        CHECK(implied_deny(trie, "/w/.git/commondir") != nullptr);
    }
}

TEST_CASE("implied denies: a symlink in a write-denied directory protects its target in the writable root")
{
    FakeHost host;
    host.kinds = {{"/w", HostKind::Directory},
                  {"/w/.git", HostKind::Directory},
                  {"/w/.git/hooks", HostKind::Directory},
                  {"/w/.git/hooks/post-checkout", HostKind::Symlink},
                  {"/w/.git/hooks/pre-push", HostKind::Symlink},
                  {"/w/.git/hooks/root", HostKind::Symlink},
                  {"/w/.git/hooks/sys", HostKind::Symlink},
                  {"/w/scripts", HostKind::Directory},
                  {"/w/scripts/post-checkout", HostKind::File}};
    host.links = {{"/w/.git/hooks/post-checkout", "../../scripts/post-checkout"},
                  {"/w/.git/hooks/pre-push", "../../missing/hook"},
                  {"/w/.git/hooks/root", "../.."},
                  {"/w/.git/hooks/sys", "/usr/bin/true"}};
    host.dirs = {{"/w/.git/hooks", {"post-checkout", "pre-push", "root", "sys"}}};
    const FsTrie trie = build_fs_trie(hooks_policy("/w/.git/hooks"), "", &host);
    const FsRule *r = implied_deny(trie, "/w/scripts/post-checkout");
    REQUIRE(r != nullptr);
    CHECK(r->by == ImpliedBy::LinkTarget);
    CHECK(r->via == "/w/.git/hooks/post-checkout");
    CHECK(r->known_file);
    CHECK(implied_deny(trie, "/w/missing/hook") != nullptr);  // dangling: the sandbox could create it
    CHECK(trie.level_at("/w") == Level::Write);               // a link to the root itself protects nothing
    CHECK(trie.find("/usr/bin/true") == nullptr);             // read-only already
}

TEST_CASE("implied denies: host resolution follows links as the kernel does")
{
    FakeHost host;
    host.kinds = {{"/a", HostKind::Symlink},
                  {"/b", HostKind::Directory},
                  {"/b/c", HostKind::Symlink},
                  {"/loop", HostKind::Symlink}};
    host.links = {{"/a", "/b/x/.."}, {"/b/c", "../d"}, {"/loop", "/loop"}};
    host.kinds["/b/x"] = HostKind::Directory;
    CHECK(resolve_on_host(host, "/a/c/e") == std::optional<std::string>("/d/e"));
    CHECK(resolve_on_host(host, "/b/./c") == std::optional<std::string>("/d"));
    CHECK(!resolve_on_host(host, "/loop/x"));
}

TEST_CASE("implied denies: the plan marks git files as placeholders and link targets with their symlink")
{
    FakeHost host;
    host.kinds = {{"/w", HostKind::Directory},
                  {"/w/.git", HostKind::Directory},
                  {"/w/.git/config", HostKind::File},
                  {"/w/.git/hooks", HostKind::Directory},
                  {"/w/.git/hooks/post-checkout", HostKind::Symlink},
                  {"/w/s", HostKind::File}};
    host.links = {{"/w/.git/hooks/post-checkout", "../../s"}};
    host.dirs = {{"/w/.git/hooks", {"post-checkout"}}};
    LowerOptions options;
    options.host = &host;
    Diagnostics diags;
    const std::vector<uint8_t> bytes = lower_policy(hooks_policy("/w/.git/hooks"), options, diags);
    REQUIRE(!bytes.empty());
    constexpr uint32_t kGitFile = TP_MNTF_REQUIRED | TP_MNTF_GIT | TP_MNTF_PLACEHOLDER | TP_MNTF_MATERIALIZE_FILE;
    const StepView commondir = step_at(bytes, "/w/.git/commondir");
    CHECK(commondir.flags == kGitFile);
    CHECK(commondir.source == ".\n");  // git dies on an empty commondir; "." is the git directory itself
    CHECK(step_at(bytes, "/w/.git/config").flags == kGitFile);
    CHECK(step_at(bytes, "/w/.git/config").source.empty());
    CHECK(step_at(bytes, "/w/.git/worktrees").flags ==
          (TP_MNTF_REQUIRED | TP_MNTF_GIT | TP_MNTF_PLACEHOLDER | TP_MNTF_MATERIALIZE_DIR));
    const StepView target = step_at(bytes, "/w/s");
    CHECK((target.flags & TP_MNTF_LINK_TARGET) != 0);
    CHECK(target.source == "/w/.git/hooks/post-checkout");
    const StepView hooks = step_at(bytes, "/w/.git/hooks");
    CHECK((hooks.flags & (TP_MNTF_GIT | TP_MNTF_PLACEHOLDER | TP_MNTF_LINK_TARGET)) == 0);
    int git_notes = 0, link_notes = 0;
    for (const Diagnostic &d : diags.all()) {
        git_notes += d.rule_id == "git-files-protected";
        link_notes += d.rule_id == "symlink-target-protected";
    }
    CHECK(git_notes == 1);
    CHECK(link_notes == 1);
    CHECK(lower_policy(hooks_policy("/w/.git/hooks"), options, diags) == bytes);  // deterministic
}
