// compiler/model/implied_denies.h — write denies the compiler adds because of what the host shows
// (docs/policy.md "write_denies", docs/design-notes.md §2):
//  - beside a write-denied hooks directory of a git directory, every file through which git
//    runs code or learns where to run it from (kGitCodeFiles): protecting hooks/ alone
//    leaves core.hooksPath, core.fsmonitor, filters, aliases and a re-pointed commondir;
//  - the target of each symlink directly in a write-denied directory, when it lies in a
//    writable root: a read-only hooks/post-checkout -> ../../scripts/post-checkout still runs
//    whatever the sandbox writes to scripts/post-checkout.
// The enforcer re-checks the symlinks at run time (enforcer/deny_links.cpp), as they may
// have changed since the plan was compiled.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "fs_trie.h"
#include "host_view.h"
#include "policy.h"

namespace tartaros {

// A name in a git directory through which git runs code, or finds where to run it from.
struct GitCodeFile {
    std::string_view name;
    bool directory;
    // Absent at start, the file is made for the run with this content, which git reads
    // exactly as an absent file: an empty commondir is fatal ("failed to read"), "." is the
    // git directory itself. A directory is made empty.
    std::string_view placeholder;
};
extern const std::array<GitCodeFile, 4> kGitCodeFiles;

// The entry of kGitCodeFiles that `path`'s last component names, if any.
const GitCodeFile *git_code_file(std::string_view path);

// Whether `dir` is a git directory on the host: a directory (or a symlink to one) named
// ".git", or holding HEAD, objects/ and refs/ (a bare repository). Not a gitfile (a linked
// worktree's or a submodule's: the repository is elsewhere), and not an absent one: a
// repository the sandbox will `git init` itself has nothing of the user's to protect, and
// git init must be able to write its config.
bool is_git_directory(const std::string &dir, const HostView &host);

// Absolute `path` resolved on `host` as the kernel would: every symlink on the way
// followed, "." and ".." applied to what they reach; components past an absent one are
// joined as written. nullopt after 40 symlinks (a loop).
std::optional<std::string> resolve_on_host(const HostView &host, const std::string &path);

// Adds the implied write denies to `trie` and resolves it. Only paths the trie leaves
// writable get one: a path already read-only needs none.
void add_implied_denies(FsTrie &trie, const Policy &policy, const HostView &host);

}  // namespace tartaros
