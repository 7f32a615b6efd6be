/* enforcer/effect_log.h — the effect log (--log FILE): what one run did, as JSON Lines written
 * only by TartarOS's own processes. docs/effect-log.md has the schema and the mechanisms.
 *
 * Who writes which events, all on one open file description (O_APPEND: each event is one
 * write(2) of one whole line, so lines of different writers never mix):
 *  - the supervisor: run_start (just before init is released: every decision is taken and
 *    nothing of the sandbox has run), limit events and run_end (once init is reaped), and a
 *    warning event for each `tartaros: warning:` line it prints after run_start;
 *  - init, and the command's process before it executes (TartarOS code in both): warning
 *    events, through report.cpp;
 *  - the connect mediator: exec events (exec_events.h);
 *  - tartaros-proxy, on the host side: network events, on a duplicate (egress.cpp).
 * The sandboxed command never holds the descriptor (it is close-on-exec; the command marks
 * every inherited descriptor so), and the file is hidden in the sandbox's mount tree with its
 * ancestors pinned (plan_guard.cpp), so nothing the agent runs can open, write, truncate,
 * rename or remove it. A file with a second hard link is refused: that name could be visible.
 *
 * Memory: the state lives in the supervisor's memory, which init, the command (until it
 * executes) and the mediator share (raw.h). Only the supervisor writes it, and only before
 * the release or after init is gone; every function the others call is raw-safe.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "context.h"
#include "jsonl.h"

/* Supervisor, in main once the plan is read and before preflight: opens ctx->log_path
 * (O_WRONLY|O_APPEND|O_CREAT|O_CLOEXEC, mode 0600, no symlink on the whole path). Refuses
 * (78) when it cannot be opened, a component is a symlink, it is not a regular file or it
 * has another hard link. Does nothing without --log. */
void effect_log_open(run_ctx *ctx);

/* Whether this run has an effect log. */
bool effect_log_enabled();

/* The log file (absolute, symlink-free path; device; inode) for plan_guard.cpp; NULL without. */
const plan_identity *effect_log_file();

/* The descriptor and the run's id, for the mediator's exec events; -1 / "" without a log. */
int effect_log_fd();
const char *effect_log_run_id();

/* Supervisor: a close-on-exec duplicate of the descriptor for tartaros-proxy, or -1. */
int effect_log_dup();

/* Preflight (settle): a guarantee lost on this host, listed in run_start's "degraded". */
void effect_log_loss(const char *what, const char *needs, const char *why, const char *instead);

/* report.cpp, for every `tartaros: warning:` line (`text` without the prefix): kept for
 * run_start's "warnings" before it is written, a warning event after. Raw-safe. */
void effect_log_warning(const char *text);

/* Supervisor, just before it releases init: the run_start event. */
void effect_log_run_start();

/* Supervisor, after init is gone (run_limits.cpp): a limit the run reached. */
void effect_log_memory_limit(uint64_t memory_max, uint64_t oom_kills, bool command_killed);
void effect_log_pids_limit(uint64_t max_processes, uint64_t refused_forks);
void effect_log_timeout(uint64_t timeout_ms, uint64_t grace_ms, bool killed);
/* ... and what the cgroup counted: the memory peak in bytes (0 = unknown). */
void effect_log_memory_peak(uint64_t bytes);

/* Supervisor: init's resource usage (its own and its reaped descendants'), from wait4. */
void effect_log_usage(const struct rusage *usage);

/* Supervisor: the run_end event (run_start first if it was never written); returns `code`.
 * `error`: the one-line reason when TartarOS refused or failed, else NULL. */
int effect_log_run_end(int code, const char *error);

/* report.cpp, in the supervisor only, before it exits on fail()/refuse(): the run_end event. */
void effect_log_exit(int code, const char *message);

/* The common start of every enforcer event: {"time":…,"run":…,"by":BY,"event":EVENT.
 * Raw-safe. Write the finished line with effect_log_write. */
void effect_log_begin(jsonl::line &l, char *buf, size_t cap, const char *by, const char *event);

/* Finishes `l` and writes it in one write(2) (raw). Outside the supervisor only when the
 * descriptor is still the log's (init closes its descriptors once the command runs). A
 * failed write loses the line. */
void effect_log_write(jsonl::line &l);
