// compiler/model/host_view.h — what the compiler may see of the host at compile time.
//
// Only a few questions are asked: granted system paths that are symlinks become SYMLINK
// steps, a write-deny target that is a regular file is materialized as a file, a directory
// holding HEAD, objects/ and refs/ is a git directory, the symlinks directly in a
// write-denied directory are followed (implied_denies.h), and a private dir must be a
// directory (private_dirs.h). Tests substitute a fake host.
#pragma once

#include <string>
#include <vector>

namespace tartaros {

enum class HostKind { Absent, Directory, File, Symlink, Other };

class HostView {
public:
    virtual ~HostView() = default;
    virtual HostKind kind(const std::string &path) const = 0;          // lstat: never follows
    virtual std::string read_link(const std::string &path) const = 0;  // "" when not a symlink
    // The names in directory `path`, sorted; empty when it cannot be listed.
    virtual std::vector<std::string> entries(const std::string &) const { return {}; }
};

}  // namespace tartaros
