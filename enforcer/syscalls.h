/* enforcer/syscalls.h — thin wrappers for the system calls musl has numbers but no functions for.
 * Each returns what syscall(2) returns: the result, or -1 with errno set.
 */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "kuapi.h"

/* open(2) with O_CLOEXEC in one system call: musl's open() follows it with an
 * fcntl(F_SETFD) for kernels that ignored the flag; its openat() does not. */
inline int open_cloexec(const char *path, int flags)
{
    return openat(AT_FDCWD, path, flags | O_CLOEXEC);
}

inline int sys_open_tree(int dirfd, const char *path, unsigned flags)
{
    return (int)syscall(SYS_open_tree, dirfd, path, flags);
}

inline int sys_move_mount(int from_dirfd, const char *from_path, int to_dirfd, const char *to_path, unsigned flags)
{
    return (int)syscall(SYS_move_mount, from_dirfd, from_path, to_dirfd, to_path, flags);
}

inline int sys_mount_setattr(int dirfd, const char *path, unsigned flags, kuapi::mount_attr *attr)
{
    return (int)syscall(SYS_mount_setattr, dirfd, path, flags, attr, sizeof *attr);
}

inline int sys_fsopen(const char *fstype, unsigned flags)
{
    return (int)syscall(SYS_fsopen, fstype, flags);
}

inline int sys_fsconfig(int fsfd, unsigned cmd, const char *key, const char *value, int aux)
{
    return (int)syscall(SYS_fsconfig, fsfd, cmd, key, value, aux);
}

inline int sys_fsmount(int fsfd, unsigned flags, unsigned attr_flags)
{
    return (int)syscall(SYS_fsmount, fsfd, flags, attr_flags);
}

/* openat2, tried again on EAGAIN: with RESOLVE_BENEATH or RESOLVE_IN_ROOT the kernel gives up
 * on a path that climbs ("..", a relative symlink) when a rename or a mount happened anywhere
 * during the walk, which another sandbox starting at the same moment makes likely. */
inline int sys_openat2(int dirfd, const char *path, kuapi::open_how *how)
{
    constexpr int kTries = 64;
    int fd = -1;
    for (int i = 0; i < kTries; i++) {
        fd = (int)syscall(SYS_openat2, dirfd, path, how, sizeof *how);
        if (fd >= 0 || errno != EAGAIN)
            break;
    }
    return fd;
}

inline int sys_pivot_root(const char *new_root, const char *put_old)
{
    return (int)syscall(SYS_pivot_root, new_root, put_old);
}

inline int sys_close_range(unsigned first, unsigned last, unsigned flags)
{
    return (int)syscall(SYS_close_range, first, last, flags);
}

inline int sys_capget(kuapi::cap_header *header, kuapi::cap_data *data)
{
    return (int)syscall(SYS_capget, header, data);
}

inline int sys_capset(kuapi::cap_header *header, const kuapi::cap_data *data)
{
    return (int)syscall(SYS_capset, header, data);
}

inline int sys_landlock_create_ruleset(const kuapi::landlock_ruleset_attr *attr, size_t size, unsigned flags)
{
    return (int)syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

inline int sys_landlock_restrict_self(int ruleset_fd, unsigned flags)
{
    return (int)syscall(SYS_landlock_restrict_self, ruleset_fd, flags);
}

inline long sys_getdents64(int fd, void *buf, size_t size)
{
    return syscall(SYS_getdents64, fd, buf, size);
}

inline int sys_statx(int dirfd, const char *path, int flags, unsigned mask, kuapi::statx_buf *buf)
{
    return (int)syscall(SYS_statx, dirfd, path, flags, mask, buf);
}
