/* enforcer/raw.h — system calls that leave errno alone, for code that shares memory.
 *
 * The supervisor, init and the command (until it executes) share one address space and one
 * thread pointer (CLONE_VM), so one errno: a libc call that fails in one process can change
 * what another just read from errno. Whichever of them runs while another runs C code makes
 * only these calls: each returns the kernel's result, a negative errno on failure, and
 * touches no memory but its arguments.
 */
#pragma once

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "kuapi.h"

inline long raw_syscall4(long nr, long a, long b, long c, long d)
{
    register long r10 __asm__("r10") = d;
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return ret;
}

inline long raw_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}

inline long raw_syscall2(long nr, long a, long b)
{
    return raw_syscall4(nr, a, b, 0, 0);
}

inline long raw_read(int fd, void *buf, size_t len)
{
    return raw_syscall4(SYS_read, fd, (long)buf, (long)len, 0);
}

inline long raw_close(int fd)
{
    return raw_syscall2(SYS_close, fd, 0);
}

/* Sleeps while *word == value (a spurious or early return is for the caller to loop on). */
inline void raw_futex_wait(const void *word, uint32_t value)
{
    raw_syscall4(SYS_futex, (long)word, kuapi::FUTEX_WAIT, value, 0);
}

/* Sleeps while *a == value_a and *b == value_b, until either is woken; -ENOSYS before
 * Linux 5.16. A spurious or early return is for the caller to loop on. */
inline long raw_futex_wait_either(const uint32_t *a, uint32_t value_a, const uint32_t *b, uint32_t value_b)
{
    kuapi::futex_waitv w[2] = {{value_a, (uint64_t)(uintptr_t)a, kuapi::FUTEX2_SIZE_U32, 0},
                               {value_b, (uint64_t)(uintptr_t)b, kuapi::FUTEX2_SIZE_U32, 0}};
    return raw_syscall6(kuapi::SYS_FUTEX_WAITV, (long)w, 2, 0, 0, 0, 0);
}

/* FUTEX_WAIT for at most `ms` milliseconds. */
inline void raw_futex_wait_ms(const void *word, uint32_t value, long ms)
{
    struct {
        long sec, nsec;
    } timeout = {ms / 1000, (ms % 1000) * 1000000};
    raw_syscall4(SYS_futex, (long)word, kuapi::FUTEX_WAIT, value, (long)&timeout);
}

inline void raw_futex_wake(const void *word)
{
    raw_syscall4(SYS_futex, (long)word, kuapi::FUTEX_WAKE, 1, 0);
}

/* waitpid(pid, status, 0), retried when a signal interrupts it; the pid or -errno. */
inline long raw_waitpid(pid_t pid, int *status)
{
    long ret;
    do
        ret = raw_syscall4(SYS_wait4, pid, (long)status, 0, 0);
    while (ret == -EINTR);
    return ret;
}

/* Raw calls for the cgroup warden (cgroup_warden.cpp), which runs on the supervisor's memory
 * and may outlive it. Each returns the kernel's result or -errno. */
inline long raw_syscall3(long nr, long a, long b, long c)
{
    return raw_syscall4(nr, a, b, c, 0);
}

inline long raw_open(const char *path, int flags)
{
    return raw_syscall4(SYS_openat, -100 /* AT_FDCWD */, (long)path, flags, 0);
}

inline long raw_write(int fd, const void *buf, size_t len)
{
    return raw_syscall3(SYS_write, fd, (long)buf, (long)len);
}

/* unlinkat(AT_FDCWD, path, flags): flags 0 for a file, AT_REMOVEDIR (0x200) for a directory. */
inline long raw_unlink(const char *path, int flags)
{
    return raw_syscall3(SYS_unlinkat, -100, (long)path, flags);
}

/* faccessat(AT_FDCWD, path, mode) */
inline long raw_access(const char *path, int mode)
{
    return raw_syscall3(SYS_faccessat, -100, (long)path, mode);
}

inline long raw_kill(pid_t pid, int sig)
{
    return raw_syscall2(SYS_kill, pid, sig);
}

inline void raw_sleep_ms(unsigned ms)
{
    struct {
        long sec, nsec;
    } ts = {(long)(ms / 1000), (long)(ms % 1000) * 1000000L};
    raw_syscall2(SYS_nanosleep, (long)&ts, 0);
}

/* poll(2) on one fd; the number of ready fds (0 or 1) or -errno. */
inline long raw_poll1(int fd, short events, int timeout_ms)
{
    struct {
        int fd;
        short events, revents;
    } p = {fd, events, 0};
    return raw_syscall3(SYS_poll, (long)&p, 1, timeout_ms);
}

inline long raw_fcntl(int fd, int cmd, long arg)
{
    return raw_syscall3(SYS_fcntl, fd, cmd, arg);
}

inline long raw_close_range(unsigned first, unsigned last)
{
    return raw_syscall3(SYS_close_range, first, last, 0);
}

inline long raw_setsid()
{
    return raw_syscall2(SYS_setsid, 0, 0);
}

[[noreturn]] inline void raw_exit_group(int code)
{
    for (;;)
        raw_syscall2(SYS_exit_group, code, 0);
}
