/* ir/plan_reader.h — the one validating reader of plans, used by the enforcer (static musl,
 * no C++ runtime) and by the compiler's --explain / --verify.
 *
 * tp_plan_open() checks everything ir/plan.h lists as an invariant before it returns 0;
 * after that every pointer in struct tp_plan points inside the caller's buffer, every count
 * is within its section, and tp_plan_str() of any tp_str found in a record is a valid
 * NUL-terminated string. The reader allocates nothing and keeps no state of its own.
 */
#ifndef TARTAROS_IR_PLAN_READER_H
#define TARTAROS_IR_PLAN_READER_H

#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tp_plan {
    const uint8_t *base; /* the caller's buffer, 8-aligned */
    uint32_t size;
    const struct tp_header *header;
    const char *strtab; /* never NULL after a successful open */
    uint32_t strtab_size;

    const struct tp_meta *meta;     /* NULL when absent */
    const struct tp_namespaces *ns; /* NULL when absent: no namespaces */
    uint32_t ns_section_flags;
    const struct tp_mount *mounts;
    uint32_t mount_count;
    uint32_t mounts_section_flags;
    const struct tp_landlock_ruleset *landlock; /* NULL when absent: no Landlock */
    uint32_t landlock_section_flags;
    const struct tp_landlock_path *landlock_paths;
    uint32_t landlock_path_count;
    const struct tp_env *env;
    uint32_t env_count;
    const struct tp_exec *exec;       /* NULL when absent: defaults */
    const struct tp_seccomp *seccomp; /* NULL when absent: no seccomp filter */
    uint32_t seccomp_section_flags;
    const struct tp_bpf_insn *seccomp_prog; /* passed tp_bpf_check (ir/bpf_check.h) */
    uint32_t seccomp_insn_count;
    const struct tp_network *network; /* NULL when absent: nothing crosses the namespace */
    const struct tp_net_port *net_ports;
    uint32_t net_port_count;
    const struct tp_net_name *net_names;
    uint32_t net_name_count;
    const struct tp_limits *limits; /* NULL when absent: no limit, no timeout */
    uint32_t limits_section_flags;
    const struct tp_rlimit *rlimits; /* ascending resource, each at most once */
    uint32_t rlimit_count;
    const struct tp_broker *broker; /* NULL when absent: no credential broker */
    uint32_t broker_section_flags;
    const struct tp_broker_cap *broker_caps; /* 1..TP_MAX_BROKER_CAPS with a broker */
    uint32_t broker_cap_count;
    const struct tp_str *sources; /* absolute paths of the included files (origin file k
                                            is sources[k - 1]); NULL when none */
    uint32_t source_count;
    const struct tp_syscall_rule *syscall_rules; /* the policy's deny rules, policy order */
    uint32_t syscall_rule_count;
    const struct tp_syscall_test *syscall_tests; /* every index in a rule is in range */
    uint32_t syscall_test_count;
    const uint32_t *syscall_values;
    uint32_t syscall_value_count;
};

/* Validates `buf` (len bytes, 8-aligned) and fills `out`. Returns 0, or -1 with a one-line
 * reason (no "tartaros:" prefix, no newline, no control byte: a quoted plan string's control
 * bytes read '?') in err[0..errlen). */
int tp_plan_open(const uint8_t *buf, uint32_t len, struct tp_plan *out, char *err, uint32_t errlen);

/* The string for `s`; only valid for a tp_str taken from a plan that tp_plan_open accepted. */
const char *tp_plan_str(const struct tp_plan *plan, struct tp_str s);

/* FNV-1a-64 of `len` bytes, with the 8 bytes at `skip_off` (the checksum field) read as zero. */
uint64_t tp_checksum(const uint8_t *buf, uint32_t len, uint32_t skip_off);

#ifdef __cplusplus
}
#endif

#endif /* TARTAROS_IR_PLAN_READER_H */
