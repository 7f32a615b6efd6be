/* ir/syscall_names.h — the native (x86_64) system call table: the names the compiler's
 * seccomp profile is written against (compiler/syscall_table.h) and the effect log names
 * denied calls by (enforcer/deny_events.h). Freestanding.
 *
 * Invariants: numbers are the kernel's (arch/x86/entry/syscalls/syscall_64.tbl, common and
 * 64 ABIs) up to TP_SYSCALL_MAX_NR, ascending; names are unique; numbers with no entry
 * (335-423) are holes the kernel answers with ENOSYS.
 */
#ifndef TARTAROS_IR_SYSCALL_NAMES_H
#define TARTAROS_IR_SYSCALL_NAMES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Highest number in the table (file_setattr, Linux 6.17). */
#define TP_SYSCALL_MAX_NR 469u

struct tp_syscall_entry {
    uint32_t nr;
    const char *name;
};

/* Every entry, ascending by number: tp_syscall_count() of them. */
const struct tp_syscall_entry *tp_syscall_entries(void);
uint32_t tp_syscall_count(void);

/* The name of `nr`, or NULL for a hole or a number beyond the table. */
const char *tp_syscall_name(uint32_t nr);

#ifdef __cplusplus
}
#endif

#endif
