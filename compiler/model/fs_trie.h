// compiler/model/fs_trie.h — every filesystem rule of a policy in one path trie, and the access
// level it gives any path (docs/design-notes.md §2).
//
// Resolution: the rules at a path's deepest ancestor-or-self node decide. Allows are floors
// and denies are caps on the level inherited from the parent, so at equal depth a deny beats
// an allow (none > read > write in precedence):
//   read_allow, granted system path  → at least Read     (allow inside a deny works)
//   writable_root, private /tmp, dir → Write
//   write_deny                       → at most Read      (never grants read by itself)
//   credentials directory            → exactly Read      (its own read-only tmpfs)
//   read_deny                        → None
// The root's inherited level is the read scope: Read for "all", None for "granted".
//
// The trie is the specification both lowering layers and the verifier are checked against;
// it knows nothing about the host (what exists, what is a symlink).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "policy.h"

namespace tartaros {

enum class Level : uint8_t { None = 0, Read = 1, Write = 2 };

const char *level_name(Level level);

enum class RuleKind : uint8_t {
    ReadDeny,
    WriteDeny,
    ReadAllow,
    WritableRoot,
    GrantedSystem,  // read_scope "granted": /usr /lib /lib64 /bin /sbin /etc (/proc without isolate_proc)
    Dev,            // the private /dev the DEV step builds (Read)
    Proc,           // the fresh /proc of isolate_proc (Read)
    PrivateTmp,     // the private /tmp tmpfs of private_tmp (Write)
    PrivateDir,     // a private tmpfs of private_dirs (Write); no other rule lies beneath it
    Credentials,    // the broker's credentials directory, TP_CREDENTIALS_DIR (Read: a read-only tmpfs)
};

// Why the compiler added a write deny the policy does not write (implied_denies.h).
enum class ImpliedBy : uint8_t {
    Other,       // the policy file, the plan, a read allow in the private /tmp
    GitHooks,    // a file through which git runs code, beside a write-denied hooks directory
    LinkTarget,  // where a symlink directly in a write-denied directory leads
    PlanCache,   // `tartaros run`'s plan cache (paths.h plan_cache_directory): made if absent
};

struct FsRule {
    RuleKind kind;
    SourcePos pos;
    bool implied = false;     // added by the compiler, not written in the policy
    bool known_file = false;  // a regular file: a policy file, the plan, or `type = "file"`
    ImpliedBy by = ImpliedBy::Other;
    std::string via = {};  // GitHooks: the hooks directory; LinkTarget: the symlink
};

struct FsNode {
    std::string name;  // last component ("" for the root)
    std::string path;  // absolute, normalised
    std::vector<FsRule> rules;
    std::map<std::string, std::unique_ptr<FsNode>> children;  // sorted by name: deterministic walks
    Level level = Level::None;                                // effective level of this path (set by resolve)
    Level min_below = Level::None;                            // lowest level of this node and every descendant node

    bool has_rule(RuleKind kind) const;
    const FsRule *find_rule(RuleKind kind) const;
    // The rule that decided this node's level (the strongest deny, else the allow); null
    // for an intermediate node without rules.
    const FsRule *deciding_rule() const;
};

class FsTrie {
public:
    explicit FsTrie(Level root_level);

    // Adds a rule at `path` (absolute, normalised). Invalidates resolved levels.
    void add(std::string_view path, const FsRule &rule);

    // Computes level and min_below of every node. Call after the last add().
    void resolve();

    Level root_inherited() const { return root_inherited_; }
    const FsNode &root() const { return *root_; }
    const FsNode *find(std::string_view path) const;
    // The deepest node that is an ancestor-or-self of `path` (the root at least).
    const FsNode &deepest_ancestor(std::string_view path) const;
    // Effective level of any absolute, normalised path.
    Level level_at(std::string_view path) const;

private:
    Level root_inherited_;
    std::unique_ptr<FsNode> root_;
};

// The directories read_scope = "granted" makes readable (a fixed list; /dev and /proc are
// added by their own rules).
extern const std::vector<std::string> kGrantedSystemPaths;

// Where host services keep their unix sockets (D-Bus, Docker, the user's agents): hidden under
// read_scope "all" unless the policy names it or a path beneath it (an implied read deny;
// "granted" never shows it). The host's /tmp is not hidden: without private_tmp it is part of
// "all", read-only, and its sockets are refused by connect mediation like any other host socket.
inline constexpr std::string_view kHostRunDir = "/run";

// The private /tmp of private_tmp starts empty: a read or write deny beneath /tmp that no
// writable root or read allow under /tmp brings back from the host has nothing to hide.
// Such a deny is left out of the trie (no step, no Landlock rule) and reported as a note.
bool hidden_by_private_tmp(const Policy &policy, const std::string &path);

// Whether `path` is a private dir of `policy` or lies beneath one.
bool in_private_dir(const Policy &policy, const std::string &path);

class HostView;

// The trie of `policy`, with the implied rules: the read scope, the granted system paths,
// /dev, /proc (isolate_proc), /tmp (private_tmp, without the denies it makes moot), the
// private dirs, the credentials directory ([broker]),
// write denies on the policy file, on every file it included (Policy::sources) and on
// `plan_path` and `plan_cache_dir` when they lie inside a writable root, and, when `host` is
// given, the write denies implied by what the host shows (a repository's git files, symlink
// targets: implied_denies.h). No implied deny is added in a private dir: the host's files
// there are hidden from the sandbox already.
FsTrie build_fs_trie(const Policy &policy, const std::string &plan_path, const HostView *host = nullptr,
                     const std::string &plan_cache_dir = "");

// Path helpers on absolute, normalised paths.
bool path_is_within(std::string_view path, std::string_view ancestor);  // ancestor-or-self
std::vector<std::string_view> path_components(std::string_view path);
size_t path_depth(std::string_view path);
std::string path_join(std::string_view dir, std::string_view name);

}  // namespace tartaros
