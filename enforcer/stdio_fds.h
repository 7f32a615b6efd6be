/* enforcer/stdio_fds.h — the command's standard descriptors are the sandbox's own objects.
 *
 * A descriptor the caller opened before the sandbox refers to a host object on the host's
 * mounts: through /proc/self/fd/N the command could chmod the caller's output file (setuid
 * root when the caller is root), open the caller's terminal to every user, reopen a pipe's
 * write end for reading, or chmod the host's /dev/null. Landlock does not cover chmod, and
 * the read-only remount is only the namespace's copy. So the command never receives one:
 *  - /dev/null stays /dev/null, reopened by init in the sandbox's /dev, whose nodes are
 *    read-only binds (nothing to relay, nothing to change);
 *  - the caller's terminal (any of fds 0-2 that is one) becomes a pseudo-terminal of the
 *    sandbox's own devpts instance; the supervisor relays it both ways with the caller's
 *    terminal in raw mode, copies the window size on SIGWINCH and, when the command stops
 *    (Ctrl-Z, or a program that suspends itself), restores the caller's terminal and stops
 *    itself, so the caller's shell gets its prompt back; `fg` resumes both;
 *  - anything else (a file, a pipe, a socket) becomes a pipe the supervisor relays
 *    (relay.cpp). Fds 1 and 2 that are one open file share one pipe, so the order of their
 *    writes is kept.
 * (A closed fd 0-2 is /dev/null from the start: main.cpp.) Costs: a relayed stdin cannot
 * seek, a relayed stdout is not the caller's file (no ftruncate, no fstat of it), and the
 * command sees pipes where the caller had a file or socket.
 */
#pragma once

#include <stdint.h>
#include <sys/ioctl.h>
#include <termios.h>

#include "context.h"

enum stdio_kind : uint8_t {
    STDIO_NULL = 0,    /* the caller's /dev/null: the sandbox's /dev/null */
    STDIO_PIPE = 1,    /* a relayed pipe */
    STDIO_TERMINAL = 2 /* the caller's terminal: the sandbox's pseudo-terminal */
};

/* Shared by the supervisor, init and the relay (one address space, raw.h). */
struct stdio_setup {
    stdio_kind kind[3];
    bool relayed;         /* a pipe or the terminal: the relay thread runs */
    int sandbox_end[3];   /* PIPE: the end init installs as fd k (fd 2 may share fd 1's pipe) */
    int relay_end[3];     /* PIPE: the supervisor's end, non-blocking; -1 when shared or none */
    int terminal;         /* the caller's terminal: the first of fds 0-2 that is one, or -1 */
    int pty_channel[2];   /* init sends the pty master through [1]; the relay receives on [0] */
    int wake;             /* eventfd: wakes the relay (init's stop notice, signals, the end) */
    int devpts;           /* init: the sandbox's devpts instance, detached until the DEV step */
    struct termios modes; /* the caller's terminal modes, given to the pty and restored */
    struct winsize size;
    uint32_t stops;      /* bumped by init each time the command stops */
    uint32_t stops_told; /* the supervisor's last count passed to the relay */
    uint32_t signals;    /* bit 0: SIGWINCH, bit 1: SIGCONT (set by the supervisor's handlers) */
    uint32_t finishing;  /* the command has exited: relay what is left, then end */
    int relay_tid;       /* the relay thread while it lives (cleared by the kernel at its exit) */
};

/* Supervisor, after the proxy and the cgroup warden exist and just before init is cloned:
 * classifies fds 0-2 (ctx->stdio) and, when something is to be relayed, makes the pipes,
 * the pty channel and the wake eventfd. */
void stdio_prepare(run_ctx *ctx);

/* Supervisor, right after the clone: closes the sandbox's ends. */
void stdio_after_clone(const run_ctx *ctx);

/* Init, a session leader, before the command is cloned: opens a pseudo-terminal of the
 * sandbox's own devpts instance, takes it as its controlling terminal and installs it as
 * the terminal's fds, and hands the master to the supervisor. The command then runs in a
 * process group of its own inside init's session, which is not orphaned, so the terminal's
 * stop signals (Ctrl-Z, a program suspending itself) stop it; and as it is cloned after,
 * it has the terminal too (tcsetpgrp, /dev/tty). */
void stdio_open_terminal(const run_ctx *ctx);

/* Init, once the mount tree is built and before the command is let run: installs the rest
 * of fds 0-2 (the early command shares them; the late one inherits them) and closes every
 * supervisor-side end. */
void stdio_install(const run_ctx *ctx);

/* Init, when its waitpid reports the command stopped: pokes the supervisor's wait for the
 * exit notice (init holds no fd), which wakes the relay, which stops the supervisor in turn
 * (relay.cpp). */
void stdio_command_stopped(const run_ctx *ctx);

/* The command, first thing: with a pseudo-terminal, a process group of its own in the
 * terminal's foreground (init's session holds the terminal: job control, Ctrl-C, ttyname). */
void stdio_take_terminal(const run_ctx *ctx);

/* Supervisor (relay.cpp), before init is cloned: starts the relay thread, which makes raw
 * calls only. */
void relay_start(run_ctx *ctx);

/* Supervisor, once the command's exit is known: the relay copies what is left until every
 * sandbox end is closed, restores the caller's terminal, and ends; returns then. */
void relay_finish(const run_ctx *ctx);

/* Supervisor, waiting for the exit notice: wakes the relay when the command has stopped
 * since the last call. Raw. */
void relay_poll_stops();

/* The supervisor's signal handlers: true when the relay takes `sig` instead of forwarding it
 * (SIGWINCH with a pseudo-terminal); SIGCONT also wakes it (re-enter raw mode). Raw. */
bool relay_signal(int sig);
