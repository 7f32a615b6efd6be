// compiler/verify/verify.h — the compiler's check of its own output (translation validation).
//
// The plan is read back through ir/plan_reader (the enforcer's reader) and compared with the
// rule trie of the policy, never with the lowering's intermediate state, so a lowering bug
// cannot hide itself. Invariants checked, in order:
//  1. structure: tp_plan_open accepts the bytes; meta, namespaces (with USER and MOUNT),
//     Landlock ruleset and exec are present; handled_access_fs is every ABI-7 right; the
//     header's min_landlock_abi covers every handled right;
//  2. paths: every mount path, anchor and BIND source and every Landlock path is absolute
//     and normalised; EXPAND `except` is '/'-joined plain names;
//  3. masks and flags: every rule's access is non-zero and within handled; an EXPAND has a
//     READ_DIR rule on its own path; mount flags fit their op (at most one absent-target
//     flag; absent-target flags and anchors only on WRITE_DENY/MASK/PIN);
//  4. order: step 0 is the only ROOT_* step and is at "/"; for i < j, step j's path is never
//     an ancestor-or-self of step i's path (a later mount never covers an earlier one), the
//     one exception being BIND rw "/" right after ROOT_READONLY (writable_roots = ["/"]);
//  5. anchors: WRITE_DENY and PIN carry one; an anchor is a strict ancestor of the step's
//     path and the path of an earlier writable mount (BIND rw, TMPFS); every directory
//     strictly between a WRITE_DENY's anchor and its path has an earlier PIN;
//  6. probes (every trie node, mount and rule path, their ancestors, a child "x" of each,
//     and a few fixed paths), each first resolved through the plan's SYMLINK steps:
//     - mount level == trie level, where the mount level is given by the deepest
//       ancestor-or-self step (later wins at equal depth; PIN and SYMLINK are transparent):
//       ROOT_EMPTY, MASK → none; ROOT_READONLY, BIND ro, WRITE_DENY, DEV, PROC, the
//       credentials TMPFS → read; BIND rw, other TMPFS → write;
//     - Landlock access (PATH rules on ancestors-or-self, EXPAND rules on strict ancestors
//       whose first component below is not excepted) == rights of the trie level, plus the
//       device grants inside the private /dev; on an EXPAND path itself only directory
//       rights count; a none path may get READ_DIR alone (its names are hidden by the mount
//       layer, already checked above); the credentials directory gets kCredentialsRights
//       instead of the read rights (no execute);
//     - the one allowed excess, "mount-only": Landlock grants write to a path the trie
//       keeps at read or none; accepted only when the mount step deciding that path lies
//       strictly below the deepest writable Landlock rule covering it;
//  7. seccomp: translation validation of the filter (seccomp_verify.h);
//  8. network: the relays, the proxy's names and its environment (verify_net.h);
//  9. broker: its section, capabilities, environment and credentials directory
//     (verify_broker.h);
// 10. limits: the cgroup limits, the timeout and the rlimits (verify_limits.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "lower.h"
#include "policy.h"

namespace tartaros {

// Checks `plan` against `policy` as lowered with `options`: the first violation found (one
// line), or nothing.
Failure verify_plan(const std::vector<uint8_t> &plan, const Policy &policy, const LowerOptions &options);

// What can be checked of `plan` without its policy: the validating reader accepts it (its
// structure, checksum and the structural check of its BPF program), and its seccomp filter
// passes translation validation against the profile the plan states (its switches and its
// syscall rules), as in check 7 above: the first problem, or nothing.
Failure verify_plan_alone(const std::vector<uint8_t> &plan);

// Lowers `policy` to a plan and verifies the result. Returns the plan bytes, or an empty
// vector with at least one error in `diags` (a verification failure is reported as an
// error with rule id "plan-verification").
std::vector<uint8_t> lower_policy(const Policy &policy, const LowerOptions &options, Diagnostics &diags);

}  // namespace tartaros
