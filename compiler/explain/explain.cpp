// compiler/explain/explain.cpp — prints a plan, step by step in the enforcer's order of work
// (docs/architecture.md): namespaces, network (and the broker), mounts, environment, fixed hardening,
// Landlock, exec. Text and
// JSON carry the same content; both read the plan only through ir/plan_reader.
#include "explain.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "explain_broker.h"
#include "explain_limits.h"
#include "explain_net.h"
#include "explain_seccomp.h"
#include "json_text.h"
#include "paths.h"
#include "plan_origin.h"
#include "plan_reader.h"

namespace tartaros {

namespace {

struct NamedBit {
    uint64_t bit;
    const char *name;
};

constexpr NamedBit kFeatures[] = {
    {TP_FEAT_USERNS, "userns"},     {TP_FEAT_MOUNTNS, "mountns"},     {TP_FEAT_PIDNS, "pidns"},
    {TP_FEAT_NETNS, "netns"},       {TP_FEAT_IPCNS, "ipcns"},         {TP_FEAT_UTSNS, "utsns"},
    {TP_FEAT_CGROUPNS, "cgroupns"}, {TP_FEAT_LANDLOCK, "landlock"},   {TP_FEAT_SECCOMP, "seccomp"},
    {TP_FEAT_OPENAT2, "openat2"},   {TP_FEAT_MOUNT_API, "mount_api"},
};

constexpr NamedBit kNamespaces[] = {
    {TP_NS_USER, "user"}, {TP_NS_MOUNT, "mount"}, {TP_NS_PID, "pid"},       {TP_NS_NET, "net"},
    {TP_NS_IPC, "ipc"},   {TP_NS_UTS, "uts"},     {TP_NS_CGROUP, "cgroup"},
};

// Reading rights first, then writing, then the rarer ones: the order people think in.
constexpr NamedBit kFsRights[] = {
    {TP_LL_FS_READ_FILE, "read_file"},   {TP_LL_FS_READ_DIR, "read_dir"},     {TP_LL_FS_EXECUTE, "execute"},
    {TP_LL_FS_WRITE_FILE, "write_file"}, {TP_LL_FS_TRUNCATE, "truncate"},     {TP_LL_FS_REMOVE_FILE, "remove_file"},
    {TP_LL_FS_REMOVE_DIR, "remove_dir"}, {TP_LL_FS_MAKE_REG, "make_reg"},     {TP_LL_FS_MAKE_DIR, "make_dir"},
    {TP_LL_FS_MAKE_SYM, "make_sym"},     {TP_LL_FS_MAKE_SOCK, "make_sock"},   {TP_LL_FS_MAKE_FIFO, "make_fifo"},
    {TP_LL_FS_MAKE_CHAR, "make_char"},   {TP_LL_FS_MAKE_BLOCK, "make_block"}, {TP_LL_FS_REFER, "refer"},
    {TP_LL_FS_IOCTL_DEV, "ioctl_dev"},
};

constexpr NamedBit kNetRights[] = {{1u << 0, "bind_tcp"}, {1u << 1, "connect_tcp"}};
constexpr NamedBit kScopes[] = {{1u << 0, "abstract_unix_socket"}, {1u << 1, "signal"}};

constexpr NamedBit kMountFlags[] = {
    {TP_MNTF_RDONLY, "rdonly"},
    {TP_MNTF_MATERIALIZE_DIR, "materialize_dir"},
    {TP_MNTF_MATERIALIZE_FILE, "materialize_file"},
    {TP_MNTF_MASK_ABSENT, "mask_absent"},
    {TP_MNTF_OPTIONAL, "optional"},
    {TP_MNTF_REQUIRED, "required"},
    {TP_MNTF_CREDENTIALS, "credentials"},
    {TP_MNTF_PLACEHOLDER, "placeholder"},
    {TP_MNTF_GIT, "git"},
    {TP_MNTF_LINK_TARGET, "link_target"},
};

// Rights that let a process change what lies beneath a directory.
constexpr uint64_t kWriteRights = TP_LL_FS_ALL_ABI7 & ~(TP_LL_FS_READ_FILE | TP_LL_FS_READ_DIR | TP_LL_FS_EXECUTE);

const char *mount_op_name(uint32_t op)
{
    static constexpr const char *kNames[] = {"?",    "root_readonly", "root_empty", "bind", "pin",  "write_deny",
                                             "mask", "symlink",       "dev",        "proc", "tmpfs"};
    return op < sizeof kNames / sizeof kNames[0] ? kNames[op] : "?";
}

std::vector<std::string> bit_names(uint64_t value, const NamedBit *table, size_t count)
{
    std::vector<std::string> names;
    for (size_t i = 0; i < count; i++)
        if (value & table[i].bit)
            names.emplace_back(table[i].name);
    return names;
}

template <size_t N>
std::vector<std::string> bit_names(uint64_t value, const NamedBit (&table)[N])
{
    return bit_names(value, table, N);
}

std::string join(const std::vector<std::string> &parts, const char *sep, const char *if_empty = "none")
{
    if (parts.empty())
        return if_empty;
    std::string out;
    for (size_t i = 0; i < parts.size(); i++) {
        if (i)
            out += sep;
        out += parts[i];
    }
    return out;
}

// Splits an EXPAND except list ('/'-separated entry names).
std::vector<std::string> split_names(std::string_view list)
{
    std::vector<std::string> names;
    while (!list.empty()) {
        size_t slash = list.find('/');
        std::string_view name = list.substr(0, slash);
        if (!name.empty())
            names.emplace_back(name);
        if (slash == std::string_view::npos)
            break;
        list.remove_prefix(slash + 1);
    }
    return names;
}

// True when `ancestor` is `path` or a directory above it.
bool path_is_within(std::string_view path, std::string_view ancestor)
{
    if (ancestor == "/")
        return true;
    return path.substr(0, ancestor.size()) == ancestor &&
        (path.size() == ancestor.size() || path[ancestor.size()] == '/');
}

// Everything explain says about a plan, read once through the reader.
class Explainer {
public:
    Explainer(const tp_plan &plan, const cgroup_probe &host) : p_(plan), host_(host), names_(plan) {}

    void text(std::ostream &out) const;
    void json(std::ostream &out) const;

private:
    std::string_view str(tp_str s) const { return {tp_plan_str(&p_, s), s.len}; }

    std::string origin_text(tp_origin o) const { return names_.text(o); }

    std::vector<std::string> included_files() const
    {
        std::vector<std::string> paths;
        for (uint32_t k = 0; k < p_.source_count; k++)
            paths.emplace_back(str(p_.sources[k]));
        return paths;
    }

    bool landlock_grants_write_over(std::string_view path) const;
    bool has_step_at(std::string_view path) const;
    std::vector<std::string> mount_notes(const tp_mount &m) const;
    void add_implied_notes(const tp_mount &m, std::vector<std::string> &notes) const;
    std::vector<std::string> rule_notes(const tp_landlock_path &r) const;
    std::string namespaces_note() const;
    std::string landlock_note() const;
    std::string exec_note() const;
    std::string process_note() const;

    void text_header(std::ostream &out) const;
    void text_namespaces(std::ostream &out, int step) const;
    void text_mounts(std::ostream &out, int step) const;
    void text_env(std::ostream &out, int step) const;
    void text_landlock(std::ostream &out, int step) const;

    void json_origin(std::ostream &out, tp_origin o) const;
    void json_mounts(std::ostream &out) const;
    void json_landlock(std::ostream &out) const;
    void json_env(std::ostream &out) const;

    const tp_plan &p_;
    const cgroup_probe &host_;
    const OriginNames names_;  // "agent.toml", "rules.tart": the policy's files by origin
};

constexpr const char *kHardening =
    "inherited file descriptors closed, PR_SET_PDEATHSIG, no_new_privs, every capability dropped";

// The same for every plan: what the enforcer does with the session and fds 0-2 (stdio_fds.h).
std::string Explainer::process_note() const
{
    return std::string("a session of its own; fds 0-2 never the caller's: /dev/null reopened in the sandbox's /dev, a "
                       "file, pipe or socket relayed through a pipe (cannot seek; 2>&1 kept as one pipe), the caller's "
                       "terminal relayed through a pseudo-terminal of the sandbox's own devpts (job control; Ctrl-Z "
                       "stops the run); ") +
        kHardening;
}

// A mask or the private tmpfs at exactly `path`.
bool Explainer::has_step_at(std::string_view path) const
{
    for (uint32_t i = 0; i < p_.mount_count; i++) {
        const tp_mount &m = p_.mounts[i];
        if ((m.op == TP_MNT_MASK || m.op == TP_MNT_TMPFS) && str(m.path) == path)
            return true;
    }
    return false;
}

bool Explainer::landlock_grants_write_over(std::string_view path) const
{
    for (uint32_t i = 0; i < p_.landlock_path_count; i++) {
        const tp_landlock_path &r = p_.landlock_paths[i];
        if ((r.access & kWriteRights) && path_is_within(path, str(r.path)))
            return true;
    }
    return false;
}

// Why the compiler added a write deny the policy does not name, and what an absent
// target becomes (TP_MNTF_GIT, _PLACEHOLDER, _LINK_TARGET).
void Explainer::add_implied_notes(const tp_mount &m, std::vector<std::string> &notes) const
{
    const std::string path(str(m.path));
    if (m.flags & TP_MNTF_GIT)
        notes.emplace_back("implied by write_denies " + parent_directory(path) +
                           "/hooks: git reads its hooks path, fsmonitor, filters, aliases and drivers from here "
                           "(config, config.worktree), or finds them where this points (commondir; worktrees/ holds "
                           "each linked worktree's); in the sandbox git config, git remote add, git branch -u and "
                           "git worktree add fail");
    if (m.flags & TP_MNTF_PLACEHOLDER) {
        const std::string content(str(m.source));
        const std::string what = (m.flags & TP_MNTF_MATERIALIZE_DIR) ? "an empty directory"
            : content.empty()                                        ? "an empty file"
                                                                     : "a file holding \"" + printable(content) + "\"";
        notes.emplace_back("if absent at start: made for the run as " + what +
                           ", which git reads as absent; removed afterwards if still exactly that (left behind if the "
                           "supervisor is SIGKILLed); with its directory absent, that is masked instead");
    }
    if (m.flags & TP_MNTF_LINK_TARGET)
        notes.emplace_back("implied: the symlink " + std::string(str(m.source)) +
                           " in a write-denied directory leads here, inside a writable root; the enforcer re-checks "
                           "the symlinks at start and protects where a changed one leads");
}

std::vector<std::string> Explainer::mount_notes(const tp_mount &m) const
{
    std::vector<std::string> notes;
    bool in_writable = m.anchor.len != 0 || landlock_grants_write_over(str(m.path));
    switch (m.op) {
    case TP_MNT_ROOT_READONLY:
        notes.emplace_back("read-only at the mount level: also stops chmod, chown, utimes and xattrs, "
                           "which Landlock does not cover");
        if (!has_step_at("/tmp"))
            notes.emplace_back("the host's /tmp is part of it: readable, writable only in a writable root beneath it, "
                               "its unix sockets refused by connect mediation; private_tmp = true or read_denies = "
                               "[\"/tmp\"] hides it");
        break;
    case TP_MNT_ROOT_EMPTY: notes.emplace_back("only what later steps bind back is visible"); break;
    case TP_MNT_BIND: notes.emplace_back("source cloned before the first step changes anything"); break;
    case TP_MNT_PIN:
        notes.emplace_back("cannot be renamed or removed (EBUSY), so the protected tree cannot be swapped out");
        break;
    case TP_MNT_WRITE_DENY:
        notes.emplace_back(in_writable ? "mount layer only: Landlock cannot deny inside a writable directory; "
                                         "lost without a mount namespace"
                                       : "read-only bind");
        break;
    case TP_MNT_MASK:
        notes.emplace_back(in_writable ? "mount layer only: Landlock cannot deny inside a writable directory; "
                                         "lost without a mount namespace"
                                       : "hides the names too; without a mount namespace they stay visible");
        if (m.origin.line == 0 && str(m.path) == "/run")
            notes.emplace_back("implied: host services' and other users' unix sockets live here (D-Bus, Docker, "
                               "ssh-agent, tmux, X11); name a path beneath it in the policy to show that part "
                               "(its host sockets still refuse connections: connect mediation)");
        break;
    case TP_MNT_SYMLINK: notes.emplace_back("link target read by the compiler"); break;
    case TP_MNT_DEV:
        notes.emplace_back("null, zero, full, random, urandom, tty, pts and a private shm; no block devices");
        break;
    case TP_MNT_PROC: notes.emplace_back("shows only the new PID namespace"); break;
    case TP_MNT_TMPFS:
        if (m.flags & TP_MNTF_CREDENTIALS)
            notes.emplace_back("the broker's credentials directory: only its token is written here, as " +
                               std::string(TP_BROKER_TOKEN_FILE) +
                               " (mode 0400), then the tmpfs is made read-only; discarded after the run");
        else if (str(m.path) == "/tmp")
            notes.emplace_back("private and writable, discarded after the run; starts empty: of the host's /tmp "
                               "only the writable roots and read allows beneath it are bound in, and a deny "
                               "beneath it outside those has nothing to hide (no step)");
        else
            notes.emplace_back("a private dir (private_dirs): writable, starts empty and hides what the host has "
                               "here; what the sandbox writes here (its unix sockets too) never reaches the host "
                               "and is discarded after the run");
        break;
    default: break;
    }
    add_implied_notes(m, notes);
    if ((m.flags & (TP_MNTF_MATERIALIZE_DIR | TP_MNTF_MATERIALIZE_FILE)) && !(m.flags & TP_MNTF_PLACEHOLDER))
        notes.emplace_back(std::string("if absent at start: created as an empty ") +
                           ((m.flags & TP_MNTF_MATERIALIZE_DIR) ? "directory" : "file") +
                           " without following symlinks, and kept afterwards");
    if (m.flags & TP_MNTF_MASK_ABSENT)
        notes.emplace_back("if absent at start: its first missing component is masked, so it cannot be "
                           "created (removed after the run; left behind, empty, if the supervisor is SIGKILLed)");
    if ((m.op == TP_MNT_WRITE_DENY || m.op == TP_MNT_MASK) && m.anchor.len != 0)
        notes.emplace_back("a symlink on its path beneath the writable root: what it resolves to is protected "
                           "too and the symlink masked; one leaving the root or dangling is a refusal under "
                           "--strict, else only masked (warning)");
    if (m.op == TP_MNT_MASK && m.anchor.len == 0)
        notes.emplace_back("a caller other than root that cannot reach it (a directory of another user on the way "
                           "that it may not search, as with a plan compiled with another HOME) has nothing to hide: "
                           "skipped with a note, also under --strict");
    if (m.op == TP_MNT_BIND)
        notes.emplace_back("a source beneath a directory of another user that the caller may not search is a "
                           "refusal: compile as the user who runs the plan, with that user's HOME");
    if (m.flags & TP_MNTF_OPTIONAL)
        notes.emplace_back(m.op == TP_MNT_BIND ? "skipped when the source is absent"
                                               : "skipped when the target is absent");
    return notes;
}

std::vector<std::string> Explainer::rule_notes(const tp_landlock_path &r) const
{
    std::vector<std::string> notes;
    if (r.kind == TP_LL_EXPAND)
        notes.emplace_back("directory listed at start: entries created after start are not covered "
                           "(fail closed); entries that are not directories get file rights only; one the caller "
                           "(not root) cannot list gets no grant at all, with a note: what it could open there "
                           "by name (mode 0711) is not readable");
    if (r.flags & TP_MNTF_OPTIONAL)
        notes.emplace_back("skipped when absent at start");
    return notes;
}

std::string Explainer::namespaces_note() const
{
    std::string note = "a namespace the kernel refuses is lost: under --strict a required one is a "
                       "refusal, otherwise a warning";
    return note;
}

std::string Explainer::landlock_note() const
{
    std::string note = "Landlock only grants, beneath each rule's path; ";
    if (p_.header->min_landlock_abi)
        note += "ABI " + std::to_string(p_.header->min_landlock_abi) + " or later enforces every rule in full; ";
    note += "on an older kernel the rights it lacks (refer: ABI 2, truncate: ABI 3, ioctl_dev: ABI 5, the "
            "abstract-socket and signal scopes: ABI 6) are lost; "
            "rules and masks cover paths, not inodes: a hard link to a denied file made before the run reads it; "
            "connect() to a pathname unix socket is no filesystem right Landlock checks (ABI 7): connect "
            "mediation (the network step) is what refuses the host's sockets";
    return note;
}

std::string Explainer::exec_note() const
{
    if (p_.ns && (p_.ns->flags & TP_NS_PID))
        return "the command runs as PID 2 under a small init (PID 1) that reaps and forwards signals";
    return "the command runs in the launcher's PID namespace";
}

// ---- text -------------------------------------------------------------------------------

// Control characters in a path would break the one-step-per-line layout. Every one is \xNN,
// unlike paths.h's printable (\n, \t as a policy writes them): a host path is shown as bytes.
std::string printable(std::string_view s)
{
    std::string out;
    for (unsigned char c : s) {
        if (c < 0x20 || c == 0x7f) {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            out += hex;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

void print_notes(std::ostream &out, const std::vector<std::string> &notes, const char *indent)
{
    for (const std::string &n : notes)
        out << indent << "- " << n << '\n';
}

void Explainer::text_header(std::ostream &out) const
{
    const tp_header &h = *p_.header;
    char sum[24];
    std::snprintf(sum, sizeof sum, "0x%016" PRIx64, h.checksum);
    out << "plan: format " << h.format_version << ", " << h.total_size << " bytes, checksum " << sum << ", x86_64\n";
    out << "required features: " << join(bit_names(h.required_features, kFeatures), "|") << '\n';
    out << "minimum Landlock ABI: " << h.min_landlock_abi << '\n';
    if (p_.meta) {
        out << "policy: " << printable(str(p_.meta->policy_path)) << " (version " << p_.meta->policy_version << ")\n";
        for (uint32_t k = 0; k < p_.source_count; k++)
            out << "  includes: " << printable(str(p_.sources[k])) << '\n';
        out << "compiler: " << printable(str(p_.meta->compiler)) << '\n';
    }
}

void Explainer::text_namespaces(std::ostream &out, int step) const
{
    out << step << ". namespaces: ";
    if (!p_.ns) {
        out << "none (the command shares the launcher's namespaces)\n";
        return;
    }
    std::string_view hostname = str(p_.ns->hostname);
    out << join(bit_names(p_.ns->flags, kNamespaces), ", ")
        << "; required: " << join(bit_names(p_.ns->required, kNamespaces), ", ") << "  " << origin_text(p_.ns->origin)
        << '\n';
    if (p_.ns->flags & TP_NS_UTS)
        out << "   hostname: " << (hostname.empty() ? std::string("tartaros") : printable(hostname)) << '\n';
    print_notes(out, {namespaces_note()}, "   ");
}

void Explainer::text_mounts(std::ostream &out, int step) const
{
    out << step << ". mounts: " << p_.mount_count << " step" << (p_.mount_count == 1 ? "" : "s")
        << ((p_.mounts_section_flags & TP_SECF_REQUIRED) ? " (required)" : "") << '\n';
    if (p_.mount_count)
        print_notes(out, {"every step needs the mount namespace; without it all of them are lost"}, "   ");
    for (uint32_t i = 0; i < p_.mount_count; i++) {
        const tp_mount &m = p_.mounts[i];
        out << "   " << step << '.' << (i + 1) << ' ' << mount_op_name(m.op) << ' ' << printable(str(m.path));
        if (m.op == TP_MNT_BIND)
            out << " <- " << printable(str(m.source));
        else if (m.op == TP_MNT_SYMLINK)
            out << " -> " << printable(str(m.source));
        if (m.flags)
            out << " [" << join(bit_names(m.flags, kMountFlags), ", ") << ']';
        if (m.anchor.len)
            out << " beneath " << printable(str(m.anchor));
        out << "  " << origin_text(m.origin) << '\n';
        print_notes(out, mount_notes(m), "        ");
    }
}

void Explainer::text_env(std::ostream &out, int step) const
{
    bool inherit = p_.exec && (p_.exec->flags & TP_EXEC_INHERIT_ENV);
    out << step << ". environment: " << (inherit ? "the launcher's, then " : "built from nothing: ") << p_.env_count
        << " step" << (p_.env_count == 1 ? "" : "s") << '\n';
    for (uint32_t i = 0; i < p_.env_count; i++) {
        const tp_env &e = p_.env[i];
        out << "   " << step << '.' << (i + 1) << ' ';
        if (e.op == TP_ENV_SET)
            out << "set " << printable(str(e.name)) << '=' << printable(str(e.value));
        else
            out << "pass " << printable(str(e.name)) << " (if set)";
        out << "  " << origin_text(e.origin) << '\n';
    }
}

void Explainer::text_landlock(std::ostream &out, int step) const
{
    out << step << ". landlock: ";
    if (!p_.landlock) {
        out << "none (filesystem access limited by the mount layer only)\n";
        return;
    }
    const tp_landlock_ruleset &rs = *p_.landlock;
    out << "ruleset for ABI " << rs.abi
        << (((p_.landlock_section_flags & TP_SECF_REQUIRED) || (rs.flags & TP_MNTF_REQUIRED)) ? " (required)" : "")
        << ", " << p_.landlock_path_count << " rule" << (p_.landlock_path_count == 1 ? "" : "s") << '\n';
    out << "   handled: " << join(bit_names(rs.handled_access_fs, kFsRights), "|") << '\n';
    if (rs.handled_access_net)
        out << "   handled network: " << join(bit_names(rs.handled_access_net, kNetRights), "|") << '\n';
    if (rs.scoped)
        out << "   scoped: " << join(bit_names(rs.scoped, kScopes), "|") << '\n';
    print_notes(out, {landlock_note()}, "   ");
    for (uint32_t i = 0; i < p_.landlock_path_count; i++) {
        const tp_landlock_path &r = p_.landlock_paths[i];
        out << "   " << step << '.' << (i + 1) << ' ' << (r.kind == TP_LL_EXPAND ? "expand " : "path ")
            << printable(str(r.path)) << ' ' << join(bit_names(r.access, kFsRights), "|");
        if (r.kind == TP_LL_EXPAND)
            out << " except " << printable(join(split_names(str(r.except)), ", "));
        out << "  " << origin_text(r.origin) << '\n';
        print_notes(out, rule_notes(r), "        ");
    }
}

void Explainer::text(std::ostream &out) const
{
    text_header(out);
    out << "\nsteps in execution order:\n";
    int step = 1;
    text_namespaces(out, step++);
    explain_network_text(
        p_, step++, [this](tp_origin o) { return origin_text(o); }, out);
    if (p_.broker)
        explain_broker_text(
            p_, step++, [this](tp_origin o) { return origin_text(o); }, out);
    text_mounts(out, step++);
    text_env(out, step++);
    out << step++ << ". process: " << process_note() << " (always)\n";
    text_landlock(out, step++);
    if (p_.seccomp)
        explain_seccomp_text(
            p_, step++, [this](tp_origin o) { return origin_text(o); }, out);
    out << step << ". exec" << (p_.exec ? "  " + origin_text(p_.exec->origin) : std::string()) << '\n';
    print_notes(out, {exec_note()}, "   ");
    explain_limits_text(
        p_, host_, step + 1, [this](tp_origin o) { return origin_text(o); }, out);
}

// ---- JSON -------------------------------------------------------------------------------

void Explainer::json_origin(std::ostream &out, tp_origin o) const
{
    if (o.line == 0) {
        out << "null";
        return;
    }
    out << "{\"file\":" << quote(names_.file(o.file)) << ",\"line\":" << o.line << ",\"col\":" << o.col << '}';
}

void Explainer::json_mounts(std::ostream &out) const
{
    out << "{\"step\":\"mounts\",\"required\":" << ((p_.mounts_section_flags & TP_SECF_REQUIRED) ? "true" : "false")
        << ",\"mounts\":[";
    for (uint32_t i = 0; i < p_.mount_count; i++) {
        const tp_mount &m = p_.mounts[i];
        out << (i ? "," : "") << "{\"op\":" << quote(mount_op_name(m.op)) << ",\"path\":" << quote(str(m.path))
            << ",\"source\":" << quote(str(m.source)) << ",\"anchor\":" << quote(str(m.anchor))
            << ",\"flags\":" << quote_list(bit_names(m.flags, kMountFlags)) << ",\"origin\":";
        json_origin(out, m.origin);
        out << ",\"notes\":" << quote_list(mount_notes(m)) << '}';
    }
    out << "]}";
}

void Explainer::json_env(std::ostream &out) const
{
    bool inherit = p_.exec && (p_.exec->flags & TP_EXEC_INHERIT_ENV);
    out << "{\"step\":\"environment\",\"inherit\":" << (inherit ? "true" : "false") << ",\"vars\":[";
    for (uint32_t i = 0; i < p_.env_count; i++) {
        const tp_env &e = p_.env[i];
        out << (i ? "," : "") << "{\"op\":" << (e.op == TP_ENV_SET ? "\"set\"" : "\"pass\"")
            << ",\"name\":" << quote(str(e.name));
        if (e.op == TP_ENV_SET)
            out << ",\"value\":" << quote(str(e.value));
        out << ",\"origin\":";
        json_origin(out, e.origin);
        out << '}';
    }
    out << "]}";
}

void Explainer::json_landlock(std::ostream &out) const
{
    out << "{\"step\":\"landlock\"";
    if (!p_.landlock) {
        out << ",\"ruleset\":null}";
        return;
    }
    const tp_landlock_ruleset &rs = *p_.landlock;
    bool required = (p_.landlock_section_flags & TP_SECF_REQUIRED) || (rs.flags & TP_MNTF_REQUIRED);
    out << ",\"ruleset\":{\"abi\":" << rs.abi << ",\"required\":" << (required ? "true" : "false")
        << ",\"handled_access_fs\":" << quote_list(bit_names(rs.handled_access_fs, kFsRights))
        << ",\"handled_access_net\":" << quote_list(bit_names(rs.handled_access_net, kNetRights))
        << ",\"scoped\":" << quote_list(bit_names(rs.scoped, kScopes))
        << "},\"notes\":" << quote_list({landlock_note()}) << ",\"rules\":[";
    for (uint32_t i = 0; i < p_.landlock_path_count; i++) {
        const tp_landlock_path &r = p_.landlock_paths[i];
        out << (i ? "," : "") << "{\"kind\":" << (r.kind == TP_LL_EXPAND ? "\"expand\"" : "\"path\"")
            << ",\"path\":" << quote(str(r.path)) << ",\"access\":" << quote_list(bit_names(r.access, kFsRights))
            << ",\"except\":" << quote_list(split_names(str(r.except)))
            << ",\"optional\":" << ((r.flags & TP_MNTF_OPTIONAL) ? "true" : "false") << ",\"origin\":";
        json_origin(out, r.origin);
        out << ",\"notes\":" << quote_list(rule_notes(r)) << '}';
    }
    out << "]}";
}

void Explainer::json(std::ostream &out) const
{
    const tp_header &h = *p_.header;
    char sum[24];
    std::snprintf(sum, sizeof sum, "0x%016" PRIx64, h.checksum);
    out << "{\"format_version\":" << h.format_version << ",\"size\":" << h.total_size << ",\"checksum\":\"" << sum
        << "\",\"arch\":\"x86_64\",\"required_features\":" << quote_list(bit_names(h.required_features, kFeatures))
        << ",\"min_landlock_abi\":" << h.min_landlock_abi << ",\"meta\":";
    if (p_.meta)
        out << "{\"policy_path\":" << quote(str(p_.meta->policy_path))
            << ",\"compiler\":" << quote(str(p_.meta->compiler)) << ",\"policy_version\":" << p_.meta->policy_version
            << ",\"includes\":" << quote_list(included_files()) << '}';
    else
        out << "null";

    out << ",\"steps\":[{\"step\":\"namespaces\"";
    if (p_.ns) {
        std::string_view hostname = str(p_.ns->hostname);
        out << ",\"create\":" << quote_list(bit_names(p_.ns->flags, kNamespaces))
            << ",\"required\":" << quote_list(bit_names(p_.ns->required, kNamespaces))
            << ",\"hostname\":" << quote(hostname.empty() ? std::string_view("tartaros") : hostname) << ",\"origin\":";
        json_origin(out, p_.ns->origin);
        out << ",\"notes\":" << quote_list({namespaces_note()});
    } else {
        out << ",\"create\":[]";
    }
    out << "},";
    explain_network_json(
        p_, [this](std::ostream &o, tp_origin at) { json_origin(o, at); }, out);
    out << ',';
    if (p_.broker) {
        explain_broker_json(
            p_, [this](std::ostream &o, tp_origin at) { json_origin(o, at); }, out);
        out << ',';
    }
    json_mounts(out);
    out << ',';
    json_env(out);
    out << ",{\"step\":\"process\",\"notes\":" << quote_list({process_note()}) << "},";
    json_landlock(out);
    if (p_.seccomp) {
        out << ',';
        explain_seccomp_json(
            p_, [this](std::ostream &o, tp_origin at) { json_origin(o, at); }, out);
    }
    out << ",{\"step\":\"exec\",\"origin\":";
    if (p_.exec)
        json_origin(out, p_.exec->origin);
    else
        out << "null";
    out << ",\"notes\":" << quote_list({exec_note()}) << "},";
    explain_limits_json(
        p_, host_, [this](std::ostream &o, tp_origin at) { json_origin(o, at); }, out);
    out << "]}\n";
}

}  // namespace

bool explain_plan(const std::vector<uint8_t> &plan, bool json, std::ostream &out, std::string &err)
{
    const cgroup_host host = cgroup_host_default();
    cgroup_probe probe{};
    cgroup_probe_host(&host, &probe);
    return explain_plan(plan, json, probe, out, err);
}

bool explain_plan(const std::vector<uint8_t> &plan, bool json, const cgroup_probe &host, std::ostream &out,
                  std::string &err)
{
    if (plan.size() > TP_MAX_PLAN_SIZE) {
        err = "plan size " + std::to_string(plan.size()) + " exceeds the limit of " + std::to_string(TP_MAX_PLAN_SIZE) +
            " bytes";
        return false;
    }
    // The reader wants an 8-aligned buffer; a vector's storage does not promise one.
    std::vector<uint64_t> aligned(plan.size() / 8 + 1);
    if (!plan.empty())
        std::memcpy(aligned.data(), plan.data(), plan.size());
    tp_plan p;
    char reason[256];
    if (tp_plan_open(reinterpret_cast<const uint8_t *>(aligned.data()), static_cast<uint32_t>(plan.size()), &p, reason,
                     sizeof reason) != 0) {
        err = reason;
        return false;
    }
    Explainer explainer(p, host);
    if (json)
        explainer.json(out);
    else
        explainer.text(out);
    return true;
}

}  // namespace tartaros
