/* enforcer/effect_log.cpp — the supervisor's side of the effect log (effect_log.h): opening the
 * file, the shared envelope and write, and the run_start, warning, limit and run_end events.
 */
#include "effect_log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "raw.h"
#include "report.h"
#include "run_limits.h"
#include "syscalls.h"

namespace {

constexpr int kMaxLosses = 64;
constexpr int kMaxWarnings = 32;
constexpr size_t kEventBytes = 8192; /* a warning, limit or run_end event */

struct loss_entry {
    const char *what;
    const char *needs;
    const char *why;
    const char *instead; /* NULL: nothing carries it */
};

/* Written by the supervisor only (effect_log.h: memory). */
struct log_state {
    bool enabled;
    int fd;
    pid_t supervisor;
    plan_identity file;
    char run_id[17];
    struct timespec start; /* CLOCK_MONOTONIC when the log was opened */
    const run_ctx *ctx;
    bool started;  /* run_start written */
    bool released; /* ... just before init was released (else the run never began) */
    bool ended;
    loss_entry losses[kMaxLosses];
    int loss_count;
    const char *warnings[kMaxWarnings];
    int warning_count;
    struct rusage usage;
    bool have_usage;
    uint64_t memory_peak;
};

log_state g_log;

bool in_supervisor()
{
    return raw_syscall2(SYS_getpid, 0, 0) == g_log.supervisor;
}

/* Raw: whether `fd` still is the log (same device and inode) in this process. */
bool still_the_log(int fd)
{
    struct stat st;
    return raw_syscall2(SYS_fstat, fd, (long)&st) == 0 && st.st_dev == g_log.file.dev && st.st_ino == g_log.file.ino;
}

void make_run_id(char out[17])
{
    static const char kHex[] = "0123456789abcdef";
    uint64_t id = 0;
    if (getrandom(&id, sizeof id, GRND_NONBLOCK) != (ssize_t)sizeof id) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        id = ((uint64_t)now.tv_sec << 20) ^ (uint64_t)now.tv_nsec ^ ((uint64_t)getpid() << 40);
    }
    for (int i = 15; i >= 0; i--, id >>= 4)
        out[i] = kHex[id & 15];
    out[16] = '\0';
}

/* The kernel's absolute, symlink-free name of the open log, or `given` made absolute. */
const char *absolute_log_path(int fd, const char *given)
{
    char link[32], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(link, path, sizeof path - 1);
    if (len > 0 && path[0] == '/')
        return arena_strndup(path, (size_t)len);
    if (given[0] == '/' || getcwd(path, sizeof path) == nullptr)
        return arena_strdup(given);
    return arena_concat3(path, "/", given);
}

uint64_t elapsed_ms()
{
    struct timespec now;
    raw_syscall2(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&now);
    int64_t ms = (int64_t)(now.tv_sec - g_log.start.tv_sec) * 1000 + (now.tv_nsec - g_log.start.tv_nsec) / 1000000;
    return ms < 0 ? 0 : (uint64_t)ms;
}

uint64_t timeval_ms(const struct timeval &tv)
{
    return (uint64_t)tv.tv_sec * 1000 + (uint64_t)tv.tv_usec / 1000;
}

/* ---- run_start ------------------------------------------------------------------------- */

size_t text_bytes(const char *s)
{
    return s ? strlen(s) * 6 + 8 : 8; /* the worst escape of each byte, quotes, comma */
}

/* Enough for every string of run_start escaped at worst, and the fixed fields. */
size_t run_start_bytes(const run_ctx *ctx, const char *cwd)
{
    size_t n = 16384 + text_bytes(cwd) + text_bytes(g_log.file.path) + text_bytes(ctx->plan_file.path);
    for (char *const *a = ctx->argv; a && *a; a++)
        n += text_bytes(*a);
    for (int i = 0; i < g_log.loss_count; i++) {
        const loss_entry &e = g_log.losses[i];
        n += text_bytes(e.what) + text_bytes(e.needs) + text_bytes(e.why) + text_bytes(e.instead) + 64;
    }
    for (int i = 0; i < g_log.warning_count; i++)
        n += text_bytes(g_log.warnings[i]);
    const tp_plan *plan = ctx->plan;
    if (plan->meta != nullptr)
        n += text_bytes(tp_plan_str(plan, plan->meta->policy_path)) +
            text_bytes(tp_plan_str(plan, plan->meta->compiler));
    return n;
}

void field_str_or_null(jsonl::line &l, const char *key, const char *value)
{
    if (value != nullptr && value[0] != '\0')
        jsonl::field_str(l, key, value);
    else
        jsonl::field_null(l, key);
}

void plan_object(jsonl::line &l, const run_ctx *ctx)
{
    static const char kHex[] = "0123456789abcdef";
    const tp_plan *plan = ctx->plan;
    char sum[19] = "0x";
    for (int i = 0; i < 16; i++)
        sum[2 + i] = kHex[(plan->header->checksum >> (60 - 4 * i)) & 15];
    sum[18] = '\0';
    jsonl::open(l, "plan", '{');
    jsonl::field_str(l, "checksum", sum);
    jsonl::field_u64(l, "size", plan->size);
    field_str_or_null(l, "file", ctx->plan_file.path);
    field_str_or_null(l, "policy", plan->meta ? tp_plan_str(plan, plan->meta->policy_path) : nullptr);
    field_str_or_null(l, "compiler", plan->meta ? tp_plan_str(plan, plan->meta->compiler) : nullptr);
    jsonl::close(l);
}

struct ns_name {
    unsigned long flag;
    const char *name;
};
constexpr ns_name kNamespaceNames[] = {
    {CLONE_NEWUSER, "user_namespace"},     {CLONE_NEWNS, "mount_namespace"}, {CLONE_NEWPID, "pid_namespace"},
    {CLONE_NEWNET, "network_namespace"},   {CLONE_NEWIPC, "ipc_namespace"},  {CLONE_NEWUTS, "uts_namespace"},
    {CLONE_NEWCGROUP, "cgroup_namespace"},
};

void installed_limits(jsonl::line &l, const run_ctx *ctx)
{
    const run_limits *rl = ctx->limits;
    if (rl != nullptr && rl->cgroup != nullptr) {
        if (rl->wants.pids_max)
            jsonl::item_str(l, "max_processes");
        if (rl->wants.memory_max)
            jsonl::item_str(l, "memory_max");
        if (rl->wants.cpu_quota_us)
            jsonl::item_str(l, "cpu_max");
        if (rl->wants.kill_switch)
            jsonl::item_str(l, "cgroup_kill_switch");
    }
    if (rl != nullptr && rl->nproc != 0 && rl->nproc_exact)
        jsonl::item_str(l, "max_processes_rlimit");
    const tp_limits *lim = ctx->plan->limits;
    if (lim != nullptr && lim->timeout_ms)
        jsonl::item_str(l, "timeout");
    if (ctx->plan->rlimit_count > 0)
        jsonl::item_str(l, "rlimits");
}

/* What is in force as the sandbox is released, by the decisions taken so far; a later loss
 * inside the sandbox (its network namespace, a mount step) is a warning event. Empty when
 * the run ended before the release. */
void installed_list(jsonl::line &l, const run_ctx *ctx)
{
    jsonl::open(l, "installed", '[');
    if (g_log.released) {
        for (const ns_name &ns : kNamespaceNames)
            if (ctx->clone_flags & ns.flag)
                jsonl::item_str(l, ns.name);
        if (ctx->mount_layer) {
            jsonl::item_str(l, "mount_tree");
            jsonl::item_str(l, "log_hidden");
        }
        if (ctx->landlock_abi > 0)
            jsonl::item_str(l, "landlock");
        if (ctx->seccomp)
            jsonl::item_str(l, "seccomp_filter");
        if (ctx->mediate_connect) {
            jsonl::item_str(l, "connect_mediation");
            jsonl::item_str(l, "exec_events");
        }
        if (ctx->deny_events)
            jsonl::item_str(l, "denied_syscall_events");
        const tp_network *net = ctx->plan->network;
        if (net != nullptr && (ctx->clone_flags & CLONE_NEWNET)) {
            if (net->modes & TP_NET_PROXY)
                jsonl::item_str(l, "egress_proxy");
            if (net->modes & TP_NET_PORTS)
                jsonl::item_str(l, "local_ports");
            if (net->modes & TP_NET_EXPOSE)
                jsonl::item_str(l, "expose_ports");
            if (ctx->broker)
                jsonl::item_str(l, "credential_broker");
        }
        installed_limits(l, ctx);
    }
    jsonl::close(l);
}

void degraded_list(jsonl::line &l)
{
    jsonl::open(l, "degraded", '[');
    for (int i = 0; i < g_log.loss_count; i++) {
        const loss_entry &e = g_log.losses[i];
        jsonl::open(l, nullptr, '{');
        jsonl::field_str(l, "guarantee", e.what);
        jsonl::field_str(l, "needs", e.needs);
        jsonl::field_str(l, "reason", e.why);
        field_str_or_null(l, "instead", e.instead);
        jsonl::close(l);
    }
    jsonl::close(l);
}

void write_run_start()
{
    const run_ctx *ctx = g_log.ctx;
    char cwd[PATH_MAX];
    const char *here = getcwd(cwd, sizeof cwd);
    size_t cap = run_start_bytes(ctx, here);
    char *buf = (char *)mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return;
    jsonl::line l;
    effect_log_begin(l, buf, cap, "supervisor", "run_start");
    jsonl::field_u64(l, "schema", 1);
    jsonl::field_u64(l, "pid", (uint64_t)g_log.supervisor);
    jsonl::field_u64(l, "uid", ctx->uid);
    jsonl::field_u64(l, "gid", ctx->gid);
    jsonl::field_bool(l, "strict", ctx->strict);
    jsonl::open(l, "argv", '[');
    for (char *const *a = ctx->argv; a && *a; a++)
        jsonl::item_str(l, *a);
    jsonl::close(l);
    field_str_or_null(l, "cwd", here);
    field_str_or_null(l, "log", g_log.file.path);
    plan_object(l, ctx);
    jsonl::field_u64(l, "landlock_abi", g_log.released ? ctx->landlock_abi : 0);
    installed_list(l, ctx);
    degraded_list(l);
    jsonl::open(l, "warnings", '[');
    for (int i = 0; i < g_log.warning_count; i++)
        jsonl::item_str(l, g_log.warnings[i]);
    jsonl::close(l);
    effect_log_write(l);
    munmap(buf, cap);
    g_log.started = true;
}

void usage_fields(jsonl::line &l)
{
    if (!g_log.have_usage) {
        jsonl::field_null(l, "max_rss_kib");
        jsonl::field_null(l, "user_cpu_ms");
        jsonl::field_null(l, "system_cpu_ms");
        return;
    }
    jsonl::field_u64(l, "max_rss_kib", (uint64_t)g_log.usage.ru_maxrss);
    jsonl::field_u64(l, "user_cpu_ms", timeval_ms(g_log.usage.ru_utime));
    jsonl::field_u64(l, "system_cpu_ms", timeval_ms(g_log.usage.ru_stime));
}

}  // namespace

void effect_log_open(run_ctx *ctx)
{
    if (ctx->log_path == nullptr)
        return;
    const char *path = ctx->log_path;
    /* No symlink anywhere on the path: a directory of it inside a writable root may have been
     * made one by an earlier run's sandbox, to have this launcher (root, maybe) create or
     * append to a file of its choosing. O_NONBLOCK: a FIFO put there must not hold the start;
     * it is refused below. */
    const int flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK;
    kuapi::open_how how = {(uint64_t)flags, 0600, kuapi::RESOLVE_NO_SYMLINKS};
    int fd = sys_openat2(AT_FDCWD, path, &how);
    if (fd < 0 && errno == ENOSYS) /* before Linux 5.6: the last component only (docs/effect-log.md) */
        fd = open(path, flags | O_NOFOLLOW, 0600);
    if (fd < 0 && errno == ELOOP)
        refuse("cannot open the effect log %s: a component of its path is a symlink (give the log's real path)", path);
    if (fd < 0)
        refuse("cannot open the effect log %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0)
        refuse("cannot open the effect log %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        refuse("cannot open the effect log %s: not a regular file", path);
    if (st.st_nlink > 1)
        refuse("cannot open the effect log %s: it has %lu hard links, and the sandbox might see another one", path,
               (unsigned long)st.st_nlink);
    if (fcntl(fd, F_SETFL, O_APPEND) != 0)
        refuse("cannot open the effect log %s: %s", path, strerror(errno));
    g_log.fd = fd;
    g_log.supervisor = getpid();
    g_log.file = {absolute_log_path(fd, path), st.st_dev, st.st_ino};
    make_run_id(g_log.run_id);
    clock_gettime(CLOCK_MONOTONIC, &g_log.start);
    g_log.ctx = ctx;
    g_log.enabled = true;
}

bool effect_log_enabled()
{
    return g_log.enabled;
}

const plan_identity *effect_log_file()
{
    return g_log.enabled ? &g_log.file : nullptr;
}

int effect_log_fd()
{
    return g_log.enabled ? g_log.fd : -1;
}

const char *effect_log_run_id()
{
    return g_log.enabled ? g_log.run_id : "";
}

int effect_log_dup()
{
    if (!g_log.enabled)
        return -1;
    int fd = fcntl(g_log.fd, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        fail(EXIT_STARTUP, "cannot pass the effect log to tartaros-proxy: %s", strerror(errno));
    return fd;
}

void effect_log_loss(const char *what, const char *needs, const char *why, const char *instead)
{
    if (!g_log.enabled || g_log.started || !in_supervisor())
        return;
    for (int i = 0; i < g_log.loss_count; i++)
        if (strcmp(g_log.losses[i].what, what) == 0)
            return;
    if (g_log.loss_count < kMaxLosses)
        g_log.losses[g_log.loss_count++] = {what, needs, why, instead};
}

void effect_log_warning(const char *text)
{
    if (!g_log.enabled)
        return;
    if (g_log.started) {
        char buf[kEventBytes];
        jsonl::line l;
        bool supervisor = in_supervisor();
        effect_log_begin(l, buf, sizeof buf, supervisor ? "supervisor" : "sandbox", "warning");
        jsonl::field_str(l, "text", text);
        effect_log_write(l);
        return;
    }
    if (in_supervisor() && g_log.warning_count < kMaxWarnings)
        g_log.warnings[g_log.warning_count++] = arena_strdup(text);
}

void effect_log_run_start()
{
    if (!g_log.enabled || g_log.started)
        return;
    g_log.released = true;
    write_run_start();
}

void effect_log_memory_limit(uint64_t memory_max, uint64_t oom_kills, bool command_killed)
{
    if (!g_log.enabled)
        return;
    char buf[kEventBytes];
    jsonl::line l;
    effect_log_begin(l, buf, sizeof buf, "supervisor", "limit");
    jsonl::field_str(l, "limit", "memory_max");
    jsonl::field_u64(l, "value", memory_max);
    jsonl::field_u64(l, "oom_kills", oom_kills);
    jsonl::field_bool(l, "command_killed", command_killed);
    effect_log_write(l);
}

void effect_log_pids_limit(uint64_t max_processes, uint64_t refused_forks)
{
    if (!g_log.enabled)
        return;
    char buf[kEventBytes];
    jsonl::line l;
    effect_log_begin(l, buf, sizeof buf, "supervisor", "limit");
    jsonl::field_str(l, "limit", "max_processes");
    jsonl::field_u64(l, "value", max_processes);
    jsonl::field_u64(l, "refused_forks", refused_forks);
    effect_log_write(l);
}

void effect_log_timeout(uint64_t timeout_ms, uint64_t grace_ms, bool killed)
{
    if (!g_log.enabled)
        return;
    char buf[kEventBytes];
    jsonl::line l;
    effect_log_begin(l, buf, sizeof buf, "supervisor", "limit");
    jsonl::field_str(l, "limit", "timeout");
    jsonl::field_u64(l, "value_ms", timeout_ms);
    jsonl::field_u64(l, "grace_ms", grace_ms);
    jsonl::field_bool(l, "sigkill", killed);
    effect_log_write(l);
}

void effect_log_memory_peak(uint64_t bytes)
{
    g_log.memory_peak = bytes;
}

void effect_log_usage(const struct rusage *usage)
{
    g_log.usage = *usage;
    g_log.have_usage = true;
}

int effect_log_run_end(int code, const char *error)
{
    if (!g_log.enabled || g_log.ended)
        return code;
    g_log.ended = true;
    if (!g_log.started)
        write_run_start();
    char buf[kEventBytes];
    jsonl::line l;
    effect_log_begin(l, buf, sizeof buf, "supervisor", "run_end");
    jsonl::field_i64(l, "exit", code);
    field_str_or_null(l, "error", error);
    jsonl::field_u64(l, "wall_ms", elapsed_ms());
    if (g_log.memory_peak > 0)
        jsonl::field_u64(l, "memory_peak_bytes", g_log.memory_peak);
    else
        jsonl::field_null(l, "memory_peak_bytes");
    usage_fields(l);
    effect_log_write(l);
    return code;
}

void effect_log_exit(int code, const char *message)
{
    if (g_log.enabled && in_supervisor())
        effect_log_run_end(code, message);
}

void effect_log_begin(jsonl::line &l, char *buf, size_t cap, const char *by, const char *event)
{
    struct timespec now;
    raw_syscall2(SYS_clock_gettime, CLOCK_REALTIME, (long)&now);
    jsonl::begin(l, buf, cap);
    jsonl::field_time(l, "time", now.tv_sec, now.tv_nsec);
    jsonl::field_str(l, "run", g_log.run_id);
    jsonl::field_str(l, "by", by);
    jsonl::field_str(l, "event", event);
}

void effect_log_write(jsonl::line &l)
{
    size_t len = jsonl::finish(l);
    if (!in_supervisor() && !still_the_log(g_log.fd))
        return;
    long n;
    do
        n = raw_write(g_log.fd, l.buf, len);
    while (n == -EINTR);
}
