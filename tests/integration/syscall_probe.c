/* tests/integration/syscall_probe.c — one raw system call per run, for the seccomp tests.
 *
 * Usage: it-syscalls LABEL OP [ARGS...]
 * Prints `LABEL=ok` when the call succeeded, `LABEL=ENAME` (the errno name) when it failed,
 * sometimes `LABEL.data=...`, and `LABEL.step=...` when an operation of several calls failed
 * before its last one. `int80` and `x32` print nothing more once the filter has killed the
 * process: the shell sees status 159 (128 + SIGSYS).
 *
 * Every call goes through syscall(2) with its full 64-bit arguments, so the libc cannot
 * reinterpret or emulate it (glibc falls back from clone3 to clone, for instance). The
 * arguments are harmless: invalid flags, fd -1, NULL pointers, paths that do not exist, a
 * bad reboot magic. Wherever possible they are chosen so that the kernel itself, without a
 * filter, answers something other than the filter's EPERM (EINVAL, EBADF, EFAULT, ENOSYS,
 * or success), so a control run without the hardening can show that the call reaches the
 * kernel. Linked statically: the dynamic loader's own calls cannot get in the way, and the
 * binary runs under any read scope.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/sched.h>
#include <linux/userfaultfd.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* Numbers newer than the C library's headers (x86_64). */
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_quotactl_fd
#define SYS_quotactl_fd 443
#endif
#ifndef SYS_open_tree_attr
#define SYS_open_tree_attr 467
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

#define X32_BIT      0x40000000L
#define NO_SUCH_PATH "/tartaros-it-no-such-dir/x"

static const char *label;

/* A raw call's result: ok for any non-negative value, else the errno name. */
static int report(long rc)
{
    if (rc >= 0) {
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

static int fail_at(const char *step)
{
    int saved = errno;
    printf("%s.step=%s\n", label, step);
    return fail_with(saved);
}

/* Numbers are read in any C base (0x... for hex), as the full 64 bits. */
static unsigned long num(const char *text)
{
    return strtoul(text, NULL, 0);
}

/* A descriptor the call returned is closed: only the answer matters. */
static long closing(long fd)
{
    if (fd >= 0)
        close((int)fd);
    return fd;
}

/* --- the hardening list, one harmless call each ------------------------------------ */

static long c_process_vm_readv(void)
{
    char src[8] = "source", dst[8];
    struct iovec local = {dst, sizeof dst}, remote = {src, sizeof src};
    return syscall(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 0);
}

static long c_process_vm_writev(void)
{
    char src[8] = "source", dst[8];
    struct iovec local = {src, sizeof src}, remote = {dst, sizeof dst};
    return syscall(SYS_process_vm_writev, getpid(), &local, 1, &remote, 1, 0);
}

/* Unknown command: EINVAL. */
static long c_bpf(void)
{
    return syscall(SYS_bpf, 0x7fffffff, NULL, 0);
}
/* No attributes: EFAULT. */
static long c_perf_event_open(void)
{
    return syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
}
/* User-mode-only faults need no privilege: a descriptor. */
static long c_userfaultfd(void)
{
    return closing(syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY));
}
/* Unknown operation: EOPNOTSUPP. */
static long c_keyctl(void)
{
    return syscall(SYS_keyctl, -1L, 0, 0, 0, 0);
}
static long c_add_key(void)
{
    return syscall(SYS_add_key, NULL, NULL, NULL, 0, 0);
}
static long c_request_key(void)
{
    return syscall(SYS_request_key, NULL, NULL, NULL, 0);
}
/* Invalid flags and segment count: refused even with CAP_SYS_BOOT. */
static long c_kexec_load(void)
{
    return syscall(SYS_kexec_load, 0, ~0UL, NULL, ~0UL);
}
static long c_kexec_file_load(void)
{
    return syscall(SYS_kexec_file_load, -1, -1, 0, NULL, ~0UL);
}
static long c_init_module(void)
{
    return syscall(SYS_init_module, NULL, 0, "");
}
static long c_finit_module(void)
{
    return syscall(SYS_finit_module, -1, "", 0);
}
static long c_delete_module(void)
{
    return syscall(SYS_delete_module, "tartaros_it_no_such_module", O_NONBLOCK);
}
static long c_mount(void)
{
    return syscall(SYS_mount, "none", NO_SUCH_PATH, "tmpfs", 0, NULL);
}
/* Unknown flag: EINVAL before any lookup. */
static long c_umount2(void)
{
    return syscall(SYS_umount2, NO_SUCH_PATH, 0x80000000L);
}
static long c_pivot_root(void)
{
    return syscall(SYS_pivot_root, NO_SUCH_PATH, NO_SUCH_PATH);
}
static long c_open_tree(void)
{
    return closing(syscall(SYS_open_tree, -1, "", ~0U));
}
static long c_move_mount(void)
{
    return syscall(SYS_move_mount, -1, "", -1, "", ~0U);
}
static long c_fsopen(void)
{
    return closing(syscall(SYS_fsopen, "tartaros_it_no_such_fs", 0));
}
static long c_fsconfig(void)
{
    return syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0);
}
static long c_fsmount(void)
{
    return closing(syscall(SYS_fsmount, -1, 0, 0));
}
static long c_fspick(void)
{
    return closing(syscall(SYS_fspick, -1, "", ~0U));
}
static long c_mount_setattr(void)
{
    return syscall(SYS_mount_setattr, -1, "", ~0U, NULL, 0);
}
static long c_open_tree_attr(void)
{
    return closing(syscall(SYS_open_tree_attr, -1, "", ~0U, NULL, 0));
}
/* unshare(0) changes nothing and succeeds. */
static long c_unshare(void)
{
    return syscall(SYS_unshare, 0);
}
static long c_setns(void)
{
    return syscall(SYS_setns, -1, 0);
}
static long c_open_by_handle_at(void)
{
    return closing(syscall(SYS_open_by_handle_at, -1, NULL, 0));
}
/* Unknown flags: EINVAL. */
static long c_name_to_handle_at(void)
{
    return syscall(SYS_name_to_handle_at, AT_FDCWD, "/", NULL, NULL, 0x80000000);
}
static long c_acct(void)
{
    return syscall(SYS_acct, NO_SUCH_PATH);
}
static long c_swapon(void)
{
    return syscall(SYS_swapon, NO_SUCH_PATH, 0);
}
static long c_swapoff(void)
{
    return syscall(SYS_swapoff, NO_SUCH_PATH);
}
/* No magic numbers: EINVAL (or EPERM without CAP_SYS_BOOT); never a reboot. */
static long c_reboot(void)
{
    return syscall(SYS_reboot, 0, 0, 0, NULL);
}
/* SYSLOG_ACTION_SIZE_BUFFER: reads the size of the kernel log. */
static long c_syslog(void)
{
    return syscall(SYS_syslog, 10, NULL, 0);
}
/* The current level: changes nothing. */
static long c_iopl(void)
{
    return syscall(SYS_iopl, 0);
}
/* An empty range: EINVAL. */
static long c_ioperm(void)
{
    return syscall(SYS_ioperm, 0, 0, 0);
}
/* No device: ENODEV. */
static long c_quotactl(void)
{
    return syscall(SYS_quotactl, 0, NULL, 0, NULL);
}
static long c_quotactl_fd(void)
{
    return syscall(SYS_quotactl_fd, -1, 0, 0, NULL);
}
/* Baseline: io_uring. Without a filter: EBADF. */
static long c_io_uring_enter(void)
{
    return syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0);
}
static long c_io_uring_register(void)
{
    return syscall(SYS_io_uring_register, -1, 0, NULL, 0);
}

struct simple_call {
    const char *op;
    long (*call)(void);
};

static const struct simple_call simple_calls[] = {
    {"process_vm_readv", c_process_vm_readv},
    {"process_vm_writev", c_process_vm_writev},
    {"bpf", c_bpf},
    {"perf_event_open", c_perf_event_open},
    {"userfaultfd", c_userfaultfd},
    {"keyctl", c_keyctl},
    {"add_key", c_add_key},
    {"request_key", c_request_key},
    {"kexec_load", c_kexec_load},
    {"kexec_file_load", c_kexec_file_load},
    {"init_module", c_init_module},
    {"finit_module", c_finit_module},
    {"delete_module", c_delete_module},
    {"mount", c_mount},
    {"umount2", c_umount2},
    {"pivot_root", c_pivot_root},
    {"open_tree", c_open_tree},
    {"move_mount", c_move_mount},
    {"fsopen", c_fsopen},
    {"fsconfig", c_fsconfig},
    {"fsmount", c_fsmount},
    {"fspick", c_fspick},
    {"mount_setattr", c_mount_setattr},
    {"open_tree_attr", c_open_tree_attr},
    {"unshare", c_unshare},
    {"setns", c_setns},
    {"open_by_handle_at", c_open_by_handle_at},
    {"name_to_handle_at", c_name_to_handle_at},
    {"acct", c_acct},
    {"swapon", c_swapon},
    {"swapoff", c_swapoff},
    {"reboot", c_reboot},
    {"syslog", c_syslog},
    {"iopl", c_iopl},
    {"ioperm", c_ioperm},
    {"quotactl", c_quotactl},
    {"quotactl_fd", c_quotactl_fd},
    {"io_uring_enter", c_io_uring_enter},
    {"io_uring_register", c_io_uring_register},
};

/* --- processes ---------------------------------------------------------------------- */

/* Waits for a child that exits at once; its status must be 0. */
static int reap(long pid)
{
    int status = 0;
    if (waitpid((pid_t)pid, &status, __WALL) < 0)
        return report(-1);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return fail_with(ECHILD);
    return report(0);
}

/* clone with FLAGS exactly as given (the exit signal is in the low byte, SIGCHLD = 0x11);
 * no new stack, so the child runs on a copy of this one and exits at once. */
static int op_clone(unsigned long flags)
{
    long pid = syscall(SYS_clone, flags, NULL, NULL, NULL, 0);
    if (pid == 0)
        _exit(0);
    if (pid < 0)
        return report(-1);
    return reap(pid);
}

static int op_clone3(unsigned long flags)
{
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.flags = flags;
    args.exit_signal = SIGCHLD;
    long pid = syscall(SYS_clone3, &args, sizeof args);
    if (pid == 0)
        _exit(0);
    if (pid < 0)
        return report(-1);
    return reap(pid);
}

/* Attaches to PID (then detaches): ok means the caller could read and write its memory. */
static int attach(pid_t pid)
{
    if (syscall(SYS_ptrace, PTRACE_ATTACH, pid, NULL, NULL) != 0)
        return report(-1);
    waitpid(pid, NULL, __WALL);
    syscall(SYS_ptrace, PTRACE_DETACH, pid, NULL, NULL);
    return report(0);
}

/* A sleeping child of our own as the target (a real sibling is awkward to name inside a
 * PID namespace; `ptrace PID` takes one the shell started). */
static int op_ptrace_child(void)
{
    pid_t child = fork();
    if (child < 0)
        return report(-1);
    if (child == 0) {
        alarm(10);
        for (;;)
            pause();
    }
    int rc = attach(child);
    kill(child, SIGKILL);
    waitpid(child, NULL, __WALL);
    return rc;
}

/* personality(VALUE); the data is the previous persona. */
static int op_personality(unsigned long value)
{
    long old = syscall(SYS_personality, value);
    if (old < 0)
        return report(-1);
    report(0);
    printf("%s.data=0x%lx\n", label, (unsigned long)old);
    return 0;
}

/* unshare(CLONE_NEWUSER), map ourselves to root, a mount namespace, mount a tmpfs: with
 * every capability of the new namespace, the first step that fails is reported. */
static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int saved = errno;
    close(fd);
    errno = saved;
    return n < 0 ? -1 : 0;
}

static int op_userns_mount(void)
{
    char map[64];
    unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();
    if (syscall(SYS_unshare, CLONE_NEWUSER) != 0)
        return fail_at("unshare-user");
    snprintf(map, sizeof map, "0 %u 1", uid);
    if (write_file("/proc/self/uid_map", map) != 0)
        return fail_at("uid_map");
    write_file("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "0 %u 1", gid);
    if (write_file("/proc/self/gid_map", map) != 0)
        return fail_at("gid_map");
    if (syscall(SYS_unshare, CLONE_NEWNS) != 0)
        return fail_at("unshare-mount");
    if (syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, NULL) != 0)
        return fail_at("mount");
    return report(0);
}

/* --- terminals ---------------------------------------------------------------------- */

/* ioctl(TARGET, CMD, buf): TARGET is a descriptor number or a path (opened without becoming
 * the controlling terminal). CMD keeps its 64 bits: the kernel reads only the low 32. */
static int op_ioctl(const char *target, unsigned long cmd)
{
    int fd;
    if (target[0] >= '0' && target[0] <= '9') {
        fd = (int)num(target);
    } else {
        fd = open(target, O_RDWR | O_NOCTTY);
        if (fd < 0)
            return fail_at("open");
    }
    char buf[64] = "\n"; /* TIOCSTI pushes an empty line, should it get through */
    return report(syscall(SYS_ioctl, fd, cmd, buf));
}

/* --- sockets ------------------------------------------------------------------------ */

static int op_socket(int pair, const char *family, const char *type, const char *proto)
{
    if (!pair)
        return report(closing(syscall(SYS_socket, num(family), num(type), num(proto))));
    int sv[2];
    long rc = syscall(SYS_socketpair, num(family), num(type), num(proto), sv);
    if (rc == 0) {
        close(sv[0]);
        close(sv[1]);
    }
    return report(rc);
}

/* --- other ABIs and numbers -------------------------------------------------------- */

/* A 32-bit (i386) call through int $0x80 from this 64-bit process: the filter sees
 * AUDIT_ARCH_I386. The kernel returns -errno in eax. */
static int op_int80(long nr)
{
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr) : "memory", "r8", "r9", "r10", "r11");
    if (ret < 0 && ret > -4096)
        return fail_with((int)-ret);
    report(0);
    printf("%s.data=%ld\n", label, ret);
    return 0;
}

/* An x32 number: the 64-bit entry with bit 30 set. */
static int op_x32(long nr)
{
    return report(syscall(nr | X32_BIT, 0, 0, 0, 0, 0, 0));
}

static int op_nr(long nr)
{
    return report(syscall(nr, 0, 0, 0, 0, 0, 0));
}

/* --- modes: set-user-ID and set-group-ID bits ---------------------------------------- */

/* CALL gives PATH the 64-bit MODE: a creating call (open, openat, creat: a regular file;
 * mknod, mknodat: MODE as given, type bits included) or a changing one (chmod, fchmod and
 * fchmodat/fchmodat2 on PATH, proc-chmod through /proc/self/fd of a descriptor of PATH). */
static int op_mode(const char *call, const char *path, uint64_t mode)
{
    const int wr = O_WRONLY | O_CREAT | O_CLOEXEC;
    if (strcmp(call, "open") == 0)
        return report(syscall(SYS_open, path, wr, mode));
    if (strcmp(call, "openat") == 0)
        return report(syscall(SYS_openat, AT_FDCWD, path, wr, mode));
    if (strcmp(call, "creat") == 0)
        return report(syscall(SYS_creat, path, mode));
    if (strcmp(call, "mknod") == 0)
        return report(syscall(SYS_mknod, path, mode, 0));
    if (strcmp(call, "mknodat") == 0)
        return report(syscall(SYS_mknodat, AT_FDCWD, path, mode, 0));
    if (strcmp(call, "chmod") == 0)
        return report(syscall(SYS_chmod, path, mode));
    if (strcmp(call, "fchmodat") == 0)
        return report(syscall(SYS_fchmodat, AT_FDCWD, path, mode));
    if (strcmp(call, "fchmodat2") == 0)
        return report(syscall(SYS_fchmodat2, AT_FDCWD, path, mode, 0));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return report(-1);
    long rc = -1;
    if (strcmp(call, "fchmod") == 0) {
        rc = syscall(SYS_fchmod, fd, mode);
    } else if (strcmp(call, "proc-chmod") == 0) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        rc = syscall(SYS_chmod, proc, mode);
    } else {
        errno = EINVAL;
    }
    int err = errno;
    close(fd);
    errno = err;
    return report(rc);
}

/* openat2 creating PATH with MODE: the mode lies in memory, in struct open_how. */
static int op_openat2(const char *path, uint64_t mode)
{
    struct {
        uint64_t flags, mode, resolve;
    } how = {O_WRONLY | O_CREAT | O_CLOEXEC, mode, 0};
    return report(syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how));
}

/* --- io_uring ----------------------------------------------------------------------- */

/* An IORING_OP_OPENAT of PATH through a fresh ring, then its first line read through the
 * returned descriptor: an open the filter never sees as a syscall. */
static int op_io_uring_openat(const char *path)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    long ring = syscall(SYS_io_uring_setup, 4, &p);
    if (ring < 0)
        return fail_at("setup");
    int fd = (int)ring;
    size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    if (p.features & IORING_FEAT_SINGLE_MMAP)
        sq_size = cq_size = sq_size > cq_size ? sq_size : cq_size;
    char *sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
    if (sq == MAP_FAILED)
        return fail_at("mmap-sq");
    char *cq = sq;
    if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
        cq = mmap(NULL, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
        if (cq == MAP_FAILED)
            return fail_at("mmap-cq");
    }
    struct io_uring_sqe *sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
                                     MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
    if (sqes == MAP_FAILED)
        return fail_at("mmap-sqes");

    unsigned *sq_tail = (unsigned *)(sq + p.sq_off.tail);
    unsigned index = *sq_tail & *(unsigned *)(sq + p.sq_off.ring_mask);
    struct io_uring_sqe *sqe = &sqes[index];
    memset(sqe, 0, sizeof *sqe);
    sqe->opcode = IORING_OP_OPENAT;
    sqe->fd = AT_FDCWD;
    sqe->addr = (uint64_t)(uintptr_t)path;
    sqe->open_flags = O_RDONLY;
    ((unsigned *)(sq + p.sq_off.array))[index] = index;
    __atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
    if (syscall(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
        return fail_at("enter");

    unsigned head = __atomic_load_n((unsigned *)(cq + p.cq_off.head), __ATOMIC_ACQUIRE);
    struct io_uring_cqe *cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
    int res = cqes[head & *(unsigned *)(cq + p.cq_off.ring_mask)].res;
    if (res < 0) {
        errno = -res;
        return fail_at("openat");
    }
    char buf[128];
    ssize_t n = read(res, buf, sizeof buf - 1);
    if (n < 0)
        return fail_at("read");
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    report(0);
    printf("%s.data=%s\n", label, buf);
    return 0;
}

/* --- main --------------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr,
            "usage: it-syscalls LABEL OP [ARGS]\n"
            "  OP: a syscall of the hardening list by name (bpf, mount, ...), or\n"
            "  clone FLAGS | clone3 [FLAGS] | ptrace_child | ptrace PID | personality VALUE |\n"
            "  userns_mount | ioctl FD|PATH CMD | socket|socketpair FAMILY TYPE PROTO |\n"
            "  int80 NR | x32 NR | nr NR | io_uring_openat PATH |\n"
            "  mode open|openat|creat|mknod|mknodat|chmod|fchmod|fchmodat|fchmodat2|proc-chmod PATH MODE |\n"
            "  openat2 PATH MODE\n");
    return 2;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 3)
        return usage();
    /* A process the filter kills with SIGSYS would dump core into the working directory. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    label = argv[1];
    const char *op = argv[2];
    const char *a = argc > 3 ? argv[3] : NULL;

    for (size_t i = 0; i < sizeof simple_calls / sizeof simple_calls[0]; i++)
        if (strcmp(op, simple_calls[i].op) == 0)
            return report(simple_calls[i].call());
    if (strcmp(op, "clone3") == 0)
        return op_clone3(a ? num(a) : 0);
    if (strcmp(op, "ptrace_child") == 0)
        return op_ptrace_child();
    if (strcmp(op, "userns_mount") == 0)
        return op_userns_mount();
    if (!a)
        return usage();
    if (strcmp(op, "clone") == 0)
        return op_clone(num(a));
    if (strcmp(op, "ptrace") == 0)
        return attach((pid_t)num(a));
    if (strcmp(op, "personality") == 0)
        return op_personality(num(a));
    if (strcmp(op, "int80") == 0)
        return op_int80((long)num(a));
    if (strcmp(op, "x32") == 0)
        return op_x32((long)num(a));
    if (strcmp(op, "nr") == 0)
        return op_nr((long)num(a));
    if (strcmp(op, "io_uring_openat") == 0)
        return op_io_uring_openat(a);
    if (strcmp(op, "mode") == 0 && argc > 5)
        return op_mode(a, argv[4], num(argv[5]));
    if (strcmp(op, "openat2") == 0 && argc > 4)
        return op_openat2(a, num(argv[4]));
    if (strcmp(op, "ioctl") == 0 && argc > 4)
        return op_ioctl(a, num(argv[4]));
    if (strcmp(op, "socket") == 0 && argc > 5)
        return op_socket(0, a, argv[4], argv[5]);
    if (strcmp(op, "socketpair") == 0 && argc > 5)
        return op_socket(1, a, argv[4], argv[5]);
    return usage();
}
