// compiler/lower/private_dirs.h — where `private_dirs` may put a private tmpfs
// (docs/policy.md "private_dirs"). Checked at lowering, the one stage both a policy file and
// `tartaros run --private-dir` reach, against the whole policy and the host.
#pragma once

#include "diagnostics.h"
#include "host_view.h"
#include "policy.h"

namespace tartaros {

// Reports [private-dir] errors and returns false for a private dir that is "/", a system
// directory, in /proc, /dev or /sys, /tmp (or beneath it under private_tmp), in or around the
// broker's credentials directory, beneath another private dir, not a directory on the host,
// or beyond TP_MAX_PRIVATE_DIRS; and for any rule of the policy at or beneath a private dir
// (its content is the run's own: nothing of the host shows there).
bool check_private_dirs(const Policy &policy, const HostView &host, Diagnostics &diags);

}  // namespace tartaros
