/* ir/plan_reader_check.h — the reader's own helpers, shared by its two files (plan_reader.cpp:
 * the header, the section table and the records of the enforcement steps;
 * plan_reader_syscalls.cpp: the policy's files, every origin, and the syscall rules). Not an
 * API: only ir/plan_reader.h is. Freestanding, like the reader.
 */
#ifndef TARTAROS_IR_PLAN_READER_CHECK_H
#define TARTAROS_IR_PLAN_READER_CHECK_H

#include "plan_reader.h"

namespace tp_reader {

/* Everything a check needs to report a refusal. */
struct Ctx {
    tp_plan *plan;
    char *err;
    uint32_t errlen;
};

/* Formats the one-line reason; always returns -1 so callers can `return fail(...)`. */
__attribute__((format(printf, 2, 3))) int fail(const Ctx &c, const char *fmt, ...);

/* A tp_str must lie inside the string table, end at a NUL and contain none. */
int check_str(const Ctx &c, tp_str s, const char *what, uint32_t index, const char *field);

/* A path the enforcer resolves from the sandbox root: absolute and bounded. */
int check_path(const Ctx &c, tp_str s, const char *what, uint32_t index, const char *field);

/* TP_SEC_SOURCES: absolute, bounded, no file twice, none the policy file itself; only with
 * META (file 0 of an origin is meta.policy_path). */
int check_sources(const Ctx &c);

/* Every origin of every record names file 0 or a record of TP_SEC_SOURCES. */
int check_origins(const Ctx &c);

/* TP_SEC_SYSCALL_RULES/TESTS/VALUES: every invariant of plan.h's tp_syscall_rule. */
int check_syscall_rules(const Ctx &c);

}  // namespace tp_reader

#endif /* TARTAROS_IR_PLAN_READER_CHECK_H */
