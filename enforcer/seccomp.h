/* enforcer/seccomp.h — the seccomp layer: the plan's filter, loaded as the very last step
 * before exec (after Landlock), by the command process only.
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

/* Command, after landlock_enforce (no_new_privs is set): installs the filter. A failure
 * refuses when the guarantee may not degrade, else warns and goes on without it. With
 * denied-syscall events the filter is already in, inside the listener program (mediator.h). */
void seccomp_enforce(const run_ctx *ctx);
