/* enforcer/relay.cpp — the supervisor's relay thread: copies between the caller's fds 0-2
 * and the sandbox's pipes and pseudo-terminal (stdio_fds.h).
 *
 * A thread of the supervisor (CLONE_THREAD, no TLS of its own), on memory init also runs C
 * code on: raw calls only (raw.h). It blocks every signal but SIGTSTP, so the supervisor's
 * handlers run on the main thread, which wakes it through the eventfd; SIGPIPE stays pending
 * on it and a write to a closed output fails with EPIPE instead of killing the supervisor.
 * Output pipes move with splice (no copy through user space); the terminal and anything
 * splice refuses go through a 64 KiB buffer per direction. A write that would block waits
 * for POLLOUT on its own direction, so a command that does not read its stdin never holds
 * its output back.
 */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>

#include "fd_passing.h"
#include "raw.h"
#include "report.h"
#include "stdio_fds.h"

namespace {

constexpr size_t kBuffer = 64 << 10;
constexpr size_t kSpliceChunk = 1 << 20;
constexpr int kFlows = 4;
constexpr int kForegroundCheckMs = 200;

/* One direction of copying. */
struct flow {
    int src;
    int dst;
    bool open;       /* src has not reached its end */
    bool to_command; /* dst is the command's (stdin pipe or pty): a full dst waits, EOF closes it */
    bool can_splice;
    bool dst_full;   /* waiting for POLLOUT on dst */
    bool discard;    /* dst is gone; keep reading so the writer never blocks (the pty) */
    size_t len, off; /* buffered bytes not yet written */
    char buf[kBuffer];
};

enum flow_index { FLOW_STDIN = 0, FLOW_STDOUT = 1, FLOW_STDERR = 2, FLOW_TERMINAL = 3 };

struct relay_state {
    stdio_setup *s;
    flow flows[kFlows];
    int master;    /* the pty master, once init has sent it */
    bool raw_mode; /* the caller's terminal is in raw mode */
    uint32_t stops_seen;
};

stdio_setup *g_setup; /* for the signal handlers (relay_signal) */
relay_state g_relay;
alignas(16) char g_relay_stack[64 << 10];

long rsys(long nr, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0)
{
    return raw_syscall6(nr, a, b, c, d, e, f);
}

void wake(stdio_setup *s)
{
    uint64_t one = 1;
    raw_write(s->wake, &one, sizeof one);
}

void init_flow(flow *f, int src, int dst, bool to_command, bool can_splice)
{
    f->src = src;
    f->dst = dst;
    f->open = src >= 0 && dst >= 0;
    f->to_command = to_command;
    f->can_splice = can_splice;
    f->dst_full = f->discard = false;
    f->len = f->off = 0;
}

/* Where the pty's output goes: the caller's terminal as the command's stdout, else stderr,
 * else the terminal the caller gave as stdin (opened for reading and writing by a login). */
int terminal_output(const stdio_setup *s)
{
    constexpr int kOrder[] = {1, 2, 0};
    for (int k : kOrder)
        if (s->kind[k] == STDIO_TERMINAL)
            return k;
    return -1;
}

bool in_foreground(const relay_state *r)
{
    int pgrp = 0;
    return rsys(SYS_ioctl, r->s->terminal, TIOCGPGRP, (long)&pgrp) == 0 && pgrp == rsys(SYS_getpgrp);
}

/* Raw mode as cfmakeraw sets it, on a copy of the caller's modes as they are now that the
 * run is in the foreground (the modes its shell gave it), which are restored on a stop and
 * at the end. */
void enter_raw_mode(relay_state *r)
{
    if (r->raw_mode || r->s->kind[0] != STDIO_TERMINAL || !in_foreground(r))
        return;
    if (rsys(SYS_ioctl, r->s->terminal, TCGETS, (long)&r->s->modes) != 0)
        return;
    struct termios t = r->s->modes;
    t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
    t.c_oflag &= ~(tcflag_t)OPOST;
    t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
    t.c_cflag |= CS8;
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    r->raw_mode = rsys(SYS_ioctl, r->s->terminal, TCSETSW, (long)&t) == 0;
}

void leave_raw_mode(relay_state *r)
{
    if (r->raw_mode)
        rsys(SYS_ioctl, r->s->terminal, TCSETSW, (long)&r->s->modes);
    r->raw_mode = false;
}

void copy_window_size(relay_state *r)
{
    struct winsize size;
    if (r->master >= 0 && rsys(SYS_ioctl, r->s->terminal, TIOCGWINSZ, (long)&size) == 0)
        rsys(SYS_ioctl, r->master, TIOCSWINSZ, (long)&size);
}

/* The master arrives once init has opened the pty, before it starts the command
 * (stdio_open_terminal). */
void receive_master(relay_state *r)
{
    long n;
    int master = raw_recv_fd(r->s->pty_channel[0], MSG_DONTWAIT, &n);
    if (n == -EAGAIN)
        return;
    raw_close(r->s->pty_channel[0]);
    r->s->pty_channel[0] = -1;
    if (master < 0)
        return; /* init failed before it had a pty: it reports why */
    r->master = master;
    raw_fcntl(r->master, F_SETFL, O_NONBLOCK);
    init_flow(&r->flows[FLOW_TERMINAL], r->master, terminal_output(r->s), false, false);
    if (r->s->kind[0] == STDIO_TERMINAL)
        init_flow(&r->flows[FLOW_STDIN], 0, r->master, true, false);
    enter_raw_mode(r);
    copy_window_size(r);
}

/* The source is done (EOF, or the caller closed what it feeds): the command's stdin pipe
 * gets its EOF, an output pipe is closed so the command's next write fails with EPIPE. */
void close_flow(flow *f)
{
    f->open = false;
    f->len = f->off = 0;
    if (f->to_command && f->dst != g_relay.master)
        raw_close(f->dst);
    if (!f->to_command && f->src != g_relay.master && f->src > 2)
        raw_close(f->src);
}

/* The destination refused (EPIPE, EIO): input stops; output from the pty is read and
 * dropped, so the command never blocks on a terminal nobody reads. */
void destination_gone(flow *f)
{
    if (f->src == g_relay.master)
        f->discard = true;
    else
        close_flow(f);
    f->len = f->off = 0;
}

void write_pending(flow *f)
{
    while (f->off < f->len) {
        long n = raw_write(f->dst, f->buf + f->off, f->len - f->off);
        if (n == -EINTR)
            continue;
        if (n == -EAGAIN) {
            f->dst_full = true;
            return;
        }
        if (n <= 0)
            return destination_gone(f);
        f->off += (size_t)n;
    }
    f->dst_full = false;
    f->len = f->off = 0;
}

void read_buffered(flow *f)
{
    long n = raw_read(f->src, f->buf, sizeof f->buf);
    if (n == -EAGAIN || n == -EINTR)
        return;
    if (n <= 0)
        return close_flow(f); /* EOF, or EIO once every end of the pty is closed */
    if (f->discard)
        return;
    f->len = (size_t)n;
    f->off = 0;
    write_pending(f);
}

/* Pipe to anything splice takes; on EINVAL (a terminal, an O_APPEND file on old kernels)
 * the flow falls back to the buffer for good. */
void move_spliced(flow *f)
{
    for (size_t moved = 0; moved < 16 * kSpliceChunk;) {
        long n = rsys(SYS_splice, f->src, 0, f->dst, 0, kSpliceChunk, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (n > 0) {
            moved += (size_t)n;
            continue;
        }
        if (n == 0)
            return close_flow(f);
        if (n == -EINTR)
            continue;
        if (n == -EINVAL) {
            f->can_splice = false;
            return read_buffered(f);
        }
        if (n == -EAGAIN) /* the pipe is empty, or dst is full: poll tells which */
            f->dst_full = raw_poll1(f->src, POLLIN, 0) > 0;
        else
            destination_gone(f);
        return;
    }
}

void on_ready(flow *f)
{
    if (f->dst_full && f->len > f->off)
        return write_pending(f);
    f->dst_full = false;
    if (f->can_splice)
        move_spliced(f);
    else
        read_buffered(f);
}

/* Input is read only while the command can take it: before the end, and from a terminal
 * only when the relay is in the caller's foreground (a background read would stop it). */
bool wants_input(const relay_state *r, const flow *f)
{
    if (f != &r->flows[FLOW_STDIN] || !f->open)
        return f->open;
    if (__atomic_load_n(&r->s->finishing, __ATOMIC_ACQUIRE))
        return false;
    return r->s->kind[0] != STDIO_TERMINAL || r->raw_mode;
}

/* The command stopped: the caller's terminal gets its modes back and the supervisor stops
 * (SIGTSTP to this thread: it stops here, before anything else runs), so the caller's shell
 * shows its prompt; once continued, raw mode again and the pty's foreground group resumes. */
void follow_stop(relay_state *r)
{
    leave_raw_mode(r);
    rsys(SYS_tgkill, rsys(SYS_getpid), rsys(SYS_gettid), SIGTSTP);
    enter_raw_mode(r);
    copy_window_size(r);
    if (r->master >= 0)
        rsys(SYS_ioctl, r->master, TIOCSIG, SIGCONT);
}

void on_wake(relay_state *r)
{
    uint64_t count;
    raw_read(r->s->wake, &count, sizeof count);
    uint32_t sigs = __atomic_exchange_n(&r->s->signals, 0u, __ATOMIC_ACQ_REL);
    uint32_t stops = __atomic_load_n(&r->s->stops, __ATOMIC_ACQUIRE);
    if (stops != r->stops_seen) {
        r->stops_seen = stops;
        follow_stop(r);
    }
    if (sigs & 2u)
        enter_raw_mode(r);
    if (sigs & 3u)
        copy_window_size(r);
}

/* The caller's terminal is the command's stdin but the run is in the background: the relay
 * neither reads it nor sets its modes until the run is brought to the foreground. */
bool background_terminal(const relay_state *r)
{
    return r->s->kind[0] == STDIO_TERMINAL && r->master >= 0 && !r->raw_mode &&
        !__atomic_load_n(&r->s->finishing, __ATOMIC_ACQUIRE);
}

bool outputs_open(const relay_state *r)
{
    for (int i = FLOW_STDOUT; i < kFlows; i++)
        if (r->flows[i].open)
            return true;
    return false;
}

void relay_loop(relay_state *r)
{
    for (;;) {
        /* The end: every sandbox end is closed, and the master (if init sent one) taken. */
        bool finishing = __atomic_load_n(&r->s->finishing, __ATOMIC_ACQUIRE);
        if (finishing && !outputs_open(r) && r->s->pty_channel[0] < 0)
            return;
        struct pollfd p[kFlows + 2];
        flow *owner[kFlows + 2] = {};
        int n = 0;
        p[n++] = {r->s->wake, POLLIN, 0};
        if (r->s->pty_channel[0] >= 0)
            p[n++] = {r->s->pty_channel[0], POLLIN, 0};
        for (flow &f : r->flows) {
            if (!wants_input(r, &f))
                continue;
            owner[n] = &f;
            p[n++] = f.dst_full ? pollfd{f.dst, POLLOUT, 0} : pollfd{f.src, POLLIN, 0};
        }
        long ready = rsys(SYS_poll, (long)p, n, background_terminal(r) ? kForegroundCheckMs : -1);
        if (ready <= 0) {
            enter_raw_mode(r); /* `fg` of a running job sends no SIGCONT: look again */
            continue;
        }
        for (int i = 0; i < n; i++) {
            if (p[i].revents == 0)
                continue;
            if (owner[i] != nullptr)
                on_ready(owner[i]);
            else if (p[i].fd == r->s->wake)
                on_wake(r);
            else
                receive_master(r);
        }
    }
}

int relay_entry(void *)
{
    uint64_t all_but_stop = ~(1ull << (SIGTSTP - 1));
    rsys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all_but_stop, 0, sizeof all_but_stop);
    relay_loop(&g_relay);
    leave_raw_mode(&g_relay);
    for (;;)
        rsys(SYS_exit, 0); /* this thread only */
}

}  // namespace

void relay_start(run_ctx *ctx)
{
    stdio_setup *s = ctx->stdio;
    if (!s->relayed)
        return;
    relay_state *r = &g_relay;
    r->s = s;
    r->master = -1;
    init_flow(&r->flows[FLOW_STDIN], 0, s->relay_end[0], true, false);
    init_flow(&r->flows[FLOW_STDOUT], s->relay_end[1], 1, false, true);
    init_flow(&r->flows[FLOW_STDERR], s->relay_end[2], 2, false, true);
    init_flow(&r->flows[FLOW_TERMINAL], -1, -1, false, false);
    g_setup = s;
    unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
        CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
    if (clone(relay_entry, g_relay_stack + sizeof g_relay_stack, (int)flags, nullptr, &s->relay_tid, nullptr,
              &s->relay_tid) < 0)
        fail(EXIT_STARTUP, "cannot start the relay of the standard descriptors: clone: %s", strerror(errno));
}

void relay_finish(const run_ctx *ctx)
{
    stdio_setup *s = ctx->stdio;
    if (s == nullptr || !s->relayed)
        return;
    __atomic_store_n(&s->finishing, 1u, __ATOMIC_RELEASE);
    wake(s);
    for (int tid; (tid = __atomic_load_n(&s->relay_tid, __ATOMIC_ACQUIRE)) != 0;)
        raw_futex_wait(&s->relay_tid, (uint32_t)tid);
}

void relay_poll_stops()
{
    stdio_setup *s = g_setup;
    if (s == nullptr || s->terminal < 0)
        return;
    uint32_t stops = __atomic_load_n(&s->stops, __ATOMIC_ACQUIRE);
    if (stops != s->stops_told) {
        s->stops_told = stops;
        wake(s);
    }
}

bool relay_signal(int sig)
{
    stdio_setup *s = g_setup;
    if (s == nullptr || s->terminal < 0 || (sig != SIGWINCH && sig != SIGCONT))
        return false;
    __atomic_or_fetch(&s->signals, sig == SIGWINCH ? 1u : 2u, __ATOMIC_ACQ_REL);
    wake(s);
    return sig == SIGWINCH;
}
