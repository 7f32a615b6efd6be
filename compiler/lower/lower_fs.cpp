// compiler/lower/lower_fs.cpp — trie → mount steps + Landlock rules (docs/design-notes.md §2).
//
// Mount layer: every node whose level differs from its parent's gets the one step that makes
// the difference (a bind back, a mask, a read-only self-bind), walked parents before
// children, siblings by name. Landlock layer: one rule per subtree that is uniformly at least
// its level; read-only directories that hold a more restricted descendant are expanded;
// writable directories never are (their denies are mount-only).
#include "lower_fs.h"

#include <algorithm>
#include <new>
#include <optional>
#include <set>

#include "host_answer.h"
#include "implied_denies.h"
#include "paths.h"

namespace tartaros {

const std::vector<DeviceGrant> kDeviceGrants = {
    {"/dev/full", TP_LL_FS_FILE_RIGHTS & ~TP_LL_FS_EXECUTE},
    {"/dev/null", TP_LL_FS_FILE_RIGHTS & ~TP_LL_FS_EXECUTE},
    // The DEV step's own devpts instance (newinstance): ptmx and the ptys the sandbox opens.
    {"/dev/pts", (TP_LL_FS_FILE_RIGHTS & ~TP_LL_FS_EXECUTE) | TP_LL_FS_READ_DIR},
    {"/dev/shm", kWriteRights},  // the private shm tmpfs of the DEV step
    {"/dev/tty", TP_LL_FS_FILE_RIGHTS & ~TP_LL_FS_EXECUTE},
    {"/dev/zero", TP_LL_FS_FILE_RIGHTS & ~TP_LL_FS_EXECUTE},
};

uint64_t level_rights(Level level)
{
    switch (level) {
    case Level::None: return 0;
    case Level::Read: return kReadRights;
    case Level::Write: return kWriteRights;
    }
    return 0;
}

uint32_t landlock_abi_needed(uint64_t fs_access)
{
    if ((fs_access & TP_LL_FS_IOCTL_DEV) != 0)
        return 5;
    if ((fs_access & TP_LL_FS_TRUNCATE) != 0)
        return 3;
    if ((fs_access & TP_LL_FS_REFER) != 0)
        return 2;
    return 1;
}

namespace {

// The host as shared/host_answer.h sees it: the answers the plan cache records are these.
class RealHost final : public HostView {
public:
    HostKind kind(const std::string &path) const override { return static_cast<HostKind>(th_kind(path.c_str())); }

    std::string read_link(const std::string &path) const override { return answer(TH_LINK_TARGET, path); }

    std::vector<std::string> entries(const std::string &path) const override
    {
        const std::string joined = answer(TH_ENTRIES, path);  // sorted: the plan must not depend on the order
        std::vector<std::string> names;
        for (size_t start = 0; start < joined.size();) {
            const size_t end = joined.find('\0', start);
            names.emplace_back(joined, start, end - start);
            start = end + 1;
        }
        return names;
    }

private:
    static std::string answer(th_question question, const std::string &path)
    {
        th_owned_text text;
        th_answer(question, path.c_str(), &text);
        if (text.failed)
            throw std::bad_alloc();
        return std::string(text.data, text.len);
    }
};

static_assert(static_cast<int>(HostKind::Absent) == TH_ABSENT &&
              static_cast<int>(HostKind::Directory) == TH_DIRECTORY && static_cast<int>(HostKind::File) == TH_FILE &&
              static_cast<int>(HostKind::Symlink) == TH_SYMLINK && static_cast<int>(HostKind::Other) == TH_OTHER);

SourcePos pos_of(const FsNode &n)
{
    const FsRule *r = n.deciding_rule();
    return r != nullptr ? r->pos : SourcePos{};
}

// The first descendant (trie order) whose level is below `level`: what forced an expansion
// or a pin, for the origin of the step it caused.
const FsNode *first_below(const FsNode &n, Level level)
{
    for (const auto &[name, child] : n.children) {
        if (child->level < level && child->deciding_rule() != nullptr)
            return child.get();
        if (const FsNode *found = first_below(*child, level))
            return found;
    }
    return nullptr;
}

// ---- mount layer --------------------------------------------------------------------------

class MountLowering {
public:
    MountLowering(const Policy &policy, const FsTrie &trie, const HostView &host, Diagnostics &diags,
                  std::vector<MountStep> &out)
        : policy_(policy), trie_(trie), host_(host), diags_(diags), out_(out)
    {}

    void run()
    {
        const FsNode &root = trie_.root();
        emit_root(root);
        const std::string anchor = root.level == Level::Write ? "/" : "";
        for (const FsNode *n : base_nodes(root)) {
            emit_step(*n, root.level, anchor, decide(*n, root.level));
            base_done_.insert(n->path);
        }
        const bool writable = root.has_rule(RuleKind::WritableRoot);
        for (const auto &[name, child] : root.children)
            walk(*child, root.level, anchor, writable, false, "");
    }

    // Paths that became SYMLINK steps: Landlock reaches them through their targets.
    const std::set<std::string> &symlinks() const { return symlinks_; }
    // Paths that got a DEV, PROC or TMPFS step: they exist in every sandbox.
    const std::set<std::string> &created() const { return created_; }

private:
    // Depth-1 nodes set up before the policy's own steps: granted system paths (by name),
    // then /dev, /proc, /tmp.
    std::vector<const FsNode *> base_nodes(const FsNode &root) const
    {
        std::vector<const FsNode *> nodes;
        for (const auto &[name, child] : root.children)
            if (child->has_rule(RuleKind::GrantedSystem))
                nodes.push_back(child.get());
        for (RuleKind kind : {RuleKind::Dev, RuleKind::Proc, RuleKind::PrivateTmp})
            for (const auto &[name, child] : root.children)
                if (child->has_rule(kind) && !child->has_rule(RuleKind::GrantedSystem))
                    nodes.push_back(child.get());
        return nodes;
    }

    // The step node `n` needs when its parent path is at `parent`; 0 = none. `fresh`: the
    // nearest mount above is the private /tmp, whose content is the sandbox's own, so a read
    // allow there binds the host's path back read-only (build_fs_trie left no deny there).
    uint32_t decide(const FsNode &n, Level parent, bool fresh = false) const
    {
        if (n.has_rule(RuleKind::Dev) && n.level == Level::Read)
            return TP_MNT_DEV;
        if (n.has_rule(RuleKind::Proc) && n.level == Level::Read)
            return TP_MNT_PROC;
        if ((n.has_rule(RuleKind::PrivateTmp) || n.has_rule(RuleKind::PrivateDir)) && n.level == Level::Write)
            return TP_MNT_TMPFS;
        if (n.has_rule(RuleKind::Credentials) && n.level == Level::Read)
            return TP_MNT_TMPFS;
        switch (n.level) {
        case Level::Write: return n.has_rule(RuleKind::WritableRoot) ? TP_MNT_BIND : 0;
        case Level::Read:
            if (parent == Level::None)
                return n.has_rule(RuleKind::GrantedSystem) && host_.kind(n.path) == HostKind::Symlink &&
                        !host_.read_link(n.path).empty()
                    ? TP_MNT_SYMLINK
                    : TP_MNT_BIND;
            if (parent == Level::Write)
                return fresh ? TP_MNT_BIND : TP_MNT_WRITE_DENY;
            return 0;
        case Level::None: return parent == Level::None ? 0 : TP_MNT_MASK;
        }
        return 0;
    }

    static bool makes_writable_mount(const FsNode &n, uint32_t op)
    {
        return (op == TP_MNT_TMPFS && n.level == Level::Write) || (op == TP_MNT_BIND && n.level == Level::Write);
    }

    void emit_root(const FsNode &root)
    {
        MountStep base;
        base.op = root.level == Level::None ? TP_MNT_ROOT_EMPTY : TP_MNT_ROOT_READONLY;
        base.flags = TP_MNTF_REQUIRED;
        base.path = "/";
        base.pos = root.deciding_rule() != nullptr ? root.deciding_rule()->pos : policy_.fs.read_scope.pos;
        out_.push_back(base);
        if (root.level == Level::Write && root.has_rule(RuleKind::WritableRoot))
            out_.push_back(MountStep{TP_MNT_BIND, 0, "/", "/", "", pos_of(root)});
    }

    // `symlink`: a host symlink on the way to `n` outside writable trees ("" if none).
    // `fresh`: beneath the private /tmp and no host bind in between (decide).
    void walk(const FsNode &n, Level parent, const std::string &anchor, bool in_writable, bool fresh,
              std::string symlink)
    {
        const uint32_t op = decide(n, parent, fresh);
        if (op == TP_MNT_TMPFS || op == TP_MNT_BIND)
            fresh = op == TP_MNT_TMPFS && n.has_rule(RuleKind::PrivateTmp);
        in_writable = in_writable || n.has_rule(RuleKind::WritableRoot) || n.has_rule(RuleKind::PrivateTmp) ||
            n.has_rule(RuleKind::PrivateDir);
        warn_outside_roots(n, in_writable);
        if (symlink.empty() && parent != Level::Write && host_.kind(n.path) == HostKind::Symlink)
            symlink = n.path;
        warn_symlink(n, symlink);
        if (op != 0) {
            if (base_done_.count(n.path) == 0)
                emit_step(n, parent, anchor, op);
        } else if (n.level == Level::Write && parent == Level::Write && !fresh) {
            emit_pin_if_needed(n, anchor);  // in the private /tmp nothing of the host's can be swapped out
        }
        const std::string &child_anchor = makes_writable_mount(n, op) ? n.path : anchor;
        for (const auto &[name, child] : n.children)
            walk(*child, n.level, child_anchor, in_writable, fresh, symlink);
    }

    // Landlock knows a file by what it is, not by the name a rule wrote: a deny written
    // through a symlink stays reachable under the target's own path. The mount layer still
    // hides it (mounts follow the link), so this is a warning, not a refusal.
    void warn_symlink(const FsNode &n, const std::string &symlink)
    {
        if (symlink.empty())
            return;
        for (RuleKind kind : {RuleKind::ReadDeny, RuleKind::WriteDeny}) {
            const FsRule *r = n.find_rule(kind);
            if (r == nullptr || r->implied)
                continue;
            diags_.warning(r->pos,
                           std::string(kind == RuleKind::ReadDeny ? "read_denies: " : "write_denies: ") + n.path +
                               " goes through the symlink " + symlink + " -> " + host_.read_link(symlink) +
                               "; Landlock sees the target under its own path, so only the mount layer enforces "
                               "this deny: write the path without the symlink",
                           "symlink-in-path");
        }
    }

    void warn_outside_roots(const FsNode &n, bool in_writable)
    {
        const FsRule *wd = n.find_rule(RuleKind::WriteDeny);
        if (wd == nullptr || wd->implied || in_writable)
            return;
        diags_.warning(wd->pos,
                       "write_denies: " + n.path +
                           " is not inside any writable root; it is read-only already, so no mount is made",
                       "write-deny-outside-roots");
    }

    // Flags for a deny target inside a writable root that may be absent at run time.
    uint32_t absent_flags(const FsNode &n) const
    {
        // The plan cache is made, not masked: a masked ~/.cache would fail every tool that
        // caches there, and an empty directory of the user's own is what the cache starts as.
        const FsRule *deny = n.find_rule(RuleKind::WriteDeny);
        if (deny != nullptr && deny->implied && deny->by == ImpliedBy::PlanCache)
            return TP_MNTF_MATERIALIZE_DIR;
        if (!policy_.fs.materialize.value)
            return TP_MNTF_MASK_ABSENT;
        const FsRule *r = n.deciding_rule();
        const bool file = (r != nullptr && r->known_file) || host_.kind(n.path) == HostKind::File;
        return file ? TP_MNTF_MATERIALIZE_FILE : TP_MNTF_MATERIALIZE_DIR;
    }

    void emit_step(const FsNode &n, Level parent, const std::string &anchor, uint32_t op)
    {
        if (op == 0)
            return;
        MountStep s;
        s.op = op;
        s.path = n.path;
        s.pos = pos_of(n);
        switch (op) {
        case TP_MNT_BIND:
            s.source = n.path;
            if (n.level == Level::Read)
                s.flags |= TP_MNTF_RDONLY;
            if (!n.has_rule(RuleKind::WritableRoot))
                s.flags |= TP_MNTF_OPTIONAL;  // a granted path the host lacks grants nothing
            break;
        case TP_MNT_SYMLINK:
            s.source = host_.read_link(n.path);
            symlinks_.insert(n.path);
            break;
        case TP_MNT_MASK:
            s.flags = TP_MNTF_REQUIRED;
            if (parent == Level::Write) {
                s.anchor = anchor;
                s.flags |= absent_flags(n);
            } else {
                s.flags |= TP_MNTF_OPTIONAL;  // read-only region: an absent path cannot appear
            }
            break;
        case TP_MNT_WRITE_DENY:
            s.anchor = anchor;
            s.flags = TP_MNTF_REQUIRED | absent_flags(n);
            mark_implied(n, s);
            break;
        default:  // DEV, PROC, TMPFS
            s.flags = TP_MNTF_REQUIRED;
            if (n.has_rule(RuleKind::Credentials))
                s.flags |= TP_MNTF_CREDENTIALS;
            created_.insert(n.path);
            break;
        }
        out_.push_back(std::move(s));
    }

    // A write deny the compiler implied from the host (implied_denies.h) says why in its
    // flags. A git file absent at start is made for the run as what git reads as absent.
    static void mark_implied(const FsNode &n, MountStep &s)
    {
        const FsRule *r = n.find_rule(RuleKind::WriteDeny);
        if (r == nullptr || !r->implied)
            return;
        if (r->by == ImpliedBy::GitHooks) {
            const GitCodeFile *f = git_code_file(n.path);
            s.flags = TP_MNTF_REQUIRED | TP_MNTF_GIT | TP_MNTF_PLACEHOLDER |
                (f->directory ? TP_MNTF_MATERIALIZE_DIR : TP_MNTF_MATERIALIZE_FILE);
            s.source = std::string(f->placeholder);
        } else if (r->by == ImpliedBy::LinkTarget) {
            s.flags |= TP_MNTF_LINK_TARGET;
            s.source = r->via;
        }
    }

    // The write-deny below `n` whose walk from its anchor passes through `n` (n has no mount
    // of its own), if any: then `n` must be pinned so it cannot be renamed away.
    const FsNode *write_deny_through(const FsNode &n) const
    {
        for (const auto &[name, child] : n.children) {
            const uint32_t op = decide(*child, n.level);
            if (op == TP_MNT_WRITE_DENY)
                return child.get();
            if (op == 0 && child->level == Level::Write)
                if (const FsNode *found = write_deny_through(*child))
                    return found;
        }
        return nullptr;
    }

    void emit_pin_if_needed(const FsNode &n, const std::string &anchor)
    {
        const FsNode *target = write_deny_through(n);
        if (target == nullptr)
            return;
        // Materialize creates the target's ancestors too; they must be pinned as well.
        const uint32_t absent =
            policy_.fs.materialize.value ? uint32_t{TP_MNTF_MATERIALIZE_DIR} : uint32_t{TP_MNTF_OPTIONAL};
        out_.push_back(MountStep{TP_MNT_PIN, TP_MNTF_REQUIRED | absent, n.path, "", anchor, pos_of(*target)});
    }

    const Policy &policy_;
    const FsTrie &trie_;
    const HostView &host_;
    Diagnostics &diags_;
    std::vector<MountStep> &out_;
    std::set<std::string> base_done_;
    std::set<std::string> symlinks_;
    std::set<std::string> created_;
};

// ---- Landlock layer -----------------------------------------------------------------------

class LandlockLowering {
public:
    LandlockLowering(const FsTrie &trie, const SourcePos &scope_pos, const std::set<std::string> &symlinks,
                     const std::set<std::string> &created, Diagnostics &diags, std::vector<LandlockRule> &out)
        : trie_(trie), scope_pos_(scope_pos), symlinks_(symlinks), created_(created), diags_(diags), out_(out)
    {}

    void run()
    {
        const FsNode &root = trie_.root();
        if (root.level == Level::None)  // ROOT_EMPTY: only granted names exist; `ls /` works
            add(TP_LL_PATH, TP_LL_FS_READ_DIR, root, "",
                root.deciding_rule() != nullptr ? root.deciding_rule()->pos : scope_pos_);
        visit(root, Level::None);
    }

private:
    SourcePos first_below_pos(const FsNode &n, Level level) const
    {
        if (const FsRule *r = n.deciding_rule())
            return r->pos;
        const FsNode *cause = first_below(n, level);
        return cause != nullptr ? pos_of(*cause) : SourcePos{};
    }

    // A missing path is a refusal at run time only where the sandbox needs it: the root,
    // writable roots, and what the DEV/PROC/TMPFS steps create.
    // The credentials directory is made by its own mount step, after init checks the required
    // paths, and is absent whenever the broker is lost (a degraded run): always optional.
    bool optional(const FsNode &n) const
    {
        if (n.has_rule(RuleKind::Credentials))
            return true;
        return !(n.path == "/" || n.has_rule(RuleKind::WritableRoot) || created_.count(n.path) != 0);
    }

    void add(uint32_t kind, uint64_t access, const FsNode &n, std::string except, const SourcePos &pos)
    {
        LandlockRule r;
        r.kind = kind;
        r.access = access;
        r.flags = optional(n) ? uint32_t{TP_MNTF_OPTIONAL} : 0u;
        r.path = n.path;
        r.except = std::move(except);
        r.pos = pos;
        out_.push_back(std::move(r));
    }

    // Whether `n` or a descendant is at None where Landlock must leave it without access.
    // Writable subtrees do not count: they get one rule and their denies are mount-only.
    static bool denied_below(const FsNode &n)
    {
        if (n.min_below != Level::None)
            return false;
        if (n.level == Level::None)
            return true;
        if (n.level == Level::Write)
            return false;
        for (const auto &[name, child] : n.children)
            if (denied_below(*child))
                return true;
        return false;
    }

    // `granted`: the level Landlock already grants at `n` through an ancestor's rule.
    void visit(const FsNode &n, Level granted)
    {
        if (symlinks_.count(n.path) != 0)
            return;
        switch (n.level) {
        case Level::Write:
            if (granted < Level::Write)
                add(TP_LL_PATH, kWriteRights, n, "", pos_of(n));
            note_mount_only(n, n);
            return;  // never expanded: files created later must stay writable
        case Level::Read:
            if (!denied_below(n)) {
                if (granted < Level::Read)
                    add(TP_LL_PATH, n.has_rule(RuleKind::Credentials) ? kCredentialsRights : kReadRights, n, "",
                        pos_of(n));
                add_device_grants(n);
                visit_children(n, Level::Read, {});
            } else {
                expand(n);
            }
            return;
        case Level::None: visit_children(n, Level::None, {}); return;
        }
    }

    void expand(const FsNode &n)
    {
        std::set<std::string> except;
        std::string joined;
        for (const auto &[name, child] : n.children) {
            if (!denied_below(*child))
                continue;
            except.insert(name);
            joined += (joined.empty() ? "" : "/") + name;
        }
        const SourcePos pos = first_below_pos(n, Level::Read);
        add(TP_LL_EXPAND, kReadRights, n, joined, pos);
        add(TP_LL_PATH, TP_LL_FS_READ_DIR, n, "", pos);
        add_device_grants(n);
        visit_children(n, Level::Read, except);
    }

    // Children named in `except` get nothing from `n`; the others get `granted`.
    void visit_children(const FsNode &n, Level granted, const std::set<std::string> &except)
    {
        for (const auto &[name, child] : n.children)
            visit(*child, except.count(name) != 0 ? Level::None : granted);
    }

    void add_device_grants(const FsNode &n)
    {
        if (n.path != "/dev" || created_.count("/dev") == 0)
            return;
        for (const DeviceGrant &g : kDeviceGrants) {
            if (trie_.level_at(g.path) != Level::Read)
                continue;
            out_.push_back(LandlockRule{TP_LL_PATH, g.access, TP_MNTF_OPTIONAL, g.path, "", pos_of(n)});
        }
    }

    // Every policy deny beneath writable `root` is enforced by the mount layer alone.
    void note_mount_only(const FsNode &root, const FsNode &n)
    {
        for (const auto &[name, child] : n.children) {
            for (RuleKind kind : {RuleKind::ReadDeny, RuleKind::WriteDeny}) {
                const FsRule *r = child->find_rule(kind);
                if (r == nullptr || r->implied || child->level == Level::Write)
                    continue;
                diags_.note(r->pos,
                            std::string(kind == RuleKind::ReadDeny ? "read_denies: " : "write_denies: ") + child->path +
                                " lies inside the writable tree " + root.path +
                                ": Landlock cannot take rights away there, so only the mount layer enforces it",
                            "mount-only");
                break;
            }
            note_mount_only(root, *child);
        }
    }

    const FsTrie &trie_;
    const SourcePos scope_pos_;
    const std::set<std::string> &symlinks_;
    const std::set<std::string> &created_;
    Diagnostics &diags_;
    std::vector<LandlockRule> &out_;
};

// build_fs_trie left out the denies the private /tmp makes moot: say so, once each.
void note_hidden_by_private_tmp(const Policy &policy, Diagnostics &diags)
{
    for (const auto &[list, name] :
         {std::pair{&policy.fs.read_denies, "read_denies: "}, std::pair{&policy.fs.write_denies, "write_denies: "}})
        for (const LocatedPath &deny : *list)
            if (hidden_by_private_tmp(policy, deny.value))
                diags.note(deny.pos,
                           name + deny.value +
                               " lies in the private /tmp, which starts empty and holds none of the host's files "
                               "(no writable root or read allow beneath /tmp brings it back): nothing to do",
                           "private-tmp-hides");
}

// The write denies implied from the host, said once: per hooks directory (its git files),
// and per symlink target.
void note_implied(const FsNode &n, std::set<std::string> &noted_hooks, Diagnostics &diags)
{
    for (const FsRule &r : n.rules) {
        if (r.kind != RuleKind::WriteDeny || !r.implied)
            continue;
        if (r.by == ImpliedBy::GitHooks && noted_hooks.insert(r.via).second)
            diags.note(r.pos,
                       "write_denies: " + r.via + " protects a git repository's hooks: git also runs what " +
                           parent_directory(r.via) +
                           "/config, config.worktree, commondir and worktrees/ name (core.hooksPath, core.fsmonitor, "
                           "aliases, filters, another common directory), so they are write-denied too; in the "
                           "sandbox git config, git remote add, git branch -u and git worktree add fail",
                       "git-files-protected");
        if (r.by == ImpliedBy::LinkTarget)
            diags.note(r.pos,
                       "write_denies: the symlink " + r.via + " leads to " + n.path +
                           ", which the sandbox could rewrite: it is write-denied too",
                       "symlink-target-protected");
    }
    for (const auto &[name, child] : n.children)
        note_implied(*child, noted_hooks, diags);
}

}  // namespace

const HostView &real_host()
{
    static const RealHost host;
    return host;
}

FsLowering lower_filesystem(const Policy &policy, const FsTrie &trie, const HostView &host, Diagnostics &diags)
{
    FsLowering out;
    note_hidden_by_private_tmp(policy, diags);
    std::set<std::string> noted_hooks;
    note_implied(trie.root(), noted_hooks, diags);
    MountLowering mounts(policy, trie, host, diags, out.mounts);
    mounts.run();
    LandlockLowering landlock(trie, policy.fs.read_scope.pos, mounts.symlinks(), mounts.created(), diags, out.landlock);
    landlock.run();
    return out;
}

}  // namespace tartaros
