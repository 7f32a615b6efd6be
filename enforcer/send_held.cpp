/* enforcer/send_held.cpp — a notified send from its notification to its answer, held while it
 * waits for room (send_calls.h). Raw calls only.
 *
 * A call is answered as soon as it is done or failed; a blocking one that meets a full socket
 * moves into g_held and the mediator's loop (mediator.cpp) polls its socket with the
 * listener. With every slot taken, a further one waits in the mediator itself, polling its
 * own socket, as a blocking connect() does: the calls behind it wait too.
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "send_calls.h"
#include "send_job.h"

namespace {

constexpr long kHeld = LONG_MIN;       /* advance(): the send waits for room */
constexpr uint64_t kRetryNs = 5000000; /* a datagram socket poll() cannot judge */
constexpr int kSweepMs = 200;          /* how often held calls are checked for a dead caller */
constexpr uint64_t kMsgLenOffset = 56; /* struct mmsghdr's msg_len */

send_job g_held[kMaxHeldSends];
send_job g_now; /* the call being started */
uint32_t g_held_count;
uint64_t g_order;

bool still_pending(const send_job &j)
{
    return rsys(SYS_ioctl, j.listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_ID_VALID, (long)&j.n.id) == 0;
}

void clear(send_job &j)
{
    release_message(j);
    if (j.sock >= 0 && &j != &g_now)
        g_held_count--;
    if (j.sock >= 0)
        raw_close(j.sock);
    if (j.pidfd >= 0)
        raw_close(j.pidfd);
    j.sock = j.pidfd = -1;
}

/* The answer; EPIPE on a stream raises SIGPIPE unless the caller asked MSG_NOSIGNAL. Through
 * the caller's pidfd, never its pid: a pid may name another process by now. */
void answer(send_job &j, long result)
{
    if (result == -EPIPE && j.type == SOCK_STREAM && !(j.flags & MSG_NOSIGNAL) && j.pidfd >= 0)
        rsys(SYS_pidfd_send_signal, j.pidfd, SIGPIPE, 0, 0);
    kuapi::seccomp_notif_resp resp = {j.n.id, result > 0 ? result : 0, result < 0 ? (int32_t)result : 0, 0};
    rsys(SYS_ioctl, j.listener, (long)kuapi::SECCOMP_IOCTL_NOTIF_SEND, (long)&resp);
    clear(j);
}

/* What a call that met `err` answers: what went out before it, as the kernel counts. */
long ended(const send_job &j, long err)
{
    if (j.n.data.nr == SYS_sendmmsg && j.done > 0)
        return j.done;
    if (j.type == SOCK_STREAM && j.sent > 0)
        return (long)j.sent;
    return err;
}

/* sendmmsg(): the current message's msg_len, in the caller's array. */
void write_msg_len(const send_job &j)
{
    uint32_t len = (uint32_t)j.sent;
    struct iovec from = {&len, sizeof len};
    struct iovec to = {(void *)(j.n.data.args[1] + j.done * 64 + kMsgLenOffset), sizeof len};
    rsys(SYS_process_vm_writev, j.n.pid, (long)&from, 1, (long)&to, 1, 0);
}

/* Sends what it can: kHeld while the call must wait for room, else its result. */
long advance(send_job &j)
{
    for (;;) {
        long r = send_once(j);
        if (r == -EAGAIN && j.blocking && (j.deadline_ns == 0 || monotonic_ns() < j.deadline_ns))
            return kHeld;
        if (r < 0)
            return ended(j, r);
        j.sent += (uint64_t)r;
        if (j.type == SOCK_STREAM && r > 0 && j.sent < j.size)
            continue;
        if (j.n.data.nr != SYS_sendmmsg)
            return (long)j.sent;
        write_msg_len(j);
        if (++j.done == j.vlen || prepare_message(j) < 0)
            return j.done;
    }
}

/* Whether an older held call waits on the same socket (they go out in order). */
bool older_on_socket(const send_job &j)
{
    for (const send_job &h : g_held)
        if (&h != &j && h.sock >= 0 && h.sock_ino == j.sock_ino && h.order < j.order)
            return true;
    return false;
}

/* The call waits in the mediator itself (every slot is taken). */
void wait_here(send_job &j)
{
    long r = kHeld;
    while (r == kHeld && still_pending(j)) {
        raw_poll1(j.sock, POLLOUT, 5);
        r = advance(j);
    }
    if (r == kHeld)
        clear(j); /* the caller is gone */
    else
        answer(j, r);
}

void hold(send_job &j)
{
    for (send_job &h : g_held)
        if (h.sock < 0) {
            memcpy(&h, &j, sizeof h);
            g_held_count++;
            j.sock = j.pidfd = j.target = -1;
            j.rights_count = 0;
            return;
        }
    wait_here(j);
}

/* The caller's socket, its kind and how it waits, into `j`; 0 or -errno. */
long take_socket(send_job &j)
{
    long ret = j.pidfd = (int)caller_pidfd(j.n.pid);
    if (ret >= 0)
        ret = still_pending(j) ? 0 : -ESRCH; /* the pid may have been reused */
    if (ret == 0)
        ret = j.sock = (int)rsys(SYS_pidfd_getfd, j.pidfd, (int)j.n.data.args[0], 0);
    if (ret < 0)
        return ret;
    j.domain = socket_option(j.sock, SO_DOMAIN);
    j.type = socket_option(j.sock, SO_TYPE);
    if (j.domain < 0)
        return -ENOTSOCK;
    const long status = rsys(SYS_fcntl, j.sock, F_GETFL);
    j.blocking = status >= 0 && !(status & O_NONBLOCK) && !(j.flags & MSG_DONTWAIT);
    return 0;
}

/* What a call about to wait needs: its socket's identity (held calls on one socket go out in
 * order) and its SO_SNDTIMEO deadline. Not asked of the calls that never wait. */
void prepare_to_wait(send_job &j)
{
    struct stat st;
    j.sock_ino = rsys(SYS_fstat, j.sock, (long)&st) == 0 ? st.st_ino : 0;
    long tv[2] = {0, 0};
    socklen_t len = sizeof tv;
    if (rsys(SYS_getsockopt, j.sock, SOL_SOCKET, SO_SNDTIMEO, (long)tv, (long)&len) == 0 && (tv[0] | tv[1]) != 0)
        j.deadline_ns = monotonic_ns() + (uint64_t)tv[0] * 1000000000ull + (uint64_t)tv[1] * 1000ull;
}

}  // namespace

void send_call(int listener, const kuapi::seccomp_notif &n)
{
    send_job &j = g_now;
    memset(&j, 0, sizeof j);
    j.n = n;
    j.listener = listener;
    j.pidfd = j.sock = j.target = -1;
    j.order = ++g_order;
    const uint64_t nr = n.data.nr;
    j.flags = (uint32_t)n.data.args[nr == SYS_sendmsg ? 2 : 3];
    j.vlen = nr == SYS_sendmmsg ? (n.data.args[2] < kMaxIov ? (uint32_t)n.data.args[2] : kMaxIov) : 1;
    long ret = take_socket(j);
    if (ret == 0 && j.vlen == 0)
        return answer(j, 0);
    if (ret == 0)
        ret = prepare_message(j);
    if (ret < 0)
        return answer(j, ret);
    const bool queued = j.blocking && g_held_count > 0;
    if (queued)
        prepare_to_wait(j);
    ret = queued && older_on_socket(j) ? kHeld : advance(j);
    if (ret == kHeld && !queued)
        prepare_to_wait(j);
    if (ret == kHeld && (j.deadline_ns == 0 || monotonic_ns() < j.deadline_ns))
        return hold(j);
    answer(j, ret == kHeld ? ended(j, -EAGAIN) : ret);
}

uint32_t held_sends_poll_set(struct pollfd *out, int *timeout_ms)
{
    *timeout_ms = -1;
    if (g_held_count == 0)
        return 0;
    const uint64_t now = monotonic_ns();
    uint64_t wake = now + kSweepMs * 1000000ull;
    uint32_t used = 0;
    for (uint32_t i = 0; i < kMaxHeldSends; i++) {
        const send_job &j = g_held[i];
        const bool waits = j.sock >= 0 && !older_on_socket(j);
        out[i] = {waits && !j.timer ? j.sock : -1, POLLOUT, 0};
        if (j.sock >= 0)
            used = i + 1;
        if (waits && j.timer && j.retry_ns < wake)
            wake = j.retry_ns;
        if (waits && j.deadline_ns != 0 && j.deadline_ns < wake)
            wake = j.deadline_ns;
    }
    *timeout_ms = wake <= now ? 0 : (int)((wake - now + 999999) / 1000000);
    return used;
}

void held_sends_progress(const struct pollfd *set, uint32_t count)
{
    const uint64_t now = monotonic_ns();
    for (uint32_t i = 0; i < count && i < kMaxHeldSends; i++) {
        send_job &j = g_held[i];
        if (j.sock < 0)
            continue;
        if (!still_pending(j)) {
            clear(j); /* killed while it waited */
            continue;
        }
        const bool woken = set[i].revents != 0;
        const bool due = (j.timer && now >= j.retry_ns) || (j.deadline_ns != 0 && now >= j.deadline_ns);
        if ((!woken && !due) || older_on_socket(j))
            continue;
        const uint64_t sent = j.sent, done = j.done;
        long r = advance(j);
        if (r != kHeld) {
            answer(j, r);
            continue;
        }
        if (woken && j.sent == sent && j.done == done)
            j.timer = true; /* poll() saw room the send did not find */
        j.retry_ns = now + kRetryNs;
    }
}
