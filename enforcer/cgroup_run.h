/* enforcer/cgroup_run.h — the inside of cgroup_run (cgroup.h), shared by cgroup*.cpp.
 *
 * Everything that removes or kills (cg_cleanup and what it calls) makes raw system calls only
 * (raw.h): it also runs in the warden, which shares the supervisor's memory and thread
 * pointer and may outlive it. Creating, attaching and reading events use libc; they run in
 * the supervisor while no other process runs C code on its memory.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"

constexpr unsigned cg_bit(int controller)
{
    return 1u << controller;
}

/* The kernel's names, as in cgroup.controllers and v1 mount options. */
inline constexpr const char *kCgName[CG_CONTROLLER_COUNT] = {"pids", "memory", "cpu", "freezer"};

/* One cgroup of the run: the v2 one (all v2 controllers and cgroup.kill), or one per v1
 * hierarchy (co-mounted controllers such as cpu,cpuacct share it). */
struct cg_dir {
    const char *path;     /* <parent>/tartaros-<pid> */
    int version;          /* 1 or 2 */
    unsigned controllers; /* cg_bit() of each controller it carries */
};

/* The v2 leaf move (cgroup.h), when it was made. */
struct cg_leaf {
    const char *own;  /* the caller's v2 cgroup; NULL when there was no move */
    const char *leaf; /* own/tartaros-<pid>.supervisor */
    char disable[32]; /* "-pids -memory -cpu": what to write back to own's subtree_control */
};

struct cgroup_run {
    cg_dir dirs[CG_CONTROLLER_COUNT];
    int ndirs;
    cg_leaf leaf;
    const char *const *fake_files; /* cgroup_host::fake_files */
    uint32_t finished;             /* set (release) by cgroup_finish once all is removed */
    int warden_pidfd;              /* the supervisor's pidfd, for the warden to copy */
    pid_t warden_pid;              /* 0 until the warden is started */
    bool finish_called;
};

/* What cg_cleanup could not do. */
struct cg_cleanup_report {
    long left[CG_CONTROLLER_COUNT];      /* processes still in dirs[i] at the end */
    long rmdir_err[CG_CONTROLLER_COUNT]; /* -errno of rmdir of dirs[i]; 0 = gone */
    long leaf_err;                       /* -errno of the failed leaf-undo step; 0 = undone */
    const char *leaf_step;               /* which step failed */
};

/* Raw (see the top). Kills every process in the run's cgroups (v2 cgroup.kill or freeze and
 * kill, v1 freezer), waits until they are empty (at most ~2 s), removes them and undoes the
 * leaf move. Idempotent: a directory already gone counts as removed. */
void cg_cleanup(const cgroup_run *run, cg_cleanup_report *out);

/* Raw file access to control files. `dir` + "/" + `file` must fit in kCgPathMax. */
constexpr size_t kCgPathMax = 1024;
long cg_write(const char *dir, const char *file, const char *text);      /* 0 or -errno */
long cg_read(const char *dir, const char *file, char *buf, size_t size); /* length or -errno */
bool cg_exists(const char *dir, const char *file);
/* fn(pid, arg) for each pid listed in dir/file; the number of pids or -errno. */
long cg_for_each_pid(const char *dir, const char *file, void (*fn)(pid_t, void *), void *arg);
/* rmdir (after unlinking the fake files), retrying briefly while it is EBUSY; 0 or -errno,
 * ENOENT counts as removed. */
long cg_remove(const char *dir, const char *const *fake_files);
/* `value` in decimal into buf (at least 21 bytes); returns buf. */
char *cg_utoa(uint64_t value, char *buf);
/* The number after `key` on a "key N" line of `text`; 0 when absent. */
uint64_t cg_key_value(const char *text, const char *key);
/* One step of a bounded wait (raw): sleeps as long as *slept_ms so far (at least 1 ms, at
 * most 10), then adds it. A process killed a moment ago is usually gone within a millisecond
 * or two; the cap keeps later checks cheap. */
void cg_nap(unsigned *slept_ms);
/* SIGKILL for cg_for_each_pid. */
void cg_kill_pid(pid_t pid, void *unused);

/* Freezes the v1 freezer cgroup `dir`, SIGKILLs each of its processes, thaws it (raw). */
void cg_v1_freeze_kill(const char *dir);
/* Kills everything in the v2 cgroup `dir`: cgroup.kill, else freeze, SIGKILL, thaw (raw). */
void cg_v2_kill(const char *dir);
/* Undoes the leaf move (raw): disables the controllers again, moves every process of the
 * leaf back to the caller's cgroup, removes the leaf. 0, or -errno with *step set. */
long cg_v2_undo_leaf(const cg_leaf *leaf, const char *const *fake_files, const char **step);

/* Supervisor (libc): mkdir (EEXIST is a failure: never reused) and, on a fake tree, the
 * files cgroupfs would provide. */
bool cg_make_dir(const char *path, const char *const *fake_files, char *why, size_t why_size);
/* Supervisor (libc): the leaf move for the controllers in `enable` (cg_bit mask). */
bool cg_v2_leaf_move(cgroup_run *run, const char *own, pid_t self, unsigned enable, char *why, size_t why_size);
/* Supervisor (libc): one limit, written the way each version's files take it (cgroup.cpp
 * decides which limits a directory carries). */
bool cg_v1_write_memory(const char *dir, uint64_t bytes, char *why, size_t why_size);
bool cg_v1_write_cpu(const char *dir, uint32_t quota_us, uint32_t period_us, char *why, size_t why_size);
bool cg_v2_write_memory(const char *dir, uint64_t bytes, char *why, size_t why_size);
bool cg_v2_write_cpu(const char *dir, uint32_t quota_us, uint32_t period_us, char *why, size_t why_size);
/* Adds what the kernel counted in `dir` to *out. */
void cg_v2_read_events(const cg_dir *dir, cgroup_events *out);
void cg_v1_read_events(const cg_dir *dir, cgroup_events *out);
/* Writes `value` to dir/file with a why ("cannot write 100 to <dir>/pids.max: ...") on failure. */
bool cg_write_limit(const char *dir, const char *file, const char *value, char *why, size_t why_size);
