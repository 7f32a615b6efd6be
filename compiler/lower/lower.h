// compiler/lower/lower.h — policy model → plan bytes, before the verifier (verify.h) checks them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "paths.h"
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
    // `tartaros run`'s plan cache, write-denied when a writable root holds it ("" = none).
    // Every plan gets it, not only those `tartaros run` makes: a plan run by tartaros-exec
    // must not be able to plant an entry either.
    std::string plan_cache_dir = plan_cache_directory().value_or("");
};

// The seccomp switches `policy` asks for (the profile adds its syscall rules: seccomp_rules.h).
seccomp::ProfileFlags seccomp_flags(const Policy &policy);

// Where a diagnostic about the whole policy points: its file, line 0.
SourcePos policy_pos(const Policy &policy);

// Lowers `policy` to plan bytes, or an empty vector with at least one error in `diags`.
// Nothing checks the bytes here: lower_policy (verify.h) is the way to a plan.
std::vector<uint8_t> lower_unverified(const Policy &policy, const LowerOptions &options, Diagnostics &diags);

}  // namespace tartaros
