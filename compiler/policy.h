// compiler/policy.h — the policy model every front-end lowers into.
//
// Invariants once a front-end has returned a Policy without errors:
//  - every path is absolute and normalised: no "." or ".." components, no repeated or
//    trailing '/', "~" expanded, relative paths resolved against the policy file's
//    directory; no glob characters (front-ends refuse them);
//  - each list keeps the order of the source and holds no duplicates (a duplicate is a
//    diagnostic, and the later copy is dropped);
//  - every value carries the source position it came from, so any later pass (lint,
//    lowering, --explain) can point at the line that caused it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tartaros {

struct SourcePos {
    std::string file;   // as given on the command line
    uint32_t line = 0;  // 1-based; 0 = not from the file (a default)
    uint32_t col = 0;   // 1-based
};

template <class T>
struct Located {
    T value{};
    SourcePos pos{};
};

using LocatedPath = Located<std::string>;

enum class ReadScope { All, Granted };

struct FilesystemPolicy {
    Located<ReadScope> read_scope{ReadScope::All, {}};
    std::vector<LocatedPath> read_allows;
    std::vector<LocatedPath> read_denies;
    std::vector<LocatedPath> writable_roots;
    std::vector<LocatedPath> write_denies;
    // Deny targets the policy declares to be regular files (`{ path = "...", type = "file" }`
    // in read_denies or write_denies): materialize creates them as empty files, not directories.
    std::vector<std::string> file_targets;
    Located<bool> materialize{false, {}};
    Located<bool> private_tmp{false, {}};
};

struct ProcessPolicy {
    Located<bool> isolate_pids{true, {}};  // private PID namespace
    Located<bool> isolate_proc{true, {}};  // fresh /proc of that namespace
    // The seccomp hardening deny list (compiler/seccomp_profile.h). On unless the policy says
    // false: the list refuses nothing a coding agent's tools need.
    Located<bool> harden_syscalls{true, {}};
};

struct NetworkPolicy {
    Located<bool> deny_unix{false, {}};  // every AF_UNIX socket and socketpair refused
};

struct EnvPolicy {
    Located<bool> inherit{false, {}};
    // Names copied from the launcher's environment. When the key is absent from the
    // policy this holds the defaults (kDefaultPassthrough) with line 0.
    std::vector<Located<std::string>> passthrough;
    std::vector<std::pair<Located<std::string>, Located<std::string>>> set;  // name, value
};

// The environment variables passed through when a policy does not say.
inline const std::vector<std::string> kDefaultPassthrough = {
    "PATH", "HOME", "TERM", "LANG", "LC_ALL", "USER", "LOGNAME", "SHELL", "TZ"};

struct Policy {
    std::string source_path;  // absolute path of the policy file ("" for flags-only policies)
    Located<int64_t> version{1, {}};
    FilesystemPolicy fs;
    ProcessPolicy process;
    NetworkPolicy network;
    EnvPolicy env;
};

}  // namespace tartaros
