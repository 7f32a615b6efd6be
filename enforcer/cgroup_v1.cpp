/* enforcer/cgroup_v1.cpp — the cgroup v1 files: limits, events, and the freezer's kill.
 *
 * v1 on this machine kind: one hierarchy per controller under /sys/fs/cgroup/<controller>
 * (or co-mounted, e.g. cpu,cpuacct), each with its own copy of the run's cgroup.
 */
#include <stdlib.h>
#include <string.h>

#include "cgroup_run.h"

namespace {

constexpr unsigned kFreezeWaitMs = 1000;

/* A whole small file, or "" when it cannot be read. */
void read_text(const char *dir, const char *file, char *buf, size_t size)
{
    if (cg_read(dir, file, buf, size) < 0)
        buf[0] = '\0';
}

bool frozen(const char *dir)
{
    char state[32];
    read_text(dir, "freezer.state", state, sizeof state);
    return strncmp(state, "FROZEN", 6) == 0;
}

}  // namespace

bool cg_v1_write_memory(const char *dir, uint64_t bytes, char *why, size_t why_size)
{
    char num[24];
    cg_utoa(bytes, num);
    if (!cg_write_limit(dir, "memory.limit_in_bytes", num, why, why_size))
        return false;
    /* memory+swap = memory: no swap beyond the limit (the file exists with swap accounting) */
    return !cg_exists(dir, "memory.memsw.limit_in_bytes") ||
        cg_write_limit(dir, "memory.memsw.limit_in_bytes", num, why, why_size);
}

/* The period first: the kernel checks the quota against the period in force. */
bool cg_v1_write_cpu(const char *dir, uint32_t quota_us, uint32_t period_us, char *why, size_t why_size)
{
    char quota[24], period[24];
    cg_utoa(quota_us, quota);
    cg_utoa(period_us, period);
    return cg_write_limit(dir, "cpu.cfs_period_us", period, why, why_size) &&
        cg_write_limit(dir, "cpu.cfs_quota_us", quota, why, why_size);
}

void cg_v1_read_events(const cg_dir *dir, cgroup_events *out)
{
    char text[512];
    if (dir->controllers & cg_bit(CG_MEMORY)) {
        read_text(dir->path, "memory.oom_control", text, sizeof text);
        out->oom_kills += cg_key_value(text, "oom_kill");
        read_text(dir->path, "memory.max_usage_in_bytes", text, sizeof text);
        uint64_t peak = strtoull(text, nullptr, 10);
        out->memory_peak = peak > out->memory_peak ? peak : out->memory_peak;
    }
    if (dir->controllers & cg_bit(CG_PIDS)) {
        read_text(dir->path, "pids.events", text, sizeof text);
        out->pids_refused += cg_key_value(text, "max");
    }
}

/* Raw. While frozen no process can fork or exit, so the pids read are the ones killed; a
 * frozen task dies of SIGKILL once thawed. Without FROZEN within the bound it kills anyway
 * (cg_cleanup's loop catches what that misses). */
void cg_v1_freeze_kill(const char *dir)
{
    if (cg_write(dir, "freezer.state", "FROZEN") == 0)
        for (unsigned slept = 0; slept < kFreezeWaitMs && !frozen(dir);)
            cg_nap(&slept);
    cg_for_each_pid(dir, "cgroup.procs", cg_kill_pid, nullptr);
    cg_write(dir, "freezer.state", "THAWED");
}
