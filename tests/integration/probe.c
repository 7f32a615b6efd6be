/* tests/integration/probe.c — one filesystem operation per call, for escape tests.
 *
 * Usage: it-probe LABEL OP ARGS...
 * Prints `LABEL=ok` when the operation succeeded, `LABEL=ENAME` (the errno name) when it
 * failed, and for some operations a second line `LABEL.data=...`. Exit status 0 or 1.
 * The shell cannot express several of these (O_PATH, /proc/self/fd reopen, linkat of an
 * fd, a nested user namespace), and errno names make the assertions exact.
 * limits.sh and lifecycle.sh use the resource operations at the end (fork-count, fork-bomb,
 * hog, spin, rlimit, fsize-write, ns-cgroup-write, hopper...): a hostile command's moves,
 * each bounded in time so that a limit that does not hold cannot take the host down.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *label;

static int report(int rc)
{
    if (rc == 0) {
        printf("%s=ok\n", label);
        return 0;
    }
    const char *name = strerrorname_np(errno);
    printf("%s=%s\n", label, name ? name : "EUNKNOWN");
    return 1;
}

static int fail_with(int err)
{
    errno = err;
    return report(-1);
}

static int write_all(int fd, const char *text)
{
    size_t len = strlen(text);
    ssize_t n = write(fd, text, len);
    if (n < 0)
        return -1;
    if ((size_t)n != len) {
        errno = EIO;
        return -1;
    }
    return 0;
}

/* Opens `path` with `flags`, writes `text` and closes. */
static int open_write(const char *path, int flags, const char *text)
{
    int fd = open(path, flags, 0644);
    if (fd < 0)
        return report(-1);
    int rc = write_all(fd, text);
    int saved = errno;
    close(fd);
    errno = saved;
    return report(rc);
}

/* Reads the file and prints its first line as data. */
static int op_read(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return report(-1);
    char buf[256];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    int saved = errno;
    close(fd);
    if (n < 0) {
        errno = saved;
        return report(-1);
    }
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    report(0);
    printf("%s.data=%s\n", label, buf);
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists the names of a directory, sorted, comma-separated (without . and ..). */
static int op_ls(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir)
        return report(-1);
    char *names[512];
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL && count < 512) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        names[count++] = strdup(entry->d_name);
    }
    closedir(dir);
    qsort(names, count, sizeof names[0], name_cmp);
    report(0);
    printf("%s.names=", label);
    for (size_t i = 0; i < count; i++)
        printf("%s%s", i ? "," : "", names[i]);
    printf("\n");
    return 0;
}

static const char *file_kind(mode_t mode)
{
    if (S_ISREG(mode))
        return "reg";
    if (S_ISDIR(mode))
        return "dir";
    if (S_ISLNK(mode))
        return "lnk";
    if (S_ISCHR(mode))
        return "chr";
    return "other";
}

/* stat or lstat; data = kind:size:octal-mode. */
static int op_stat(const char *path, int follow)
{
    struct stat st;
    int rc = follow ? stat(path, &st) : lstat(path, &st);
    if (rc != 0)
        return report(-1);
    report(0);
    printf("%s.data=%s:%lld:%o\n", label, file_kind(st.st_mode), (long long)st.st_size, (unsigned)(st.st_mode & 07777));
    return 0;
}

/* chdir, then list the new working directory. */
static int op_chdir(const char *path)
{
    if (chdir(path) != 0)
        return report(-1);
    return op_ls(".");
}

/* Opens read-only (allowed), then reopens the same file for writing through
 * /proc/self/fd/N, the classic way to upgrade a descriptor. */
static int op_fd_reopen(const char *path, int open_flags)
{
    int fd = open(path, open_flags);
    if (fd < 0) {
        printf("%s.step=open\n", label);
        return report(-1);
    }
    char proc_path[64];
    snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
    return open_write(proc_path, O_WRONLY | O_APPEND, "reopened\n");
}

/* Hardlinks the file behind an O_PATH descriptor to `dest` (linkat with
 * AT_SYMLINK_FOLLOW on /proc/self/fd/N, which needs no capability). */
static int op_opath_link(const char *path, const char *dest)
{
    int fd = open(path, O_PATH);
    if (fd < 0) {
        printf("%s.step=open\n", label);
        return report(-1);
    }
    char proc_path[64];
    snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
    return report(linkat(AT_FDCWD, proc_path, AT_FDCWD, dest, AT_SYMLINK_FOLLOW));
}

/* Creates `name` inside the directory behind an O_PATH descriptor. */
static int op_opath_create(const char *dir_path, const char *name)
{
    int dirfd = open(dir_path, O_PATH | O_DIRECTORY);
    if (dirfd < 0) {
        printf("%s.step=open\n", label);
        return report(-1);
    }
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL, 0755);
    if (fd < 0)
        return report(-1);
    int rc = write_all(fd, "#!/bin/sh\necho pwned\n");
    close(fd);
    return report(rc);
}

static int write_text_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    int rc = write_all(fd, text);
    close(fd);
    return rc;
}

/* In a child: a fresh user + mount namespace (full capabilities there), then try to
 * unmount and to remount read-write whatever protects `dir`, then create `dir/name`.
 * ok means the file was created: the protection was peeled off. */
static int op_ns_unmount_create(const char *dir, const char *name)
{
    pid_t pid = fork();
    if (pid < 0)
        return report(-1);
    if (pid == 0) {
        uid_t uid = geteuid();
        gid_t gid = getegid();
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
            fprintf(stderr, "probe: unshare: %s\n", strerror(errno));
            _exit(errno);
        }
        char map[64];
        snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
        write_text_file("/proc/self/setgroups", "deny");
        if (write_text_file("/proc/self/uid_map", map) != 0)
            fprintf(stderr, "probe: uid_map: %s\n", strerror(errno));
        snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
        if (write_text_file("/proc/self/gid_map", map) != 0)
            fprintf(stderr, "probe: gid_map: %s\n", strerror(errno));
        for (int i = 0; i < 4; i++)
            if (umount2(dir, MNT_DETACH) != 0)
                fprintf(stderr, "probe: umount2: %s\n", strerror(errno));
        if (mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND, NULL) != 0)
            fprintf(stderr, "probe: remount rw: %s\n", strerror(errno));
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0755);
        if (fd < 0)
            _exit(errno);
        close(fd);
        _exit(0);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return report(-1);
    if (!WIFEXITED(status))
        return fail_with(EINTR);
    return WEXITSTATUS(status) == 0 ? report(0) : fail_with(WEXITSTATUS(status));
}

/* Writes a file's own content back into it: a write that changes nothing when it succeeds,
 * safe to try on a global setting such as /proc/sys/kernel/core_pattern. */
static int op_rewrite(const char *path)
{
    char buf[4096];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        printf("%s.step=read\n", label);
        return report(-1);
    }
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    if (n <= 0)
        return fail_with(n < 0 ? errno : ENODATA);
    fd = open(path, O_WRONLY);
    if (fd < 0)
        return report(-1);
    ssize_t w = write(fd, buf, (size_t)n);
    int saved = errno;
    close(fd);
    errno = saved;
    return report(w == n ? 0 : -1);
}

/* Attaches to another process with ptrace (then detaches). */
static int op_ptrace(const char *pid_text)
{
    pid_t pid = (pid_t)strtol(pid_text, NULL, 10);
    if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) != 0)
        return report(-1);
    waitpid(pid, NULL, __WALL);
    ptrace(PTRACE_DETACH, pid, NULL, NULL);
    return report(0);
}

/* Opens another process's memory for writing. */
static int op_mem_open(const char *pid_text)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/mem", pid_text);
    int fd = open(path, O_RDWR);
    if (fd < 0)
        return report(-1);
    close(fd);
    return report(0);
}

/* Prints the file handle of `path` as TYPE:HEX (host side, to hand to an attacker). */
static int op_handle(const char *path)
{
    char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
    struct file_handle *fh = (struct file_handle *)buf;
    fh->handle_bytes = MAX_HANDLE_SZ;
    int mount_id;
    if (name_to_handle_at(AT_FDCWD, path, fh, &mount_id, 0) != 0)
        return report(-1);
    report(0);
    printf("%s.data=%d:", label, fh->handle_type);
    for (unsigned i = 0; i < fh->handle_bytes; i++)
        printf("%02x", fh->f_handle[i]);
    printf("\n");
    return 0;
}

/* open_by_handle_at on the filesystem of `mount_path` with a TYPE:HEX handle, then read. */
static int open_handle(const char *mount_path, const char *handle_text)
{
    char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
    struct file_handle *fh = (struct file_handle *)buf;
    char *hex = NULL;
    fh->handle_type = (int)strtol(handle_text, &hex, 10);
    if (!hex || *hex != ':')
        return fail_with(EINVAL);
    hex++;
    unsigned n = 0;
    while (hex[0] && hex[1] && n < MAX_HANDLE_SZ) {
        unsigned byte;
        if (sscanf(hex, "%2x", &byte) != 1)
            return fail_with(EINVAL);
        fh->f_handle[n++] = (unsigned char)byte;
        hex += 2;
    }
    fh->handle_bytes = n;
    int mount_fd = open(mount_path, O_RDONLY | O_DIRECTORY);
    if (mount_fd < 0) {
        printf("%s.step=open-mount\n", label);
        return report(-1);
    }
    int fd = open_by_handle_at(mount_fd, fh, O_RDONLY);
    if (fd < 0)
        return report(-1);
    char data[128];
    ssize_t got = read(fd, data, sizeof data - 1);
    if (got < 0)
        return report(-1);
    data[got] = '\0';
    data[strcspn(data, "\n")] = '\0';
    report(0);
    printf("%s.data=%s\n", label, data);
    return 0;
}

/* The same from a fresh user + mount namespace, where the caller holds every capability. */
static int op_ns_open_handle(const char *mount_path, const char *handle_text)
{
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
        printf("%s.step=unshare\n", label);
        return report(-1);
    }
    return open_handle(mount_path, handle_text);
}

/* Pushes TEXT into the terminal's input queue (TIOCSTI on fd 0): what the caller's shell
 * would read and run once the sandbox exits. */
static int op_tiocsti(const char *text)
{
    for (const char *c = text; *c; c++)
        if (ioctl(0, TIOCSTI, c) != 0)
            return report(-1);
    return report(0);
}

/* Listens on 127.0.0.1 (ephemeral port) or on an abstract unix name, prints where, and
 * accepts connections for `seconds`, printing one line per connection. */
static int op_listen(const char *where, const char *seconds)
{
    int fd;
    if (strcmp(where, "tcp") == 0) {
        struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof addr;
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 8) != 0 ||
            getsockname(fd, (struct sockaddr *)&addr, &len) != 0)
            return report(-1);
        report(0);
        printf("%s.data=%u\n", label, ntohs(addr.sin_port));
    } else {
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        size_t name_len = strlen(where);
        if (name_len + 1 > sizeof addr.sun_path)
            return fail_with(ENAMETOOLONG);
        memcpy(addr.sun_path + 1, where, name_len);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + name_len);
        if (fd < 0 || bind(fd, (struct sockaddr *)&addr, len) != 0 || listen(fd, 8) != 0)
            return report(-1);
        report(0);
        printf("%s.data=@%s\n", label, where);
    }
    alarm((unsigned)strtoul(seconds, NULL, 10));
    for (;;) {
        int conn = accept(fd, NULL, NULL);
        if (conn >= 0) {
            printf("%s.accepted=1\n", label);
            close(conn);
        }
    }
}

/* Connects to 127.0.0.1:PORT, or to @NAME (an abstract unix socket). */
static int op_connect(const char *where)
{
    int fd;
    int rc;
    if (where[0] == '@') {
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        size_t name_len = strlen(where + 1);
        if (name_len + 1 > sizeof addr.sun_path)
            return fail_with(ENAMETOOLONG);
        memcpy(addr.sun_path + 1, where + 1, name_len);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0)
            return report(-1);
        rc = connect(fd, (struct sockaddr *)&addr, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + name_len));
    } else {
        struct sockaddr_in addr = {.sin_family = AF_INET,
                                   .sin_port = htons((uint16_t)strtoul(where, NULL, 10)),
                                   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            return report(-1);
        rc = connect(fd, (struct sockaddr *)&addr, sizeof addr);
    }
    int saved = errno;
    close(fd);
    errno = saved;
    return report(rc);
}

static int unix_address(const char *path, struct sockaddr_un *addr)
{
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    if (strlen(path) + 1 > sizeof addr->sun_path)
        return -1;
    strcpy(addr->sun_path, path);
    return 0;
}

/* Connects a new unix stream socket to the pathname socket PATH. */
static int op_unix_connect(const char *path)
{
    struct sockaddr_un addr;
    if (unix_address(path, &addr) != 0)
        return fail_with(ENAMETOOLONG);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0)
        return report(-1);
    int rc = connect(fd, (struct sockaddr *)&addr, sizeof addr);
    int saved = errno;
    close(fd);
    errno = saved;
    return report(rc);
}

/* Opens PATH with O_PATH and connects through /proc/self/fd/N: the same inode by another name. */
static int op_unix_connect_opath(const char *path)
{
    int target = open(path, O_PATH | O_CLOEXEC);
    if (target < 0)
        return report(-1);
    char via[64];
    snprintf(via, sizeof via, "/proc/self/fd/%d", target);
    return op_unix_connect(via);
}

/* The race: one thread keeps rewriting the address buffer between two paths while the other
 * connects with it, so a check that reads the address and a connect that reads it again could
 * see different paths. */
struct race {
    struct sockaddr_un addr;
    char paths[2][sizeof(((struct sockaddr_un *)0)->sun_path)];
    volatile int stop;
};

static void *flip_address(void *arg)
{
    struct race *r = arg;
    for (unsigned i = 0; !r->stop; i++)
        memcpy(r->addr.sun_path, r->paths[i & 1], sizeof r->addr.sun_path);
    return NULL;
}

static int op_unix_race(const char *own, const char *host, const char *rounds)
{
    static struct race r;
    if (unix_address(own, &r.addr) != 0 || strlen(host) + 1 > sizeof r.paths[1])
        return fail_with(ENAMETOOLONG);
    strcpy(r.paths[0], own);
    strcpy(r.paths[1], host);
    pthread_t flipper;
    if (pthread_create(&flipper, NULL, flip_address, &r) != 0)
        return fail_with(EAGAIN);
    unsigned long connected = 0, refused = 0, n = strtoul(rounds, NULL, 10);
    for (unsigned long i = 0; i < n; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0)
            break;
        if (connect(fd, (struct sockaddr *)&r.addr, sizeof r.addr) == 0)
            connected++;
        else
            refused++;
        close(fd);
    }
    r.stop = 1;
    pthread_join(flipper, NULL);
    report(0);
    printf("%s.data=%lu %lu\n", label, connected, refused);
    return 0;
}

/* --- resource limits and lifecycle (limits.sh, lifecycle.sh) --- */

/* Forks children that wait to be killed until a fork fails or `max` exist; the result is
 * the failure's errno (ok when all `max` succeeded), data = children made. The children die
 * with the probe (SIGKILL here, PDEATHSIG should the probe be killed). */
static int op_fork_count(const char *max_text)
{
    long max = strtol(max_text, NULL, 10);
    pid_t *kids = calloc((size_t)(max > 0 ? max : 1), sizeof *kids);
    long made = 0;
    int err = 0;
    pid_t self = getpid();
    while (made < max) {
        pid_t pid = fork();
        if (pid < 0) {
            err = errno;
            break;
        }
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != self)
                _exit(0);
            for (;;)
                pause();
        }
        kids[made++] = pid;
    }
    for (long i = 0; i < made; i++)
        kill(kids[i], SIGKILL);
    for (long i = 0; i < made; i++)
        waitpid(kids[i], NULL, 0);
    free(kids);
    if (err)
        fail_with(err);
    else
        report(0);
    printf("%s.data=%ld\n", label, made);
    return 0;
}

/* The same from a fresh user namespace: its tasks are counted for another (namespace, uid),
 * which must not reset a limit the sandbox runs under. */
static int op_ns_fork_count(const char *max_text)
{
    if (unshare(CLONE_NEWUSER) != 0) {
        printf("%s.step=unshare\n", label);
        return report(-1);
    }
    return op_fork_count(max_text);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A fork bomb: every process forks as fast as it can, and so does every child, until
 * `seconds` have passed (a bound for the host's sake should no limit hold). A refused fork
 * is retried after 1 ms, so a bomb held at its limit does not also starve the other tests
 * of CPU. The result is ok, data = the forks that failed in this (the first) process. */
static int op_fork_bomb(const char *seconds)
{
    double deadline = now_seconds() + strtod(seconds, NULL);
    pid_t first = getpid();
    long refused = 0;
    struct timespec backoff = {0, 1000000};
    while (now_seconds() < deadline) {
        pid_t pid = fork();
        if (pid >= 0)
            continue;
        if (getpid() == first)
            refused++;
        nanosleep(&backoff, NULL);
    }
    if (getpid() != first)
        _exit(0);
    report(0);
    printf("%s.data=%ld\n", label, refused);
    return 0;
}

/* Allocates and touches `mb` MiB, one MiB at a time; ok with data = MiB touched. An OOM
 * kill ends the process before it prints anything. */
static int op_hog(const char *mb_text)
{
    long mb = strtol(mb_text, NULL, 10);
    for (long i = 0; i < mb; i++) {
        char *chunk = malloc(1 << 20);
        if (!chunk)
            return report(-1);
        memset(chunk, (int)(i | 1), 1 << 20);
    }
    report(0);
    printf("%s.data=%ld\n", label, mb);
    return 0;
}

static volatile int spin_stop;

static void *spin_thread(void *arg)
{
    (void)arg;
    volatile unsigned long n = 0;
    while (!spin_stop)
        n++;
    return NULL;
}

/* Busy loops in `threads` threads (the caller's one included) for `seconds` of wall time;
 * data = the process's CPU time (user + system, all threads) per wall time in permille. */
static int op_spin(const char *seconds, const char *threads_text)
{
    long threads = threads_text ? strtol(threads_text, NULL, 10) : 1;
    pthread_t extra[64];
    if (threads < 1 || threads > 64)
        return fail_with(EINVAL);
    double start = now_seconds();
    double deadline = start + strtod(seconds, NULL);
    for (long i = 1; i < threads; i++)
        if (pthread_create(&extra[i], NULL, spin_thread, NULL) != 0)
            return fail_with(EAGAIN);
    volatile unsigned long n = 0;
    while (now_seconds() < deadline)
        n++;
    spin_stop = 1;
    for (long i = 1; i < threads; i++)
        pthread_join(extra[i], NULL);
    double wall = now_seconds() - start;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return report(-1);
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
        (double)ru.ru_stime.tv_usec / 1e6;
    report(0);
    printf("%s.data=%ld\n", label, (long)(cpu / wall * 1000.0));
    return 0;
}

static const struct {
    const char *name;
    int resource;
} rlimit_names[] = {
    {"cpu", RLIMIT_CPU},       {"fsize", RLIMIT_FSIZE},     {"data", RLIMIT_DATA},
    {"stack", RLIMIT_STACK},   {"core", RLIMIT_CORE},       {"nproc", RLIMIT_NPROC},
    {"nofile", RLIMIT_NOFILE}, {"memlock", RLIMIT_MEMLOCK}, {"as", RLIMIT_AS},
};

static int rlimit_number(const char *name)
{
    for (size_t i = 0; i < sizeof rlimit_names / sizeof rlimit_names[0]; i++)
        if (strcmp(rlimit_names[i].name, name) == 0)
            return rlimit_names[i].resource;
    return -1;
}

static void print_rlim(rlim_t value)
{
    if (value == RLIM_INFINITY)
        printf("unlimited");
    else
        printf("%llu", (unsigned long long)value);
}

/* data = SOFT:HARD of the named resource ("unlimited" for RLIM_INFINITY). */
static int op_rlimit(const char *name)
{
    int resource = rlimit_number(name);
    struct rlimit rl;
    if (resource < 0)
        return fail_with(EINVAL);
    if (getrlimit(resource, &rl) != 0)
        return report(-1);
    report(0);
    printf("%s.data=", label);
    print_rlim(rl.rlim_cur);
    printf(":");
    print_rlim(rl.rlim_max);
    printf("\n");
    return 0;
}

/* Tries to raise the named resource's hard limit (and soft) to unlimited. */
static int op_raise_rlimit(const char *name)
{
    int resource = rlimit_number(name);
    if (resource < 0)
        return fail_with(EINVAL);
    struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
    return report(setrlimit(resource, &rl));
}

/* Writes `bytes` zero bytes to PATH in 64 KiB steps with SIGXFSZ ignored, so a write past
 * RLIMIT_FSIZE fails with EFBIG instead of killing; data = bytes written. */
static int op_fsize_write(const char *path, const char *bytes_text)
{
    signal(SIGXFSZ, SIG_IGN);
    long long want = strtoll(bytes_text, NULL, 10), done = 0;
    static char buf[65536];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return report(-1);
    int rc = 0;
    while (done < want) {
        size_t step = want - done < (long long)sizeof buf ? (size_t)(want - done) : sizeof buf;
        ssize_t n = write(fd, buf, step);
        if (n < 0) {
            rc = -1;
            break;
        }
        done += n;
    }
    int saved = errno;
    close(fd);
    errno = saved;
    report(rc);
    printf("%s.data=%lld\n", label, done);
    return 0;
}

/* In a child: a fresh user, mount and cgroup namespace (full capabilities over them), then
 * mount the cgroup hierarchy `controller` ("cgroup2" for the unified one) on `mountpoint`
 * and write `value` into its root's `file` (e.g. pids.max = max: lifting the run's limit).
 * ok means the write succeeded; a failure prints the step. */
static int op_ns_cgroup_write(const char *controller, const char *file, const char *value, const char *mountpoint)
{
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return report(-1);
    pid_t pid = fork();
    if (pid < 0)
        return report(-1);
    if (pid == 0) {
        const char *step = "unshare";
        int err = 0;
        uid_t uid = geteuid();
        gid_t gid = getegid();
        char map[64], path[4096];
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP) != 0) {
            err = errno;
        } else {
            snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
            write_text_file("/proc/self/setgroups", "deny");
            write_text_file("/proc/self/uid_map", map);
            snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
            write_text_file("/proc/self/gid_map", map);
            int is_v2 = strcmp(controller, "cgroup2") == 0;
            step = "mount";
            if (mount("cgroup", mountpoint, is_v2 ? "cgroup2" : "cgroup", 0, is_v2 ? NULL : controller) != 0) {
                err = errno;
            } else {
                step = "write";
                snprintf(path, sizeof path, "%s/%s", mountpoint, file);
                if (write_text_file(path, value) != 0)
                    err = errno;
            }
        }
        dprintf(pipefd[1], "%s", step);
        _exit(err);
    }
    close(pipefd[1]);
    char step[32] = "";
    ssize_t n = read(pipefd[0], step, sizeof step - 1);
    step[n > 0 ? n : 0] = '\0';
    close(pipefd[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return report(-1);
    if (!WIFEXITED(status))
        return fail_with(EINTR);
    if (WEXITSTATUS(status) != 0)
        printf("%s.step=%s\n", label, step);
    return WEXITSTATUS(status) == 0 ? report(0) : fail_with(WEXITSTATUS(status));
}

/* Detaches (double fork, new session, stdio closed) and hops: every `ms` milliseconds the
 * process forks its successor and exits, so its pid keeps changing under whoever tries to
 * kill it; ends by itself after `seconds` (a bound for the host's sake). Prints ok at once;
 * the extra arguments are markers for the host to find it by. */
static int op_hopper(const char *seconds, const char *ms_text)
{
    double deadline = now_seconds() + strtod(seconds, NULL);
    long ms = strtol(ms_text, NULL, 10);
    report(0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return report(-1);
    if (pid > 0) {
        waitpid(pid, NULL, 0);
        return 0;
    }
    setsid();
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    signal(SIGHUP, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    struct timespec pause_ts = {ms / 1000, (ms % 1000) * 1000000};
    while (now_seconds() < deadline) {
        pid = fork();
        if (pid > 0)
            _exit(0);
        if (pid < 0)
            nanosleep(&pause_ts, NULL);
        nanosleep(&pause_ts, NULL);
    }
    _exit(0);
}

static void quiet_exit(int sig)
{
    (void)sig;
    _exit(0);
}

static int usage(void)
{
    fprintf(stderr, "usage: it-probe LABEL OP ARGS...\n");
    return 2;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 4)
        return usage();
    signal(SIGALRM, quiet_exit); /* a listener's lifetime ends quietly */
    label = argv[1];
    const char *op = argv[2];
    const char *a = argv[3];
    const char *b = argc > 4 ? argv[4] : NULL;

    if (strcmp(op, "read") == 0)
        return op_read(a);
    if (strcmp(op, "ls") == 0)
        return op_ls(a);
    if (strcmp(op, "stat") == 0)
        return op_stat(a, 1);
    if (strcmp(op, "lstat") == 0)
        return op_stat(a, 0);
    if (strcmp(op, "chdir") == 0)
        return op_chdir(a);
    if (strcmp(op, "write") == 0)
        return open_write(a, O_WRONLY | O_CREAT | O_TRUNC, "probe\n");
    if (strcmp(op, "append") == 0)
        return open_write(a, O_WRONLY | O_APPEND, "probe\n");
    if (strcmp(op, "create") == 0)
        return open_write(a, O_WRONLY | O_CREAT | O_EXCL, "probe\n");
    if (strcmp(op, "truncate") == 0)
        return report(truncate(a, 0));
    if (strcmp(op, "mkdir") == 0)
        return report(mkdir(a, 0755));
    if (strcmp(op, "rmdir") == 0)
        return report(rmdir(a));
    if (strcmp(op, "unlink") == 0)
        return report(unlink(a));
    if (strcmp(op, "utime") == 0)
        return report(utimensat(AT_FDCWD, a, NULL, 0));
    if (strcmp(op, "chmod") == 0 && b)
        return report(chmod(a, (mode_t)strtoul(b, NULL, 8)));
    if (strcmp(op, "rename") == 0 && b)
        return report(rename(a, b));
    if (strcmp(op, "exchange") == 0 && b)
        return report(renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE));
    if (strcmp(op, "link") == 0 && b)
        return report(link(a, b));
    if (strcmp(op, "symlink") == 0 && b)
        return report(symlink(a, b));
    if (strcmp(op, "mknod") == 0)
        return report(mknod(a, S_IFCHR | 0666, makedev(1, 3)));
    if (strcmp(op, "fd-reopen") == 0)
        return op_fd_reopen(a, O_RDONLY);
    if (strcmp(op, "opath-reopen") == 0)
        return op_fd_reopen(a, O_PATH);
    if (strcmp(op, "opath-link") == 0 && b)
        return op_opath_link(a, b);
    if (strcmp(op, "opath-create") == 0 && b)
        return op_opath_create(a, b);
    if (strcmp(op, "ns-unmount-create") == 0 && b)
        return op_ns_unmount_create(a, b);
    if (strcmp(op, "rewrite") == 0)
        return op_rewrite(a);
    if (strcmp(op, "ptrace") == 0)
        return op_ptrace(a);
    if (strcmp(op, "mem-open") == 0)
        return op_mem_open(a);
    if (strcmp(op, "handle") == 0)
        return op_handle(a);
    if (strcmp(op, "open-handle") == 0 && b)
        return open_handle(a, b);
    if (strcmp(op, "ns-open-handle") == 0 && b)
        return op_ns_open_handle(a, b);
    if (strcmp(op, "tiocsti") == 0)
        return op_tiocsti(a);
    if (strcmp(op, "listen") == 0 && b)
        return op_listen(a, b);
    if (strcmp(op, "connect") == 0)
        return op_connect(a);
    if (strcmp(op, "unix-connect") == 0)
        return op_unix_connect(a);
    if (strcmp(op, "unix-connect-opath") == 0)
        return op_unix_connect_opath(a);
    if (strcmp(op, "unix-race") == 0 && b && argc > 5)
        return op_unix_race(a, b, argv[5]);
    if (strcmp(op, "fork-count") == 0)
        return op_fork_count(a);
    if (strcmp(op, "ns-fork-count") == 0)
        return op_ns_fork_count(a);
    if (strcmp(op, "fork-bomb") == 0)
        return op_fork_bomb(a);
    if (strcmp(op, "hog") == 0)
        return op_hog(a);
    if (strcmp(op, "spin") == 0)
        return op_spin(a, b);
    if (strcmp(op, "rlimit") == 0)
        return op_rlimit(a);
    if (strcmp(op, "raise-rlimit") == 0)
        return op_raise_rlimit(a);
    if (strcmp(op, "fsize-write") == 0 && b)
        return op_fsize_write(a, b);
    if (strcmp(op, "ns-cgroup-write") == 0 && b && argc > 6)
        return op_ns_cgroup_write(a, b, argv[5], argv[6]);
    if (strcmp(op, "hopper") == 0 && b)
        return op_hopper(a, b);
    return usage();
}
