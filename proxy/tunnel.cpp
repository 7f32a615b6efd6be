/* proxy/tunnel.cpp — the splice pump of one tunnel direction (see conn.h). */
#include "conn.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace tproxy {
namespace {

// A direction that has carried kBulkAfter bytes is a bulk stream: its pipe grows to kBulkPipe,
// so that one splice moves up to 16 times more (one stream: 0.35-0.45 of direct loopback ->
// 0.50-0.53, and about half the CPU per GiB; bench/README.md). Only then: unprivileged, pipe
// pages count against fs.pipe-user-pages-soft (64 MiB by default), which 1,000 idle tunnels
// at 1 MiB per pipe would exceed, and past which the kernel refuses (the pipe keeps its size).
constexpr size_t kBulkAfter = 8u << 20;
constexpr int kBulkPipe = 1 << 20;

bool would_block()
{
    return errno == EAGAIN || errno == EWOULDBLOCK;
}

// Returns false on error; sets wait Out when dst is full.
bool flush_prefix(Dir &d)
{
    while (d.prefix_off < d.prefix.size()) {
        ssize_t n = send(d.dst, d.prefix.data() + d.prefix_off, d.prefix.size() - d.prefix_off, MSG_NOSIGNAL);
        if (n < 0) {
            if (would_block())
                d.wait = Wait::Out;
            return would_block();
        }
        d.prefix_off += static_cast<size_t>(n);
    }
    std::string().swap(d.prefix);  // a tunnel holds no buffer once its prefix is out
    d.prefix_off = 0;
    return true;
}

void grow_bulk_pipe(Dir &d)
{
    if (d.pipe_grown || d.moved < kBulkAfter)
        return;
    d.pipe_grown = true;
    fcntl(d.pipe_w, F_SETPIPE_SZ, kBulkPipe);  // refused: the pipe keeps its 64 KiB
}

bool drain_pipe(Dir &d)
{
    while (d.in_pipe > 0) {
        ssize_t n = splice(d.pipe_r, nullptr, d.dst, nullptr, d.in_pipe, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
        if (n < 0) {
            if (would_block())
                d.wait = Wait::Out;
            return would_block();
        }
        d.in_pipe -= static_cast<size_t>(n);
    }
    return true;
}

}  // namespace

bool pump(Dir &d)
{
    if (d.wait == Wait::Done)
        return true;
    d.wait = Wait::None;
    for (;;) {
        if (!flush_prefix(d) || !drain_pipe(d))
            return false;
        if (d.wait == Wait::Out)
            return true;
        // As much as the pipe holds, whatever its size: splice moves no more.
        ssize_t n = splice(d.src, nullptr, d.pipe_w, nullptr, kBulkPipe, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
        if (n == 0) {
            // The source finished: pass the half-close on, the other direction may go on.
            shutdown(d.dst, SHUT_WR);
            d.wait = Wait::Done;
            return true;
        }
        if (n < 0) {
            if (would_block())
                d.wait = Wait::In;
            return would_block();
        }
        d.in_pipe = static_cast<size_t>(n);
        d.moved += static_cast<size_t>(n);
        grow_bulk_pipe(d);
    }
}

void close_pipe(Dir &d)
{
    if (d.pipe_r >= 0)
        close(d.pipe_r);
    if (d.pipe_w >= 0)
        close(d.pipe_w);
    d.pipe_r = d.pipe_w = -1;
}

}  // namespace tproxy
