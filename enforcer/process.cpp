/* enforcer/process.cpp — environment, fds, capabilities, no_new_privs, exec. */
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "landlock.h"
#include "mediator.h"
#include "raw.h"
#include "report.h"
#include "run_limits.h"
#include "seccomp.h"
#include "secrets.h"
#include "signals.h"
#include "stdio_fds.h"
#include "syscalls.h"

extern char **environ;

namespace {

/* musl's execvp default when PATH is unset. */
constexpr const char *kDefaultPath = "/usr/local/bin:/bin:/usr/bin";

struct env_list {
    char **vars; /* "NAME=value", room for every inherited and planned variable and a NULL */
    size_t count;
};

size_t environ_count()
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    return n;
}

/* The index of NAME in the list, or count when absent. */
size_t env_find(const env_list *env, const char *name, size_t name_len)
{
    for (size_t i = 0; i < env->count; i++)
        if (strncmp(env->vars[i], name, name_len) == 0 && env->vars[i][name_len] == '=')
            return i;
    return env->count;
}

void env_set(env_list *env, const char *name, const char *value)
{
    size_t i = env_find(env, name, strlen(name));
    env->vars[i] = arena_concat3(name, "=", value);
    if (i == env->count)
        env->count++;
}

/* Starts empty (or from the launcher's environment) and applies the plan's PASS/SET. The
 * broker's token_env and value_env never pass, however named: the supervisor has already
 * removed them (secrets.h), and the compiler refuses them in passthrough and set, but the
 * command's environment is where they would do harm, so they are checked here once more. */
char **build_environment(const tp_plan *plan)
{
    bool inherit = plan->exec && (plan->exec->flags & TP_EXEC_INHERIT_ENV);
    size_t inherited = inherit ? environ_count() : 0;
    env_list env;
    env.vars = (char **)arena_alloc((inherited + plan->env_count + 1) * sizeof(char *));
    env.count = 0;
    for (size_t i = 0; i < inherited; i++) {
        const char *eq = strchr(environ[i], '=');
        if (eq != nullptr && !secrets_is_name(plan, environ[i], (size_t)(eq - environ[i])))
            env.vars[env.count++] = environ[i];
    }
    for (uint32_t i = 0; i < plan->env_count; i++) {
        const tp_env *e = &plan->env[i];
        const char *name = tp_plan_str(plan, e->name);
        const char *value = e->op == TP_ENV_SET ? tp_plan_str(plan, e->value) : getenv(name);
        if (value != nullptr && !secrets_is_name(plan, name, e->name.len))
            env_set(&env, name, value);
    }
    env.vars[env.count] = nullptr;
    return env.vars;
}

const char *env_lookup(char **envp, const char *name)
{
    size_t len = strlen(name);
    for (; *envp; envp++)
        if (strncmp(*envp, name, len) == 0 && (*envp)[len] == '=')
            return *envp + len + 1;
    return nullptr;
}

[[noreturn]] void exec_failed(const char *file, int err)
{
    fail(err == ENOENT || err == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC, "%s: %s", file, strerror(err));
}

/* execve of `dir`/`file`; returns when it did not run. A file that is there but not
 * executable sets *denied (an unsearchable directory does not); any other error than "not
 * here" ends the search. */
void try_path_entry(const char *dir, size_t dir_len, const char *file, char *const *argv, char **envp, bool *denied)
{
    char candidate[PATH_MAX];
    if (dir_len == 0) {
        dir = ".";
        dir_len = 1;
    }
    size_t file_len = strlen(file);
    if (dir_len + 1 + file_len >= sizeof candidate)
        return;
    memcpy(candidate, dir, dir_len);
    candidate[dir_len] = '/';
    memcpy(candidate + dir_len + 1, file, file_len + 1);
    execve(candidate, argv, envp);
    int err = errno;
    struct stat st;
    if (err == EACCES && stat(candidate, &st) == 0)
        *denied = true;
    else if (err != EACCES && err != ENOENT && err != ENOTDIR && err != ENAMETOOLONG)
        exec_failed(file, err);
}

/* execve along the sandbox's PATH like execvp: 126 when a candidate is there but not
 * executable and nothing else runs, 127 when there is none. */
[[noreturn]] void exec_command(char *const *argv, char **envp)
{
    const char *file = argv[0];
    if (file[0] == '\0')
        exec_failed(file, ENOENT);
    if (strchr(file, '/') != nullptr) {
        execve(file, argv, envp);
        exec_failed(file, errno);
    }
    const char *path = env_lookup(envp, "PATH");
    if (path == nullptr)
        path = kDefaultPath;
    bool denied = false;
    for (const char *p = path;; p++) {
        const char *end = strchrnul(p, ':');
        try_path_entry(p, (size_t)(end - p), file, argv, envp, &denied);
        p = end;
        if (*end == '\0')
            break;
    }
    exec_failed(file, denied ? EACCES : ENOENT);
}

bool holds_any_capability()
{
    kuapi::cap_header header = {kuapi::LINUX_CAPABILITY_VERSION_3, 0};
    kuapi::cap_data data[kuapi::LINUX_CAPABILITY_U32S_3] = {};
    if (sys_capget(&header, data) != 0)
        return true;
    for (const kuapi::cap_data &d : data)
        if (d.effective || d.permitted || d.inheritable)
            return true;
    return false;
}

/* The command's steps that are raw system calls (raw.h), so that the early command can take
 * them while it waits for init, each 0 or the kernel's -errno. Bounding set and securebits
 * need CAP_SETPCAP: a caller without it (no user namespace, not root) holds no capability to
 * lose, and no_new_privs keeps it that way. */
struct bounding_drop {
    long ret;
    int cap; /* the capability whose drop failed */
    long securebits;
};

bool holds_setpcap_raw()
{
    kuapi::cap_header header = {kuapi::LINUX_CAPABILITY_VERSION_3, 0};
    kuapi::cap_data data[kuapi::LINUX_CAPABILITY_U32S_3] = {};
    if (raw_syscall4(SYS_capget, (long)&header, (long)data, 0, 0) != 0)
        return false;
    return (data[kuapi::CAP_SETPCAP / 32].effective >> (kuapi::CAP_SETPCAP % 32)) & 1u;
}

bounding_drop drop_bounding_set_and_lock_raw()
{
    bounding_drop d = {0, 0, 0};
    for (int cap = 0; cap < 64; cap++) {
        long ret = raw_syscall6(SYS_prctl, PR_CAPBSET_DROP, cap, 0, 0, 0, 0);
        if (ret == -EINVAL)
            break; /* past the kernel's last capability: no need to read cap_last_cap */
        if (ret != 0)
            return {ret, cap, 0};
    }
    unsigned bits = kuapi::SECBIT_NOROOT | kuapi::SECBIT_NOROOT_LOCKED | kuapi::SECBIT_NO_SETUID_FIXUP |
        kuapi::SECBIT_NO_SETUID_FIXUP_LOCKED | kuapi::SECBIT_KEEP_CAPS_LOCKED | kuapi::SECBIT_NO_CAP_AMBIENT_RAISE |
        kuapi::SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    d.securebits = raw_syscall6(SYS_prctl, PR_SET_SECUREBITS, bits, 0, 0, 0, 0);
    return d;
}

long set_no_new_privs_raw()
{
    return raw_syscall6(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);
}

void check_bounding_drop(const bounding_drop &d)
{
    if (d.ret != 0)
        fail(EXIT_STARTUP, "cannot drop capability %d from the bounding set: %s", d.cap, strerror((int)-d.ret));
    if (d.securebits != 0)
        fail(EXIT_STARTUP, "cannot lock the securebits: %s", strerror((int)-d.securebits));
}

void check_no_new_privs(long ret)
{
    if (ret != 0)
        fail(EXIT_STARTUP, "no_new_privs: %s", strerror((int)-ret));
}

/* What the early command did while it waited (command_confine_early); read once it runs C code. */
struct early_confinement {
    bool done;
    bounding_drop bounding;
    long no_new_privs;
};

early_confinement g_early;

/* The early command's steps, reported once the command may run C code. */
void check_early_confinement()
{
    if (!g_early.done)
        return;
    check_bounding_drop(g_early.bounding);
    check_no_new_privs(g_early.no_new_privs);
}

}  // namespace

void close_fds_except(int keep_a, int keep_b)
{
    const int keep[2] = {keep_a < keep_b ? keep_a : keep_b, keep_a < keep_b ? keep_b : keep_a};
    unsigned from = 3;
    for (int fd : keep) {
        if (fd < (int)from)
            continue;
        if (fd > (int)from && sys_close_range(from, (unsigned)fd - 1, 0) != 0)
            fail(EXIT_STARTUP, "close_range: %s", strerror(errno));
        from = (unsigned)fd + 1;
    }
    if (sys_close_range(from, ~0u, 0) != 0)
        fail(EXIT_STARTUP, "close_range: %s", strerror(errno));
}

void close_inherited_fds_at_exec(int keep_a, int keep_b)
{
    /* All fds of the enforcer's own are close-on-exec already; marking the rest too closes
     * them at exec, in one call and without a slow last close of init's fds (the early command
     * shares init's fd table). Before Linux 5.11: closed now. */
    if (sys_close_range(3, ~0u, kuapi::CLOSE_RANGE_CLOEXEC) != 0)
        close_fds_except(keep_a, keep_b);
}

void drop_capabilities(bool before_exec)
{
    if (before_exec && !g_early.done && holds_setpcap_raw())
        check_bounding_drop(drop_bounding_set_and_lock_raw());
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        fail(EXIT_STARTUP, "cannot clear the ambient capabilities: %s", strerror(errno));
    kuapi::cap_header header = {kuapi::LINUX_CAPABILITY_VERSION_3, 0};
    const kuapi::cap_data none[kuapi::LINUX_CAPABILITY_U32S_3] = {};
    if (sys_capset(&header, none) != 0 || holds_any_capability())
        fail(EXIT_STARTUP, "cannot drop capabilities: %s", strerror(errno));
}

void command_confine_early(const run_ctx *ctx)
{
    if (holds_setpcap_raw())
        g_early.bounding = drop_bounding_set_and_lock_raw();
    g_early.no_new_privs = set_no_new_privs_raw();
    if (g_early.no_new_privs == 0)
        seccomp_enforce_early(ctx);
    g_early.done = true;
}

void command_main(const run_ctx *ctx, pid_t init_pid, int ruleset)
{
    stdio_take_terminal(ctx);
    signals_restore_defaults();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != init_pid)
        _exit(EXIT_STARTUP); /* init is gone: nobody is left to report to */
    char **envp = build_environment(ctx->plan);
    close_inherited_fds_at_exec(report_fd(), ruleset);
    limits_apply_rlimits(ctx);
    check_early_confinement();
    drop_capabilities(true);
    if (!g_early.done)
        check_no_new_privs(set_no_new_privs_raw());
    landlock_enforce(ruleset);
    landlock_deny_tcp_without_netns(ctx);
    mediator_attach(ctx);
    seccomp_enforce(ctx); /* last: from here on only execve runs, and the filter allows it */
    exec_command(ctx->argv, envp);
}
