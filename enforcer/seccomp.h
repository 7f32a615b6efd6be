/* enforcer/seccomp.h — the seccomp layer: the plan's filter, loaded by the command process
 * only: while it waits for init when the filter lets the rest of its set-up through
 * (setup_calls.h), else as its very last step before exec (after Landlock).
 *
 * The program was checked twice before it gets here: by the compiler (structure and
 * translation validation against the profile) and by the plan reader at load (structure,
 * ir/bpf_check.h). The enforcer needs no libseccomp: it hands the kernel the raw program.
 */
#pragma once

#include "context.h"

/* Preflight: whether the kernel can run the plan's filter (seccomp filter mode and every
 * return action the program uses). Returns nullptr when it can, else why not. */
const char *seccomp_unavailable_reason(const tp_plan *plan);

/* Preflight, once deny_events is decided: whether the early command may load the filter
 * (ctx->seccomp_early): it is to be loaded, not inside the listener program, and it admits
 * every set-up call that would meet it (setup_calls.h). */
bool seccomp_may_load_early(const run_ctx *ctx);

/* The early command, raw (raw.h), no_new_privs set: loads the filter when
 * ctx->seccomp_early. A failure is reported by seccomp_enforce, which tries once more. */
void seccomp_enforce_early(const run_ctx *ctx);

/* Command, after landlock_enforce (no_new_privs is set): installs the filter, unless the
 * early command did. A failure refuses when the guarantee may not degrade, else warns and
 * goes on without it. With denied-syscall events the filter is already in, inside the
 * listener program (mediator.h). */
void seccomp_enforce(const run_ctx *ctx);
