/* shared/sibling_path.cpp — see sibling_path.h. */
#include "sibling_path.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

namespace {

/* `dir`/`rel`/`name` into `out`, each leading "../" of `rel` taken off `dir` (the directory of
 * /proc/self/exe, which has no symlinks, so textually is exactly). 0 when it does not fit or
 * climbs above "/". */
int join(char *out, size_t size, const char *dir, size_t dir_len, const char *rel, const char *name)
{
    while (strncmp(rel, "../", 3) == 0 || strcmp(rel, "..") == 0) {
        while (dir_len > 0 && dir[dir_len - 1] != '/')
            dir_len--;
        if (dir_len == 0)
            return 0;
        dir_len--; /* the slash itself; "/usr" becomes "" (the root) */
        rel += rel[2] == '/' ? 3 : 2;
    }
    const int n = snprintf(out, size, "%.*s/%s%s%s", (int)dir_len, dir, rel, *rel ? "/" : "", name);
    return n > 0 && (size_t)n < size;
}

}  // namespace

const char *th_find_sibling(const char *name, const char *rel, struct th_sibling *out)
{
    char self[PATH_MAX];
    out->beside[0] = out->installed[0] = '\0';
    out->beside_errno = out->installed_errno = 0;
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0 || (size_t)n >= sizeof self - 1) {
        out->beside_errno = n < 0 ? errno : ENAMETOOLONG;
        return NULL;
    }
    self[n] = '\0';
    const char *slash = strrchr(self, '/');
    const size_t dir_len = slash ? (size_t)(slash - self) : 0;
    if (!join(out->beside, sizeof out->beside, self, dir_len, "", name)) {
        out->beside_errno = ENAMETOOLONG;
        out->beside[0] = '\0';
    } else if (access(out->beside, X_OK) == 0) {
        return out->beside;
    } else {
        out->beside_errno = errno;
    }
    if (rel[0] == '\0' || !join(out->installed, sizeof out->installed, self, dir_len, rel, name)) {
        out->installed[0] = '\0';
        return NULL;
    }
    if (access(out->installed, X_OK) == 0)
        return out->installed;
    out->installed_errno = errno;
    return NULL;
}
