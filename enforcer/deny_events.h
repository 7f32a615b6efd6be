/* enforcer/deny_events.h — denied system calls in the effect log (effect_log.h), recorded by
 * the connect mediator (mediator.h).
 *
 * With --log, the command does not load the plan's filter as it is: it loads the listener
 * program of ir/bpf_listen.h instead (the plan's filter with each denial turned into a user
 * notification, then the mediator's connect and exec rules), the one filter of the thread
 * with a listener. For a notification, the mediator runs the plan's own filter on the
 * notified seccomp_data (ir/bpf_interp.h): a denial is answered with exactly the errno the
 * plan gives (the command sees what it would without the log) and recorded; anything else is
 * a connect or an exec, handled as before.
 *
 * What it costs and where it is blind (docs/effect-log.md):
 *  - each denied call is a round trip to the mediator (~20 us) instead of an errno in the
 *    kernel; so is every clone3, which the plan answers ENOSYS (libc then falls back on
 *    clone): an expected fallback, counted in the summary but not a line of its own;
 *  - the log is bounded: each system call is recorded at most kPerSyscall times and all of
 *    them kTotal times; every denial is counted, and the supervisor writes one deny_summary
 *    line with the counts once the sandbox has ended, just before run_end;
 *  - connect mediation's own refusals (a host unix socket, a listener outside the sandbox,
 *    TCP or an abstract socket without the network namespace) are denied lines too, with the
 *    address and the reason;
 *  - a kill action (a foreign architecture, x32 numbers) is the kernel's alone: no event;
 *  - if the mediator is gone, denied calls fail with ENOSYS instead of their errno (still
 *    refused), and are not recorded.
 */
#pragma once

#include "context.h"
#include "kuapi.h"

/* The most instructions the mediator's own rules (the tail of the listener program) take. */
constexpr uint32_t kListenerTailMax = 14;

/* Preflight, with the effect log and connect mediation: whether the plan's filter can be
 * loaded as the listener program (it fits beside the mediator's rules, and it lets the
 * command hand the listener over, which it does under that program: getpid, prctl, write
 * and read on the hand-off, then close), or why not. A plan that judged those calls by arguments other than the ones
 * checked here (the descriptor, the flags) could stop the command at start-up; the
 * compiler's profiles never look at them. */
const char *deny_events_unavailable_reason(const tp_plan *plan);

/* The mediator, for notification `n` on `listener`: when the plan's filter (`prog`, `len`
 * instructions) denies the call, records it (unless the caller is gone) and returns true with
 * the errno to answer in *err (negative); false when the plan allows it. Raw calls only. */
bool deny_event_answer(const tp_bpf_insn *prog, uint32_t len, int listener, const kuapi::seccomp_notif &n,
                       int32_t *err);

/* The mediator, when it refused a connect itself (connect mediation's own rules, not the
 * kernel's answer): records it with `reason` and the address the command gave (`addr`,
 * `len` bytes), and counts it. Raw calls only; nothing without the effect log. */
void deny_event_connect(int listener, const kuapi::seccomp_notif &n, int err, const char *reason,
                        const unsigned char *addr, uint32_t len);

/* Whether a mediated connect's `result` to `addr` (`len` bytes) is the sandbox's network
 * namespace having no route for a TCP or UDP address: a direct connection, past the proxy. */
bool deny_event_no_route(long result, const unsigned char *addr, uint32_t len);

/* The mediator, for such a connect: a `network` event (decision deny, route direct, reason
 * no-route), as the proxy writes one for each of its refusals. Raw calls only; the caller
 * checks that the effect log is on. */
void net_event_no_route(int listener, const kuapi::seccomp_notif &n, int err, const unsigned char *addr, uint32_t len);

/* The supervisor, once init is reaped: the deny_summary line, if any call was denied. The
 * counts are the mediator's, in the memory it shared with init and the supervisor; the
 * mediator ended before init did (with its PID namespace, or killed by init as a leftover),
 * so they are final. */
void deny_events_summary();
