// compiler/verify/verify.cpp — reads a compiled plan back and checks it against the policy's rule
// trie. The invariants are listed in verify.h; each check returns "" or what is wrong.
#include "verify.h"

#include <cstring>
#include <optional>
#include <set>
#include <span>
#include <sstream>

#include "fs_trie.h"
#include "lower_broker.h"
#include "lower_fs.h"
#include "lower_net.h"
#include "paths.h"
#include "plan_reader.h"
#include "seccomp_rules.h"
#include "seccomp_verify.h"
#include "syscall_table.h"
#include "verify_broker.h"
#include "verify_limits.h"
#include "verify_net.h"

namespace tartaros {

namespace {

// verify_seccomp is a pure function of the program and the profile, and most of the time of a
// compile: a process that compiles or lints many policies meets the same few programs (one
// per profile), so each (profile, program) pair is validated once. Bounded, so a stream of
// different programs (a test's damaged plans) is simply validated each time.
std::optional<std::string> verify_seccomp_once(std::span<const tp_bpf_insn> prog, const seccomp::ProfileSpec &spec)
{
    struct Verified {
        seccomp::ProfileSpec spec;
        std::vector<tp_bpf_insn> prog;
        std::optional<std::string> why;
    };
    static std::vector<Verified> verified;
    const auto same_program = [&](const Verified &v) {
        return v.prog.size() == prog.size() &&
            (prog.empty() || std::memcmp(v.prog.data(), prog.data(), prog.size_bytes()) == 0);
    };
    for (const Verified &v : verified)
        if (v.spec == spec && same_program(v))
            return v.why;
    std::optional<std::string> why = seccomp::verify_seccomp(prog, seccomp::Profile(spec.flags, spec.rules));
    if (verified.size() < 16)
        verified.push_back({spec, {prog.begin(), prog.end()}, why});
    return why;
}

// Structure and translation validation of the plan's filter against the profile the plan
// states.
Failure check_seccomp_program(const tp_plan &plan)
{
    const std::optional<std::string> why =
        verify_seccomp_once({plan.seccomp_prog, plan.seccomp_insn_count}, profile_spec(plan));
    if (why)
        return "seccomp: " + *why;
    return std::nullopt;
}

constexpr int kMaxSymlinkHops = 40;
constexpr uint32_t kAbsentFlags = TP_MNTF_MATERIALIZE_DIR | TP_MNTF_MATERIALIZE_FILE | TP_MNTF_MASK_ABSENT;
constexpr uint32_t kImpliedFlags = TP_MNTF_PLACEHOLDER | TP_MNTF_GIT | TP_MNTF_LINK_TARGET;
constexpr uint32_t kAllMountFlags =
    TP_MNTF_RDONLY | kAbsentFlags | TP_MNTF_OPTIONAL | TP_MNTF_REQUIRED | TP_MNTF_CREDENTIALS | kImpliedFlags;
constexpr uint64_t kFileOnlyRights = TP_LL_FS_EXECUTE | TP_LL_FS_READ_FILE;

std::string hex(uint64_t v)
{
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

bool is_normalised(const std::string &p)
{
    if (p.empty() || p.front() != '/' || p.size() > kMaxPathLength)
        return false;
    if (p == "/")
        return true;
    if (p.back() == '/' || p.find("//") != std::string::npos)
        return false;
    for (std::string_view part : path_components(p))
        if (part == "." || part == "..")
            return false;
    return true;
}

bool is_plain_name(std::string_view name)
{
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos;
}

std::set<std::string> except_names(const std::string &except)
{
    std::set<std::string> names;
    for (std::string_view part : path_components(except))
        names.insert(std::string(part));
    return names;
}

const char *op_name(uint32_t op)
{
    static const char *const kNames[] = {"?",    "ROOT_READONLY", "ROOT_EMPTY", "BIND", "PIN",  "WRITE_DENY",
                                         "MASK", "SYMLINK",       "DEV",        "PROC", "TMPFS"};
    return op < sizeof kNames / sizeof kNames[0] ? kNames[op] : "?";
}

// The level a mount step leaves its path at; nullopt for steps that change no level.
std::optional<Level> step_level(const MountStep &s)
{
    switch (s.op) {
    case TP_MNT_ROOT_EMPTY:
    case TP_MNT_MASK: return Level::None;
    case TP_MNT_ROOT_READONLY:
    case TP_MNT_WRITE_DENY:
    case TP_MNT_DEV:
    case TP_MNT_PROC: return Level::Read;
    case TP_MNT_TMPFS: return (s.flags & TP_MNTF_CREDENTIALS) != 0 ? Level::Read : Level::Write;
    case TP_MNT_BIND: return (s.flags & TP_MNTF_RDONLY) != 0 ? Level::Read : Level::Write;
    default: return std::nullopt;  // PIN keeps the level; SYMLINK is resolved before
    }
}

bool is_writable_mount(const MountStep &s)
{
    return (s.op == TP_MNT_TMPFS && (s.flags & TP_MNTF_CREDENTIALS) == 0) ||
        (s.op == TP_MNT_BIND && (s.flags & TP_MNTF_RDONLY) == 0);
}

class Verifier {
public:
    Verifier(const Policy &policy, const LowerOptions &options)
        : policy_(policy),
          trie_(build_fs_trie(policy, options.plan_path, options.host != nullptr ? options.host : &real_host(),
                              options.plan_cache_dir))
    {}

    Failure run(const std::vector<uint8_t> &bytes)
    {
        for (auto check : {&Verifier::open, &Verifier::check_sections, &Verifier::check_paths, &Verifier::check_rules,
                           &Verifier::check_mount_flags, &Verifier::check_order, &Verifier::check_anchors,
                           &Verifier::check_private_filesystems, &Verifier::check_probes, &Verifier::check_seccomp,
                           &Verifier::check_network, &Verifier::check_broker, &Verifier::check_limits}) {
            if (Failure failure = (this->*check)(bytes))
                return failure;
        }
        return std::nullopt;
    }

private:
    Failure check_network(const std::vector<uint8_t> &) { return verify_network(plan_, policy_); }
    Failure check_broker(const std::vector<uint8_t> &) { return verify_broker(plan_, policy_); }
    Failure check_limits(const std::vector<uint8_t> &) { return verify_limits(plan_, policy_); }

    Failure open(const std::vector<uint8_t> &bytes)
    {
        char err[256];
        if (bytes.size() > TP_MAX_PLAN_SIZE ||
            tp_plan_open(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan_, err, sizeof err) != 0)
            return std::string("the plan reader refuses it: ") + err;
        for (uint32_t i = 0; i < plan_.mount_count; i++) {
            const tp_mount &m = plan_.mounts[i];
            mounts_.push_back(MountStep{m.op, m.flags, str(m.path), str(m.source), str(m.anchor), {}});
        }
        for (uint32_t i = 0; i < plan_.landlock_path_count; i++) {
            const tp_landlock_path &p = plan_.landlock_paths[i];
            rules_.push_back(LandlockRule{p.kind, p.access, p.flags, str(p.path), str(p.except), {}});
            excepts_.push_back(except_names(rules_.back().except));
        }
        return std::nullopt;
    }

    std::string str(tp_str s) const { return std::string(tp_plan_str(&plan_, s), s.len); }

    std::vector<std::string> included_files() const
    {
        std::vector<std::string> paths;
        for (uint32_t k = 0; k < plan_.source_count; k++)
            paths.push_back(str(plan_.sources[k]));
        return paths;
    }

    static std::vector<std::string> included_files(const Policy &policy)
    {
        std::vector<std::string> paths;
        for (size_t k = 1; k < policy.sources.size(); k++)
            paths.push_back(policy.sources[k].absolute);
        return paths;
    }

    Failure check_sections(const std::vector<uint8_t> &)
    {
        if (plan_.meta == nullptr || plan_.ns == nullptr || plan_.landlock == nullptr || plan_.exec == nullptr)
            return "a meta, namespaces, Landlock or exec section is missing";
        if (str(plan_.meta->compiler).rfind("tartaros-compile ", 0) != 0 ||
            str(plan_.meta->policy_path) != policy_.source_path)
            return "the meta section does not name this compiler and policy";
        if (included_files() != included_files(policy_))
            return "the plan's included files are not the policy's";
        const uint32_t needed = TP_NS_USER | TP_NS_MOUNT | TP_NS_NET;
        if ((plan_.ns->flags & needed) != needed || (plan_.ns->required & ~plan_.ns->flags) != 0 ||
            ((plan_.ns->flags & TP_NS_PID) != 0) != policy_.process.isolate_pids.value)
            return "namespaces " + hex(plan_.ns->flags) + " do not match the policy";
        const tp_landlock_ruleset &ll = *plan_.landlock;
        if (ll.handled_access_fs != kHandledRights || ll.abi != kLandlockAbi)
            return "Landlock handles " + hex(ll.handled_access_fs) + " instead of every ABI-7 right";
        if (ll.scoped != kScopes || plan_.header->min_landlock_abi < kScopesAbi)
            return "Landlock scopes " + hex(ll.scoped) + " instead of abstract unix sockets and signals";
        if (plan_.header->min_landlock_abi < landlock_abi_needed(ll.handled_access_fs))
            return "min_landlock_abi " + std::to_string(plan_.header->min_landlock_abi) +
                " is below the rights handled";
        if (((plan_.exec->flags & TP_EXEC_INHERIT_ENV) != 0) != policy_.env.inherit.value ||
            plan_.env_count !=
                policy_.env.passthrough.size() + policy_.env.set.size() + proxy_environment(policy_.network).size() +
                    broker_environment(policy_.broker).size())
            return "the environment does not match the policy";
        return std::nullopt;
    }

    // The filter implements the policy's profile: the switches and the syscall rules the
    // plan records are the policy's, then structure and translation validation of the
    // program against the profile rebuilt from the plan.
    Failure check_seccomp(const std::vector<uint8_t> &)
    {
        if (plan_.seccomp == nullptr)
            return "the seccomp section is missing";
        if (plan_.seccomp->profile != profile_bits(seccomp_flags(policy_)) ||
            plan_.seccomp->table_max_nr != seccomp::kTableMaxNr)
            return "the seccomp profile " + hex(plan_.seccomp->profile) + " does not match the policy";
        if (profile_spec(plan_).rules != expected_rules(policy_))
            return "the plan's syscall rules are not the policy's";
        return check_seccomp_program(plan_);
    }

    Failure check_paths(const std::vector<uint8_t> &)
    {
        for (size_t i = 0; i < mounts_.size(); i++) {
            const MountStep &m = mounts_[i];
            const bool bad_source = m.op == TP_MNT_BIND || (m.flags & TP_MNTF_LINK_TARGET) != 0
                ? !is_normalised(m.source)
                : m.op == TP_MNT_SYMLINK               ? m.source.empty()
                : (m.flags & TP_MNTF_PLACEHOLDER) != 0 ? false
                                                       : !m.source.empty();
            if (!is_normalised(m.path) || (!m.anchor.empty() && !is_normalised(m.anchor)) || bad_source)
                return "mount step " + std::to_string(i) +
                    " has a path, source or anchor that is not absolute "
                    "and normalised: " +
                    m.path;
        }
        for (const LandlockRule &r : rules_) {
            if (!is_normalised(r.path))
                return "Landlock path is not absolute and normalised: " + r.path;
            if (r.kind == TP_LL_EXPAND) {
                if (r.except.empty() || r.except.front() == '/' || r.except.back() == '/' ||
                    r.except.find("//") != std::string::npos)
                    return "EXPAND " + r.path + " has a malformed except list '" + r.except + "'";
                for (std::string_view name : path_components(r.except))
                    if (!is_plain_name(name))
                        return "EXPAND " + r.path + " excepts '" + std::string(name) + "'";
            } else if (!r.except.empty()) {
                return "Landlock PATH rule " + r.path + " carries an except list";
            }
        }
        return std::nullopt;
    }

    Failure check_rules(const std::vector<uint8_t> &)
    {
        for (const LandlockRule &r : rules_) {
            if (r.kind != TP_LL_PATH && r.kind != TP_LL_EXPAND)
                return "Landlock rule " + r.path + " has unknown kind " + std::to_string(r.kind);
            if (r.access == 0 || (r.access & ~kHandledRights) != 0)
                return "Landlock rule " + r.path + " grants " + hex(r.access) + ", outside the handled rights";
            if ((r.flags & ~static_cast<uint32_t>(TP_MNTF_OPTIONAL)) != 0)
                return "Landlock rule " + r.path + " has flags " + hex(r.flags);
            if (r.kind == TP_LL_EXPAND && !has_read_dir_rule(r.path))
                return "expanded directory " + r.path + " has no READ_DIR rule of its own";
        }
        return std::nullopt;
    }

    bool has_read_dir_rule(const std::string &path) const
    {
        for (const LandlockRule &r : rules_)
            if (r.kind == TP_LL_PATH && r.path == path && (r.access & TP_LL_FS_READ_DIR) != 0)
                return true;
        return false;
    }

    Failure check_mount_flags(const std::vector<uint8_t> &)
    {
        for (size_t i = 0; i < mounts_.size(); i++) {
            const MountStep &m = mounts_[i];
            const std::string where = "mount step " + std::to_string(i) + " (" + op_name(m.op) + " " + m.path + ")";
            if (m.op < TP_MNT_ROOT_READONLY || m.op > TP_MNT_TMPFS)
                return where + ": unknown op";
            if ((m.flags & ~kAllMountFlags) != 0)
                return where + ": unknown flags " + hex(m.flags);
            const uint32_t absent = m.flags & kAbsentFlags;
            if ((absent & (absent - 1)) != 0)
                return where + ": more than one absent-target flag";
            const bool deny = m.op == TP_MNT_WRITE_DENY || m.op == TP_MNT_MASK || m.op == TP_MNT_PIN;
            if (!deny && (absent != 0 || !m.anchor.empty()))
                return where + ": absent-target flags or an anchor on a step that takes none";
            if ((m.flags & TP_MNTF_RDONLY) != 0 && m.op != TP_MNT_BIND)
                return where + ": RDONLY on a step that is not a BIND";
            if ((m.flags & TP_MNTF_CREDENTIALS) != 0 && m.op != TP_MNT_TMPFS)
                return where + ": CREDENTIALS on a step that is not a TMPFS";
            if ((m.flags & kImpliedFlags) != 0 && (m.op != TP_MNT_WRITE_DENY || m.anchor.empty()))
                return where + ": PLACEHOLDER, GIT or LINK_TARGET on a step that is no write deny in a writable root";
            if ((m.flags & TP_MNTF_PLACEHOLDER) != 0 && (absent & ~TP_MNTF_MASK_ABSENT) == 0)
                return where + ": PLACEHOLDER without MATERIALIZE_DIR or MATERIALIZE_FILE";
            if ((m.flags & TP_MNTF_PLACEHOLDER) != 0 && (m.flags & TP_MNTF_LINK_TARGET) != 0)
                return where + ": PLACEHOLDER and LINK_TARGET both use the source";
        }
        return std::nullopt;
    }

    Failure check_order(const std::vector<uint8_t> &)
    {
        if (mounts_.empty() || mounts_[0].path != "/" ||
            (mounts_[0].op != TP_MNT_ROOT_READONLY && mounts_[0].op != TP_MNT_ROOT_EMPTY))
            return "the first mount step is not ROOT_READONLY or ROOT_EMPTY at /";
        for (size_t j = 1; j < mounts_.size(); j++) {
            const MountStep &later = mounts_[j];
            if (later.op == TP_MNT_ROOT_READONLY || later.op == TP_MNT_ROOT_EMPTY)
                return "a second ROOT step at mount step " + std::to_string(j);
            const bool root_bind =
                j == 1 && later.path == "/" && is_writable_mount(later) && mounts_[0].op == TP_MNT_ROOT_READONLY;
            for (size_t i = root_bind ? 1 : 0; i < j; i++)
                if (path_is_within(mounts_[i].path, later.path))
                    return "mount step " + std::to_string(j) + " (" + op_name(later.op) + " " + later.path +
                        ") covers the earlier step " + std::to_string(i) + " (" + op_name(mounts_[i].op) + " " +
                        mounts_[i].path + ")";
        }
        return std::nullopt;
    }

    Failure check_anchors(const std::vector<uint8_t> &)
    {
        for (size_t j = 0; j < mounts_.size(); j++) {
            const MountStep &m = mounts_[j];
            const std::string where = "mount step " + std::to_string(j) + " (" + op_name(m.op) + " " + m.path + ")";
            if (m.anchor.empty()) {
                if (m.op == TP_MNT_WRITE_DENY || m.op == TP_MNT_PIN)
                    return where + ": no anchor";
                continue;
            }
            if (m.anchor == m.path || !path_is_within(m.path, m.anchor))
                return where + ": anchor " + m.anchor + " is not a strict ancestor";
            if (!earlier_step(j, m.anchor, [](const MountStep &s) { return is_writable_mount(s); }))
                return where + ": anchor " + m.anchor + " is not an earlier writable mount";
            if (m.op != TP_MNT_WRITE_DENY)
                continue;
            for (std::string dir = parent_directory(m.path); dir != m.anchor; dir = parent_directory(dir))
                if (!earlier_step(j, dir, [](const MountStep &s) { return s.op == TP_MNT_PIN; }))
                    return where + ": " + dir + " between it and its writable root is not pinned";
        }
        return std::nullopt;
    }

    // The private /tmp and every private dir are a fresh writable tmpfs of their own, not the
    // host's directory made writable (the probes alone cannot tell the two apart); nothing is
    // mounted into a private dir; and no other writable tmpfs exists.
    Failure check_private_filesystems(const std::vector<uint8_t> &)
    {
        const auto is_private = [](const MountStep &s) {
            return s.op == TP_MNT_TMPFS && (s.flags & TP_MNTF_CREDENTIALS) == 0;
        };
        std::set<std::string> wanted;
        collect_private(trie_.root(), wanted);
        for (size_t j = 0; j < mounts_.size(); j++) {
            const MountStep &m = mounts_[j];
            if (is_private(m) && wanted.count(m.path) == 0)
                return "mount step " + std::to_string(j) + " (TMPFS " + m.path +
                    ") is a private tmpfs the policy does not ask for";
        }
        for (const std::string &path : wanted) {
            if (!earlier_step(mounts_.size(), path, is_private))
                return path + " is private in the policy, but no private tmpfs is mounted there";
            const FsNode *node = trie_.find(path);
            if (!node->has_rule(RuleKind::PrivateDir))
                continue;
            for (const MountStep &m : mounts_)
                if (m.path != path && path_is_within(m.path, path))
                    return "the private dir " + path + " has " + op_name(m.op) + " " + m.path + " mounted into it";
        }
        return std::nullopt;
    }

    static void collect_private(const FsNode &n, std::set<std::string> &out)
    {
        if ((n.has_rule(RuleKind::PrivateTmp) || n.has_rule(RuleKind::PrivateDir)) && n.level == Level::Write)
            out.insert(n.path);
        for (const auto &[name, child] : n.children)
            collect_private(*child, out);
    }

    template <class Pred>
    bool earlier_step(size_t before, const std::string &path, Pred pred) const
    {
        for (size_t i = 0; i < before; i++)
            if (mounts_[i].path == path && pred(mounts_[i]))
                return true;
        return false;
    }

    // ---- probes -------------------------------------------------------------------------

    void add_probe(const std::string &path)
    {
        probes_.insert(path_join(path, "x"));
        for (std::string p = path;; p = parent_directory(p)) {
            probes_.insert(p);
            if (p == "/")
                break;
        }
    }

    void add_trie_probes(const FsNode &n)
    {
        add_probe(n.path);
        for (const auto &[name, child] : n.children)
            add_trie_probes(*child);
    }

    Failure check_probes(const std::vector<uint8_t> &)
    {
        add_trie_probes(trie_.root());
        for (const MountStep &m : mounts_) {
            add_probe(m.path);
            if (!m.anchor.empty())
                add_probe(m.anchor);
        }
        for (const LandlockRule &r : rules_)
            add_probe(r.path);
        for (const char *p :
             {"/home", "/root", "/etc/passwd", "/usr/bin/env", "/tmp", "/dev/null", "/proc/self", "/nonexistent"})
            add_probe(p);
        for (const std::string &p : probes_)
            if (Failure failure = check_probe(p))
                return failure;
        return std::nullopt;
    }

    // `path` with every SYMLINK step on its way replaced by the link's target.
    std::optional<std::string> resolve(std::string path) const
    {
        for (int hop = 0; hop < kMaxSymlinkHops; hop++) {
            const MountStep *link = nullptr;
            for (const MountStep &m : mounts_)
                if (m.op == TP_MNT_SYMLINK && path_is_within(path, m.path) &&
                    (link == nullptr || m.path.size() > link->path.size()))
                    link = &m;
            if (link == nullptr)
                return path;
            const std::string rest = path.substr(link->path == "/" ? 0 : link->path.size());
            const std::string target =
                link->source.front() == '/' ? link->source : path_join(parent_directory(link->path), link->source);
            path = normalize_absolute(target + rest);
        }
        return std::nullopt;
    }

    // The step that decides `path` in the mount layer: deepest ancestor-or-self, later wins.
    const MountStep *deciding_step(const std::string &path) const
    {
        const MountStep *best = nullptr;
        size_t best_depth = 0;
        for (const MountStep &m : mounts_) {
            if (!step_level(m) || !path_is_within(path, m.path))
                continue;
            const size_t depth = path_depth(m.path);
            if (best == nullptr || depth >= best_depth) {
                best = &m;
                best_depth = depth;
            }
        }
        return best;
    }

    uint64_t landlock_access(const std::string &path) const
    {
        uint64_t access = 0;
        for (size_t i = 0; i < rules_.size(); i++) {
            const LandlockRule &r = rules_[i];
            if (!path_is_within(path, r.path))
                continue;
            if (r.kind == TP_LL_PATH) {
                access |= r.access;
            } else if (path != r.path) {
                const std::string_view below = std::string_view(path).substr(r.path == "/" ? 1 : r.path.size() + 1);
                const std::string_view name = below.substr(0, below.find('/'));
                if (excepts_[i].count(std::string(name)) == 0)
                    access |= r.access;
            }
        }
        return access;
    }

    bool is_expanded(const std::string &path) const
    {
        for (const LandlockRule &r : rules_)
            if (r.kind == TP_LL_EXPAND && r.path == path)
                return true;
        return false;
    }

    uint64_t device_grants(const std::string &path) const
    {
        if (!earlier_step(mounts_.size(), "/dev", [](const MountStep &s) { return s.op == TP_MNT_DEV; }))
            return 0;
        uint64_t access = 0;
        for (const DeviceGrant &g : kDeviceGrants)
            if (path_is_within(path, g.path) && trie_.level_at(g.path) == Level::Read)
                access |= g.access;
        return access;
    }

    // Mount-only: Landlock grants write where the trie says less; the mount step deciding the
    // path must lie strictly below the deepest writable Landlock rule covering it.
    bool held_by_mounts(const std::string &path, const MountStep &decider) const
    {
        const LandlockRule *writable = nullptr;
        for (const LandlockRule &r : rules_)
            if (r.kind == TP_LL_PATH && r.access == kWriteRights && path_is_within(path, r.path) &&
                (writable == nullptr || r.path.size() > writable->path.size()))
                writable = &r;
        return writable != nullptr && path_depth(decider.path) > path_depth(writable->path);
    }

    Failure check_probe(const std::string &probe) const
    {
        const std::optional<std::string> resolved = resolve(probe);
        if (!resolved)
            return "probe " + probe + ": too many SYMLINK steps on the way";
        const std::string &path = *resolved;
        const Level want = trie_.level_at(path);  // the kernel sees the target, not the name
        const MountStep *decider = deciding_step(path);
        if (decider == nullptr || *step_level(*decider) != want)
            return "probe " + probe + ": the policy says " + level_name(want) + " but the mount layer gives " +
                (decider ? level_name(*step_level(*decider)) : "nothing") +
                (decider ? std::string(" (") + op_name(decider->op) + " " + decider->path + ")" : "");

        uint64_t granted = landlock_access(path);
        uint64_t expected = level_rights(want) | (want == Level::Read ? device_grants(path) : 0);
        if (want == Level::Read && policy_.broker && path_is_within(path, TP_CREDENTIALS_DIR))
            expected = kCredentialsRights;
        if (is_expanded(path)) {  // the directory itself: only directory rights apply
            granted &= ~kFileOnlyRights;
            expected &= ~kFileOnlyRights;
        }
        if (granted == expected)
            return std::nullopt;
        if (want == Level::None && (granted & ~TP_LL_FS_READ_DIR) == 0)
            return std::nullopt;  // names visible to Landlock, hidden by the mask checked above
        if (want < Level::Write && granted == kWriteRights && held_by_mounts(path, *decider))
            return std::nullopt;
        return "probe " + probe + (path != probe ? " (" + path + ")" : "") + ": the policy says " + level_name(want) +
            " (" + hex(expected) + ") but Landlock grants " + hex(granted);
    }

    const Policy &policy_;
    const FsTrie trie_;
    tp_plan plan_{};
    std::vector<MountStep> mounts_;
    std::vector<LandlockRule> rules_;
    std::vector<std::set<std::string>> excepts_;  // per rule: its except list, read once (every probe asks)
    std::set<std::string> probes_;
};

}  // namespace

Failure verify_plan(const std::vector<uint8_t> &plan, const Policy &policy, const LowerOptions &options)
{
    Verifier verifier(policy, options);
    return verifier.run(plan);
}

Failure verify_plan_alone(const std::vector<uint8_t> &plan)
{
    // The reader wants an 8-aligned buffer; a vector's storage does not promise one.
    std::vector<uint64_t> aligned(plan.size() / 8 + 1);
    if (!plan.empty())
        std::memcpy(aligned.data(), plan.data(), plan.size());
    tp_plan view{};
    char reason[256];
    if (plan.size() > TP_MAX_PLAN_SIZE)
        return "the plan reader refuses it: " + std::to_string(plan.size()) + " bytes is over the size limit";
    if (tp_plan_open(reinterpret_cast<const uint8_t *>(aligned.data()), static_cast<uint32_t>(plan.size()), &view,
                     reason, sizeof reason) != 0)
        return std::string("the plan reader refuses it: ") + reason;
    if (view.seccomp == nullptr)
        return "the seccomp section is missing";
    if (view.seccomp->table_max_nr != seccomp::kTableMaxNr)
        return "the seccomp section's table ends at " + std::to_string(view.seccomp->table_max_nr) +
            ", not at this compiler's " + std::to_string(seccomp::kTableMaxNr);
    return check_seccomp_program(view);
}

std::vector<uint8_t> lower_policy(const Policy &policy, const LowerOptions &options, Diagnostics &diags)
{
    std::vector<uint8_t> plan = lower_unverified(policy, options, diags);
    if (plan.empty())
        return {};
    if (Failure why = verify_plan(plan, policy, options)) {
        diags.error(policy_pos(policy),
                    "internal error: the compiled plan failed its verification (" + *why +
                        "); no plan was written. This is a compiler bug: please report it with the policy",
                    "plan-verification");
        return {};
    }
    return plan;
}

}  // namespace tartaros
