/* enforcer/container.h — a refusal in a container names the container option that lifts it.
 *
 * A default container (podman, Docker, a Kubernetes pod) keeps from tartaros-exec what a
 * sandbox needs: a masked /proc forbids the fresh procfs, the runtime's seccomp profile may
 * refuse namespaces and mounts, the cgroup tree is read-only (docs/containers.md). When a
 * --strict refusal has exactly such a cause and this process runs in a container, the
 * refusal line ends with the option to add. Outside a container, or for another cause,
 * nothing is added: the hint is never a guess.
 *
 * Evaluated only on a refusal, in the supervisor (which sees the container's own /run and
 * /proc): no start-up cost. A sandbox-side refusal carries its cause to the supervisor in
 * the status record (report.h), and the supervisor adds the hint when it prints the line.
 */
#pragma once

#include <stddef.h>

enum container_fix : int {
    FIX_NONE = 0,
    FIX_PROC_MASKS = 1, /* procfs refused (EPERM): the runtime's masked and read-only /proc paths */
    FIX_SECCOMP = 2,    /* a namespace, mount or Landlock call refused (EPERM) under a filter of the runtime's */
    FIX_CGROUPS = 3,    /* a limit needs a cgroup, and the cgroup tree is mounted read-only */
};

/* "; in a container: <options> (docs/containers.md)" when this process runs in a container
 * and the cause's own sign is there (FIX_SECCOMP: a seccomp filter was installed before
 * tartaros-exec's; FIX_CGROUPS: cgroupfs is read-only); "" otherwise. */
const char *container_hint(container_fix fix);

/* The signs, separated for the unit tests. */
/* `text` (NUL-separated, as /proc/1/environ) sets `container=` to something. */
bool environ_names_container(const char *text, size_t len);
/* /proc/self/status text says "Seccomp:" 2 (a filter). */
bool status_has_seccomp_filter(const char *status);
