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
