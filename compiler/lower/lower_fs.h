// compiler/lower/lower_fs.h — the rule trie into the plan's two filesystem layers: mount steps
// (the deny layer) and Landlock rules (the allow layer). docs/design-notes.md §2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "fs_trie.h"
#include "host_view.h"
#include "plan.h"
#include "policy.h"

namespace tartaros {

// The machine the compiler runs on.
const HostView &real_host();

struct MountStep {
    uint32_t op = 0;     // tp_mount_op
    uint32_t flags = 0;  // tp_mount_flag
    std::string path;
    std::string source;  // BIND: host path; SYMLINK: link target
    std::string anchor;  // the writable mount (BIND rw / TMPFS) below which walks start
    SourcePos pos;
};

struct LandlockRule {
    uint32_t kind = 0;    // tp_landlock_rule_kind
    uint64_t access = 0;  // LANDLOCK_ACCESS_FS_* of ABI 7
    uint32_t flags = 0;   // TP_MNTF_OPTIONAL
    std::string path;
    std::string except;  // EXPAND: '/'-joined child names handled by their own rules
    SourcePos pos;
};

struct FsLowering {
    std::vector<MountStep> mounts;       // execution order
    std::vector<LandlockRule> landlock;  // deterministic trie order
};

// Rights of each level. Read is what a read-only tree needs; Write is everything handled.
inline constexpr uint64_t kReadRights = TP_LL_FS_EXECUTE | TP_LL_FS_READ_FILE | TP_LL_FS_READ_DIR;
inline constexpr uint64_t kWriteRights = TP_LL_FS_ALL_ABI7;
inline constexpr uint64_t kHandledRights = TP_LL_FS_ALL_ABI7;
// The broker's credentials directory (a Read node of the trie): read the token file and list
// the directory; never execute, never write (its tmpfs is read-only too).
inline constexpr uint64_t kCredentialsRights = TP_LL_FS_READ_FILE | TP_LL_FS_READ_DIR;
uint64_t level_rights(Level level);

// The Landlock ABI the plan's rights are computed for, and the lowest ABI that knows every
// right in `fs_access` (REFER 2, TRUNCATE 3, IOCTL_DEV 5).
inline constexpr uint32_t kLandlockAbi = 7;
uint32_t landlock_abi_needed(uint64_t fs_access);

// Every plan scopes abstract unix sockets and signals to the sandbox's own Landlock domain
// (ABI 6): a second layer under the network and PID namespaces, and the only one left when
// those are lost (no user namespaces).
inline constexpr uint64_t kScopes = TP_LL_SCOPE_ABSTRACT_UNIX_SOCKET | TP_LL_SCOPE_SIGNAL;
inline constexpr uint32_t kScopesAbi = 6;

// Extra rights inside the private /dev, beyond its Read level, so ordinary commands work
// (`cmd > /dev/null` opens with O_TRUNC, a terminal needs ioctls). Granted only when the DEV
// step is in the plan and the trie leaves the path at Read.
struct DeviceGrant {
    const char *path;
    uint64_t access;
};
extern const std::vector<DeviceGrant> kDeviceGrants;

// Lowers `trie` (built from `policy` by build_fs_trie). Reports warnings
// (`write-deny-outside-roots`) and notes (`mount-only`: a deny inside a writable root, which
// Landlock cannot express and the mount layer alone enforces) into `diags`.
FsLowering lower_filesystem(const Policy &policy, const FsTrie &trie, const HostView &host, Diagnostics &diags);

}  // namespace tartaros
