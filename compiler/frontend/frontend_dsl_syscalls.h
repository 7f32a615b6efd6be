// compiler/frontend/frontend_dsl_syscalls.h — the `deny` rules of a .tart policy's `syscalls` blocks into
// the model's SyscallDenyRule (policy.h), whose invariants this establishes.
//
// Errors: unknown-syscall (not a name of the native x86_64 table; "did you mean"),
// unknown-constant (a name syscall_constants.h does not know; "did you mean"),
// syscall-condition (an argument other than arg0..arg5, two conditions on one argument, a
// value outside -2^31..2^32-1, a mask of 0, `== V` / `!= V` after a mask with V other than 0),
// syscall-action (an errno outside 1..4095 or a name that is not an errno), syscall-rule-count
// (more than kMaxSyscallRules rules, at the first one too many).
#pragma once

#include <vector>

#include "diagnostics.h"
#include "frontend_dsl_ast.h"
#include "policy.h"

namespace tartaros::dsl {

// Every rule of `blocks` in order (a rule with an error is left out, after its report).
std::vector<SyscallDenyRule> lower_syscall_rules(const std::vector<SyscallsBlock> &blocks, Diagnostics &diags);

}  // namespace tartaros::dsl
