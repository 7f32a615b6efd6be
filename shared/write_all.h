/* shared/write_all.h — a whole buffer to a descriptor with libc's write(2), retried on EINTR
 * and short writes; false with errno set when it cannot all be written (a write of 0 bytes is a
 * failure, never a loop). Plain C: the static musl binaries include it. In tartaros-exec, not
 * for code that must make raw calls only (enforcer/raw.h). */
#pragma once

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

inline bool write_all(int fd, const void *buf, size_t len)
{
    const char *p = (const char *)buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}
