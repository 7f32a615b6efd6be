/* enforcer/exit_notice.h — the supervisor learns the command's exit code as soon as init
 * exits, before the kernel has torn the sandbox's namespaces down.
 *
 * Init's exit releases its mount, network, IPC… namespaces before its parent's wait returns:
 * hundreds of microseconds that bubblewrap's monitor does not wait for either (its init
 * reports the status through an eventfd). Init holds no descriptor once the command runs,
 * so the channel is memory: a page shared with init (MAP_SHARED, so it would stay shared even
 * if init did not run on the supervisor's memory) holds the exit code and a futex word that
 * init registers as a robust futex. However init exits (even SIGKILL), the kernel marks that
 * futex FUTEX_OWNER_DIED and wakes it early in exit, before the namespaces go; init writes
 * the code just before it exits.
 */
#pragma once

struct exit_notice;

/* Supervisor, before clone: the shared page, or NULL (then the supervisor waits for init). */
exit_notice *exit_notice_create();

/* Init, first thing: holds the futex (robust list) for as long as it lives. */
void exit_notice_arm(exit_notice *n);

/* Init, just before it exits: the command's exit code. */
void exit_notice_post(exit_notice *n, int code);

/* Init: wakes the supervisor's wait without exiting (the command stopped, stdio_fds.h). A
 * poke made while the supervisor is between `woken` and its sleep is not lost. */
void exit_notice_poke(exit_notice *n);

/* Supervisor, once the command has been executed: blocks until init exits, calling `woken`
 * (raw calls only) first and each time init pokes. True with *code when init posted one;
 * false when the notice was never armed or init died without posting. */
bool exit_notice_wait(exit_notice *n, int *code, void (*woken)());
