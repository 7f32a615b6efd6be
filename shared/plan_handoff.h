/* shared/plan_handoff.h — how `tartaros run` hands a plan it holds in memory to tartaros-exec:
 * in an unnamed, sealed memfd that survives execve, named on tartaros-exec's command line by
 * --plan-fd. The compiler's `tartaros-cli` does it after a compile, the `tartaros` launcher
 * after a cache hit.
 * Plain C over the C library only: the static musl launcher compiles it too. */
#ifndef TARTAROS_SHARED_PLAN_HANDOFF_H
#define TARTAROS_SHARED_PLAN_HANDOFF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The plan in a memfd sealed against every change, at a descriptor above 2 (0-2 may have
 * been closed by the caller) that is inherited across execve; -1 with errno set on failure. */
int th_plan_memfd(const void *plan, size_t len);

/* Replaces this process with `enforcer` running the plan at `plan_fd`: --strict when `strict`,
 * --log `log` unless NULL, then the command (`command`, NULL-terminated). Returns only when
 * execve failed (errno set). */
void th_exec_enforcer(const char *enforcer, int strict, const char *log, int plan_fd, const char *const *command);

#ifdef __cplusplus
}
#endif

#endif
