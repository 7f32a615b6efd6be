/* ir/plan_reader.cpp — validates a plan before anything uses it.
 *
 * Compiled into the glibc compiler and into the static musl enforcer, which has no C++
 * runtime: only C library calls (memcmp, memchr, snprintf), no allocation, no static
 * constructors, no exceptions. Every offset and count is checked with 64-bit arithmetic
 * before it is used, so no uint32 sum can wrap and no read leaves [buf, buf + len).
 */
#include "plan_reader.h"

#include "bpf_check.h"
#include "broker_rules.h"
#include "host_rules.h"
#include "net_channel.h"
#include "plan_reader_check.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

namespace tp_reader {

int fail(const Ctx &c, const char *fmt, ...)
{
    if (c.errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c.err, c.errlen, fmt, ap);
        va_end(ap);
        /* A reason quotes the plan's own bytes: a control byte (a newline, an escape sequence)
         * would split the one refusal line or write to the terminal. */
        for (char *p = c.err; *p != '\0'; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
    }
    return -1;
}

int check_str(const Ctx &c, tp_str s, const char *what, uint32_t index, const char *field)
{
    const tp_plan *p = c.plan;
    if ((uint64_t)s.off + s.len >= p->strtab_size)
        return fail(c, "%s %u: %s (offset %u, length %u) lies outside the %u-byte string table", what, index, field,
                    s.off, s.len, p->strtab_size);
    const char *str = p->strtab + s.off;
    if (str[s.len] != '\0')
        return fail(c, "%s %u: %s is not NUL-terminated", what, index, field);
    if (memchr(str, '\0', s.len) != nullptr)
        return fail(c, "%s %u: %s contains a NUL byte", what, index, field);
    return 0;
}

int check_path(const Ctx &c, tp_str s, const char *what, uint32_t index, const char *field)
{
    if (check_str(c, s, what, index, field) != 0)
        return -1;
    if (s.len > TP_MAX_PATH)
        return fail(c, "%s %u: %s is %u bytes long, the limit is %u", what, index, field, s.len, TP_MAX_PATH);
    if (s.len == 0 || c.plan->strtab[s.off] != '/')
        return fail(c, "%s %u: %s \"%s\" is not absolute", what, index, field, c.plan->strtab + s.off);
    return 0;
}

}  // namespace tp_reader

namespace {

using namespace tp_reader;

/* Known bits of each flag word; anything else in a plan is refused. */
constexpr uint64_t kKnownFeatures = (1u << 11) - 1;      /* TP_FEAT_USERNS..MOUNT_API */
constexpr uint32_t kKnownNamespaces = (1u << 7) - 1;     /* TP_NS_USER..CGROUP */
constexpr uint32_t kKnownMountFlags = (1u << 10) - 1;    /* TP_MNTF_RDONLY..LINK_TARGET */
constexpr uint64_t kKnownLandlockNet = (1u << 2) - 1;    /* BIND_TCP, CONNECT_TCP */
constexpr uint64_t kKnownLandlockScopes = (1u << 2) - 1; /* ABSTRACT_UNIX_SOCKET, SIGNAL */
constexpr uint32_t kKnownExecFlags = TP_EXEC_INHERIT_ENV;
constexpr uint32_t kKnownSectionFlags = TP_SECF_REQUIRED;
constexpr uint32_t kKnownSeccompProfile = TP_SC_HARDEN | TP_SC_DENY_UNIX;
constexpr uint32_t kKnownNetModes = TP_NET_PROXY | TP_NET_PORTS | TP_NET_EXPOSE | TP_NET_BROKER;
constexpr uint32_t kTypeCount = TP_SEC_SYSCALL_VALUES + 1; /* section types are 1..TP_SEC_SYSCALL_VALUES */
/* Each relayed port costs the sandbox side one listener (shared/net_channel.h) or the host one. */
constexpr uint32_t kMaxNetPorts = 256;
constexpr uint32_t kMaxNetNames = 4096;

/* Fixed record size of each section type (index = type; 0 = unknown type). */
constexpr uint32_t kRecordSize[kTypeCount] = {
    0,
    1,
    sizeof(tp_meta),
    sizeof(tp_namespaces),
    sizeof(tp_mount),
    sizeof(tp_landlock_ruleset),
    sizeof(tp_landlock_path),
    sizeof(tp_env),
    sizeof(tp_exec),
    sizeof(tp_seccomp),
    sizeof(tp_bpf_insn),
    sizeof(tp_network),
    sizeof(tp_net_port),
    sizeof(tp_net_name),
    sizeof(tp_limits),
    sizeof(tp_rlimit),
    sizeof(tp_broker),
    sizeof(tp_broker_cap),
    sizeof(tp_str),
    sizeof(tp_syscall_rule),
    sizeof(tp_syscall_test),
    sizeof(uint32_t),
};

constexpr const char *kSectionName[kTypeCount] = {
    "?",           "strtab",        "meta",          "namespaces",     "mounts",      "landlock",
    "landlock_fs", "env",           "exec",          "seccomp",        "seccomp_bpf", "network",
    "net_ports",   "net_names",     "limits",        "rlimits",        "broker",      "broker_caps",
    "sources",     "syscall_rules", "syscall_tests", "syscall_values",
};

bool is_singleton(uint32_t type)
{
    return type == TP_SEC_META || type == TP_SEC_NAMESPACES || type == TP_SEC_LANDLOCK || type == TP_SEC_EXEC ||
        type == TP_SEC_SECCOMP || type == TP_SEC_NETWORK || type == TP_SEC_LIMITS || type == TP_SEC_BROKER;
}

int check_header(const Ctx &c, const uint8_t *buf, uint32_t len)
{
    if (((uintptr_t)buf & 7u) != 0)
        return fail(c, "plan buffer is not 8-byte aligned");
    if (len < sizeof(tp_header))
        return fail(c, "plan truncated: %u of at least %u bytes", len, (unsigned)sizeof(tp_header));
    const tp_header *h = (const tp_header *)buf;
    if (memcmp(h->magic, TP_MAGIC, sizeof h->magic) != 0)
        return fail(c, "not a TartarOS plan (bad magic)");
    if (h->format_version != TP_FORMAT_VERSION)
        return fail(c, "plan format version %u, this reader supports only %u", h->format_version, TP_FORMAT_VERSION);
    if (h->header_size != sizeof(tp_header))
        return fail(c, "header size %u, expected %u", h->header_size, (unsigned)sizeof(tp_header));
    if (h->total_size > TP_MAX_PLAN_SIZE)
        return fail(c, "plan size %u exceeds the limit of %u bytes", h->total_size, TP_MAX_PLAN_SIZE);
    if (len > TP_MAX_PLAN_SIZE)
        return fail(c, "plan size %u exceeds the limit of %u bytes", len, TP_MAX_PLAN_SIZE);
    if (h->total_size > len)
        return fail(c, "plan truncated: %u of %u bytes", len, h->total_size);
    if (h->total_size < len)
        return fail(c, "plan has %u trailing bytes after its %u bytes", len - h->total_size, h->total_size);
    if (tp_checksum(buf, len, offsetof(tp_header, checksum)) != h->checksum)
        return fail(c, "checksum mismatch");
    if (h->arch != TP_ARCH_X86_64)
        return fail(c, "plan is for architecture 0x%x, expected x86_64", h->arch);
    if (h->reserved0 != 0 || h->reserved1 != 0)
        return fail(c, "header reserved fields are not zero");
    if ((h->required_features & ~kKnownFeatures) != 0)
        return fail(c, "unknown required features 0x%llx",
                    (unsigned long long)(h->required_features & ~kKnownFeatures));
    if (h->section_table_off != h->header_size)
        return fail(c, "section table at offset %u, expected %u", h->section_table_off, h->header_size);
    if (h->section_count > TP_MAX_SECTIONS)
        return fail(c, "%u sections exceed the limit of %u", h->section_count, TP_MAX_SECTIONS);
    uint64_t table_end = (uint64_t)h->section_table_off + (uint64_t)h->section_count * sizeof(tp_section);
    if (table_end > len)
        return fail(c, "section table (%u entries) runs past the end of the plan", h->section_count);
    return 0;
}

/* One section table entry on its own: type, flags, placement, record geometry. */
int check_section_entry(const Ctx &c, const tp_section &s, uint32_t index, uint64_t table_end, uint32_t len)
{
    if (s.type == 0 || s.type >= kTypeCount)
        return fail(c, "section %u: unknown type %u", index, s.type);
    const char *name = kSectionName[s.type];
    if ((s.flags & ~kKnownSectionFlags) != 0)
        return fail(c, "section %u (%s): unknown flags 0x%x", index, name, s.flags);
    if ((s.offset & 7u) != 0)
        return fail(c, "section %u (%s): offset %u is not 8-aligned", index, name, s.offset);
    if (s.offset < table_end)
        return fail(c, "section %u (%s): offset %u overlaps the header or section table", index, name, s.offset);
    if (s.record_size != kRecordSize[s.type])
        return fail(c, "section %u (%s): record size %u, expected %u", index, name, s.record_size, kRecordSize[s.type]);
    if (s.count > TP_MAX_RECORDS && s.type != TP_SEC_STRTAB)
        return fail(c, "section %u (%s): %u records exceed the limit of %u", index, name, s.count, TP_MAX_RECORDS);
    if ((uint64_t)s.count * s.record_size != s.size)
        return fail(c, "section %u (%s): size %u is not %u records of %u bytes", index, name, s.size, s.count,
                    s.record_size);
    if (is_singleton(s.type) && s.count != 1)
        return fail(c, "section %u (%s): %u records, expected exactly 1", index, name, s.count);
    if ((uint64_t)s.offset + s.size > len)
        return fail(c, "section %u (%s): bytes %u..%llu lie outside the %u-byte plan", index, name, s.offset,
                    (unsigned long long)((uint64_t)s.offset + s.size), len);
    return 0;
}

bool ranges_overlap(const tp_section &a, const tp_section &b)
{
    if (a.size == 0 || b.size == 0)
        return false;
    return (uint64_t)a.offset < (uint64_t)b.offset + b.size && (uint64_t)b.offset < (uint64_t)a.offset + a.size;
}

/* Points the plan's fields at a checked section. */
void attach_section(tp_plan *p, const tp_section &s)
{
    const uint8_t *data = p->base + s.offset;
    switch (s.type) {
    case TP_SEC_STRTAB:
        p->strtab = (const char *)data;
        p->strtab_size = s.size;
        break;
    case TP_SEC_META: p->meta = (const tp_meta *)data; break;
    case TP_SEC_NAMESPACES:
        p->ns = (const tp_namespaces *)data;
        p->ns_section_flags = s.flags;
        break;
    case TP_SEC_MOUNTS:
        p->mounts = (const tp_mount *)data;
        p->mount_count = s.count;
        p->mounts_section_flags = s.flags;
        break;
    case TP_SEC_LANDLOCK:
        p->landlock = (const tp_landlock_ruleset *)data;
        p->landlock_section_flags = s.flags;
        break;
    case TP_SEC_LANDLOCK_FS:
        p->landlock_paths = (const tp_landlock_path *)data;
        p->landlock_path_count = s.count;
        break;
    case TP_SEC_ENV:
        p->env = (const tp_env *)data;
        p->env_count = s.count;
        break;
    case TP_SEC_EXEC: p->exec = (const tp_exec *)data; break;
    case TP_SEC_SECCOMP:
        p->seccomp = (const tp_seccomp *)data;
        p->seccomp_section_flags = s.flags;
        break;
    case TP_SEC_SECCOMP_BPF:
        p->seccomp_prog = (const tp_bpf_insn *)data;
        p->seccomp_insn_count = s.count;
        break;
    case TP_SEC_NETWORK: p->network = (const tp_network *)data; break;
    case TP_SEC_NET_PORTS:
        p->net_ports = (const tp_net_port *)data;
        p->net_port_count = s.count;
        break;
    case TP_SEC_NET_NAMES:
        p->net_names = (const tp_net_name *)data;
        p->net_name_count = s.count;
        break;
    case TP_SEC_LIMITS:
        p->limits = (const tp_limits *)data;
        p->limits_section_flags = s.flags;
        break;
    case TP_SEC_RLIMITS:
        p->rlimits = (const tp_rlimit *)data;
        p->rlimit_count = s.count;
        break;
    case TP_SEC_BROKER:
        p->broker = (const tp_broker *)data;
        p->broker_section_flags = s.flags;
        break;
    case TP_SEC_BROKER_CAPS:
        p->broker_caps = (const tp_broker_cap *)data;
        p->broker_cap_count = s.count;
        break;
    case TP_SEC_SOURCES:
        p->sources = (const tp_str *)data;
        p->source_count = s.count;
        break;
    case TP_SEC_SYSCALL_RULES:
        p->syscall_rules = (const tp_syscall_rule *)data;
        p->syscall_rule_count = s.count;
        break;
    case TP_SEC_SYSCALL_TESTS:
        p->syscall_tests = (const tp_syscall_test *)data;
        p->syscall_test_count = s.count;
        break;
    case TP_SEC_SYSCALL_VALUES:
        p->syscall_values = (const uint32_t *)data;
        p->syscall_value_count = s.count;
        break;
    default: break;
    }
}

int check_sections(const Ctx &c, uint32_t len)
{
    tp_plan *p = c.plan;
    const tp_header *h = p->header;
    const uint8_t *table = p->base + h->section_table_off;
    uint64_t table_end = (uint64_t)h->section_table_off + (uint64_t)h->section_count * sizeof(tp_section);
    bool seen[kTypeCount] = {};
    for (uint32_t i = 0; i < h->section_count; i++) {
        tp_section s;
        memcpy(&s, table + (size_t)i * sizeof(tp_section), sizeof s);
        if (check_section_entry(c, s, i, table_end, len) != 0)
            return -1;
        if (seen[s.type])
            return fail(c, "section %u (%s): type appears more than once", i, kSectionName[s.type]);
        seen[s.type] = true;
        for (uint32_t j = 0; j < i; j++) {
            tp_section other;
            memcpy(&other, table + (size_t)j * sizeof(tp_section), sizeof other);
            if (ranges_overlap(s, other))
                return fail(c, "section %u (%s) overlaps section %u (%s)", i, kSectionName[s.type], j,
                            kSectionName[other.type]);
        }
        attach_section(p, s);
    }
    if (!seen[TP_SEC_STRTAB])
        return fail(c, "plan has no string table");
    if (seen[TP_SEC_LANDLOCK_FS] && !seen[TP_SEC_LANDLOCK])
        return fail(c, "plan has Landlock rules but no Landlock ruleset");
    if ((h->required_features & TP_FEAT_SECCOMP) && !seen[TP_SEC_SECCOMP])
        return fail(c, "the header requires seccomp, but the plan has no seccomp filter");
    if (seen[TP_SEC_SECCOMP] != seen[TP_SEC_SECCOMP_BPF])
        return fail(c, "plan has a seccomp profile without its program, or a program without its profile");
    if ((seen[TP_SEC_NET_PORTS] || seen[TP_SEC_NET_NAMES]) && !seen[TP_SEC_NETWORK])
        return fail(c, "plan has network ports or names but no network section");
    if (seen[TP_SEC_BROKER_CAPS] && !seen[TP_SEC_BROKER])
        return fail(c, "plan has broker capabilities but no broker section");
    if (seen[TP_SEC_SOURCES] && !seen[TP_SEC_META])
        return fail(c, "plan has included files but no meta section naming the policy file");
    if ((seen[TP_SEC_SYSCALL_RULES] && !seen[TP_SEC_SECCOMP]) ||
        (seen[TP_SEC_SYSCALL_TESTS] && !seen[TP_SEC_SYSCALL_RULES]) ||
        (seen[TP_SEC_SYSCALL_VALUES] && !seen[TP_SEC_SYSCALL_TESTS]))
        return fail(c, "plan has syscall rules without a seccomp filter, tests without rules or values without tests");
    return 0;
}

int check_meta(const Ctx &c, const tp_meta &m)
{
    if (check_str(c, m.policy_path, "meta", 0, "policy_path") != 0 ||
        check_str(c, m.compiler, "meta", 0, "compiler") != 0)
        return -1;
    if (m.reserved != 0)
        return fail(c, "meta: reserved field is not zero");
    return 0;
}

int check_namespaces(const Ctx &c, const tp_namespaces &ns)
{
    if ((ns.flags & ~kKnownNamespaces) != 0)
        return fail(c, "namespaces: unknown flags 0x%x", ns.flags & ~kKnownNamespaces);
    if ((ns.required & ~ns.flags) != 0)
        return fail(c, "namespaces: required 0x%x names namespaces that are not created", ns.required);
    return check_str(c, ns.hostname, "namespaces", 0, "hostname");
}

int check_mount(const Ctx &c, const tp_mount &m, uint32_t i)
{
    if (m.op < TP_MNT_ROOT_READONLY || m.op > TP_MNT_TMPFS)
        return fail(c, "mount %u: unknown operation %u", i, m.op);
    if ((m.flags & ~kKnownMountFlags) != 0)
        return fail(c, "mount %u: unknown flags 0x%x", i, m.flags & ~kKnownMountFlags);
    if (check_path(c, m.path, "mount", i, "path") != 0 || check_str(c, m.source, "mount", i, "source") != 0 ||
        check_str(c, m.anchor, "mount", i, "anchor") != 0)
        return -1;
    if (m.op == TP_MNT_BIND && check_path(c, m.source, "mount", i, "source") != 0)
        return -1;
    if (m.op == TP_MNT_SYMLINK && m.source.len == 0)
        return fail(c, "mount %u: symlink has no target", i);
    if ((m.flags & (TP_MNTF_PLACEHOLDER | TP_MNTF_GIT | TP_MNTF_LINK_TARGET)) && m.op != TP_MNT_WRITE_DENY)
        return fail(c, "mount %u: placeholder, git or link-target flag on a step that is not a write deny", i);
    if ((m.flags & TP_MNTF_PLACEHOLDER) && !(m.flags & (TP_MNTF_MATERIALIZE_DIR | TP_MNTF_MATERIALIZE_FILE)))
        return fail(c, "mount %u: a placeholder that is neither a directory nor a file", i);
    if ((m.flags & TP_MNTF_LINK_TARGET) && check_path(c, m.source, "mount", i, "source") != 0)
        return -1;
    if (m.anchor.len != 0 && check_path(c, m.anchor, "mount", i, "anchor") != 0)
        return -1;
    return 0;
}

int check_landlock(const Ctx &c, const tp_landlock_ruleset &rs)
{
    if ((rs.handled_access_fs & ~TP_LL_FS_ALL_ABI7) != 0)
        return fail(c, "landlock: unknown filesystem rights 0x%llx",
                    (unsigned long long)(rs.handled_access_fs & ~TP_LL_FS_ALL_ABI7));
    if ((rs.handled_access_net & ~kKnownLandlockNet) != 0)
        return fail(c, "landlock: unknown network rights 0x%llx", (unsigned long long)rs.handled_access_net);
    if ((rs.scoped & ~kKnownLandlockScopes) != 0)
        return fail(c, "landlock: unknown scopes 0x%llx", (unsigned long long)rs.scoped);
    if ((rs.flags & ~(uint32_t)TP_MNTF_REQUIRED) != 0)
        return fail(c, "landlock: unknown flags 0x%x", rs.flags);
    return 0;
}

int check_landlock_path(const Ctx &c, const tp_landlock_path &r, uint32_t i)
{
    if (r.kind != TP_LL_PATH && r.kind != TP_LL_EXPAND)
        return fail(c, "landlock rule %u: unknown kind %u", i, r.kind);
    if ((r.flags & ~(uint32_t)TP_MNTF_OPTIONAL) != 0)
        return fail(c, "landlock rule %u: unknown flags 0x%x", i, r.flags);
    if ((r.access & ~c.plan->landlock->handled_access_fs) != 0)
        return fail(c, "landlock rule %u: rights 0x%llx are not handled by the ruleset", i,
                    (unsigned long long)(r.access & ~c.plan->landlock->handled_access_fs));
    if (check_path(c, r.path, "landlock rule", i, "path") != 0 ||
        check_str(c, r.except, "landlock rule", i, "except") != 0)
        return -1;
    if (r.kind == TP_LL_PATH && r.except.len != 0)
        return fail(c, "landlock rule %u: an except list needs kind EXPAND", i);
    return 0;
}

int check_env(const Ctx &c, const tp_env &e, uint32_t i)
{
    if (e.op != TP_ENV_PASS && e.op != TP_ENV_SET)
        return fail(c, "env %u: unknown operation %u", i, e.op);
    if (e.reserved != 0)
        return fail(c, "env %u: reserved field is not zero", i);
    if (check_str(c, e.name, "env", i, "name") != 0 || check_str(c, e.value, "env", i, "value") != 0)
        return -1;
    const char *name = c.plan->strtab + e.name.off;
    if (e.name.len == 0 || memchr(name, '=', e.name.len) != nullptr)
        return fail(c, "env %u: invalid variable name \"%s\"", i, name);
    if (e.op == TP_ENV_PASS && e.value.len != 0)
        return fail(c, "env %u: a passed variable has no value", i);
    return 0;
}

int check_exec(const Ctx &c, const tp_exec &e)
{
    if ((e.flags & ~kKnownExecFlags) != 0)
        return fail(c, "exec: unknown flags 0x%x", e.flags & ~kKnownExecFlags);
    if (e.reserved != 0)
        return fail(c, "exec: reserved field is not zero");
    return 0;
}

/* The program is checked here, at load, not only by the compiler: the plan is untrusted input. */
int check_seccomp(const Ctx &c, const tp_seccomp &sc, const tp_bpf_insn *prog, uint32_t n)
{
    if ((sc.profile & ~kKnownSeccompProfile) != 0)
        return fail(c, "seccomp: unknown profile flags 0x%x", sc.profile & ~kKnownSeccompProfile);
    char why[160];
    if (tp_bpf_check(prog, n, why, sizeof why) != 0)
        return fail(c, "seccomp program refused: %s", why);
    return 0;
}

uint32_t count_ports(const tp_plan *p, uint16_t kind)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->net_port_count; i++)
        n += p->net_ports[i].kind == kind;
    return n;
}

int check_network(const Ctx &c, const tp_network &n)
{
    const tp_plan *p = c.plan;
    if (n.modes == 0 || (n.modes & ~kKnownNetModes) != 0)
        return fail(c, "network: modes 0x%x are not a non-empty set of known modes", n.modes);
    if (n.reserved != 0)
        return fail(c, "network: reserved field is not zero");
    if (p->ns == nullptr || !(p->ns->flags & TP_NS_NET))
        return fail(c, "network: relays need the private network namespace the plan does not create");
    if (((n.modes & TP_NET_PROXY) != 0) != (n.proxy_port != 0))
        return fail(c, "network: a proxy port goes with the proxy mode and only with it");
    if (((n.modes & TP_NET_PORTS) != 0) != (count_ports(p, TP_PORT_LOCAL) != 0) ||
        ((n.modes & TP_NET_EXPOSE) != 0) != (count_ports(p, TP_PORT_EXPOSE) != 0))
        return fail(c, "network: the modes do not match the ports listed");
    if (p->net_port_count > kMaxNetPorts || p->net_name_count > kMaxNetNames)
        return fail(c, "network: more than %u ports or %u names", kMaxNetPorts, kMaxNetNames);
    if (((n.modes & TP_NET_BROKER) != 0) != (p->broker != nullptr))
        return fail(c, "network: the broker mode goes with the broker section and only with it");
    uint32_t listeners = count_ports(p, TP_PORT_LOCAL) + ((n.modes & TP_NET_PROXY) != 0) + (p->broker != nullptr);
    if (listeners > TNC_MAX_LISTENERS)
        return fail(c, "network: more than %u listeners inside the sandbox", TNC_MAX_LISTENERS);
    return 0;
}

int check_net_port(const Ctx &c, const tp_net_port &r, uint32_t i)
{
    const tp_plan *p = c.plan;
    if (r.kind < TP_PORT_LOCAL || r.kind > TP_PORT_DESTINATION || r.reserved != 0 || r.port == 0)
        return fail(c, "network port %u: unknown kind %u, reserved bits or port 0", i, r.kind);
    if (r.kind == TP_PORT_DESTINATION && !(p->network->modes & TP_NET_PROXY))
        return fail(c, "network port %u: a destination port without the proxy", i);
    if (r.kind != TP_PORT_DESTINATION && r.port == p->network->proxy_port)
        return fail(c, "network port %u: port %u is the proxy's", i, r.port);
    if (r.kind != TP_PORT_DESTINATION && p->broker != nullptr && r.port == p->broker->port)
        return fail(c, "network port %u: port %u is the broker's", i, r.port);
    for (uint32_t j = 0; j < i; j++) {
        const tp_net_port &o = p->net_ports[j];
        bool relayed_both = r.kind != TP_PORT_DESTINATION && o.kind != TP_PORT_DESTINATION;
        if (o.port == r.port && (o.kind == r.kind || relayed_both))
            return fail(c, "network port %u: port %u is listed twice", i, r.port);
    }
    return 0;
}

int check_net_name(const Ctx &c, const tp_net_name &r, uint32_t i)
{
    if (r.kind < TP_NAME_ALLOW || r.kind > TP_NAME_BROKER_HOST || r.reserved != 0)
        return fail(c, "network name %u: unknown kind %u or reserved bits", i, r.kind);
    uint32_t needs = r.kind == TP_NAME_BROKER_HOST ? TP_NET_BROKER : TP_NET_PROXY;
    if (!(c.plan->network->modes & needs))
        return fail(c, "network name %u: a name without the %s it belongs to", i,
                    needs == TP_NET_BROKER ? "broker" : "proxy");
    if (check_str(c, r.name, "network name", i, "name") != 0 ||
        check_str(c, r.address, "network name", i, "address") != 0)
        return -1;
    const char *strtab = c.plan->strtab;
    const char *name = strtab + r.name.off, *address = strtab + r.address.off;
    if (r.kind == TP_NAME_PIN ? !thr::name(name, r.name.len) : !thr::pattern(name, r.name.len))
        return fail(c, "network name %u: \"%s\" is not a normalised host name", i, name);
    if ((r.kind == TP_NAME_PIN) != (r.address.len != 0) ||
        (r.address.len != 0 && !thr::ipv4_literal(address, r.address.len) &&
         !thr::ipv6_literal(address, r.address.len)))
        return fail(c, "network name %u: an address goes with a pin, as an IP literal", i);
    return 0;
}

int check_net_records(const Ctx &c)
{
    const tp_plan *p = c.plan;
    if (p->network == nullptr)
        return 0;
    if (check_network(c, *p->network) != 0)
        return -1;
    for (uint32_t i = 0; i < p->net_port_count; i++)
        if (check_net_port(c, p->net_ports[i], i) != 0)
            return -1;
    uint32_t allows = 0, broker_hosts = 0;
    for (uint32_t i = 0; i < p->net_name_count; i++) {
        if (check_net_name(c, p->net_names[i], i) != 0)
            return -1;
        allows += p->net_names[i].kind == TP_NAME_ALLOW;
        broker_hosts += p->net_names[i].kind == TP_NAME_BROKER_HOST;
    }
    if ((p->network->modes & TP_NET_PROXY) && allows == 0)
        return fail(c, "network: the proxy mode with no allowed name");
    if ((p->network->modes & TP_NET_BROKER) && broker_hosts == 0)
        return fail(c, "network: the broker mode with no allowed host");
    return 0;
}

int check_broker(const Ctx &c, const tp_broker &b)
{
    const tp_plan *p = c.plan;
    if (p->network == nullptr || !(p->network->modes & TP_NET_BROKER))
        return fail(c, "broker: the section without the network's broker mode");
    if (b.port == 0 || b.port == p->network->proxy_port || (b.flags & ~TP_BROKER_ALLOW_INTERNAL) != 0 ||
        b.reserved != 0)
        return fail(c, "broker: port %u is 0 or the proxy's, or unknown flags or reserved bits", b.port);
    if (check_str(c, b.auth_header, "broker", 0, "auth_header") != 0 ||
        check_str(c, b.token_env, "broker", 0, "token_env") != 0 ||
        check_str(c, b.ca_file, "broker", 0, "ca_file") != 0)
        return -1;
    const char *strtab = p->strtab;
    if (!tbr::header_name(strtab + b.auth_header.off, b.auth_header.len))
        return fail(c, "broker: auth_header \"%s\" is not an HTTP field name the broker may read",
                    strtab + b.auth_header.off);
    if (b.token_env.len != 0 && !tbr::env_name(strtab + b.token_env.off, b.token_env.len))
        return fail(c, "broker: token_env \"%s\" is not an environment variable name", strtab + b.token_env.off);
    if (b.ca_file.len != 0 && check_path(c, b.ca_file, "broker", 0, "ca_file") != 0)
        return -1;
    if (p->broker_cap_count == 0 || p->broker_cap_count > TP_MAX_BROKER_CAPS)
        return fail(c, "broker: %u capabilities, not 1..%u", p->broker_cap_count, TP_MAX_BROKER_CAPS);
    return 0;
}

int check_broker_cap(const Ctx &c, const tp_broker_cap &r, uint32_t i)
{
    const tp_str *strs[] = {&r.name, &r.host, &r.header, &r.value_env, &r.value_format, &r.methods, &r.path_prefixes};
    for (const tp_str *s : strs)
        if (check_str(c, *s, "broker capability", i, "string") != 0)
            return -1;
    if (r.port == 0 || r.reserved0 != 0 || r.reserved1 != 0)
        return fail(c, "broker capability %u: port 0 or reserved bits", i);
    const char *t = c.plan->strtab;
    if (!tbr::capability_name(t + r.name.off, r.name.len))
        return fail(c, "broker capability %u: name \"%s\" is not 1..64 of [A-Za-z0-9._-]", i, t + r.name.off);
    if (!thr::host(t + r.host.off, r.host.len))
        return fail(c, "broker capability %u: host \"%s\" is not a normalised host name", i, t + r.host.off);
    if (!tbr::header_name(t + r.header.off, r.header.len) || !tbr::env_name(t + r.value_env.off, r.value_env.len) ||
        !tbr::value_format(t + r.value_format.off, r.value_format.len))
        return fail(c, "broker capability %u: bad header name, value_env name or value_format", i);
    const tp_str auth = c.plan->broker->auth_header;
    if (tbr::same_header(t + r.header.off, r.header.len, t + auth.off, auth.len))
        return fail(c, "broker capability %u: its header is the broker's auth_header", i);
    if ((r.methods.len != 0 && !tbr::spaced_list(t + r.methods.off, r.methods.len, tbr::method_item)) ||
        (r.path_prefixes.len != 0 && !tbr::spaced_list(t + r.path_prefixes.off, r.path_prefixes.len, tbr::prefix_item)))
        return fail(c, "broker capability %u: methods or path prefixes are not single-spaced lists", i);
    for (uint32_t j = 0; j < i; j++) {
        const tp_broker_cap &o = c.plan->broker_caps[j];
        if (o.name.len == r.name.len && memcmp(t + o.name.off, t + r.name.off, r.name.len) == 0)
            return fail(c, "broker capability %u: name \"%s\" is listed twice", i, t + r.name.off);
    }
    return 0;
}

/* The credentials directory: one TMPFS step at TP_CREDENTIALS_DIR, exactly when a broker. */
int check_credentials_mount(const Ctx &c)
{
    const tp_plan *p = c.plan;
    uint32_t found = 0;
    for (uint32_t i = 0; i < p->mount_count; i++) {
        const tp_mount &m = p->mounts[i];
        if (!(m.flags & TP_MNTF_CREDENTIALS))
            continue;
        if (m.op != TP_MNT_TMPFS || m.path.len != sizeof TP_CREDENTIALS_DIR - 1 ||
            memcmp(p->strtab + m.path.off, TP_CREDENTIALS_DIR, m.path.len) != 0)
            return fail(c, "mount %u: the credentials flag is only for a tmpfs at %s", i, TP_CREDENTIALS_DIR);
        found++;
    }
    if (found != (p->broker != nullptr ? 1u : 0u))
        return fail(c, "mounts: %u credentials directories, and a broker needs exactly one", found);
    return 0;
}

int check_broker_records(const Ctx &c)
{
    const tp_plan *p = c.plan;
    if (check_credentials_mount(c) != 0)
        return -1;
    if (p->broker == nullptr)
        return 0;
    if (check_broker(c, *p->broker) != 0)
        return -1;
    for (uint32_t i = 0; i < p->broker_cap_count; i++)
        if (check_broker_cap(c, p->broker_caps[i], i) != 0)
            return -1;
    return 0;
}

bool in_range(uint64_t v, uint64_t lo, uint64_t hi)
{
    return v == 0 || (v >= lo && v <= hi);
}

int check_limits(const Ctx &c, const tp_limits &l)
{
    if (l.max_processes == 0 && l.memory_max == 0 && l.cpu_quota_us == 0 && l.timeout_ms == 0)
        return fail(c, "limits: the section sets no limit");
    if (!in_range(l.max_processes, 1, TP_MAX_PROCESSES))
        return fail(c, "limits: max_processes %llu is above %llu", (unsigned long long)l.max_processes,
                    (unsigned long long)TP_MAX_PROCESSES);
    if (!in_range(l.memory_max, TP_MIN_MEMORY, TP_MAX_MEMORY))
        return fail(c, "limits: memory_max %llu is outside [%llu, %llu]", (unsigned long long)l.memory_max,
                    (unsigned long long)TP_MIN_MEMORY, (unsigned long long)TP_MAX_MEMORY);
    if (!in_range(l.cpu_quota_us, 1000, TP_MAX_CPU_QUOTA) || l.cpu_period_us != (l.cpu_quota_us ? TP_CPU_PERIOD_US : 0))
        return fail(c, "limits: cpu quota %u us per %u us is not a quota of at least 1000 us per %u us", l.cpu_quota_us,
                    l.cpu_period_us, TP_CPU_PERIOD_US);
    if (l.timeout_ms > TP_MAX_TIMEOUT_MS || l.grace_ms > TP_MAX_GRACE_MS || (l.timeout_ms == 0) != (l.grace_ms == 0))
        return fail(c, "limits: timeout %llu ms with grace %llu ms (a grace goes with a timeout, within limits)",
                    (unsigned long long)l.timeout_ms, (unsigned long long)l.grace_ms);
    return 0;
}

int check_rlimit(const Ctx &c, const tp_rlimit &r, uint32_t i)
{
    if (r.resource >= 32 || !((TP_RLIMIT_KNOWN >> r.resource) & 1u) || r.reserved != 0)
        return fail(c, "rlimit %u: unknown resource %u or reserved bits", i, r.resource);
    if (i > 0 && c.plan->rlimits[i - 1].resource >= r.resource)
        return fail(c, "rlimit %u: resources not in ascending order, or listed twice", i);
    if (r.soft > r.hard)
        return fail(c, "rlimit %u: soft limit above the hard limit", i);
    return 0;
}

int check_records(const Ctx &c)
{
    const tp_plan *p = c.plan;
    if (p->meta && check_meta(c, *p->meta) != 0)
        return -1;
    if (p->ns && check_namespaces(c, *p->ns) != 0)
        return -1;
    for (uint32_t i = 0; i < p->mount_count; i++)
        if (check_mount(c, p->mounts[i], i) != 0)
            return -1;
    if (p->landlock && check_landlock(c, *p->landlock) != 0)
        return -1;
    for (uint32_t i = 0; i < p->landlock_path_count; i++)
        if (check_landlock_path(c, p->landlock_paths[i], i) != 0)
            return -1;
    for (uint32_t i = 0; i < p->env_count; i++)
        if (check_env(c, p->env[i], i) != 0)
            return -1;
    if (p->exec && check_exec(c, *p->exec) != 0)
        return -1;
    if (p->seccomp && check_seccomp(c, *p->seccomp, p->seccomp_prog, p->seccomp_insn_count) != 0)
        return -1;
    if (p->limits && check_limits(c, *p->limits) != 0)
        return -1;
    for (uint32_t i = 0; i < p->rlimit_count; i++)
        if (check_rlimit(c, p->rlimits[i], i) != 0)
            return -1;
    if (check_net_records(c) != 0 || check_broker_records(c) != 0)
        return -1;
    if (check_sources(c) != 0 || check_origins(c) != 0)
        return -1;
    return check_syscall_rules(c);
}

}  // namespace

extern "C" {

uint64_t tp_checksum(const uint8_t *buf, uint32_t len, uint32_t skip_off)
{
    uint64_t hash = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < len; i++) {
        uint8_t byte = (i >= skip_off && i - skip_off < 8) ? 0 : buf[i];
        hash ^= byte;
        hash *= 0x100000001b3ull;
    }
    return hash;
}

int tp_plan_open(const uint8_t *buf, uint32_t len, struct tp_plan *out, char *err, uint32_t errlen)
{
    memset(out, 0, sizeof *out);
    if (errlen > 0)
        err[0] = '\0';
    Ctx c = {out, err, errlen};
    if (buf == nullptr)
        return fail(c, "no plan");
    if (check_header(c, buf, len) != 0)
        return -1;
    out->base = buf;
    out->size = len;
    out->header = (const tp_header *)buf;
    if (check_sections(c, len) != 0 || check_records(c) != 0) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    return 0;
}

const char *tp_plan_str(const struct tp_plan *plan, struct tp_str s)
{
    return plan->strtab + s.off;
}

}  // extern "C"
