/* enforcer/setup_calls.h — the system calls the command still makes after loading the plan's
 * filter early, and whether a filter lets every one of them through.
 *
 * Loading the filter costs the command about 0.1 ms here (the kernel converts the program
 * and JIT-compiles it). The early command spends longer than that waiting for init to finish
 * the mount tree and the Landlock ruleset (launch.h), so it loads the filter there, off the
 * critical path, instead of as its last step before exec. From then on the command's own
 * set-up meets the filter, and a policy's rule could refuse a step of it (`deny chdir`, a rule
 * on prctl or capset): the command would fail to start, or start half set up. So the filter is
 * loaded early only when it answers ALLOW to every call of kSetupCalls; otherwise it is loaded
 * last, as on the late path, and no set-up call ever meets it. Either way the command executes
 * under the same filter: only when it was loaded differs.
 *
 * Why the enforcer decides this at every run rather than the compiler once: the list is what
 * this enforcer's own code calls, and a plan may be run by an enforcer other than the one next
 * to the compiler that wrote it (a plan kept across an upgrade); a verdict stored in the plan
 * would be about some other binary's calls. The check is about 25 interpreter runs of a few
 * dozen instructions each, about 4 µs per start (perf over 1,000 runs).
 *
 * Invariants:
 *  - every call the command can make from command_confine_early (process.h) to execve is in
 *    the list, the error paths' too (the write of a failure's line, exit_group), with each
 *    argument that the enforcer passes as a constant (it.early_filter compares the list with
 *    what strace sees the command do);
 *  - a call passes when the interpreter (ir/bpf_interp.h) runs the filter on it with those
 *    constants, every other argument 0, and the filter returns ALLOW without having loaded
 *    any word but the number, the architecture and the constant arguments. A path that reads
 *    another argument (a pointer, a length, a descriptor) could decide differently on the
 *    real value, so it counts as a refusal.
 */
#pragma once

#include <stdint.h>

#include "plan.h"

struct setup_call {
    uint32_t nr;
    uint32_t constant_args; /* bit k: args[k] is the value below; the others may be anything */
    uint64_t args[6];
};

/* The list; setup_call_count() entries. */
const setup_call *setup_calls();
uint32_t setup_call_count();

/* Whether the filter `prog` (`len` instructions, checked by the plan reader) answers ALLOW to
 * every set-up call (see the top of this file). */
bool filter_admits_setup_calls(const tp_bpf_insn *prog, uint32_t len);
