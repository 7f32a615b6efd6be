// compiler/model/paths.h — turning the paths people write in a policy into the absolute, normalised
// paths of the policy model, and the few file reads and writes the compiler does.
//
// Everything here is lexical: symlinks are not resolved (the lowering decides what to do
// with them, because the enforcer must not follow them either).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace tartaros {

// The longest path accepted, in bytes: PATH_MAX counts the terminating NUL.
inline constexpr size_t kMaxPathLength = 4095;

// Collapses repeated '/', drops "." components, resolves ".." lexically (never above "/")
// and drops a trailing '/'. `path` must be absolute; the result is too ("/" at least).
std::string normalize_absolute(std::string_view path);

// `path` made absolute against the current directory, then normalised; nullopt when the
// current directory cannot be determined (it was removed).
std::optional<std::string> absolute_path(std::string_view path);

// The directory holding `path` (absolute and normalised): "/a/b" → "/a", "/a" → "/".
std::string parent_directory(std::string_view path);

// `text` with control characters escaped (\n, \t, \xNN), for messages.
std::string printable(std::string_view text);

// 'text', printable: how a diagnostic quotes a value the policy wrote.
std::string quoted(std::string_view text);

struct PathError {
    std::string message;
    std::string rule_id;  // "glob" for glob characters, "invalid-path" for everything else
};

// What `~` in a policy names: $HOME when it is set (as it is, even empty or relative, which
// resolve_policy_path refuses: an empty HOME is a misconfiguration the compiler will not
// guess about), else the home /etc/passwd gives the real uid (HOME is often unset under
// `env -i`, cron and service managers); nullopt when neither gives one. The one place every
// front-end, `tartaros run`'s flags and the lint rules read it.
//
// /etc/passwd itself, not getpwuid_r: tartaros-cli and tartaros-compile are linked statically, and
// glibc's getpwuid_r would then load the NSS modules of whatever glibc the host has. A user
// known only to a directory service (LDAP, SSSD) and without HOME writes the path out.
std::optional<std::string> policy_home();

// The home (sixth field) of the first line of `passwd` (/etc/passwd's format, `#` comments
// skipped) whose uid is `uid`; nullopt when none has one.
std::optional<std::string> passwd_home(std::string_view passwd, uid_t uid);

// Where `tartaros run` keeps compiled plans (compiler/cli/plan_cache.h): $XDG_CACHE_HOME/tartaros
// when XDG_CACHE_HOME is an absolute path (the XDG base directory specification ignores a
// relative one), else ~/.cache/tartaros with policy_home(); nullopt when there is no usable home.
// Every plan write-denies it when a writable root holds it (build_fs_trie), so no sandbox can
// leave a plan there for a later run to start.
std::optional<std::string> plan_cache_directory();

// A path written in policy field `field` → absolute normalised path. `~` and `~/x` expand to
// `home` (policy_home()); a relative path resolves against `base_dir` (absolute: the policy
// file's directory). Refuses, naming `field`: empty paths, NUL or newline, glob characters
// (* ? [ ] {), `~user`, a missing, empty or relative home, and results longer than
// kMaxPathLength.
std::optional<std::string> resolve_policy_path(std::string_view raw, std::string_view field,
                                               const std::string &base_dir, const std::optional<std::string> &home,
                                               PathError &err);

// The whole content of `path` (at most kMaxReadSize bytes); false with the reason in `err`
// (strerror text) when it cannot be read.
inline constexpr size_t kMaxReadSize = size_t{64} << 20;
bool read_file(const std::string &path, std::string &out, std::string &err);

// All of `data` to `fd`, across short writes and EINTR; false (errno set) on an error.
bool write_all(int fd, const std::vector<uint8_t> &data);

// Replaces `path` atomically: a temporary file in the same directory, written, fsync'd,
// given `mode`, then renamed over `path` (and the directory fsync'd). On failure `path` is
// untouched, no temporary is left, and `err` says what failed.
bool write_file_atomically(const std::string &path, const std::vector<uint8_t> &data, unsigned mode, std::string &err);

}  // namespace tartaros
