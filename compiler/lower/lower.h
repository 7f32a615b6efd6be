// compiler/lower/lower.h — policy model → plan bytes, before the verifier (verify.h) checks them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "policy.h"
#include "seccomp_profile.h"

namespace tartaros {

class HostView;  // lower_fs.h

struct LowerOptions {
    // Absolute path the plan will be written to ("" when it stays in memory). When it lies
    // inside a writable root it is write-denied automatically, like the policy file.
    std::string plan_path;
    // What the lowering may look at on the host (symlinked system paths, regular-file deny
    // targets); null = the real filesystem. Tests pass a fake.
    const HostView *host = nullptr;
};

// The seccomp switches `policy` asks for (the profile adds its syscall rules: seccomp_rules.h).
seccomp::ProfileFlags seccomp_flags(const Policy &policy);

// Where a diagnostic about the whole policy points: its file, line 0.
SourcePos policy_pos(const Policy &policy);

// Lowers `policy` to plan bytes, or an empty vector with at least one error in `diags`.
// Nothing checks the bytes here: lower_policy (verify.h) is the way to a plan.
std::vector<uint8_t> lower_unverified(const Policy &policy, const LowerOptions &options, Diagnostics &diags);

}  // namespace tartaros
