/* enforcer/plan_load.h — the plan, read whole and validated before anything else happens.
 *
 * From a path (tartaros-exec PLAN.bin), whose file init later makes read-only in the sandbox
 * (plan_guard.cpp), so `file` records which one it is; or from an open file (--plan-fd:
 * tartaros run's sealed memfd, which no path in the sandbox reaches). Either way at most
 * TP_MAX_PLAN_SIZE bytes, read into static storage the plan view points into, and checked by
 * ir/plan_reader; anything else is a refusal (78, one line) before the host is touched.
 */
#pragma once

#include "context.h"
#include "plan_reader.h"

/* The validated plan: from `fd` when it is not negative, else from `path`. Refuses (78) an
 * unreadable, oversized or invalid plan. */
const tp_plan *load_plan(const char *path, int fd, plan_identity *file);
