/* ir/plan_reader_syscalls.cpp — the reader's checks of what format 6 added: the files the policy
 * included (TP_SEC_SOURCES), the file index of every origin, and the policy's syscall rules
 * (TP_SEC_SYSCALL_RULES/TESTS/VALUES). Freestanding like plan_reader.cpp: no allocation, every
 * index checked in 64 bits before it is used.
 */
#include "bpf_check.h"
#include "plan_reader_check.h"
#include "syscall_names.h"

#include <string.h>

namespace tp_reader {
namespace {

constexpr uint32_t kMaxTestsPerRule = 6; /* one per argument */
bool same_str(const tp_plan *p, tp_str a, tp_str b)
{
    return a.len == b.len && memcmp(p->strtab + a.off, p->strtab + b.off, a.len) == 0;
}

int check_origin(const Ctx &c, tp_origin o, const char *what, uint32_t index)
{
    if (o.file > c.plan->source_count)
        return fail(c, "%s %u: origin names file %u, the plan lists %u included files", what, index, o.file,
                    c.plan->source_count);
    return 0;
}

/* The origins of the singleton sections, in one list so none is forgotten. */
int check_singleton_origins(const Ctx &c)
{
    const tp_plan *p = c.plan;
    struct Named {
        const void *record;
        tp_origin origin;
        const char *what;
    };
    const Named origins[] = {
        {p->ns, p->ns ? p->ns->origin : tp_origin{}, "namespaces"},
        {p->exec, p->exec ? p->exec->origin : tp_origin{}, "exec"},
        {p->seccomp, p->seccomp ? p->seccomp->harden_origin : tp_origin{}, "seccomp"},
        {p->seccomp, p->seccomp ? p->seccomp->deny_unix_origin : tp_origin{}, "seccomp"},
        {p->network, p->network ? p->network->origin : tp_origin{}, "network"},
        {p->broker, p->broker ? p->broker->origin : tp_origin{}, "broker"},
        {p->limits, p->limits ? p->limits->max_processes_origin : tp_origin{}, "limits"},
        {p->limits, p->limits ? p->limits->memory_max_origin : tp_origin{}, "limits"},
        {p->limits, p->limits ? p->limits->cpu_max_origin : tp_origin{}, "limits"},
        {p->limits, p->limits ? p->limits->timeout_origin : tp_origin{}, "limits"},
    };
    for (const Named &n : origins)
        if (n.record != nullptr && check_origin(c, n.origin, n.what, 0) != 0)
            return -1;
    return 0;
}

int check_rule(const Ctx &c, const tp_syscall_rule &r, uint32_t i, uint32_t next_test)
{
    if (tp_syscall_name(r.nr) == nullptr)
        return fail(c, "syscall rule %u: %u is not a syscall of the native table", i, r.nr);
    const uint32_t data = r.action & TP_RET_DATA;
    const bool is_errno = (r.action & TP_RET_ACTION_FULL) == TP_RET_ERRNO && data >= 1 && data <= TP_MAX_ERRNO;
    if (!is_errno && r.action != TP_RET_KILL_PROCESS)
        return fail(c, "syscall rule %u: action 0x%x is neither ERRNO(1..4095) nor KILL_PROCESS", i, r.action);
    if (r.first_test != next_test)
        return fail(c, "syscall rule %u: its tests start at %u, not right after the previous rule's (%u)", i,
                    r.first_test, next_test);
    if (r.test_count > kMaxTestsPerRule || (uint64_t)r.first_test + r.test_count > c.plan->syscall_test_count)
        return fail(c, "syscall rule %u: tests %u..%u are more than %u or lie outside the %u listed", i, r.first_test,
                    r.first_test + r.test_count, kMaxTestsPerRule, c.plan->syscall_test_count);
    return 0;
}

/* In/NotIn: sorted, unique, at least one value; a bit test: exactly one non-zero mask. */
int check_test_values(const Ctx &c, const tp_syscall_test &t, uint32_t i)
{
    const uint32_t *v = c.plan->syscall_values + t.first_value;
    if (t.kind == TP_ARG_ANY_BIT || t.kind == TP_ARG_NO_BIT) {
        if (t.value_count != 1 || v[0] == 0)
            return fail(c, "syscall test %u: a bit test holds exactly one non-zero mask", i);
        return 0;
    }
    if (t.value_count == 0)
        return fail(c, "syscall test %u: no value", i);
    for (uint32_t k = 1; k < t.value_count; k++)
        if (v[k - 1] >= v[k])
            return fail(c, "syscall test %u: values are not sorted and unique (0x%x before 0x%x)", i, v[k - 1], v[k]);
    return 0;
}

/* Test `i`, the `pos`-th of its rule (`previous_arg` is the argument of the one before). */
int check_test(const Ctx &c, const tp_syscall_test &t, uint32_t i, uint32_t pos, uint32_t previous_arg,
               uint32_t next_value)
{
    if (t.kind < TP_ARG_IN || t.kind > TP_ARG_NO_BIT || t.reserved != 0)
        return fail(c, "syscall test %u: unknown kind %u or reserved bits", i, t.kind);
    if (t.arg > 5 || (pos > 0 && t.arg <= previous_arg))
        return fail(c, "syscall test %u: argument %u is not 0..5 or not above the previous test's of its rule", i,
                    t.arg);
    if (t.first_value != next_value)
        return fail(c, "syscall test %u: its values start at %u, not right after the previous test's (%u)", i,
                    t.first_value, next_value);
    if ((uint64_t)t.first_value + t.value_count > c.plan->syscall_value_count)
        return fail(c, "syscall test %u: values %u..%llu lie outside the %u listed", i, t.first_value,
                    (unsigned long long)t.first_value + t.value_count, c.plan->syscall_value_count);
    return check_test_values(c, t, i);
}

}  // namespace

int check_sources(const Ctx &c)
{
    const tp_plan *p = c.plan;
    if (p->source_count > TP_MAX_SOURCES)
        return fail(c, "sources: %u included files, the limit is %u", p->source_count, TP_MAX_SOURCES);
    for (uint32_t i = 0; i < p->source_count; i++) {
        if (check_path(c, p->sources[i], "source", i, "path") != 0)
            return -1;
        if (same_str(p, p->sources[i], p->meta->policy_path))
            return fail(c, "source %u: \"%s\" is the policy file itself", i, p->strtab + p->sources[i].off);
        for (uint32_t j = 0; j < i; j++)
            if (same_str(p, p->sources[i], p->sources[j]))
                return fail(c, "source %u: \"%s\" is listed twice", i, p->strtab + p->sources[i].off);
    }
    return 0;
}

int check_origins(const Ctx &c)
{
    const tp_plan *p = c.plan;
    if (check_singleton_origins(c) != 0)
        return -1;
    for (uint32_t i = 0; i < p->mount_count; i++)
        if (check_origin(c, p->mounts[i].origin, "mount", i) != 0)
            return -1;
    for (uint32_t i = 0; i < p->landlock_path_count; i++)
        if (check_origin(c, p->landlock_paths[i].origin, "landlock rule", i) != 0)
            return -1;
    for (uint32_t i = 0; i < p->env_count; i++)
        if (check_origin(c, p->env[i].origin, "env", i) != 0)
            return -1;
    for (uint32_t i = 0; i < p->net_port_count; i++)
        if (check_origin(c, p->net_ports[i].origin, "network port", i) != 0)
            return -1;
    for (uint32_t i = 0; i < p->net_name_count; i++)
        if (check_origin(c, p->net_names[i].origin, "network name", i) != 0)
            return -1;
    for (uint32_t i = 0; i < p->broker_cap_count; i++)
        if (check_origin(c, p->broker_caps[i].origin, "broker capability", i) != 0)
            return -1;
    for (uint32_t i = 0; i < p->rlimit_count; i++)
        if (check_origin(c, p->rlimits[i].origin, "rlimit", i) != 0)
            return -1;
    for (uint32_t i = 0; i < p->syscall_rule_count; i++)
        if (check_origin(c, p->syscall_rules[i].origin, "syscall rule", i) != 0)
            return -1;
    return 0;
}

int check_syscall_rules(const Ctx &c)
{
    const tp_plan *p = c.plan;
    if (p->syscall_rule_count > TP_MAX_SYSCALL_RULES)
        return fail(c, "syscall rules: %u rules, the limit is %u", p->syscall_rule_count, TP_MAX_SYSCALL_RULES);
    uint32_t next_test = 0, next_value = 0;
    for (uint32_t i = 0; i < p->syscall_rule_count; i++) {
        const tp_syscall_rule &r = p->syscall_rules[i];
        if (check_rule(c, r, i, next_test) != 0)
            return -1;
        for (uint32_t k = 0; k < r.test_count; k++) {
            const uint32_t t = r.first_test + k;
            const uint32_t previous_arg = k > 0 ? p->syscall_tests[t - 1].arg : 0;
            if (check_test(c, p->syscall_tests[t], t, k, previous_arg, next_value) != 0)
                return -1;
            next_value += p->syscall_tests[t].value_count;
        }
        next_test += r.test_count;
    }
    if (next_test != p->syscall_test_count || next_value != p->syscall_value_count)
        return fail(c, "syscall rules: %u tests and %u values listed, the rules use %u and %u", p->syscall_test_count,
                    p->syscall_value_count, next_test, next_value);
    return 0;
}

}  // namespace tp_reader
