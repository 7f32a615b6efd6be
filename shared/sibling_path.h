/* shared/sibling_path.h — how one TartarOS binary finds another: never through $PATH, but next
 * to itself (the build tree's bin/, or a copy of them all in one directory), else at a path
 * relative to its own directory that the build fixed for an installation (cmake/install.cmake:
 * /usr/bin/tartaros-exec runs /usr/libexec/tartaros/tartaros-proxy, whatever the prefix or
 * DESTDIR). tartaros-exec finds tartaros-proxy so, the `tartaros` launcher tartaros-cli, and
 * tartaros-cli tartaros-exec.
 * Plain C over the C library only: the static musl binaries compile it too. */
#ifndef TARTAROS_SHARED_SIBLING_PATH_H
#define TARTAROS_SHARED_SIBLING_PATH_H

#include <limits.h>

#ifdef __cplusplus
extern "C" {
#endif

struct th_sibling {
    char beside[PATH_MAX];    /* the directory of /proc/self/exe, then the name */
    int beside_errno;         /* why access(beside, X_OK) failed */
    char installed[PATH_MAX]; /* "" when there is no installed path to try */
    int installed_errno;
};

/* The path of the binary `name`: `beside` when it is executable there, else `rel` (relative to
 * this binary's directory, "" for none) joined with `name` when executable there; NULL when
 * neither is (the paths tried and their errors are in `out`, and `beside` is "" when
 * /proc/self/exe is unreadable or too long, with errno in beside_errno). */
const char *th_find_sibling(const char *name, const char *rel, struct th_sibling *out);

#ifdef __cplusplus
}
#endif

#endif
