/* enforcer/main.cpp — tartaros-exec [--strict] [--log FILE] PLAN.bin|--plan-fd N -- CMD [ARGS...]
 *
 * The order of work (docs/architecture.md): arguments → plan read and validated (ir/plan_reader) →
 * preflight (plan consistency, kernel probes, strict/degrade) → supervisor (namespaces,
 * mounts, Landlock, exec). A usage error or an unusable plan is exit 78 with one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "context.h"
#include "effect_log.h"
#include "plan_load.h"
#include "preflight.h"
#include "report.h"
#include "supervisor.h"
#include "syscalls.h"
#include "tartaros_version.h"

namespace {

constexpr const char kUsage[] = "usage: tartaros-exec [--strict] [--log FILE] PLAN.bin|--plan-fd N -- CMD [ARGS...]";
constexpr const char kVersion[] = "tartaros-exec " TARTAROS_VERSION_LINE;

/* `text` and a newline on stdout, then exit 0 (1 when stdout cannot take it). */
[[noreturn]] void print_and_exit(const char *text)
{
    const size_t len = strlen(text);
    const bool ok = write(STDOUT_FILENO, text, len) == (ssize_t)len && write(STDOUT_FILENO, "\n", 1) == 1;
    _exit(ok ? 0 : 1);
}

struct arguments {
    bool strict;
    const char *log_path; /* --log: the effect log, or NULL */
    int plan_fd;          /* --plan-fd: the plan in an open file (tartaros run's memfd), or -1 */
    const char *plan_path;
    char *const *command;
};

[[noreturn]] void usage_error(const char *what)
{
    refuse("%s; %s", what, kUsage);
}

/* A descriptor number given on the command line: a plain decimal above 2. */
int parse_fd(const char *text)
{
    char *end;
    long fd = strtol(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || fd <= 2 || fd > 1 << 20)
        usage_error("--plan-fd needs a descriptor number above 2");
    return (int)fd;
}

arguments parse_arguments(int argc, char **argv)
{
    arguments args = {false, nullptr, -1, nullptr, nullptr};
    int i = 1;
    if (i < argc && strcmp(argv[i], "--help") == 0)
        print_and_exit(kUsage);
    if (i < argc && strcmp(argv[i], "--version") == 0)
        print_and_exit(kVersion);
    for (; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i++) {
        bool has_value = i + 1 < argc;
        if (strcmp(argv[i], "--strict") == 0)
            args.strict = true;
        else if (strcmp(argv[i], "--log") == 0 && has_value)
            args.log_path = argv[++i];
        else if (strcmp(argv[i], "--plan-fd") == 0 && has_value)
            args.plan_fd = parse_fd(argv[++i]);
        else
            usage_error("unknown option or missing value");
    }
    if (args.plan_fd < 0) {
        if (i >= argc || strcmp(argv[i], "--") == 0)
            usage_error("missing PLAN.bin");
        args.plan_path = argv[i++];
    }
    if (i >= argc || strcmp(argv[i], "--") != 0)
        usage_error("expected -- after PLAN.bin");
    if (++i >= argc)
        usage_error("missing command after --");
    args.command = argv + i;
    return args;
}

/* fds 0-2 must be open, or a pipe created later would take one of them. */
void ensure_standard_fds()
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        if (open("/dev/null", O_RDWR) != fd)
            fail(EXIT_STARTUP, "cannot open /dev/null for fd %d", fd);
    }
}

}  // namespace

int main(int argc, char **argv)
{
    ensure_standard_fds();
    arguments args = parse_arguments(argc, argv);
    run_ctx ctx = {};
    ctx.net_channel = -1;
    ctx.mediator_fd = -1;
    ctx.plan = load_plan(args.plan_path, args.plan_fd, &ctx.plan_file);
    ctx.plan_path = args.plan_fd >= 0 ? "(--plan-fd)" : args.plan_path;
    ctx.log_path = args.log_path;
    ctx.strict = args.strict;
    ctx.argv = args.command;
    ctx.uid = geteuid();
    ctx.gid = getegid();
    ctx.caller_is_root = ctx.uid == 0;

    effect_log_open(&ctx); /* before anything can refuse for the host: a refusal is logged too */
    preflight(&ctx);
    return run_supervisor(&ctx);
}
