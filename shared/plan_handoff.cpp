/* shared/plan_handoff.cpp — see plan_handoff.h. */
#include "plan_handoff.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "write_all.h"

namespace {

constexpr unsigned kPlanSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;

}  // namespace

int th_plan_memfd(const void *plan, size_t len)
{
    const int fd = memfd_create("tartaros-plan", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    const int moved = fd > 2 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (!write_all(fd, plan, len) || fcntl(fd, F_ADD_SEALS, kPlanSeals) != 0 || moved < 0 ||
        fcntl(moved, F_SETFD, 0) != 0) {
        const int saved = errno;
        close(fd);
        if (moved >= 0 && moved != fd)
            close(moved);
        errno = saved;
        return -1;
    }
    if (moved != fd)
        close(fd);
    return moved;
}

void th_exec_enforcer(const char *enforcer, int strict, const char *log, int plan_fd, const char *const *command)
{
    size_t words = 0;
    while (command[words] != NULL)
        ++words;
    const char **argv = (const char **)calloc(words + 8, sizeof *argv);
    if (argv == NULL)
        return;
    char fd_text[16];
    snprintf(fd_text, sizeof fd_text, "%d", plan_fd);
    size_t at = 0;
    argv[at++] = enforcer;
    if (strict)
        argv[at++] = "--strict";
    if (log != NULL) {
        argv[at++] = "--log";
        argv[at++] = log;
    }
    argv[at++] = "--plan-fd";
    argv[at++] = fd_text;
    argv[at++] = "--";
    for (size_t i = 0; i < words; ++i)
        argv[at++] = command[i];
    execv(enforcer, (char *const *)argv);
    const int saved = errno;
    free(argv);
    errno = saved;
}
