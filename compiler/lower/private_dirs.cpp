// compiler/lower/private_dirs.cpp — see private_dirs.h.
#include "private_dirs.h"

#include <array>
#include <string_view>

#include "fs_trie.h"
#include "paths.h"
#include "plan.h"

namespace tartaros {

namespace {

constexpr const char *kRule = "private-dir";

// Filesystems the sandbox builds itself: a private dir there would replace its own.
constexpr std::array<std::string_view, 3> kKernelDirs = {"/proc", "/dev", "/sys"};

// Why `dir` cannot be a private dir wherever the host and the other rules stand, if it cannot.
Failure placement_error(const Policy &policy, const std::string &dir)
{
    if (dir == "/")
        return "would hide the whole host, the system's programs too: name a directory of its own";
    for (std::string_view kernel : kKernelDirs)
        if (path_is_within(dir, kernel))
            return "lies in " + std::string(kernel) + ", which the sandbox builds itself: name a directory of its own";
    for (const std::string &system : kGrantedSystemPaths)
        if (dir == system)
            return "is a system directory every program needs: name a directory of its own";
    if (dir == "/tmp")
        return "is /tmp: say private_tmp = true for a private /tmp";
    if (policy.fs.private_tmp.value && path_is_within(dir, "/tmp"))
        return "lies in the private /tmp (private_tmp = true), which is the sandbox's own already: remove it";
    if (policy.broker && (path_is_within(dir, TP_CREDENTIALS_DIR) || path_is_within(TP_CREDENTIALS_DIR, dir)))
        return "takes the broker's credentials directory " TP_CREDENTIALS_DIR
               ", which the sandbox makes for the token alone: name a narrower or another directory";
    return std::nullopt;
}

// Why the host's `dir` cannot take the tmpfs, if it cannot: the enforcer mounts on it as it is.
Failure host_error(const HostView &host, const std::string &dir)
{
    switch (host.kind(dir)) {
    case HostKind::Directory: return std::nullopt;
    case HostKind::Absent:
        return "does not exist: create the directory first (mkdir -p " + printable(dir) +
            "); the private tmpfs is mounted on it";
    case HostKind::Symlink: return "is a symlink (to " + quoted(host.read_link(dir)) + "): name the directory itself";
    case HostKind::File:
    case HostKind::Other: break;
    }
    return "is not a directory";
}

// Where another entry was written, seen from `here`: a line, or the `tartaros run` flag.
std::string place(const SourcePos &pos, const SourcePos &here)
{
    return pos.line == 0 ? pos.file : line_of(pos, here);
}

}  // namespace

bool check_private_dirs(const Policy &policy, const HostView &host, Diagnostics &diags)
{
    const std::vector<LocatedPath> &dirs = policy.fs.private_dirs;
    const size_t errors_before = diags.error_count();
    if (dirs.size() > TP_MAX_PRIVATE_DIRS)
        diags.error(dirs[TP_MAX_PRIVATE_DIRS].pos,
                    "private_dirs: more than " + std::to_string(TP_MAX_PRIVATE_DIRS) +
                        " directories; the mediator knows at most that many as the sandbox's own",
                    kRule);
    for (const LocatedPath &dir : dirs) {
        Failure why = placement_error(policy, dir.value);
        for (const LocatedPath &outer : dirs)
            if (!why && outer.value != dir.value && path_is_within(dir.value, outer.value))
                why = "lies in the private directory " + quoted(outer.value) + " (" + place(outer.pos, dir.pos) +
                    "), which is the sandbox's own already: remove it";
        if (!why)
            why = host_error(host, dir.value);
        if (why)
            diags.error(dir.pos, "private_dirs: " + quoted(dir.value) + " " + *why, kRule);
    }
    // A private dir starts empty: a rule at or beneath it would name nothing of the host.
    for (const auto &[list, name] :
         {std::pair{&policy.fs.read_allows, "read_allows"}, std::pair{&policy.fs.read_denies, "read_denies"},
          std::pair{&policy.fs.writable_roots, "writable_roots"}, std::pair{&policy.fs.write_denies, "write_denies"}})
        for (const LocatedPath &path : *list)
            for (const LocatedPath &dir : dirs)
                if (path_is_within(path.value, dir.value)) {
                    diags.error(path.pos,
                                std::string(name) + ": " + quoted(path.value) + " lies in the private directory " +
                                    quoted(dir.value) + " (private_dirs at " + place(dir.pos, path.pos) +
                                    "), which starts empty and shows nothing of the host: remove one of the two",
                                kRule);
                    break;
                }
    return diags.error_count() == errors_before;
}

}  // namespace tartaros
