// compiler/model/implied_denies.cpp — git's code-running files beside a write-denied hooks
// directory, and the targets of symlinks in write-denied directories.
#include "implied_denies.h"

#include <algorithm>
#include <deque>
#include <utility>
#include <vector>

#include "paths.h"

namespace tartaros {

// githooks(5), git-config(1), gitrepository-layout(5). Left out, because none of them makes
// git run anything by itself: info/attributes (it names filter and diff drivers, which only
// config defines; the working tree's .gitattributes says the same and stays writable),
// packed-refs and refs/ (names of commits), objects/info/alternates (where objects are read
// from, never code; the objects themselves are writable anyway).
const std::array<GitCodeFile, 4> kGitCodeFiles = {{
    {"commondir", false, ".\n"},     // re-points the common directory: its config and hooks
    {"config", false, ""},           // core.hooksPath, core.fsmonitor, aliases, filters, includes...
    {"config.worktree", false, ""},  // the same, with extensions.worktreeConfig
    {"worktrees", true, ""},         // each linked worktree's commondir, gitdir and config.worktree
}};

namespace {

constexpr int kMaxSymlinkHops = 40;          // the kernel's MAXSYMLINKS
constexpr size_t kMaxEntriesScanned = 4096;  // a write-denied directory is listed once, at compile time

std::string last_component(std::string_view path)
{
    const std::vector<std::string_view> parts = path_components(path);
    return parts.empty() ? std::string() : std::string(parts.back());
}

bool named_in_policy(const Policy &policy, const std::string &path)
{
    for (const auto *list : {&policy.fs.write_denies, &policy.fs.read_denies})
        for (const LocatedPath &p : *list)
            if (p.value == path)
                return true;
    return false;
}

// A write deny of the policy that the trie keeps, inside a writable tree.
bool deny_in_writable_tree(const FsTrie &trie, const std::string &path)
{
    const FsNode *node = trie.find(path);
    return node != nullptr && node->has_rule(RuleKind::WriteDeny) && path != "/" &&
        trie.level_at(parent_directory(path)) == Level::Write;
}

// Strictly beneath a writable root (never the root itself: a symlink to it would make the
// whole workspace read-only) and writable.
bool protectable_target(const FsTrie &trie, const Policy &policy, const std::string &target)
{
    if (trie.level_at(target) != Level::Write)
        return false;
    return std::any_of(policy.fs.writable_roots.begin(), policy.fs.writable_roots.end(), [&](const LocatedPath &root) {
        return target != root.value && path_is_within(target, root.value);
    });
}

using Additions = std::vector<std::pair<std::string, FsRule>>;

void add_git_files(const FsTrie &trie, const Policy &policy, const HostView &host, const LocatedPath &hooks,
                   Additions &out)
{
    const std::string gitdir = parent_directory(hooks.value);
    if (last_component(hooks.value) != "hooks" || !is_git_directory(gitdir, host))
        return;
    for (const GitCodeFile &f : kGitCodeFiles) {
        const std::string path = path_join(gitdir, f.name);
        // A .git that is a symlink out of the writable roots leads to a read-only directory.
        const std::optional<std::string> real = resolve_on_host(host, path);
        if (named_in_policy(policy, path) || trie.level_at(path) != Level::Write || !real ||
            trie.level_at(*real) != Level::Write)
            continue;
        out.emplace_back(path,
                         FsRule{RuleKind::WriteDeny, hooks.pos, true, !f.directory, ImpliedBy::GitHooks, hooks.value});
    }
}

void add_link_targets(const FsTrie &trie, const Policy &policy, const HostView &host, const LocatedPath &deny,
                      Additions &out)
{
    if (host.kind(deny.value) != HostKind::Directory)
        return;
    const std::vector<std::string> names = host.entries(deny.value);
    for (size_t i = 0; i < names.size() && i < kMaxEntriesScanned; i++) {
        const std::string link = path_join(deny.value, names[i]);
        if (host.kind(link) != HostKind::Symlink)
            continue;
        const std::optional<std::string> target = resolve_on_host(host, link);
        if (!target || path_is_within(*target, deny.value) || path_is_within(deny.value, *target) ||
            named_in_policy(policy, *target) || !protectable_target(trie, policy, *target))
            continue;
        const bool seen = std::any_of(out.begin(), out.end(), [&](const auto &a) { return a.first == *target; });
        if (!seen)
            out.emplace_back(*target,
                             FsRule{RuleKind::WriteDeny, deny.pos, true, host.kind(*target) == HostKind::File,
                                    ImpliedBy::LinkTarget, link});
    }
}

// A private dir hides the host's files beneath it from the sandbox: none needs a deny there.
void add_all(FsTrie &trie, const Policy &policy, const Additions &additions)
{
    for (const auto &[path, rule] : additions)
        if (!in_private_dir(policy, path))
            trie.add(path, rule);
    trie.resolve();
}

}  // namespace

const GitCodeFile *git_code_file(std::string_view path)
{
    const std::string name = last_component(path);
    for (const GitCodeFile &f : kGitCodeFiles)
        if (f.name == name)
            return &f;
    return nullptr;
}

bool is_git_directory(const std::string &dir, const HostView &host)
{
    const std::optional<std::string> real = resolve_on_host(host, dir);
    if (!real || host.kind(*real) != HostKind::Directory)
        return false;
    if (last_component(dir) == ".git")
        return true;
    return host.kind(path_join(dir, "HEAD")) == HostKind::File &&
        host.kind(path_join(dir, "objects")) == HostKind::Directory &&
        host.kind(path_join(dir, "refs")) == HostKind::Directory;
}

std::optional<std::string> resolve_on_host(const HostView &host, const std::string &path)
{
    std::deque<std::string> rest;
    for (std::string_view part : path_components(path))
        rest.emplace_back(part);
    std::string done = "/";
    bool absent = false;
    for (int hops = 0; !rest.empty();) {
        const std::string name = std::move(rest.front());
        rest.pop_front();
        if (name == ".")
            continue;
        if (name == "..") {
            done = parent_directory(done);
            continue;
        }
        const std::string next = path_join(done, name);
        const HostKind kind = absent ? HostKind::Absent : host.kind(next);
        if (kind != HostKind::Symlink) {
            absent = absent || kind == HostKind::Absent;
            done = next;
            continue;
        }
        const std::string target = host.read_link(next);
        if (++hops > kMaxSymlinkHops || target.empty())
            return std::nullopt;
        const std::vector<std::string_view> parts = path_components(target);
        for (auto it = parts.rbegin(); it != parts.rend(); ++it)
            rest.emplace_front(*it);
        if (target.front() == '/')
            done.assign(1, '/');  // not = "/": GCC 12 raises a false -Wrestrict
    }
    return done;
}

void add_implied_denies(FsTrie &trie, const Policy &policy, const HostView &host)
{
    trie.resolve();
    Additions git;
    for (const LocatedPath &deny : policy.fs.write_denies)
        if (deny_in_writable_tree(trie, deny.value))
            add_git_files(trie, policy, host, deny, git);
    add_all(trie, policy, git);
    Additions targets;
    for (const LocatedPath &deny : policy.fs.write_denies)
        if (deny_in_writable_tree(trie, deny.value))
            add_link_targets(trie, policy, host, deny, targets);
    add_all(trie, policy, targets);
}

}  // namespace tartaros
