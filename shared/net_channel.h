/* shared/net_channel.h — the messages between the sandbox side and tartaros-proxy.
 *
 * Plain C, shared by the static enforcer and the proxy. The channel is one AF_UNIX
 * SOCK_SEQPACKET socketpair made by the supervisor before anything starts: one end goes to
 * tartaros-proxy (--channel FD), which runs on the host side; the other to init, which is in
 * the sandbox's private network namespace. Messages keep their boundaries; fds travel with
 * SCM_RIGHTS.
 *
 *  1. sandbox -> proxy, once: the listeners. Payload struct tnc_hello, then tnc_listener[n]
 *     (0 <= n <= TNC_MAX_LISTENERS, n == hello.count; n is 0 when only ports are exposed — the
 *     hello keeps the message from being empty, which would read as EOF), with n listening TCP
 *     sockets in the same order (SCM_RIGHTS), each bound to 127.0.0.1:port inside the
 *     sandbox's namespace. The set must be exactly what the proxy's command line expects
 *     (--proxy-port, --broker-port, --relay); anything else and the proxy answers with a failure.
 *  2. proxy -> sandbox, once: tnc_ready. status 0 = serving (the proxy has confined itself);
 *     TNC_REFUSED = a guarantee it cannot install under --strict; TNC_FAILED = anything else.
 *     `message` (NUL-terminated) says why. EOF instead of this message: the proxy died.
 *  3. Only with --expose: proxy -> sandbox, one byte TNC_SOCKET_REQUEST per connection the
 *     host makes to an exposed port; sandbox -> proxy, per request in order, a one-byte
 *     payload (0, or an errno when socket(2) failed) with, on 0, one fd: a new non-blocking,
 *     close-on-exec AF_INET SOCK_STREAM socket in the sandbox's namespace, which the proxy
 *     connects to 127.0.0.1:PORT. The sandbox side answers nothing else.
 *
 * The proxy exits when the channel reaches EOF after message 2: the sandbox has ended.
 *
 * Beside the channel, the supervisor gives the proxy the write end of a pipe (--notes FD):
 * when it stops (EOF here, or the supervisor's SIGTERM once the command's output is done) the
 * proxy writes one line per distinct refusal, `tartaros: note: ...`, at most TNC_MAX_NOTES of
 * them and a last one counting the rest, then closes it. The supervisor copies those lines to
 * its stderr after the command's last byte of output, so they never split one of its lines.
 */
#ifndef TARTAROS_IR_NET_CHANNEL_H
#define TARTAROS_IR_NET_CHANNEL_H

#include <stdint.h>

#define TNC_MAX_LISTENERS 64u

enum tnc_listener_kind {
    TNC_PROXY = 1, /* the HTTP proxy's listener */
    TNC_RELAY = 2, /* relay to the host's 127.0.0.1:port */
    TNC_BROKER = 3 /* the credential broker's listener (--broker-port) */
};

#define TNC_HELLO_MAGIC 0x314C4354u /* "TCL1" little-endian */

struct tnc_hello {  /* 8 bytes */
    uint32_t magic; /* TNC_HELLO_MAGIC */
    uint32_t count; /* tnc_listener records (and fds) that follow */
};

struct tnc_listener { /* 4 bytes */
    uint16_t port;    /* the port it is bound to inside */
    uint8_t kind;     /* tnc_listener_kind */
    uint8_t reserved; /* zero */
};

#define TNC_READY   0u
#define TNC_REFUSED 78u
#define TNC_FAILED  1u

struct tnc_ready {     /* 256 bytes */
    uint8_t status;    /* TNC_READY, TNC_REFUSED or TNC_FAILED */
    char message[255]; /* NUL-terminated; empty when ready */
};

#define TNC_SOCKET_REQUEST 'S'

#define TNC_MAX_NOTES      20u
#define TNC_MAX_NOTE_BYTES 480u /* a note line at most, newline included */

/* The proxy's tasks in the run's cgroup (pids.max): its main thread, and when it proxies
 * HTTP or runs the broker (the only modes that look names up) its resolver threads. With
 * max_processes all are started before "ready", so they hold their slots before the command
 * runs and the command gets exactly max_processes; TLS makes none. */
static inline unsigned tnc_proxy_lookup_threads(bool http_proxy, bool broker)
{
    return http_proxy || broker ? 4u : 0u;
}

static inline unsigned tnc_proxy_tasks(bool http_proxy, bool broker)
{
    return 1u + tnc_proxy_lookup_threads(http_proxy, broker);
}

/* The proxy's caps, from the run's memory_max (0: none). A tunnel costs at most two pipes of
 * 64 KiB, a head of up to 16 KiB and its socket buffers (about 256 KiB when every buffer is
 * full); a broker exchange about twice that (two 64 KiB buffers, OpenSSL's records). So the
 * proxy never holds more than about half of memory_max in tunnels and an eighth in
 * exchanges, and a small sandbox still gets a usable proxy. Without memory_max, fixed caps
 * that keep the proxy near 1 GiB at worst. */
static inline uint32_t tnc_max_connections(uint64_t memory_max)
{
    uint64_t n = memory_max ? memory_max / (512u << 10) : 4096u;
    return n < 32u ? 32u : n > 4096u ? 4096u : (uint32_t)n;
}

static inline uint32_t tnc_max_exchanges(uint64_t memory_max)
{
    uint64_t n = memory_max ? memory_max / (4u << 20) : 256u;
    return n < 4u ? 4u : n > 256u ? 256u : (uint32_t)n;
}

#endif /* TARTAROS_IR_NET_CHANNEL_H */
