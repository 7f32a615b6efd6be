/* enforcer/report.h — every message tartaros-exec prints, and the status channel that carries
 * the sandbox side's outcome back to the supervisor.
 *
 * Messages are one line each on stderr: `tartaros: <reason>` for a refusal or a failure,
 * `tartaros: warning: <what was lost and why>` when a guarantee degrades, `tartaros: note:`
 * for a step left out that loses nothing. In the supervisor,
 * fail() prints and exits. In the init and command processes (after report_to_supervisor),
 * fail() sends the line and the exit code through the status pipe and exits; the supervisor
 * prints it, so the user sees exactly one line whichever process failed.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "container.h"
#include "exit_codes.h"

__attribute__((format(printf, 1, 2))) void warn(const char *fmt, ...);
/* `tartaros: note: <text>`: a step the run leaves out because it would change nothing (a deny
 * on a path the caller cannot reach, reach.h); never followed by a refusal for that step. */
__attribute__((format(printf, 1, 2))) void note(const char *fmt, ...);
[[noreturn]] __attribute__((format(printf, 2, 3))) void fail(int code, const char *fmt, ...);
[[noreturn]] __attribute__((format(printf, 1, 2))) void refuse(const char *fmt, ...);
/* refuse() for a cause a container option can lift (container.h): the line ends with that
 * option when this runs in a container. On the sandbox side the cause travels with the
 * record and the supervisor, which still sees the container, adds the option. */
[[noreturn]] __attribute__((format(printf, 2, 3))) void refuse_for(container_fix fix, const char *fmt, ...);

/* Sandbox side: from now on fail() reports through `fd` (close-on-exec, so it reaches EOF
 * once the command has been executed). A negative fd switches back to printing. */
void report_to_supervisor(int fd);

/* The status pipe's fd on the sandbox side, or -1. */
int report_fd();

/* Sandbox side: a synthetic mountpoint `anchor`/`rel` (device, inode) was created; the
 * supervisor removes it after the run if it is still what was made (synthetic.h): an empty
 * regular file for `step` 0, else the placeholder of plan step `step` - 1. */
void report_synthetic_mountpoint(const char *anchor, const char *rel, dev_t dev, ino_t ino, uint32_t step);

/* Supervisor side: one synthetic mountpoint reported by the sandbox. */
struct synthetic_mountpoint {
    const char *anchor;
    const char *rel;
    dev_t dev;
    ino_t ino;
    uint32_t step; /* 0: an empty file masked with /dev/null; else 1 + the placeholder's step */
    synthetic_mountpoint *next;
};

/* Supervisor side: what the sandbox reported before EOF. */
struct sandbox_outcome {
    bool failed;        /* a fail() record arrived: nothing of the command ran */
    int code;           /* its exit code */
    char message[1024]; /* its line, without the "tartaros: " prefix */
    container_fix fix;  /* a cause a container option lifts (refuse_for), or FIX_NONE */
    synthetic_mountpoint *synthetic;
};

/* Reads records from `fd` until EOF (EOF without a failure = the command was executed). */
void read_sandbox_outcome(int fd, sandbox_outcome *out);

/* Prints `tartaros: <message>` for a failure the sandbox side reported, its message first
 * completed with the container option for its cause (container.h). After init is gone. */
void print_reported_failure(sandbox_outcome *out);

/* " (policy line 12:5)" for an origin, or "" for an implied default (line 0). */
const char *origin_text(uint32_t line, uint32_t col, char *buf, size_t size);
