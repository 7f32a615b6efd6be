// Unit tests of the rule trie: most specific wins, deny beats allow at equal depth, allow
// inside deny, the granted scope, and the implied rules.
#include <doctest/doctest.h>

#include <string>

#include "fs_trie.h"

using namespace tartaros;

namespace {

LocatedPath rule_at(const std::string &path, uint32_t line)
{
    return {path, SourcePos{"/p/policy.toml", line, 5}};
}

struct Expect {
    const char *path;
    Level level;
};

void check_levels(const FsTrie &trie, std::initializer_list<Expect> table)
{
    for (const Expect &e : table) {
        CAPTURE(e.path);
        CHECK(level_name(trie.level_at(e.path)) == std::string(level_name(e.level)));
    }
}

}  // namespace

TEST_CASE("fs trie: the most specific rule wins")
{
    Policy p;
    p.fs.read_denies = {rule_at("/home/u/.ssh", 1), rule_at("/w/secret", 2)};
    p.fs.read_allows = {rule_at("/home/u/.ssh/pub", 3)};
    p.fs.writable_roots = {rule_at("/w", 4), rule_at("/w/secret/out", 5)};
    p.fs.write_denies = {rule_at("/w/.git", 6), rule_at("/etc/hosts", 7)};
    const FsTrie trie = build_fs_trie(p, "");
    check_levels(trie,
                 {
                     {"/", Level::Read},
                     {"/home/u", Level::Read},
                     {"/home/u/.ssh", Level::None},
                     {"/home/u/.ssh/id_rsa", Level::None},
                     {"/home/u/.ssh/pub", Level::Read},  // allow inside deny
                     {"/home/u/.ssh/pub/key", Level::Read},
                     {"/home/u/.sshx", Level::Read},  // a sibling with a common prefix
                     {"/w", Level::Write},
                     {"/w/src/a.c", Level::Write},
                     {"/w/.git", Level::Read},
                     {"/w/.git/hooks/pre-commit", Level::Read},
                     {"/w/secret", Level::None},
                     {"/w/secret/out", Level::Write},  // a writable root inside a deny
                     {"/w/secret/out/log", Level::Write},
                     {"/etc/hosts", Level::Read},
                 });
}

TEST_CASE("fs trie: at equal depth a deny beats an allow")
{
    Policy p;
    p.fs.read_allows = {rule_at("/a", 1)};
    p.fs.read_denies = {rule_at("/a", 2), rule_at("/b", 3)};
    p.fs.writable_roots = {rule_at("/b", 4), rule_at("/c", 5)};
    p.fs.write_denies = {rule_at("/c", 6)};
    p.fs.read_scope.value = ReadScope::Granted;
    const FsTrie trie = build_fs_trie(p, "");
    check_levels(trie,
                 {{"/a", Level::None},
                  {"/a/x", Level::None},
                  {"/b/x", Level::None},
                  {"/c", Level::Read},
                  {"/c/x", Level::Read}});
    const FsNode *c = trie.find("/c");
    REQUIRE(c != nullptr);
    REQUIRE(c->deciding_rule() != nullptr);
    CHECK(c->deciding_rule()->kind == RuleKind::WriteDeny);
    CHECK(c->deciding_rule()->pos.line == 6);
}

TEST_CASE("fs trie: allows are floors and denies are caps")
{
    Policy p;
    p.fs.writable_roots = {rule_at("/w", 1)};
    p.fs.read_allows = {rule_at("/w/docs", 2)};  // does not take write away
    p.fs.read_denies = {rule_at("/s", 3)};
    p.fs.write_denies = {rule_at("/s/f", 4)};  // does not give read back
    const FsTrie trie = build_fs_trie(p, "");
    check_levels(trie, {{"/w/docs/a", Level::Write}, {"/s/f", Level::None}, {"/s/f/g", Level::None}});
}

TEST_CASE("fs trie: granted scope reads only the system list, roots and allows")
{
    Policy p;
    p.fs.read_scope = {ReadScope::Granted, SourcePos{"/p/policy.toml", 2, 14}};
    p.fs.writable_roots = {rule_at("/home/u/proj", 3)};
    p.fs.read_allows = {rule_at("/home/u/.cargo", 4)};
    p.fs.read_denies = {rule_at("/etc/shadow", 5)};
    const FsTrie trie = build_fs_trie(p, "");
    check_levels(trie,
                 {
                     {"/", Level::None},
                     {"/home", Level::None},
                     {"/home/u/.bashrc", Level::None},
                     {"/root", Level::None},
                     {"/tmp", Level::None},
                     {"/usr/bin/env", Level::Read},
                     {"/lib64/ld.so", Level::Read},
                     {"/bin/sh", Level::Read},
                     {"/sbin", Level::Read},
                     {"/etc/passwd", Level::Read},
                     {"/etc/shadow", Level::None},
                     {"/dev/null", Level::Read},
                     {"/proc/self", Level::Read},
                     {"/home/u/proj/x", Level::Write},
                     {"/home/u/.cargo/bin", Level::Read},
                 });
    const FsNode *usr = trie.find("/usr");
    REQUIRE(usr != nullptr);
    CHECK(usr->has_rule(RuleKind::GrantedSystem));
    CHECK(usr->find_rule(RuleKind::GrantedSystem)->pos.line == 2);
    CHECK(trie.root().min_below == Level::None);
    CHECK(trie.find("/home/u/proj")->min_below == Level::Write);
}

TEST_CASE("fs trie: /proc is granted from the host only without isolate_proc; private /tmp is writable")
{
    Policy p;
    p.fs.read_scope.value = ReadScope::Granted;
    p.process.isolate_proc.value = false;
    p.fs.private_tmp.value = true;
    const FsTrie trie = build_fs_trie(p, "");
    CHECK(trie.find("/proc")->has_rule(RuleKind::GrantedSystem));
    CHECK_FALSE(trie.find("/proc")->has_rule(RuleKind::Proc));
    CHECK(trie.level_at("/tmp/x") == Level::Write);

    p.process.isolate_proc.value = true;
    const FsTrie isolated = build_fs_trie(p, "");
    CHECK(isolated.find("/proc")->has_rule(RuleKind::Proc));
    CHECK_FALSE(isolated.find("/proc")->has_rule(RuleKind::GrantedSystem));
}

TEST_CASE("fs trie: the policy file and the plan are write-denied inside a writable root only")
{
    Policy p;
    p.source_path = "/w/tartaros.toml";
    p.fs.writable_roots = {rule_at("/w", 1)};
    const FsTrie inside = build_fs_trie(p, "/w/out/plan.bin");
    for (const char *path : {"/w/tartaros.toml", "/w/out/plan.bin"}) {
        CAPTURE(path);
        const FsNode *n = inside.find(path);
        REQUIRE(n != nullptr);
        const FsRule *r = n->find_rule(RuleKind::WriteDeny);
        REQUIRE(r != nullptr);
        CHECK(r->implied);
        CHECK(r->known_file);
        CHECK(r->pos.line == 0);
        CHECK(inside.level_at(path) == Level::Read);
    }
    CHECK(inside.level_at("/w/out") == Level::Write);

    p.source_path = "/etc/tartaros/policy.toml";
    const FsTrie outside = build_fs_trie(p, "/var/plan.bin");
    CHECK(outside.find("/etc/tartaros/policy.toml") == nullptr);
    CHECK(outside.find("/var/plan.bin") == nullptr);
}

TEST_CASE("fs trie: the plan cache is write-denied inside a writable root, outside a private dir")
{
    Policy p;
    p.fs.writable_roots = {rule_at("/home/me", 1)};
    const FsTrie inside = build_fs_trie(p, "", nullptr, "/home/me/.cache/tartaros");
    const FsNode *n = inside.find("/home/me/.cache/tartaros");
    REQUIRE(n != nullptr);
    const FsRule *r = n->find_rule(RuleKind::WriteDeny);
    REQUIRE(r != nullptr);
    CHECK(r->implied);
    CHECK(r->by == ImpliedBy::PlanCache);
    CHECK_FALSE(r->known_file);
    CHECK(inside.level_at("/home/me/.cache/tartaros/x.plan") == Level::Read);
    CHECK(inside.level_at("/home/me/.cache/pip") == Level::Write);

    CHECK(build_fs_trie(p, "", nullptr, "/var/cache/tartaros").find("/var/cache/tartaros") == nullptr);
    CHECK(build_fs_trie(p, "", nullptr, "").find("/home/me/.cache/tartaros") == nullptr);
    p.fs.private_dirs = {rule_at("/home/me/.cache", 2)};
    CHECK(build_fs_trie(p, "", nullptr, "/home/me/.cache/tartaros").find("/home/me/.cache/tartaros") == nullptr);
}

TEST_CASE("fs trie: path helpers")
{
    CHECK(path_is_within("/a/b", "/a"));
    CHECK(path_is_within("/a", "/a"));
    CHECK(path_is_within("/a", "/"));
    CHECK_FALSE(path_is_within("/ab", "/a"));
    CHECK_FALSE(path_is_within("/a", "/a/b"));
    CHECK(path_depth("/") == 0);
    CHECK(path_depth("/a/b") == 2);
    CHECK(path_join("/", "x") == "/x");
    CHECK(path_join("/a", "x") == "/a/x");
}
