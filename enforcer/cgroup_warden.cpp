/* enforcer/cgroup_warden.cpp — the raw side of the run's cgroups: control-file access, the
 * clean-up shared by cgroup_finish and the warden, and the warden itself.
 *
 * Raw system calls only (raw.h, cgroup_run.h): the warden runs this code on the supervisor's
 * memory while the supervisor runs C code, and after the supervisor has died.
 *
 * The warden is a CLONE_VM child of the supervisor on a small static stack: no page tables
 * to copy, so it costs little to start on a virtual machine. It stays in the caller's cgroups
 * (cgroup_attach moves only the pid it is given; after a v2 leaf move, in the leaf), takes a
 * session of its own (no terminal signals) and no parent-death signal, and keeps no fd but a
 * pidfd of the supervisor: not the sandbox's, and not the supervisor's stdout or stderr, so a
 * caller reading those to EOF is not held up. When the supervisor has exited it looks at
 * cgroup_run::finished: set, it exits; unset (the supervisor was killed, or its clean-up left
 * something), it cleans up itself and exits.
 *
 * Its memory is shared with the supervisor, and Linux's OOM killer kills every process
 * sharing the victim's memory: the warden dies with the supervisor if the OOM killer picks
 * the supervisor or a process on its memory (init, or the command before it executes).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup_run.h"
#include "raw.h"
#include "report.h"

namespace {

constexpr unsigned kEmptyWaitMs = 2000;
constexpr unsigned kBusyWaitMs = 500;
constexpr int kRemoveDir = 0x200; /* AT_REMOVEDIR */

/* dir + "/" + file (file may be ""); false when it does not fit. */
bool join(const char *dir, const char *file, char *out)
{
    size_t dl = strlen(dir), fl = strlen(file);
    if (dl + 1 + fl + 1 > kCgPathMax)
        return false;
    memcpy(out, dir, dl);
    out[dl] = '/';
    memcpy(out + dl + 1, file, fl + 1);
    if (fl == 0)
        out[dl] = '\0';
    return true;
}

/* Unlinks the files add_fake_files made (cgroupfs removes its own with the directory). */
void unlink_fake_files(const char *dir, const char *const *fake_files)
{
    for (const char *const *f = fake_files; f && *f; f++) {
        char name[128], path[kCgPathMax];
        size_t n = 0;
        while ((*f)[n] != '\0' && (*f)[n] != '=' && n < sizeof name - 1) {
            name[n] = (*f)[n];
            n++;
        }
        name[n] = '\0';
        if (join(dir, name, path))
            raw_unlink(path, 0);
    }
}

/* Kills what is left until every cgroup is empty or the bound is reached. Without a freezer
 * (v1 pids or memory alone) a process may fork between the read and the kill; the next round
 * gets the child. */
void wait_empty(const cgroup_run *run, long *left)
{
    for (unsigned slept = 0;;) {
        long total = 0;
        for (int i = 0; i < run->ndirs; i++) {
            long n = cg_for_each_pid(run->dirs[i].path, "cgroup.procs", cg_kill_pid, nullptr);
            left[i] = n > 0 ? n : 0;
            total += left[i];
        }
        if (total == 0 || slept >= kEmptyWaitMs)
            return;
        cg_nap(&slept);
    }
}

/* Waits until the supervisor (the process behind `pidfd`) has exited. */
void wait_for_exit(int pidfd)
{
    for (;;) {
        long ready = raw_poll1(pidfd, POLLIN, -1);
        if (ready > 0)
            return;
        if (ready != -EINTR && ready != 0)
            raw_sleep_ms(100); /* ENOMEM and the like: try again, never clean up early */
    }
}

/* Keeps only the pidfd (moved above 2 if it was not), so no fd of the supervisor's stays open. */
int keep_only(int pidfd)
{
    int fd = pidfd > 2 ? pidfd : (int)raw_fcntl(pidfd, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        raw_exit_group(1);
    raw_close_range(0, (unsigned)fd - 1);
    raw_close_range((unsigned)fd + 1, ~0u);
    return fd;
}

/* Starts with every signal blocked (cgroup_start_warden): no handler of the supervisor's ever
 * runs on this stack, and only SIGKILL ends it. */
[[noreturn]] void warden_main(const cgroup_run *run)
{
    raw_setsid();
    wait_for_exit(keep_only(run->warden_pidfd));
    if (__atomic_load_n(&run->finished, __ATOMIC_ACQUIRE) == 0) {
        cg_cleanup_report rep;
        cg_cleanup(run, &rep);
    }
    raw_exit_group(0);
}

int warden_entry(void *arg)
{
    warden_main((const cgroup_run *)arg);
}

/* The warden's stack; in .bss, so only the pages it touches exist. One warden per process. */
alignas(16) char g_warden_stack[32 << 10];

}  // namespace

long cg_write(const char *dir, const char *file, const char *text)
{
    char path[kCgPathMax];
    if (!join(dir, file, path))
        return -ENAMETOOLONG;
    long fd = raw_open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return fd;
    size_t len = strlen(text);
    long n = raw_write((int)fd, text, len);
    raw_close((int)fd);
    return n < 0 ? n : (size_t)n == len ? 0 : -EIO;
}

long cg_read(const char *dir, const char *file, char *buf, size_t size)
{
    char path[kCgPathMax];
    if (!join(dir, file, path))
        return -ENAMETOOLONG;
    long fd = raw_open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fd;
    size_t len = 0;
    long n = 0;
    while (len < size - 1 && ((n = raw_read((int)fd, buf + len, size - 1 - len)) > 0 || n == -EINTR))
        len += n > 0 ? (size_t)n : 0;
    raw_close((int)fd);
    buf[len] = '\0';
    return n < 0 ? n : (long)len;
}

bool cg_exists(const char *dir, const char *file)
{
    char path[kCgPathMax];
    return join(dir, file, path) && raw_access(path, F_OK) == 0;
}

long cg_for_each_pid(const char *dir, const char *file, void (*fn)(pid_t, void *), void *arg)
{
    char path[kCgPathMax], buf[512];
    if (!join(dir, file, path))
        return -ENAMETOOLONG;
    long fd = raw_open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fd;
    long count = 0, n;
    uint64_t pid = 0;
    bool in_number = false;
    while ((n = raw_read((int)fd, buf, sizeof buf)) > 0 || n == -EINTR) {
        for (long i = 0; i < n; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                pid = pid * 10 + (uint64_t)(buf[i] - '0');
                in_number = true;
            } else if (in_number) {
                fn((pid_t)pid, arg);
                count++;
                pid = 0;
                in_number = false;
            }
        }
    }
    if (in_number) {
        fn((pid_t)pid, arg);
        count++;
    }
    raw_close((int)fd);
    return n < 0 ? n : count;
}

long cg_remove(const char *dir, const char *const *fake_files)
{
    unlink_fake_files(dir, fake_files);
    for (unsigned slept = 0;;) {
        long err = raw_unlink(dir, kRemoveDir);
        if (err == 0 || err == -ENOENT)
            return 0;
        if (err != -EBUSY || slept >= kBusyWaitMs)
            return err;
        cg_nap(&slept);
    }
}

char *cg_utoa(uint64_t value, char *buf)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return buf;
}

uint64_t cg_key_value(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *line = text; *line != '\0';) {
        if (strncmp(line, key, kl) == 0 && line[kl] == ' ') {
            uint64_t v = 0;
            for (const char *p = line + kl + 1; *p >= '0' && *p <= '9'; p++)
                v = v * 10 + (uint64_t)(*p - '0');
            return v;
        }
        const char *nl = strchr(line, '\n');
        if (nl == nullptr)
            break;
        line = nl + 1;
    }
    return 0;
}

void cg_nap(unsigned *slept_ms)
{
    unsigned ms = *slept_ms < 1 ? 1 : *slept_ms > 10 ? 10 : *slept_ms;
    raw_sleep_ms(ms);
    *slept_ms += ms;
}

void cg_kill_pid(pid_t pid, void *)
{
    if (pid > 0)
        raw_kill(pid, SIGKILL);
}

void cg_cleanup(const cgroup_run *run, cg_cleanup_report *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < run->ndirs; i++) {
        const cg_dir *dir = &run->dirs[i];
        if (dir->version == 2)
            cg_v2_kill(dir->path);
        else if (dir->controllers & cg_bit(CG_FREEZER))
            cg_v1_freeze_kill(dir->path);
    }
    wait_empty(run, out->left);
    for (int i = 0; i < run->ndirs; i++)
        out->rmdir_err[i] = cg_remove(run->dirs[i].path, run->fake_files);
    out->leaf_err = cg_v2_undo_leaf(&run->leaf, run->fake_files, &out->leaf_step);
}

void cgroup_start_warden(cgroup_run *run)
{
    static bool stack_taken = false;
    if (run->warden_pid != 0 || (run->ndirs == 0 && run->leaf.own == nullptr))
        return;
    if (stack_taken) {
        warn("no clean-up of the run's cgroups if tartaros-exec is killed: a warden runs already");
        return;
    }
    run->warden_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (run->warden_pidfd < 0) {
        warn("no clean-up of the run's cgroups if tartaros-exec is killed: pidfd_open: %s", strerror(errno));
        return;
    }
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    pid_t pid = clone(warden_entry, g_warden_stack + sizeof g_warden_stack, CLONE_VM | SIGCHLD, run);
    int err = errno;
    sigprocmask(SIG_SETMASK, &old, nullptr);
    close(run->warden_pidfd);
    if (pid < 0)
        warn("no clean-up of the run's cgroups if tartaros-exec is killed: clone: %s", strerror(err));
    else
        run->warden_pid = pid;
    stack_taken = pid > 0;
}
