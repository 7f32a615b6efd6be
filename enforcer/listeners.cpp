/* enforcer/listeners.cpp — see listeners.h. */
#include "listeners.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fd_passing.h"
#include "net_channel.h"
#include "netns.h"
#include "raw.h"
#include "report.h"

namespace {

/* How long init waits for the proxy to confine itself and answer. */
constexpr int kReadyTimeoutMs = 10000;

/* Message 1 of shared/net_channel.h, laid out as it is sent. */
struct listener_set {
    tnc_hello hello;
    tnc_listener records[TNC_MAX_LISTENERS];
    int fds[TNC_MAX_LISTENERS];
    unsigned count;
};

int listen_inside(uint16_t port)
{
    int fd = loopback_listener(port, false);
    if (fd < 0)
        fail(EXIT_STARTUP, "cannot listen on 127.0.0.1:%u inside the sandbox: %s", port, strerror(errno));
    return fd;
}

void add(listener_set *set, uint16_t port, uint8_t kind)
{
    set->records[set->count] = {port, kind, 0};
    set->fds[set->count] = listen_inside(port);
    set->count++;
    set->hello.count = set->count;
}

/* The plan reader bounds the count by TNC_MAX_LISTENERS. The broker's only when it runs:
 * the proxy was started with --broker-port exactly then (egress.cpp). */
void make_listeners(const run_ctx *ctx, listener_set *set)
{
    const tp_plan *plan = ctx->plan;
    set->count = 0;
    set->hello = {TNC_HELLO_MAGIC, 0};
    if (plan->network->modes & TP_NET_PROXY)
        add(set, plan->network->proxy_port, TNC_PROXY);
    if (ctx->broker)
        add(set, plan->broker->port, TNC_BROKER);
    for (uint32_t i = 0; i < plan->net_port_count; i++)
        if (plan->net_ports[i].kind == TP_PORT_LOCAL)
            add(set, plan->net_ports[i].port, TNC_RELAY);
}

void send_listeners(int channel, const listener_set *set)
{
    alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int) * TNC_MAX_LISTENERS)] = {};
    struct iovec iov = {(void *)&set->hello, sizeof set->hello + set->count * sizeof(tnc_listener)};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (set->count > 0) {
        msg.msg_control = control;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * set->count);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int) * set->count);
        memcpy(CMSG_DATA(cm), set->fds, sizeof(int) * set->count);
    }
    /* EPIPE: the proxy has already failed; its answer is still queued for us to read. */
    if (sendmsg(channel, &msg, MSG_NOSIGNAL) < 0 && errno != EPIPE)
        fail(EXIT_STARTUP, "cannot hand the listeners to tartaros-proxy: %s", strerror(errno));
    for (unsigned i = 0; i < set->count; i++)
        close(set->fds[i]);
}

void await_ready(int channel)
{
    struct pollfd pfd = {channel, POLLIN, 0};
    int n;
    do
        n = poll(&pfd, 1, kReadyTimeoutMs);
    while (n < 0 && errno == EINTR);
    if (n == 0)
        fail(EXIT_STARTUP, "tartaros-proxy did not answer within %d s", kReadyTimeoutMs / 1000);
    tnc_ready ready = {};
    ssize_t got = recv(channel, &ready, sizeof ready, 0);
    if (got <= 0)
        fail(EXIT_STARTUP, "tartaros-proxy exited before it was ready");
    ready.message[sizeof ready.message - 1] = '\0';
    if (ready.status == TNC_REFUSED)
        fail(EXIT_REFUSAL, "tartaros-proxy: %s", ready.message);
    if (ready.status != TNC_READY)
        fail(EXIT_STARTUP, "tartaros-proxy: %s", ready.message[0] ? ready.message : "failed to start");
}

/* ---- the socket factory ------------------------------------------------------------------
 * A child of init that lives while the run does and answers each TNC_SOCKET_REQUEST with a new
 * socket of this namespace. It shares init's memory (CLONE_VM: no page tables to copy), so it
 * makes raw calls only (raw.h); it holds no other fd and no capability, and is outside the
 * command's Landlock domain, so the command can neither signal nor trace it. */

alignas(16) char g_factory_stack[16 << 10];
int g_factory_channel;

void factory_answer(int channel)
{
    long fd = raw_syscall4(SYS_socket, AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, 0);
    raw_send_fd(channel, (int)fd, fd < 0 ? (char)-fd : 0);
    if (fd >= 0)
        raw_close((int)fd);
}

int factory_entry(void *)
{
    const int channel = g_factory_channel;
    raw_syscall6(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0, 0);
    raw_syscall4(SYS_close_range, 0, (unsigned)channel - 1, 0, 0);
    raw_syscall4(SYS_close_range, (unsigned)channel + 1, ~0u, 0, 0);
    kuapi::cap_header header = {kuapi::LINUX_CAPABILITY_VERSION_3, 0};
    kuapi::cap_data none[2] = {};
    raw_syscall2(SYS_capset, (long)&header, (long)none);
    for (;;) {
        char request = 0;
        long n = raw_syscall6(SYS_recvfrom, channel, (long)&request, 1, 0, 0, 0);
        if (n == -EINTR)
            continue;
        if (n <= 0)
            break;
        if (request == TNC_SOCKET_REQUEST)
            factory_answer(channel);
    }
    raw_syscall2(SYS_exit, 0, 0);
    return 0;
}

void start_factory(int channel)
{
    g_factory_channel = channel;
    if (clone(factory_entry, g_factory_stack + sizeof g_factory_stack, CLONE_VM | SIGCHLD, nullptr) < 0)
        fail(EXIT_STARTUP, "cannot start the socket factory for expose_ports: clone: %s", strerror(errno));
}

}  // namespace

void listeners_hand_over(const run_ctx *ctx)
{
    const tp_plan *plan = ctx->plan;
    if (ctx->net_channel < 0)
        return;
    listener_set set;
    make_listeners(ctx, &set);
    send_listeners(ctx->net_channel, &set);
    await_ready(ctx->net_channel);
    if (plan->network->modes & TP_NET_EXPOSE)
        start_factory(ctx->net_channel);
}

void listeners_abandon(run_ctx *ctx)
{
    if (ctx->net_channel >= 0)
        close(ctx->net_channel);
    ctx->net_channel = -1;
}
