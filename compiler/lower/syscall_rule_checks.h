// compiler/lower/syscall_rule_checks.h — the checks on the policy's syscall rules (a .tart `syscalls`
// block; docs/lint-rules.md). Run by the lowering (lower_unverified), so a compile and a lint both
// report them:
//  - syscall-rule-breaks-start (error): a rule on a call that the sandbox's own start or every
//    process's life needs, whatever its arguments: execve (tartaros-exec's last step executes
//    the command after the filter is loaded), exit and exit_group (how every process and thread
//    ends), rt_sigreturn and restart_syscall (the kernel's return from a signal handler and its
//    restart of an interrupted call). Refused, the command never starts, or processes hang or
//    crash in ways far from the rule. An error rather than a warning: no policy wants that, and
//    a plan that cannot run is better refused at compile time than discovered at run time.
//    execveat is not in the list: the sandbox never calls it, and refusing it (fileless exec of
//    a memfd) is a sound hardening.
//  - syscall-rule-shadowed (warning): a rule that can never decide a call, because a built-in
//    rule (the baseline or the hardening) already answers every call it covers, or earlier
//    rules of the policy do (seccomp_profile.h, policy_rule_applies). The plan is the same with
//    or without it; the warning says which rule stands instead.
#pragma once

#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "policy.h"
#include "seccomp_profile.h"

namespace tartaros {

// The calls of syscall-rule-breaks-start.
bool needed_to_start(std::string_view syscall);

// Why policy rule `i` of `profile` never applies (it must not): "the hardening already answers
// every ioctl call it covers (ERRNO(EPERM) for TIOCSTI or TIOCLINUX)" or "the rule at
// rules.tart:3:5 already decides every kcmp call it covers".
std::string shadow_reason(const seccomp::Profile &profile, size_t i);

// Reports both rules over policy.syscalls; returns false when it reported an error.
bool check_syscall_rules(const Policy &policy, Diagnostics &diags);

}  // namespace tartaros
