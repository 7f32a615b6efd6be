/* enforcer/container.cpp — detecting a container, and the option a refusal there names. */
#include "container.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "syscalls.h"

namespace {

/* Reads at most size - 1 bytes of `path` into `buf`, NUL-terminated; the count, or -1. */
ssize_t read_small(const char *path, char *buf, size_t size)
{
    int fd = open_cloexec(path, O_RDONLY);
    if (fd < 0)
        return -1;
    size_t used = 0;
    while (used < size - 1) {
        ssize_t n = read(fd, buf + used, size - 1 - used);
        if (n <= 0)
            break;
        used += (size_t)n;
    }
    close(fd);
    buf[used] = '\0';
    return (ssize_t)used;
}

/* The marks runtimes leave, any of them: podman's and CRI-O's /run/.containerenv, Docker's
 * /.dockerenv, the service variables Kubernetes sets in every pod, and `container=` in the
 * environment of PID 1 (systemd-nspawn, LXC, podman). Each alone can mislead (a virtual
 * machine made from a Docker image keeps /.dockerenv), which is why container_hint also
 * wants the sign of the cause itself. */
bool detect_container()
{
    if (access("/run/.containerenv", F_OK) == 0 || access("/.dockerenv", F_OK) == 0)
        return true;
    if (getenv("KUBERNETES_SERVICE_HOST") != nullptr)
        return true;
    static char environ_text[8192];
    ssize_t n = read_small("/proc/1/environ", environ_text, sizeof environ_text);
    return n > 0 && environ_names_container(environ_text, (size_t)n);
}

bool in_container()
{
    static int known = -1;
    if (known < 0)
        known = detect_container() ? 1 : 0;
    return known == 1;
}

bool seccomp_filtered_already()
{
    static char status[4096];
    return read_small("/proc/self/status", status, sizeof status) > 0 && status_has_seccomp_filter(status);
}

bool read_only_fs(const char *path)
{
    struct statvfs fs;
    return statvfs(path, &fs) == 0 && (fs.f_flag & ST_RDONLY);
}

/* cgroup v2 at /sys/fs/cgroup, or v1 hierarchies beneath a tmpfs there. */
bool cgroupfs_read_only()
{
    return read_only_fs("/sys/fs/cgroup") || read_only_fs("/sys/fs/cgroup/memory") ||
        read_only_fs("/sys/fs/cgroup/pids") || read_only_fs("/sys/fs/cgroup/cpu");
}

}  // namespace

bool environ_names_container(const char *text, size_t len)
{
    constexpr char kName[] = "container=";
    constexpr size_t kNameLen = sizeof kName - 1;
    for (size_t i = 0; i < len;) {
        const char *entry = text + i;
        size_t entry_len = strnlen(entry, len - i);
        if (entry_len > kNameLen && memcmp(entry, kName, kNameLen) == 0)
            return true;
        i += entry_len + 1;
    }
    return false;
}

bool status_has_seccomp_filter(const char *status)
{
    for (const char *line = status; line != nullptr && *line != '\0';) {
        if (strncmp(line, "Seccomp:", 8) == 0) {
            const char *v = line + 8;
            while (*v == ' ' || *v == '\t')
                v++;
            return *v == '2';
        }
        line = strchr(line, '\n');
        if (line != nullptr)
            line++;
    }
    return false;
}

const char *container_hint(container_fix fix)
{
    if (fix == FIX_NONE || !in_container())
        return "";
    switch (fix) {
    case FIX_PROC_MASKS:
        return "; in a container: podman run --security-opt unmask=/proc/*, docker run --security-opt "
               "systempaths=unconfined, Kubernetes procMount: Unmasked (docs/containers.md)";
    case FIX_SECCOMP:
        if (!seccomp_filtered_already())
            return "";
        return "; in a container: podman/docker run --security-opt seccomp=unconfined (or a profile that allows "
               "namespaces and mounts), Kubernetes seccompProfile (docs/containers.md)";
    case FIX_CGROUPS:
        if (!cgroupfs_read_only())
            return "";
        return "; in a container: limit the container itself (podman/docker run --memory, --cpus, --pids-limit; "
               "Kubernetes resources.limits) and run without this limit in the policy (docs/containers.md)";
    default: return "";
    }
}
