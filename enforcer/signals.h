/* enforcer/signals.h — signal forwarding: supervisor → init → command.
 *
 * The forwarded signals (INT TERM HUP QUIT USR1 USR2 WINCH CONT) are blocked before a
 * process is created, so none arrives while the child's handlers are still the parent's.
 * PID 1 of a namespace only receives signals it has a handler for, which init installs.
 */
#pragma once

#include <sys/types.h>

/* Blocks the forwarded signals in the calling process (inherited by clone and fork), and
 * notes which of them the caller ignores: those are never forwarded and stay ignored. */
void signals_block_forwarded();

/* Who forwards: each has its own target, as the two share memory. */
enum forwarder { FORWARD_FROM_SUPERVISOR = 0, FORWARD_FROM_INIT = 1 };

/* Forwards every forwarded signal to `pid` from now on, then unblocks them. The supervisor
 * lets the relay take a resize of the caller's terminal (stdio_fds.h) instead. */
void signals_forward_to(pid_t pid, forwarder from);

/* In a freshly created child: default dispositions (ignored for what the caller ignores),
 * nothing blocked. */
void signals_restore_defaults();
