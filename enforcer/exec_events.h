/* enforcer/exec_events.h — exec events of the effect log (effect_log.h), recorded by the
 * connect mediator (mediator.h).
 *
 * With --log, the command's one-rule connect filter gets two more rules: execve and execveat
 * -> user notification. For each notification the mediator reads the path and argv from the
 * caller's memory (process_vm_readv; before the command has executed it shares the
 * mediator's memory, which needs no ptrace check), checks that the notification is still
 * pending (so the pid still named the caller while it read), writes one exec line, and lets
 * the kernel go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE).
 *
 * The line records the call as made, before the kernel reads its arguments: another thread
 * of the caller can rewrite them in between, and a call that then fails (ENOENT in a PATH
 * search) is recorded too. A record, not a control (docs/effect-log.md).
 */
#pragma once

#include "kuapi.h"

/* Whether the exec filter notifies system call `nr`. */
bool exec_event_syscall(int nr);

/* The mediator, for an execve/execveat notification `n` on `listener`: writes its exec
 * event unless the caller is gone. `proc_shows_sandbox`: /proc/PID names the sandbox's
 * processes (for the working directory of a relative path). Raw calls only. */
void exec_event_record(int listener, const kuapi::seccomp_notif &n, bool proc_shows_sandbox);
