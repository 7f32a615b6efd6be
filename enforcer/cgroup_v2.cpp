/* enforcer/cgroup_v2.cpp — the cgroup v2 files: limits, events, the kill, and the leaf move.
 *
 * One v2 cgroup carries every v2 controller of the run and is the kill switch (cgroup.kill,
 * or cgroup.freeze on kernels before 5.14). The leaf move (cgroup.h) is the one change made
 * to the caller's cgroup, and is undone by cg_v2_undo_leaf.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cgroup_run.h"

namespace {

constexpr unsigned kFreezeWaitMs = 1000;

void read_text(const char *dir, const char *file, char *buf, size_t size)
{
    if (cg_read(dir, file, buf, size) < 0)
        buf[0] = '\0';
}

bool is_frozen(const char *dir)
{
    char events[256];
    return cg_read(dir, "cgroup.events", events, sizeof events) > 0 && cg_key_value(events, "frozen") == 1;
}

/* "+pids +memory" to enable, "-pids -memory" to undo, for the controllers in `mask`. */
void subtree_text(unsigned mask, char sign, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int c = 0; c < CG_CONTROLLER_COUNT; c++)
        if (mask & cg_bit(c))
            len += (size_t)snprintf(out + len, size - len, "%s%c%s", len ? " " : "", sign, kCgName[c]);
}

struct move_back {
    const char *own;
    long err;
};

/* Raw: moves one process of the leaf back to the caller's cgroup. A process that has exited
 * meanwhile (ESRCH) needs no move. */
void move_one_back(pid_t pid, void *arg)
{
    move_back *m = (move_back *)arg;
    char num[24];
    long err = cg_write(m->own, "cgroup.procs", cg_utoa((uint64_t)pid, num));
    if (err != 0 && err != -ESRCH)
        m->err = err;
}

}  // namespace

/* memory.oom.group stays 0: it would make the OOM killer take init too, and with init every
 * process on its memory (the supervisor and the warden). */
bool cg_v2_write_memory(const char *dir, uint64_t bytes, char *why, size_t why_size)
{
    char num[24];
    cg_utoa(bytes, num);
    if (!cg_write_limit(dir, "memory.max", num, why, why_size))
        return false;
    /* no swap beyond the limit (the file exists only with swap accounting) */
    return !cg_exists(dir, "memory.swap.max") || cg_write_limit(dir, "memory.swap.max", "0", why, why_size);
}

bool cg_v2_write_cpu(const char *dir, uint32_t quota_us, uint32_t period_us, char *why, size_t why_size)
{
    char quota[24], period[24], text[48];
    snprintf(text, sizeof text, "%s %s", cg_utoa(quota_us, quota), cg_utoa(period_us, period));
    return cg_write_limit(dir, "cpu.max", text, why, why_size);
}

void cg_v2_read_events(const cg_dir *dir, cgroup_events *out)
{
    char text[512];
    if (dir->controllers & cg_bit(CG_MEMORY)) {
        read_text(dir->path, "memory.events", text, sizeof text);
        out->oom_kills += cg_key_value(text, "oom_kill");
        read_text(dir->path, "memory.peak", text, sizeof text); /* Linux 5.19+ */
        uint64_t peak = strtoull(text, nullptr, 10);
        out->memory_peak = peak > out->memory_peak ? peak : out->memory_peak;
    }
    if (dir->controllers & cg_bit(CG_PIDS)) {
        read_text(dir->path, "pids.events", text, sizeof text);
        out->pids_refused += cg_key_value(text, "max");
    }
}

/* Raw. cgroup.kill kills every process, forks in flight included, in one step. The fallback
 * freezes first so that the pids read are the ones killed. */
void cg_v2_kill(const char *dir)
{
    if (cg_exists(dir, "cgroup.kill")) {
        cg_write(dir, "cgroup.kill", "1");
        return;
    }
    if (cg_write(dir, "cgroup.freeze", "1") == 0)
        for (unsigned slept = 0; slept < kFreezeWaitMs && !is_frozen(dir);)
            cg_nap(&slept);
    cg_for_each_pid(dir, "cgroup.procs", cg_kill_pid, nullptr);
    cg_write(dir, "cgroup.freeze", "0");
}

/* The supervisor leaves the caller's cgroup for the leaf tartaros-<pid>.supervisor (a cgroup
 * with processes cannot enable controllers for its children), then enables them. Whatever
 * fails, what was done is undone before returning false. */
bool cg_v2_leaf_move(cgroup_run *run, const char *own, pid_t self, unsigned enable, char *why, size_t why_size)
{
    char name[48], num[24];
    snprintf(name, sizeof name, "/tartaros-%d.supervisor", (int)self);
    const char *leaf = arena_concat3(own, name, "");
    if (!cg_make_dir(leaf, run->fake_files, why, why_size))
        return false;
    if (!cg_write_limit(leaf, "cgroup.procs", cg_utoa((uint64_t)self, num), why, why_size)) {
        cg_remove(leaf, run->fake_files);
        return false;
    }
    char plus[32];
    subtree_text(enable, '+', plus, sizeof plus);
    subtree_text(enable, '-', run->leaf.disable, sizeof run->leaf.disable);
    if (!cg_write_limit(own, "cgroup.subtree_control", plus, why, why_size)) {
        cg_write(own, "cgroup.procs", num);
        cg_remove(leaf, run->fake_files);
        return false;
    }
    run->leaf.own = arena_strdup(own); /* the probe it came from may not outlive the run */
    run->leaf.leaf = leaf;
    return true;
}

/* Raw. Controllers first: the caller's cgroup may hold processes again only without them. */
long cg_v2_undo_leaf(const cg_leaf *leaf, const char *const *fake_files, const char **step)
{
    if (leaf->own == nullptr)
        return 0;
    long err = cg_write(leaf->own, "cgroup.subtree_control", leaf->disable);
    if (err != 0) {
        *step = "cgroup.subtree_control";
        return err;
    }
    move_back m = {leaf->own, 0};
    err = cg_for_each_pid(leaf->leaf, "cgroup.procs", move_one_back, &m);
    if (err == -ENOENT)
        return 0; /* undone before (the leaf is gone) */
    if (err < 0 || m.err != 0) {
        *step = "cgroup.procs";
        return err < 0 ? err : m.err;
    }
    err = cg_remove(leaf->leaf, fake_files);
    if (err != 0)
        *step = "rmdir";
    return err;
}
