/* enforcer/deny_events.cpp — see deny_events.h. Runs in the mediator (raw calls only, its
 * own static buffers), except deny_events_unavailable_reason, which preflight runs, and
 * deny_events_summary, which the supervisor runs once the mediator is gone. */
#include "deny_events.h"

#include <errno.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "bpf_interp.h"
#include "effect_log.h"
#include "plan_reader.h"
#include "raw.h"
#include "syscall_names.h"
#include "text_append.h"

namespace {

constexpr uint32_t kPerSyscall = 16; /* events per system call number */
constexpr uint32_t kTotal = 1000;    /* events in all */
constexpr uint32_t kNumbers = 512;   /* counted by number; higher ones share the last slot */

uint32_t g_counts[kNumbers];
uint64_t g_denied, g_recorded;
char g_line[2048];

/* The names of the errnos a compiled profile answers with, and a few more. */
const char *errno_name(int err)
{
    switch (err) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EINVAL: return "EINVAL";
    case ENOTTY: return "ENOTTY";
    case ENOSYS: return "ENOSYS";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    default: return nullptr;
    }
}

void hex_item(jsonl::line &l, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    char text[19] = {'0', 'x'};
    int n = 0;
    for (uint64_t rest = v; n == 0 || rest != 0; rest >>= 4)
        n++;
    for (int i = 0; i < n; i++)
        text[2 + n - 1 - i] = digits[(v >> (4 * i)) & 0xf];
    jsonl::item_str(l, text, (size_t)(2 + n));
}

void syscall_field(jsonl::line &l, uint32_t nr)
{
    const char *name = tp_syscall_name(nr);
    if (name != nullptr)
        jsonl::field_str(l, "syscall", name);
    else
        jsonl::field_null(l, "syscall");
    jsonl::field_u64(l, "nr", nr);
}

/* Counts one denial of system call `nr`; whether it may still be recorded. */
bool count(uint32_t nr)
{
    const uint32_t slot = nr < kNumbers ? nr : kNumbers - 1;
    g_denied++;
    return ++g_counts[slot] <= kPerSyscall && g_recorded < kTotal;
}

/* An inet address's host as text, "A.B.C.D" or "X:X:X:X:X:X:X:X" (`text` holds 40 bytes),
 * and its port; 0 for another family or a short address. */
size_t inet_host(char *text, const unsigned char *addr, uint32_t len, unsigned *port)
{
    const sa_family_t family = len >= sizeof(sa_family_t) ? *(const sa_family_t *)addr : AF_UNSPEC;
    size_t at = 0;
    if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
        const unsigned char *ip = (const unsigned char *)&((const struct sockaddr_in *)addr)->sin_addr;
        for (int i = 0; i < 4; i++) {
            if (i > 0)
                text[at++] = '.';
            append_number(text, &at, ip[i]);
        }
    } else if (family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
        static const char digits[] = "0123456789abcdef";
        const unsigned char *ip = (const unsigned char *)&((const struct sockaddr_in6 *)addr)->sin6_addr;
        for (int i = 0; i < 16; i++) {
            text[at++] = digits[ip[i] >> 4];
            text[at++] = digits[ip[i] & 15];
            if (i % 2 == 1 && i < 15)
                text[at++] = ':';
        }
    } else {
        return 0;
    }
    *port = (unsigned)((addr[2] << 8) | addr[3]);
    return at;
}

/* The address as text: a path, "@name" for an abstract unix socket, "A.B.C.D:PORT",
 * "[X:X:X:X:X:X:X:X]:PORT"; nothing for another family or a short address. */
void address_field(jsonl::line &l, const unsigned char *addr, uint32_t len)
{
    char text[sizeof(struct sockaddr_un) + 8];
    size_t at = 0;
    const sa_family_t family = len >= sizeof(sa_family_t) ? *(const sa_family_t *)addr : AF_UNSPEC;
    const size_t path_at = offsetof(struct sockaddr_un, sun_path);
    unsigned port = 0;
    if (family == AF_UNIX && len > path_at) {
        const char *path = (const char *)addr + path_at;
        size_t n = len - path_at;
        if (path[0] == '\0') {
            text[at++] = '@';
            for (size_t i = 1; i < n; i++)
                text[at++] = path[i];
        } else {
            for (size_t i = 0; i < n && path[i] != '\0'; i++)
                text[at++] = path[i];
        }
    } else if (family == AF_INET || family == AF_INET6) {
        char host[40];
        const size_t n = inet_host(host, addr, len, &port);
        if (n == 0)
            return;
        if (family == AF_INET6)
            text[at++] = '[';
        for (size_t i = 0; i < n; i++)
            text[at++] = host[i];
        if (family == AF_INET6)
            text[at++] = ']';
        text[at++] = ':';
        append_number(text, &at, port);
    } else {
        return;
    }
    jsonl::field_str(l, "address", text, at);
}

/* One denied line; with `reason`, a refusal of connect mediation's (and the address). */
void record(int listener, const kuapi::seccomp_notif &n, int err, const char *reason, const unsigned char *addr,
            uint32_t len)
{
    jsonl::line l;
    effect_log_begin(l, g_line, sizeof g_line, "mediator", "denied");
    jsonl::field_u64(l, "pid", n.pid);
    syscall_field(l, (uint32_t)n.data.nr);
    jsonl::open(l, "args", '[');
    for (uint64_t arg : n.data.args)
        hex_item(l, arg);
    jsonl::close(l);
    jsonl::field_u64(l, "errno", (uint64_t)err);
    if (const char *name = errno_name(err))
        jsonl::field_str(l, "error", name);
    if (reason != nullptr) {
        jsonl::field_str(l, "reason", reason);
        address_field(l, addr, len);
    }
    /* The pid still names the caller only while its notification is pending. */
    if (raw_syscall6(SYS_ioctl, listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_ID_VALID, (long)&n.id, 0, 0, 0) != 0)
        return;
    effect_log_write(l);
    g_recorded++;
}

/* clone3's ENOSYS is the plan's on purpose (its flags lie in memory a filter cannot read) and
 * libc answers it by falling back on clone: no agent did anything, so it is counted in the
 * summary but not a line of its own, which a clone3-first libc would write for every thread. */
bool expected_fallback(uint32_t nr, int err)
{
    return nr == SYS_clone3 && err == ENOSYS;
}

tp_bpf_result run_plan(const tp_bpf_insn *prog, uint32_t len, uint32_t nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
    const tp_seccomp_data d = {nr, TP_ARCH_X86_64, 0, {a0, a1, a2, 0, 0, 0}};
    return tp_bpf_evaluate(prog, len, &d);
}

}  // namespace

const char *deny_events_unavailable_reason(const tp_plan *plan)
{
    if (plan->seccomp_prog == nullptr)
        return "the plan has no seccomp filter";
    if (plan->seccomp_insn_count + kListenerTailMax > TP_BPF_MAXINSNS)
        return "the plan's filter leaves no room for the mediator's rules";
    const tp_bpf_insn *prog = plan->seccomp_prog;
    const uint32_t len = plan->seccomp_insn_count;
    /* The hand-off descriptors are small numbers; a plan's profile never looks at them. */
    if (run_plan(prog, len, SYS_getpid, 0, 0, 0).ret != TP_RET_ALLOW ||
        run_plan(prog, len, SYS_prctl, PR_SET_DUMPABLE, 1, 0).ret != TP_RET_ALLOW ||
        run_plan(prog, len, SYS_write, 3, 0, 8).ret != TP_RET_ALLOW ||
        run_plan(prog, len, SYS_read, 3, 0, 1).ret != TP_RET_ALLOW ||
        run_plan(prog, len, SYS_close, 3, 0, 0).ret != TP_RET_ALLOW)
        return "the plan's filter refuses getpid, prctl, write, read or close, which hand the listener to the mediator";
    return nullptr;
}

bool deny_event_answer(const tp_bpf_insn *prog, uint32_t len, int listener, const kuapi::seccomp_notif &n, int32_t *err)
{
    tp_seccomp_data d = {(uint32_t)n.data.nr, n.data.arch, n.data.instruction_pointer, {}};
    for (int i = 0; i < 6; i++)
        d.args[i] = n.data.args[i];
    const tp_bpf_result r = tp_bpf_evaluate(prog, len, &d);
    if (r.fault == TP_BPF_FAULT_NONE && r.ret == TP_RET_ALLOW)
        return false;
    /* A kill action never reaches the mediator (the listener program returns it), and the
     * plan passed tp_bpf_check: anything but ERRNO here is refused all the same. */
    const bool errno_action = r.fault == TP_BPF_FAULT_NONE && (r.ret & TP_RET_ACTION_FULL) == TP_RET_ERRNO;
    const int e = errno_action ? (int)(r.ret & TP_RET_DATA) : EPERM;
    *err = -e;
    if (count((uint32_t)n.data.nr) && !expected_fallback((uint32_t)n.data.nr, e))
        record(listener, n, e, nullptr, nullptr, 0);
    return true;
}

void deny_event_connect(int listener, const kuapi::seccomp_notif &n, int err, const char *reason,
                        const unsigned char *addr, uint32_t len)
{
    if (count((uint32_t)n.data.nr))
        record(listener, n, err, reason, addr, len);
}

bool deny_event_no_route(long result, const unsigned char *addr, uint32_t len)
{
    const sa_family_t family = len >= sizeof(sa_family_t) ? *(const sa_family_t *)addr : AF_UNSPEC;
    return (result == -ENETUNREACH || result == -EHOSTUNREACH) && (family == AF_INET || family == AF_INET6);
}

void net_event_no_route(int listener, const kuapi::seccomp_notif &n, int err, const unsigned char *addr, uint32_t len)
{
    char host[40];
    unsigned port = 0;
    const size_t host_len = inet_host(host, addr, len, &port);
    if (host_len == 0)
        return;
    jsonl::line l;
    effect_log_begin(l, g_line, sizeof g_line, "mediator", "network");
    jsonl::field_str(l, "decision", "deny");
    jsonl::field_str(l, "route", "direct");
    jsonl::field_str(l, "host", host, host_len);
    jsonl::field_u64(l, "port", port);
    jsonl::field_u64(l, "pid", n.pid);
    jsonl::field_str(l, "reason", "no-route");
    jsonl::field_str(l, "error", err == ENETUNREACH ? "ENETUNREACH" : "EHOSTUNREACH");
    jsonl::field_str(l, "detail",
                     "a direct connection: nothing leaves the sandbox's network namespace but through the egress "
                     "proxy (http_proxy, for the names in allow_domains) or a relayed local port");
    if (raw_syscall6(SYS_ioctl, listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_ID_VALID, (long)&n.id, 0, 0, 0) != 0)
        return;
    effect_log_write(l);
}

void deny_events_summary()
{
    if (g_denied == 0)
        return;
    jsonl::line l;
    effect_log_begin(l, g_line, sizeof g_line, "supervisor", "deny_summary");
    jsonl::field_u64(l, "denied", g_denied);
    jsonl::field_u64(l, "recorded", g_recorded);
    jsonl::open(l, "counts", '{');
    char key[16];
    for (uint32_t nr = 0; nr < kNumbers; nr++) {
        if (g_counts[nr] == 0)
            continue;
        const char *name = nr + 1 < kNumbers ? tp_syscall_name(nr) : nullptr;
        if (name == nullptr) {
            size_t at = 0;
            append_text(key, &at, nr + 1 < kNumbers ? "nr_" : "nr_511_and_up");
            if (nr + 1 < kNumbers)
                append_number(key, &at, nr);
            key[at] = '\0';
            name = key;
        }
        jsonl::field_u64(l, name, g_counts[nr]);
    }
    jsonl::close(l);
    effect_log_write(l);
}
