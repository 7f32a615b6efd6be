/* enforcer/plan_load.cpp — see plan_load.h. */
#include "plan_load.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "report.h"
#include "syscalls.h"

namespace {

alignas(8) uint8_t g_plan_bytes[TP_MAX_PLAN_SIZE + 1];
tp_plan g_plan;

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

/* Reads the whole plan from `fd`, from its start; refuses when it cannot be read or exceeds
 * the format's limit. */
uint32_t read_plan_from(int fd, const char *path)
{
    size_t total = 0;
    for (;;) {
        ssize_t n = pread(fd, g_plan_bytes + total, sizeof g_plan_bytes - total, (off_t)total);
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

/* Records which file the plan was, so that init can make it read-only in the sandbox. */
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
    return read_plan_from(fd, path);
}

/* tartaros run's plan: an unnamed file (a sealed memfd) no path in the sandbox reaches, so
 * there is nothing to protect (file->path stays NULL). The fd is closed once read. */
uint32_t read_plan_fd(int fd, plan_identity *file)
{
    file->path = nullptr;
    if (fcntl(fd, F_GETFD) < 0)
        refuse("cannot read the plan on --plan-fd %d: %s", fd, strerror(errno));
    return read_plan_from(fd, "(--plan-fd)");
}

}  // namespace

const tp_plan *load_plan(const char *path, int fd, plan_identity *file)
{
    uint32_t size = fd >= 0 ? read_plan_fd(fd, file) : read_plan(path, file);
    char reason[256];
    if (tp_plan_open(g_plan_bytes, size, &g_plan, reason, sizeof reason) != 0)
        refuse("invalid plan %s: %s", fd >= 0 ? "(--plan-fd)" : path, reason);
    return &g_plan;
}
