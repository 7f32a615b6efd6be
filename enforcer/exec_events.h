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
 * of the caller can rewrite them in between, and a call that then fails is recorded too. A
 * PATH search is one line: its first missing candidate's line names where the caller's PATH
 * leads (`path`, `found`) and the candidates missing before it (`tried`), and the calls for
 * those candidates that follow with the same argv make none. A record, not a control
 * (docs/effect-log.md).
 */
#pragma once

#include <stddef.h>

#include "kuapi.h"

/* Init, before the mediator starts and before the token is wiped: the broker's token (`len`
 * bytes; only a fingerprint is kept). A logged path or argument shows each occurrence of it as
 * '*'s, so an agent
 * that passes the token on a command line (`curl -H "X-Broker-Auth: $(cat …)"`) does not put
 * it in the log. Tokens shorter than 16 bytes are not hidden: stars would mark every match
 * of a short string in unrelated arguments. */
void exec_events_hide(const char *token, size_t len);

/* Whether the exec filter notifies system call `nr`. */
bool exec_event_syscall(int nr);

/* The mediator, for an execve/execveat notification `n` on `listener`: writes its exec
 * event unless the caller is gone. `proc_shows_sandbox`: /proc/PID names the sandbox's
 * processes (for the working directory of a relative path). Raw calls only. */
void exec_event_record(int listener, const kuapi::seccomp_notif &n, bool proc_shows_sandbox);
