/* enforcer/cgroup.cpp — creating the run's cgroups, attaching init, reading what the kernel
 * counted, and finishing (cgroup.h). The version-specific files are written by
 * cgroup_v1.cpp / cgroup_v2.cpp; removal and the warden are in cgroup_warden.cpp.
 */
#include "cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "cgroup_run.h"
#include "raw.h"
#include "report.h"

namespace {

/* The controllers whose limits are wanted. */
unsigned wanted_limits(const cgroup_wants *wants)
{
    return (wants->pids_max ? cg_bit(CG_PIDS) : 0) | (wants->memory_max ? cg_bit(CG_MEMORY) : 0) |
        (wants->cpu_quota_us ? cg_bit(CG_CPU) : 0);
}

/* Which controllers get a cgroup: the wanted limits, the freezer whenever anything is made,
 * and for a bare kill switch without a freezer the first hierarchy there is. */
bool choose(const cgroup_probe *probe, const cgroup_wants *wants, unsigned *mask, char *why, size_t why_size)
{
    unsigned m = wanted_limits(wants);
    for (int c = 0; c < CG_CONTROLLER_COUNT; c++)
        if ((m & cg_bit(c)) && probe->version[c] == 0) {
            snprintf(why, why_size, "no cgroup for the %s limit: %s", kCgName[c], probe->why_not[c]);
            return false;
        }
    if ((m != 0 || wants->kill_switch) && probe->version[CG_FREEZER] != 0)
        m |= cg_bit(CG_FREEZER);
    for (int c = 0; m == 0 && wants->kill_switch && c < CG_FREEZER; c++)
        if (probe->version[c] != 0)
            m |= cg_bit(c);
    if (m == 0 && wants->kill_switch) {
        snprintf(why, why_size, "no cgroup for the kill switch: %s", probe->why_not[CG_FREEZER]);
        return false;
    }
    *mask = m;
    return true;
}

/* One directory per distinct parent: v2 controllers share one, co-mounted v1 ones too. */
void plan_dirs(cgroup_run *run, const cgroup_probe *probe, unsigned mask, pid_t self)
{
    char name[32];
    snprintf(name, sizeof name, "/tartaros-%d", (int)self);
    for (int c = 0; c < CG_CONTROLLER_COUNT; c++) {
        if (!(mask & cg_bit(c)))
            continue;
        char *path = arena_concat3(probe->parent[c], name, "");
        int i = 0;
        while (i < run->ndirs && strcmp(run->dirs[i].path, path) != 0)
            i++;
        if (i == run->ndirs)
            run->dirs[run->ndirs++] = {path, probe->version[c], 0};
        run->dirs[i].controllers |= cg_bit(c);
    }
}

/* The fake tree's stand-in for the files cgroupfs gives a new cgroup (cgroup_host). */
bool add_fake_files(const char *dir, const char *const *fake_files, char *why, size_t why_size)
{
    for (const char *const *f = fake_files; f && *f; f++) {
        const char *eq = strchr(*f, '=');
        size_t name_len = eq ? (size_t)(eq - *f) : strlen(*f);
        char path[kCgPathMax];
        snprintf(path, sizeof path, "%s/%.*s", dir, (int)name_len, *f);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        const char *text = eq ? eq + 1 : "";
        bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
        if (fd >= 0)
            close(fd);
        if (!ok) {
            snprintf(why, why_size, "cannot create %s: %s", path, strerror(errno));
            return false;
        }
    }
    return true;
}

void rollback(cgroup_run *run, int made)
{
    const char *step = nullptr;
    for (int i = made - 1; i >= 0; i--)
        cg_remove(run->dirs[i].path, run->fake_files);
    cg_v2_undo_leaf(&run->leaf, run->fake_files, &step);
    run->leaf.own = nullptr;
}

/* The wanted limits of the controllers `dir` carries; pids.max is the same file in v1 and v2. */
bool write_limits(const cg_dir *dir, const cgroup_wants *wants, char *why, size_t why_size)
{
    bool v2 = dir->version == 2;
    if ((dir->controllers & cg_bit(CG_PIDS)) && wants->pids_max != 0) {
        char num[24];
        if (!cg_write_limit(dir->path, "pids.max", cg_utoa(wants->pids_max, num), why, why_size))
            return false;
    }
    if ((dir->controllers & cg_bit(CG_MEMORY)) && wants->memory_max != 0 &&
        !(v2 ? cg_v2_write_memory : cg_v1_write_memory)(dir->path, wants->memory_max, why, why_size))
        return false;
    if ((dir->controllers & cg_bit(CG_CPU)) && wants->cpu_quota_us != 0 &&
        !(v2 ? cg_v2_write_cpu : cg_v1_write_cpu)(dir->path, wants->cpu_quota_us, wants->cpu_period_us, why, why_size))
        return false;
    return true;
}

/* The first v2 controller with enable set decides the caller's v2 cgroup (all share it). */
const char *leaf_parent(const cgroup_probe *probe, unsigned enable)
{
    for (int c = 0; c < CG_CONTROLLER_COUNT; c++)
        if (enable & cg_bit(c))
            return probe->parent[c];
    return nullptr;
}

void warn_leftovers(const cgroup_run *run, const cg_cleanup_report *rep)
{
    for (int i = 0; i < run->ndirs; i++) {
        if (rep->left[i] > 0)
            warn("%ld process(es) of the run outlived SIGKILL in %s", rep->left[i], run->dirs[i].path);
        if (rep->rmdir_err[i] != 0)
            warn("cgroup %s is not removed: %s", run->dirs[i].path, strerror((int)-rep->rmdir_err[i]));
    }
    if (rep->leaf_err != 0)
        warn("the cgroup v2 leaf move in %s is not undone (%s: %s)", run->leaf.own, rep->leaf_step,
             strerror((int)-rep->leaf_err));
}

}  // namespace

bool cg_make_dir(const char *path, const char *const *fake_files, char *why, size_t why_size)
{
    if (mkdir(path, 0755) != 0) {
        if (errno == EEXIST)
            snprintf(why, why_size, "%s exists already (a run's cgroup is never reused)", path);
        else
            snprintf(why, why_size, "cannot create the cgroup %s: %s", path, strerror(errno));
        return false;
    }
    if (add_fake_files(path, fake_files, why, why_size))
        return true;
    cg_remove(path, fake_files);
    return false;
}

bool cg_write_limit(const char *dir, const char *file, const char *value, char *why, size_t why_size)
{
    long err = cg_write(dir, file, value);
    if (err == 0)
        return true;
    snprintf(why, why_size, "cannot write %s to %s/%s: %s", value, dir, file, strerror((int)-err));
    return false;
}

cgroup_run *cgroup_create(const cgroup_host *host, const cgroup_probe *probe, const cgroup_wants *wants, char *why,
                          size_t why_size)
{
    unsigned mask = 0;
    if (!choose(probe, wants, &mask, why, why_size))
        return nullptr;
    cgroup_run *run = (cgroup_run *)arena_alloc(sizeof *run);
    run->fake_files = host->fake_files;
    run->warden_pidfd = -1;
    plan_dirs(run, probe, mask, host->self);
    unsigned enable = 0;
    for (int c = 0; c < CG_CONTROLLER_COUNT; c++)
        if ((mask & cg_bit(c)) && probe->version[c] == 2 && probe->enable[c])
            enable |= cg_bit(c);
    if (enable != 0 && !cg_v2_leaf_move(run, leaf_parent(probe, enable), host->self, enable, why, why_size))
        return nullptr;
    for (int i = 0; i < run->ndirs; i++) {
        const cg_dir *dir = &run->dirs[i];
        if (!cg_make_dir(dir->path, run->fake_files, why, why_size)) {
            rollback(run, i);
            return nullptr;
        }
        if (!write_limits(dir, wants, why, why_size)) {
            rollback(run, i + 1);
            return nullptr;
        }
    }
    return run;
}

bool cgroup_attach(cgroup_run *run, pid_t pid, char *why, size_t why_size)
{
    char num[24];
    cg_utoa((uint64_t)pid, num);
    for (int i = 0; i < run->ndirs; i++) {
        long err = cg_write(run->dirs[i].path, "cgroup.procs", num);
        if (err != 0) {
            snprintf(why, why_size, "cannot move process %d into the cgroup %s: %s", (int)pid, run->dirs[i].path,
                     strerror((int)-err));
            return false;
        }
    }
    return true;
}

long cgroup_attach_self(const cgroup_run *run)
{
    char num[24];
    cg_utoa((uint64_t)raw_syscall2(SYS_getpid, 0, 0), num);
    for (int i = 0; i < run->ndirs; i++) {
        long err = cg_write(run->dirs[i].path, "cgroup.procs", num);
        if (err != 0)
            return err;
    }
    return 0;
}

void cgroup_read_events(const cgroup_run *run, cgroup_events *out)
{
    *out = {};
    for (int i = 0; i < run->ndirs; i++) {
        if (run->dirs[i].version == 2)
            cg_v2_read_events(&run->dirs[i], out);
        else
            cg_v1_read_events(&run->dirs[i], out);
    }
}

void cgroup_finish(cgroup_run *run)
{
    if (run == nullptr || run->finish_called)
        return;
    run->finish_called = true;
    cg_cleanup_report rep;
    cg_cleanup(run, &rep);
    warn_leftovers(run, &rep);
    bool clean = rep.leaf_err == 0;
    for (int i = 0; i < run->ndirs; i++)
        clean = clean && rep.rmdir_err[i] == 0;
    /* Left unset when something stays: the warden tries again once the supervisor is gone. */
    if (clean)
        __atomic_store_n(&run->finished, 1u, __ATOMIC_RELEASE);
}
