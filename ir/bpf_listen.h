/* ir/bpf_listen.h — the listener program of a run whose effect log records denied system
 * calls: the plan's filter with every denial turned into a user notification, and every
 * allow continued into the mediator's own rules (enforcer/mediator.h). Freestanding.
 *
 * Why one program: the kernel answers a system call with the strongest action of all the
 * filters stacked on the thread, and ERRNO outranks USER_NOTIF, so a listener stacked beside
 * the plan's filter never sees what the plan denies; and a thread can hold only one filter
 * with a listener. So, given P (the plan's program, accepted by tp_bpf_check) and T (the
 * mediator's rules, returning only ALLOW or USER_NOTIF), tp_bpf_listener_program builds
 *     L = P with   RET ERRNO|e -> RET USER_NOTIF   and   RET ALLOW -> JA <T's first instruction>,
 *         followed by T,
 * replacing instructions one for one, so every jump inside P keeps its target. Then for every
 * seccomp_data d:
 *     P(d) = KILL_PROCESS or KILL_THREAD  =>  L(d) = P(d)
 *     P(d) = ERRNO|e                      =>  L(d) = USER_NOTIF (the mediator runs P on d with
 *                                             bpf_interp.h and answers -e: the same errno)
 *     P(d) = ALLOW                        =>  L(d) = T(d)
 * tests/ir/test_bpf_listen.cpp checks this on the compiled profiles, number by number.
 */
#ifndef TARTAROS_IR_BPF_LISTEN_H
#define TARTAROS_IR_BPF_LISTEN_H

#include "bpf_check.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_RET_USER_NOTIF 0x7fc00000u

/* The mediator's rules, T above (x86_64 numbers): connect, bind, sendmsg, sendmmsg, and sendto
 * with a destination address (args[4] != NULL, both words) -> USER_NOTIF (a filter cannot read
 * sendmsg's address, which is in memory: every sendmsg is notified); with `execs` (the effect
 * log) execve and execveat too; anything else -> ALLOW. Writes them into `out` (room for
 * TP_MEDIATOR_RULES_MAX) and returns their number. */
#define TP_MEDIATOR_RULES_MAX 14u
uint32_t tp_mediator_rules(int execs, struct tp_bpf_insn *out);

/* Writes L into `out` (room for `cap` instructions); its length, or 0 when L would be longer
 * than `cap` or TP_BPF_MAXINSNS. */
uint32_t tp_bpf_listener_program(const struct tp_bpf_insn *plan, uint32_t plan_len, const struct tp_bpf_insn *tail,
                                 uint32_t tail_len, struct tp_bpf_insn *out, uint32_t cap);

#ifdef __cplusplus
}
#endif

#endif
