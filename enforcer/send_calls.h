/* enforcer/send_calls.h — sendto() with an address, sendmsg() and sendmmsg(), as the mediator
 * (mediator.h) makes them.
 *
 * Where a datagram goes is named by its call: sendto()'s address is an argument a filter can
 * test, but sendmsg()'s and sendmmsg()'s lie in memory the filter cannot read, and a datagram
 * sent with a pathname address reaches whatever socket the path names, a host's too, with the
 * sandbox's descriptors (SCM_RIGHTS) attached. So the filter notifies every sendmsg() and
 * sendmmsg(), and every sendto() whose address pointer is not NULL (send() is not notified),
 * and the mediator makes each itself, on the command's socket object (pidfd_getfd), with its
 * own copy of the message: the address is checked as connect() checks it (socket_calls.h: a
 * pathname socket is the sandbox's only on the private /tmp or /dev/shm) and sent to the very
 * inode checked; the descriptors of SCM_RIGHTS are taken from the command (pidfd_getfd) and
 * passed as the mediator's, so a thread rewriting the message or swapping a descriptor after
 * the check changes nothing. Answering "continue" would let the kernel read it all again.
 *
 * A send that has to wait for room (a blocking socket, a full receiver) is held: the mediator
 * sends with MSG_DONTWAIT, keeps the call pending and goes on answering others, and finishes
 * it when poll() says the socket has room (or on a short timer, for a datagram socket whose
 * receiver is full: poll() cannot see that). Sends held on one socket go out in the order
 * they came. SO_SNDTIMEO is kept (the call then answers EAGAIN, or the bytes sent). A held
 * call ends early only by a fatal signal (WAIT_KILLABLE_RECV): a handler for a non-fatal one
 * runs once the send is done. EPIPE raises SIGPIPE in the caller unless it asked
 * MSG_NOSIGNAL, as the kernel would.
 * What changes for the receiver (docs/limits.md): credentials the kernel attaches (SO_PASSCRED,
 * SO_PASSPIDFD) name the mediator, and an explicit SCM_CREDENTIALS is dropped; MSG_ZEROCOPY is
 * sent as a copy, so no completion is queued.
 */
#pragma once

#include <poll.h>
#include <stdint.h>

#include "kuapi.h"

/* Sends the mediator holds at once, waiting for room; one more waits in the mediator itself. */
constexpr uint32_t kMaxHeldSends = 64;

/* Answers notification `n` (a sendto with an address, a sendmsg or a sendmmsg) on `listener`,
 * now or, when it has to wait for room, once it is done. Raw calls only. */
void send_call(int listener, const kuapi::seccomp_notif &n);

/* What to poll for the held sends: writes an entry per slot in use into `out` (room for
 * kMaxHeldSends; -1 for one that waits on a timer or behind another) and returns their
 * number; *timeout_ms gets how long poll() may sleep (-1: no send is held). */
uint32_t held_sends_poll_set(struct pollfd *out, int *timeout_ms);

/* After poll() over the set held_sends_poll_set gave (with its revents): moves every held
 * send on, answering those done, and drops those whose caller is gone. */
void held_sends_progress(const struct pollfd *set, uint32_t count);
