/* enforcer/main.cpp — tartaros-exec [--strict] PLAN.bin -- CMD [ARGS...]
 *
 * The order of work (DESIGN §7): arguments → plan read and validated (ir/plan_reader) →
 * preflight (plan consistency, kernel probes, strict/degrade) → supervisor (namespaces,
 * mounts, Landlock, exec). A usage error or an unusable plan is exit 78 with one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "context.h"
#include "plan_reader.h"
#include "preflight.h"
#include "report.h"
#include "supervisor.h"
#include "syscalls.h"

namespace {

constexpr const char kUsage[] = "usage: tartaros-exec [--strict] PLAN.bin -- CMD [ARGS...]";

alignas(8) uint8_t g_plan_bytes[TP_MAX_PLAN_SIZE + 1];
tp_plan g_plan;

struct arguments {
    bool strict;
    const char *plan_path;
    char *const *command;
};

[[noreturn]] void usage_error(const char *what)
{
    refuse("%s; %s", what, kUsage);
}

arguments parse_arguments(int argc, char **argv)
{
    arguments args = {false, nullptr, nullptr};
    int i = 1;
    if (i < argc && strcmp(argv[i], "--help") == 0) {
        char line[sizeof kUsage + 1];
        memcpy(line, kUsage, sizeof kUsage - 1);
        line[sizeof kUsage - 1] = '\n';
        _exit(write(STDOUT_FILENO, line, sizeof kUsage) == (ssize_t)sizeof kUsage ? 0 : 1);
    }
    if (i < argc && strcmp(argv[i], "--strict") == 0) {
        args.strict = true;
        i++;
    }
    if (i >= argc || strcmp(argv[i], "--") == 0)
        usage_error("missing PLAN.bin");
    if (argv[i][0] == '-')
        usage_error("unknown option");
    args.plan_path = argv[i++];
    if (i >= argc || strcmp(argv[i], "--") != 0)
        usage_error("expected -- after PLAN.bin");
    if (++i >= argc)
        usage_error("missing command after --");
    args.command = argv + i;
    return args;
}

/* The absolute, symlink-free path of the open file `fd` (the kernel's name for it), or
 * `given` made absolute against the working directory when /proc cannot say. Taken before
 * anything changes the working directory. */
const char *absolute_path_of(int fd, const char *given)
{
    static char path[PATH_MAX];
    char link[32];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n > 0 && path[0] == '/') {
        path[n] = '\0';
        return path;
    }
    if (given[0] == '/' || getcwd(path, sizeof path - 1) == nullptr)
        return given;
    return arena_concat3(path, "/", given);
}

/* Reads the whole plan; refuses when it cannot be read or exceeds the format's limit.
 * Records which file it was, so that init can make it read-only in the sandbox. */
uint32_t read_plan(const char *path, plan_identity *file)
{
    int fd = open_cloexec(path, O_RDONLY);
    if (fd < 0)
        refuse("cannot open plan %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0)
        refuse("cannot read plan %s: %s", path, strerror(errno));
    file->path = arena_strdup(absolute_path_of(fd, path));
    file->dev = st.st_dev;
    file->ino = st.st_ino;
    size_t total = 0;
    for (;;) {
        ssize_t n = read(fd, g_plan_bytes + total, sizeof g_plan_bytes - total);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            refuse("cannot read plan %s: %s", path, strerror(errno));
        if (n == 0)
            break;
        total += (size_t)n;
        if (total == sizeof g_plan_bytes)
            refuse("invalid plan %s: larger than the limit of %u bytes", path, TP_MAX_PLAN_SIZE);
    }
    close(fd);
    return (uint32_t)total;
}

void load_plan(const char *path, plan_identity *file)
{
    uint32_t size = read_plan(path, file);
    char reason[256];
    if (tp_plan_open(g_plan_bytes, size, &g_plan, reason, sizeof reason) != 0)
        refuse("invalid plan %s: %s", path, reason);
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
    load_plan(args.plan_path, &ctx.plan_file);
    ctx.plan = &g_plan;
    ctx.plan_path = args.plan_path;
    ctx.strict = args.strict;
    ctx.argv = args.command;
    ctx.uid = geteuid();
    ctx.gid = getegid();
    ctx.caller_is_root = ctx.uid == 0;

    preflight(&ctx);
    return run_supervisor(&ctx);
}
