// compiler/model/fs_trie.cpp — the rule trie and its most-specific-wins resolution.
#include "fs_trie.h"

#include <algorithm>

#include "implied_denies.h"
#include "plan.h"

namespace tartaros {

const std::vector<std::string> kGrantedSystemPaths = {"/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc"};

const char *level_name(Level level)
{
    switch (level) {
    case Level::None: return "none";
    case Level::Read: return "read";
    case Level::Write: return "write";
    }
    return "?";
}

bool path_is_within(std::string_view path, std::string_view ancestor)
{
    if (ancestor == "/")
        return !path.empty() && path.front() == '/';
    if (path.size() < ancestor.size() || path.compare(0, ancestor.size(), ancestor) != 0)
        return false;
    return path.size() == ancestor.size() || path[ancestor.size()] == '/';
}

std::vector<std::string_view> path_components(std::string_view path)
{
    std::vector<std::string_view> parts;
    size_t i = 0;
    while (i < path.size()) {
        while (i < path.size() && path[i] == '/')
            i++;
        size_t end = path.find('/', i);
        if (end == std::string_view::npos)
            end = path.size();
        if (end > i)
            parts.push_back(path.substr(i, end - i));
        i = end;
    }
    return parts;
}

size_t path_depth(std::string_view path)
{
    return path_components(path).size();
}

std::string path_join(std::string_view dir, std::string_view name)
{
    std::string out(dir);
    if (out.empty() || out.back() != '/')
        out.push_back('/');
    out.append(name);
    return out;
}

bool FsNode::has_rule(RuleKind kind) const
{
    return find_rule(kind) != nullptr;
}

const FsRule *FsNode::find_rule(RuleKind kind) const
{
    for (const FsRule &r : rules)
        if (r.kind == kind)
            return &r;
    return nullptr;
}

const FsRule *FsNode::deciding_rule() const
{
    static constexpr RuleKind kByPrecedence[] = {RuleKind::ReadDeny,      RuleKind::WriteDeny,  RuleKind::WritableRoot,
                                                 RuleKind::PrivateTmp,    RuleKind::PrivateDir, RuleKind::ReadAllow,
                                                 RuleKind::GrantedSystem, RuleKind::Dev,        RuleKind::Proc,
                                                 RuleKind::Credentials};
    for (RuleKind kind : kByPrecedence)
        if (const FsRule *r = find_rule(kind))
            return r;
    return nullptr;
}

namespace {

// The level of a node with `rules`, given the level its parent path has.
Level apply_rules(Level inherited, const std::vector<FsRule> &rules)
{
    Level floor = Level::None;
    bool read_cap = false, deny = false;
    for (const FsRule &r : rules) {
        switch (r.kind) {
        case RuleKind::ReadAllow:
        case RuleKind::GrantedSystem:
        case RuleKind::Dev:
        case RuleKind::Proc: floor = std::max(floor, Level::Read); break;
        case RuleKind::WritableRoot:
        case RuleKind::PrivateTmp:
        case RuleKind::PrivateDir: floor = Level::Write; break;
        case RuleKind::WriteDeny: read_cap = true; break;
        case RuleKind::Credentials:
            floor = std::max(floor, Level::Read);
            read_cap = true;
            break;
        case RuleKind::ReadDeny: deny = true; break;
        }
    }
    Level level = std::max(inherited, floor);
    if (read_cap)
        level = std::min(level, Level::Read);
    if (deny)
        level = Level::None;
    return level;
}

void resolve_node(FsNode &node, Level inherited)
{
    node.level = apply_rules(inherited, node.rules);
    node.min_below = node.level;
    for (auto &[name, child] : node.children) {
        resolve_node(*child, node.level);
        node.min_below = std::min(node.min_below, child->min_below);
    }
}

}  // namespace

FsTrie::FsTrie(Level root_level) : root_inherited_(root_level), root_(std::make_unique<FsNode>())
{
    root_->path.assign(1, '/');
    resolve();
}

void FsTrie::add(std::string_view path, const FsRule &rule)
{
    FsNode *node = root_.get();
    for (std::string_view part : path_components(path)) {
        auto &slot = node->children[std::string(part)];
        if (!slot) {
            slot = std::make_unique<FsNode>();
            slot->name = std::string(part);
            slot->path = path_join(node->path, part);
        }
        node = slot.get();
    }
    node->rules.push_back(rule);
}

void FsTrie::resolve()
{
    resolve_node(*root_, root_inherited_);
}

const FsNode *FsTrie::find(std::string_view path) const
{
    const FsNode *node = root_.get();
    for (std::string_view part : path_components(path)) {
        auto it = node->children.find(std::string(part));
        if (it == node->children.end())
            return nullptr;
        node = it->second.get();
    }
    return node;
}

const FsNode &FsTrie::deepest_ancestor(std::string_view path) const
{
    const FsNode *node = root_.get();
    for (std::string_view part : path_components(path)) {
        auto it = node->children.find(std::string(part));
        if (it == node->children.end())
            break;
        node = it->second.get();
    }
    return *node;
}

Level FsTrie::level_at(std::string_view path) const
{
    return deepest_ancestor(path).level;
}

namespace {

void add_paths(FsTrie &trie, const std::vector<LocatedPath> &paths, RuleKind kind,
               const std::vector<std::string> &file_targets = {}, const Policy *moot_if_private_tmp = nullptr)
{
    for (const LocatedPath &p : paths) {
        if (moot_if_private_tmp != nullptr && hidden_by_private_tmp(*moot_if_private_tmp, p.value))
            continue;
        const bool file = std::find(file_targets.begin(), file_targets.end(), p.value) != file_targets.end();
        trie.add(p.value, FsRule{kind, p.pos, false, file});
    }
}

bool inside_writable_root(const Policy &policy, const std::string &path)
{
    return std::any_of(policy.fs.writable_roots.begin(), policy.fs.writable_roots.end(),
                       [&](const LocatedPath &root) { return path_is_within(path, root.value); });
}

// A file the sandbox could write, so one to protect: in a writable root, not in a private dir.
bool needs_protection(const Policy &policy, const std::string &path)
{
    return inside_writable_root(policy, path) && !in_private_dir(policy, path);
}

// Whether any list of the policy names exactly `path`.
bool names_path(const Policy &policy, const std::string &path)
{
    for (const auto *list : {&policy.fs.read_allows, &policy.fs.read_denies, &policy.fs.writable_roots,
                             &policy.fs.write_denies, &policy.fs.private_dirs})
        for (const LocatedPath &p : *list)
            if (p.value == path)
                return true;
    return false;
}

// Whether `path` lies in the private /tmp and no path of `lists` beneath /tmp holds it.
bool in_private_tmp_outside(const Policy &policy, const std::string &path,
                            std::initializer_list<const std::vector<LocatedPath> *> lists)
{
    if (!policy.fs.private_tmp.value || !path_is_within(path, "/tmp"))
        return false;
    for (const std::vector<LocatedPath> *list : lists)
        for (const LocatedPath &granted : *list)
            if (granted.value != "/tmp" && path_is_within(granted.value, "/tmp") && path_is_within(path, granted.value))
                return false;
    return true;
}

// A read allow beneath the private /tmp and no writable root under /tmp.
bool in_private_tmp_alone(const Policy &policy, const std::string &path)
{
    return path != "/tmp" && in_private_tmp_outside(policy, path, {&policy.fs.writable_roots});
}

}  // namespace

bool hidden_by_private_tmp(const Policy &policy, const std::string &path)
{
    return in_private_tmp_outside(policy, path, {&policy.fs.writable_roots, &policy.fs.read_allows});
}

bool in_private_dir(const Policy &policy, const std::string &path)
{
    return std::any_of(policy.fs.private_dirs.begin(), policy.fs.private_dirs.end(),
                       [&](const LocatedPath &dir) { return path_is_within(path, dir.value); });
}

FsTrie build_fs_trie(const Policy &policy, const std::string &plan_path, const HostView *host,
                     const std::string &plan_cache_dir)
{
    const bool granted = policy.fs.read_scope.value == ReadScope::Granted;
    FsTrie trie(granted ? Level::None : Level::Read);
    const SourcePos &scope_pos = policy.fs.read_scope.pos;

    if (granted) {
        for (const std::string &p : kGrantedSystemPaths)
            trie.add(p, FsRule{RuleKind::GrantedSystem, scope_pos, true});
        if (!policy.process.isolate_proc.value)
            trie.add("/proc", FsRule{RuleKind::GrantedSystem, scope_pos, true});
    }
    trie.add("/dev", FsRule{RuleKind::Dev, SourcePos{scope_pos.file, 0, 0}, true});
    if (policy.process.isolate_proc.value)
        trie.add("/proc", FsRule{RuleKind::Proc, policy.process.isolate_proc.pos, true});
    if (policy.fs.private_tmp.value)
        trie.add("/tmp", FsRule{RuleKind::PrivateTmp, policy.fs.private_tmp.pos, true});
    if (policy.broker)
        trie.add(TP_CREDENTIALS_DIR, FsRule{RuleKind::Credentials, policy.broker->pos, true});

    add_paths(trie, policy.fs.read_allows, RuleKind::ReadAllow);
    // A read allow in the private /tmp shows the host's path there, read-only: an allow alone
    // is a floor, and the tmpfs around it is writable, so it is capped at Read as well.
    for (const LocatedPath &p : policy.fs.read_allows)
        if (in_private_tmp_alone(policy, p.value))
            trie.add(p.value, FsRule{RuleKind::WriteDeny, p.pos, true});
    add_paths(trie, policy.fs.writable_roots, RuleKind::WritableRoot);
    add_paths(trie, policy.fs.read_denies, RuleKind::ReadDeny, policy.fs.file_targets, &policy);
    add_paths(trie, policy.fs.write_denies, RuleKind::WriteDeny, policy.fs.file_targets, &policy);
    add_paths(trie, policy.fs.private_dirs, RuleKind::PrivateDir);

    // Host services listen on unix sockets under /run (D-Bus, Docker, ssh-agent): hidden unless
    // the policy names it, so that not even their names show. A rule beneath re-opens that
    // part, as for any read deny; connect mediation refuses the sockets wherever they show.
    const std::string run_dir(kHostRunDir);
    if (!granted && !names_path(policy, run_dir))
        trie.add(run_dir, FsRule{RuleKind::ReadDeny, SourcePos{policy.source_path, 0, 0}, true});

    // An agent must not be able to weaken its own sandbox (docs/architecture.md, rule 4): nor the policy file nor
    // any file it included (a rules.tart beside the project is as much the policy).
    const SourcePos implied{policy.source_path, 0, 0};
    if (!policy.source_path.empty() && needs_protection(policy, policy.source_path))
        trie.add(policy.source_path, FsRule{RuleKind::WriteDeny, implied, true, true});
    for (size_t k = 1; k < policy.sources.size(); k++)
        if (needs_protection(policy, policy.sources[k].absolute))
            trie.add(policy.sources[k].absolute, FsRule{RuleKind::WriteDeny, implied, true, true});
    if (!plan_path.empty() && needs_protection(policy, plan_path))
        trie.add(plan_path, FsRule{RuleKind::WriteDeny, implied, true, true});
    // A plan in `tartaros run`'s cache is started without being compiled again: a sandbox that
    // could write there would choose the sandbox of a later run.
    if (!plan_cache_dir.empty() && needs_protection(policy, plan_cache_dir))
        trie.add(plan_cache_dir, FsRule{RuleKind::WriteDeny, implied, true, false, ImpliedBy::PlanCache});

    if (host != nullptr)
        add_implied_denies(trie, policy, *host);  // resolves
    else
        trie.resolve();
    return trie;
}

}  // namespace tartaros
