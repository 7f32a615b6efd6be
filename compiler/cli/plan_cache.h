// compiler/cli/plan_cache.h — `tartaros run`'s plan cache: the plan of a policy, its flags and
// the host it was compiled on, kept so that the next run of an unchanged policy starts
// without compiling it again (docs/tartaros-run.md, "The plan cache").
//
// Where: plan_cache_directory() (paths.h), one file per key, named by the key's hash. The
// key, the entry's format, the trust rules and the lookup are shared/plan_cache_entry.h's,
// which the `tartaros` launcher runs too (front/main.cpp): this is the compiler's side, the
// writing, and the entries as C++ values.
//
// Whom an entry is trusted from. tartaros-exec runs a cached plan as it would a plan the user
// compiled, so an entry must be the user's own work:
//  - every plan the compiler makes write-denies the cache directory when a writable root
//    holds it (build_fs_trie; made if absent, its ancestors pinned), so no sandbox of this
//    user can write an entry, rename the directory away or put another in its place;
//  - an entry is read only from a directory that is not a symlink, is owned by the caller
//    (euid) and is not writable by group or others, from a regular file with the same owner
//    and modes and one link, opened without following a symlink;
//  - its checksum must hold (a torn or damaged file is a miss, never an error).
//
// When an entry is stale. Its key (run_cache_key) holds what the command line and the
// process decide: the format, the compiler's version and binary, uid and euid, the home,
// the current directory, --config as written and every policy flag in order. Its inputs
// (compile_inputs.h) hold what the compile read: each policy file's bytes, every answer
// the host gave the lowering and the verifier, the public suffix list's and the ca_file's
// identity. An entry is used only when its key is equal byte for byte and every input
// answers as recorded; otherwise the policy is compiled again and the entry replaced.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli_options.h"
#include "compile_inputs.h"

namespace tartaros {

struct CacheEntry {
    std::string key;
    std::string warnings;  // what the compile wrote to stderr: a hit writes it again
    std::vector<Input> inputs;
    std::vector<uint8_t> plan;
    bool operator==(const CacheEntry &) const = default;
};

// The entry as file bytes, and back: nullopt for anything but an undamaged entry of this
// format (a wrong magic, a checksum that fails, a length past the end, bytes left over).
std::vector<uint8_t> encode_cache_entry(const CacheEntry &entry);
std::optional<CacheEntry> decode_cache_entry(const std::vector<uint8_t> &bytes);

// The key of `tartaros run` with `line` in the current directory `cwd`: see above. The
// launcher's own options (--log, --strict, the command) are not in it: they do not change the
// plan.
std::string run_cache_key(const RunCommandLine &line, const std::string &cwd);

class PlanCache {
public:
    explicit PlanCache(std::string directory) : directory_(std::move(directory)) {}

    // The entry of `key` when it is trusted (above), its key is `key` and every input
    // answers as recorded; nullopt otherwise.
    std::optional<CacheEntry> lookup(const std::string &key) const;

    // Writes `entry` under its key: the directory made (0700) if absent, the file written
    // beside it and renamed into place, so a reader sees the old entry or the new one. At
    // most kMaxEntries are kept: the oldest go. Nothing is reported: a cache that cannot be
    // written costs a compile per run, nothing more.
    void store(const CacheEntry &entry) const;

    static constexpr size_t kMaxEntries = 64;

private:
    std::string directory_;
};

// The file name of `key`'s entry in the cache directory.
std::string cache_file_name(const std::string &key);

}  // namespace tartaros
