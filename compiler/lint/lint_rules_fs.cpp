// compiler/lint/lint_rules_fs.cpp — the lint rules on [filesystem]: paths as written, paths that
// contradict or duplicate each other, what a shell needs, and what an agent could use to
// weaken its own sandbox (docs/lint-rules.md).
//
// Levels come from the same trie the lowering builds (fs_trie.h), so "does nothing" and
// "hides" mean exactly what the enforcer will do, implied rules (/run, /tmp, granted system
// paths, the policy file's own write deny) included.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <optional>

#include "fs_trie.h"
#include "lint_rules_parts.h"
#include "paths.h"
#include "plan.h"
#include "policy_keys.h"
#include "toml_schema.h"

namespace tartaros {

namespace {

// --- path-leaves-policy-dir -------------------------------------------------------------

// Each path of [filesystem] as written, with the position of its string.
template <class Visit>
void for_each_raw_path(const toml::table &document, Visit visit)
{
    const toml::table *fs = document["filesystem"].as_table();
    if (fs == nullptr)
        return;
    for (const PolicyKey *key : section_keys("filesystem")) {
        if (key->role != KeyRole::Path)
            continue;
        const toml::array *list = (*fs)[key->name].as_array();
        if (list == nullptr)
            continue;
        for (const toml::node &element : *list) {
            const toml::node *path = element.is_table() ? element.as_table()->get("path") : &element;
            if (path != nullptr && path->is_string())
                visit(key->name, path->as_string()->get(), path->source());
        }
    }
}

}  // namespace

void check_paths_leave_directory(const Policy &policy, const std::string &file, const toml::table &document,
                                 Diagnostics &diags)
{
    const std::string base = parent_directory(policy.source_path);
    for_each_raw_path(document, [&](std::string_view key, const std::string &raw, const toml::source_region &at) {
        if (raw.empty() || raw.front() == '/' || raw.front() == '~')
            return;
        const std::string resolved = normalize_absolute(base + "/" + raw);
        if (path_is_within(resolved, base))
            return;
        diags.warning({file, static_cast<uint32_t>(at.begin.line), static_cast<uint32_t>(at.begin.column)},
                      std::string(key) + ": " + quoted(raw) + " leaves the policy's directory: relative paths " +
                          "resolve against the directory holding this file, so it names " + resolved +
                          " here and another path wherever the file is copied; write it as an absolute path or "
                          "from '~/'",
                      "path-leaves-policy-dir");
    });
}

namespace {

// --- path-allowed-and-denied, allow-no-effect ----------------------------------------------

const LocatedPath *find_path(const std::vector<LocatedPath> &list, const std::string &path)
{
    auto found = std::find_if(list.begin(), list.end(), [&](const LocatedPath &p) { return p.value == path; });
    return found == list.end() ? nullptr : &*found;
}

// An allow and a deny of the same path: at equal depth the deny wins, so the allow does
// nothing. Returns whether it reported.
bool check_allowed_and_denied(const Policy &policy, std::string_view list, const LocatedPath &allow, Diagnostics &diags)
{
    struct Clash {
        const std::vector<LocatedPath> *denies;
        std::string_view deny_list;
        std::string_view result;
    };
    const bool root = list == "writable_roots";
    const std::vector<Clash> clashes = root
        ? std::vector<Clash>{{&policy.fs.read_denies, "read_denies", "this writable root is hidden"},
                             {&policy.fs.write_denies, "write_denies", "this writable root is read-only"}}
        : std::vector<Clash>{{&policy.fs.read_denies, "read_denies", "the allow does nothing"}};
    for (const Clash &c : clashes) {
        const LocatedPath *deny = find_path(*c.denies, allow.value);
        if (deny == nullptr)
            continue;
        diags.warning(allow.pos,
                      std::string(list) + ": " + quoted(allow.value) + " is also in " + std::string(c.deny_list) +
                          " (" + line_of(deny->pos, allow.pos) + "): at the same path the deny wins, so " +
                          std::string(c.result) + "; remove one of the two",
                      "path-allowed-and-denied");
        return true;
    }
    return false;
}

// The rule that gives `path` its level in `trie`: the deciding rule of its deepest ancestor
// (or itself) that has one; null when only the read scope does.
const FsRule *rule_deciding(const FsTrie &trie, const std::string &path)
{
    std::string prefix = path;
    for (;;) {
        const FsNode *node = trie.find(prefix);
        if (node != nullptr && node->deciding_rule() != nullptr)
            return node->deciding_rule();
        if (prefix == "/")
            return nullptr;
        prefix = parent_directory(prefix);
    }
}

// The nearest allow that gives `path` access in `trie` (its own or an ancestor's), with the
// path it is written at; null when only read_scope = "all" does.
const FsRule *granting_rule(const FsTrie &trie, const std::string &path, std::string &where)
{
    static constexpr std::array kAllows = {RuleKind::WritableRoot, RuleKind::PrivateTmp,    RuleKind::PrivateDir,
                                           RuleKind::ReadAllow,    RuleKind::GrantedSystem, RuleKind::Dev,
                                           RuleKind::Proc};
    for (where = path;; where = parent_directory(where)) {
        if (const FsNode *node = trie.find(where))
            for (RuleKind kind : kAllows)
                if (const FsRule *rule = node->find_rule(kind))
                    return rule;
        if (where == "/")
            return nullptr;
    }
}

// Why `path` has `level` without the entry being checked, which is at `here`.
std::string already_because(const FsTrie &trie, const std::string &path, Level level, const SourcePos &here)
{
    std::string where;
    const FsRule *rule = granting_rule(trie, path, where);
    if (rule == nullptr)
        return "read_scope = \"all\" makes every path readable, and read_allows only re-opens a path inside a read "
               "deny";
    const std::string already = std::string("it is already ") + (level == Level::Write ? "writable" : "readable");
    switch (rule->kind) {
    case RuleKind::WritableRoot:
        return already + " in the writable root " + quoted(where) + " (" + line_of(rule->pos, here) + ")";
    case RuleKind::ReadAllow:
        return already + " in the read allow " + quoted(where) + " (" + line_of(rule->pos, here) + ")";
    case RuleKind::GrantedSystem: return "read_scope = \"granted\" already grants " + where;
    case RuleKind::Dev: return already + " in the sandbox's own /dev";
    case RuleKind::Proc: return already + " in the sandbox's own /proc (isolate_proc)";
    case RuleKind::PrivateDir:
        return already + " in the private directory " + quoted(where) + " (" + line_of(rule->pos, here) + ")";
    case RuleKind::ReadDeny:
    case RuleKind::WriteDeny:
    case RuleKind::PrivateTmp:  // skipped by check_allows: a grant there binds the host's path
    case RuleKind::Credentials: break;
    }
    return already;
}

// The level `path` would have if `list` did not hold `entry`.
Level level_without(const Policy &policy, std::vector<LocatedPath> FilesystemPolicy::*list, const LocatedPath &entry,
                    FsTrie &trie_out)
{
    Policy copy = policy;
    std::vector<LocatedPath> &entries = copy.fs.*list;
    entries.erase(
        std::remove_if(entries.begin(), entries.end(), [&](const LocatedPath &p) { return p.value == entry.value; }),
        entries.end());
    trie_out = build_fs_trie(copy, "");
    return trie_out.level_at(entry.value);
}

void check_allows(const Policy &policy, Diagnostics &diags)
{
    struct List {
        std::vector<LocatedPath> FilesystemPolicy::*member;
        std::string_view name;
        Level grants;
    };
    for (const List &list : {List{&FilesystemPolicy::read_allows, "read_allows", Level::Read},
                             List{&FilesystemPolicy::writable_roots, "writable_roots", Level::Write}}) {
        for (const LocatedPath &entry : policy.fs.*list.member) {
            if (check_allowed_and_denied(policy, list.name, entry, diags))
                continue;
            FsTrie trie(Level::None);
            const Level level = level_without(policy, list.member, entry, trie);
            if (level < list.grants)
                continue;
            // A writable root or read allow in the private /tmp binds the host's path into it.
            std::string where;
            const FsRule *grant = granting_rule(trie, entry.value, where);
            if (grant != nullptr && grant->kind == RuleKind::PrivateTmp)
                continue;
            diags.warning(entry.pos,
                          std::string(list.name) + ": " + quoted(entry.value) +
                              " does nothing: " + already_because(trie, entry.value, level, entry.pos) + "; remove it",
                          "allow-no-effect");
        }
    }
}

// --- shell-paths-denied ------------------------------------------------------------------

struct ShellNeed {
    std::string_view path;
    std::string_view what;
};

constexpr std::array<ShellNeed, 6> kShellNeeds = {{
    {"/bin/sh", "/bin/sh, the shell"},
    {"/usr/bin", "/usr/bin, the commands (and /bin on merged-/usr systems)"},
    {"/lib", "/lib, the dynamic loader and the C library"},
    {"/lib64", "/lib64, the dynamic loader on x86-64"},
    {"/usr/lib", "/usr/lib, the libraries (and /lib on merged-/usr systems)"},
    {"/dev/null", "/dev/null, which shells and most tools open"},
}};

void check_shell_paths(const Policy &policy, const FsTrie &trie, Diagnostics &diags)
{
    for (const LocatedPath &deny : policy.fs.read_denies) {
        for (const ShellNeed &need : kShellNeeds) {
            const std::string path(need.path);
            if (!path_is_within(path, deny.value) || trie.level_at(path) != Level::None)
                continue;
            const FsRule *rule = rule_deciding(trie, path);
            if (rule == nullptr || rule->kind != RuleKind::ReadDeny || rule->pos.line != deny.pos.line ||
                rule->pos.col != deny.pos.col)
                continue;
            diags.warning(deny.pos,
                          "read_denies: " + quoted(deny.value) + " hides " + std::string(need.what) +
                              ": no shell and no dynamically linked command can start in this sandbox; deny "
                              "something narrower",
                          "shell-paths-denied");
            break;
        }
    }
}

// --- writable-root-too-broad ---------------------------------------------------------------

// What `~` names when that is a home directory: absolute and not "/" (containers often set
// HOME=/).
std::optional<std::string> home_directory()
{
    const std::optional<std::string> home = policy_home();
    if (!home || home->empty() || home->front() != '/')
        return std::nullopt;
    const std::string normal = normalize_absolute(*home);
    if (normal == "/")
        return std::nullopt;
    return normal;
}

void check_broad_roots(const Policy &policy, Diagnostics &diags)
{
    const std::optional<std::string> home = home_directory();
    for (const LocatedPath &root : policy.fs.writable_roots) {
        std::string what;
        if (root.value == "/")
            what = "makes the whole filesystem writable";
        else if (home && path_is_within(*home, root.value))
            what = "holds your home directory (" + *home + ")";
        else
            continue;
        diags.error(root.pos,
                    "writable_roots: " + quoted(root.value) + " " + what +
                        ": the agent could rewrite ~/.bashrc, ~/.profile, ~/.config/autostart or "
                        "~/.ssh/authorized_keys, which run or let in code outside the sandbox later; make only "
                        "the project directory writable",
                    "writable-root-too-broad");
    }
}

// --- plan-writable, policy-writable --------------------------------------------------------

// The writable root of `policy` that holds `path` most closely.
const LocatedPath *innermost_root(const Policy &policy, const std::string &path)
{
    const LocatedPath *best = nullptr;
    for (const LocatedPath &root : policy.fs.writable_roots)
        if (path_is_within(path, root.value) && (best == nullptr || root.value.size() > best->value.size()))
            best = &root;
    return best;
}

bool is_plan_file(const std::string &path)
{
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 8)
        return false;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return false;
    char magic[8];
    const ssize_t got = read(fd, magic, sizeof magic);
    close(fd);
    return got == static_cast<ssize_t>(sizeof magic) && std::memcmp(magic, TP_MAGIC, sizeof magic) == 0;
}

// Plans (files with the plan magic, whatever their name) in the policy's directory, by name.
std::vector<std::string> plans_next_to(const std::string &dir)
{
    std::vector<std::string> names;
    DIR *d = opendir(dir.c_str());
    if (d == nullptr)
        return names;
    while (const dirent *entry = readdir(d)) {
        const std::string name = entry->d_name;
        if (name != "." && name != ".." && is_plan_file(path_join(dir, name)))
            names.push_back(name);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

void check_plans(const Policy &policy, const FsTrie &trie, Diagnostics &diags)
{
    const std::string dir = parent_directory(policy.source_path);
    for (const std::string &name : plans_next_to(dir)) {
        const std::string path = path_join(dir, name);
        const LocatedPath *root = innermost_root(policy, path);
        if (root == nullptr || trie.level_at(path) != Level::Write)
            continue;
        const std::string fix = "{ path = \"" + name + "\", type = \"file\" }";
        diags.error(root->pos,
                    quoted(name) + " next to this policy is a TartarOS plan inside the writable root " +
                        quoted(root->value) +
                        ", and no deny covers it: an agent in this sandbox could rewrite it, and the next run of "
                        "that plan would run what the agent wrote (only a run of that very plan protects it); add " +
                        fix + " to write_denies, or keep plans outside the writable roots (~/.cache)",
                    "plan-writable");
    }
}

std::optional<std::string> real_path(const std::string &path)
{
    char buffer[PATH_MAX];
    if (realpath(path.c_str(), buffer) == nullptr)
        return std::nullopt;
    return std::string(buffer);
}

// The compiler write-denies the policy file and every file it included when its path, as
// written, lies in a writable root. Through a symlink a file may lie in one only by its real
// path: then nothing protects it unless a deny names it.
void check_policy_file(const Policy &policy, const std::string &path, const std::string &what, const std::string &fix,
                       Diagnostics &diags)
{
    if (innermost_root(policy, path) != nullptr)
        return;  // the implied write deny
    const std::optional<std::string> real = real_path(path);
    if (!real)
        return;
    for (const auto *denies : {&policy.fs.read_denies, &policy.fs.write_denies})
        for (const LocatedPath &deny : *denies)
            if (path_is_within(*real, real_path(deny.value).value_or(deny.value)))
                return;
    for (const LocatedPath &root : policy.fs.writable_roots) {
        const std::optional<std::string> real_root = real_path(root.value);
        if (!real_root || !path_is_within(*real, *real_root))
            continue;
        diags.error(root.pos,
                    what + " lies in the writable root " + quoted(root.value) + " by its real path " + *real +
                        ", not by the path it was named by (" + path +
                        "), so the compiler's automatic write deny misses it: an agent in this sandbox could "
                        "rewrite its own policy; " +
                        fix + " by its real path, or add " + quoted(*real) + " to write_denies",
                    "policy-writable");
        return;
    }
}

void check_policy_files(const Policy &policy, Diagnostics &diags)
{
    check_policy_file(policy, policy.source_path, "this policy file", "name the policy", diags);
    for (size_t k = 1; k < policy.sources.size(); k++)
        check_policy_file(policy, policy.sources[k].absolute,
                          "the file " + quoted(policy.sources[k].display) + " this policy includes", "include it",
                          diags);
}

}  // namespace

void lint_filesystem_rules(const Policy &policy, const std::string &file, const toml::table &document,
                           Diagnostics &diags)
{
    const FsTrie trie = build_fs_trie(policy, "");
    check_allows(policy, diags);
    check_broad_roots(policy, diags);
    check_shell_paths(policy, trie, diags);
    if (policy.source_path.empty())
        return;  // no file: nothing is relative to it or next to it
    check_paths_leave_directory(policy, file, document, diags);
    check_plans(policy, trie, diags);
    check_policy_files(policy, diags);
}

}  // namespace tartaros
