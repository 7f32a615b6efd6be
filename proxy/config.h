/* proxy/config.h — tartaros-proxy's command line.
 *
 * Listen mode (a standalone proxy):
 *   tartaros-proxy [--listen-fd N]... [--listen ADDR:PORT]... --allow NAME... [--deny NAME]...
 *                  [--host NAME=ADDR]... [--ports P,P...] [common...]
 *                  [--broker-listen ADDR:PORT broker...]
 * Channel mode, as tartaros-exec starts it to serve one sandbox (shared/net_channel.h):
 *   tartaros-proxy --channel FD --plan-fd FD [--broker-secrets FD] [--expose FD:PORT]...
 *                  [common...]
 *   The plan (a sealed memfd) gives everything it carries (plan_config.h); the command line
 *   only what is the run's own. --broker-secrets is given when the run keeps its broker.
 * Channel mode from flags (the tests, a proxy run by hand against a channel):
 *   tartaros-proxy --channel FD [--proxy-port P --allow NAME... [--deny NAME]...
 *                  [--host NAME=ADDR]... [--ports P,P...]] [--relay PORT]... [--expose FD:PORT]...
 *                  [--broker-port P broker...] [common...]
 * Common: [--max-header-bytes N] [--header-timeout-ms N] [--idle-timeout-ms N]
 *         [--connect-timeout-ms N] [--max-connections N] [--max-exchanges N] [--log FD]
 *         [--strict] [--effect-log FD --run-id ID] [--notes FD]
 * Broker: the flags of broker_config.h (the credential broker, README.md).
 *
 * Every flag takes one value and may repeat where it makes sense. The flags and the plan fill
 * one Config: with --plan-fd, a flag for a field the plan carries is refused, and the plan
 * reader's checks are the checks. parse_args either returns a complete, valid Config or an
 * error line; nothing is half-applied. Invariants of a returned Config: no bare "*" pattern, ports in 1..65535, every pin's name normalised, and either
 *  - listen mode: at least one listener (--listen-fd, --listen or --broker-listen), and at
 *    least one allow pattern when there is an HTTP listener (the policy flags are refused
 *    without one); or
 *  - channel mode: channel_fd is an AF_UNIX SOCK_SEQPACKET socket; at least one of
 *    proxy_port, broker.port, relay_ports, exposes; allow patterns iff proxy_port (the policy
 *    flags mean nothing without the HTTP proxy, so they are refused there); proxy_port,
 *    broker.port, relay ports and expose ports pairwise distinct (an expose port that is also
 *    a relay port would loop); at most TNC_MAX_LISTENERS listeners;
 *  - either mode: a broker's flags only with its listener, and broker_config.h's invariants.
 */
#pragma once

#include <sys/socket.h>

#include <string>
#include <variant>
#include <vector>

#include "broker_config.h"
#include "names.h"

namespace tproxy {

// A host listener (made by the supervisor) whose connections go to 127.0.0.1:port inside.
struct Expose {
    int fd;
    unsigned port;
};

struct Config {
    std::vector<int> listen_fds;
    std::vector<ListenAddr> listen_addrs;
    int channel_fd = -1;                // >= 0: channel mode
    unsigned proxy_port = 0;            // channel mode: the TNC_PROXY listener's port; 0 = none
    std::vector<unsigned> relay_ports;  // channel mode: one TNC_RELAY listener each
    std::vector<Expose> exposes;
    Policy policy;
    size_t max_header_bytes = 16384;
    int header_timeout_ms = 10000;   // whole head must arrive within this (slowloris)
    int idle_timeout_ms = 300000;    // a tunnel with no byte either way for this long ends
    int connect_timeout_ms = 10000;  // lookup plus TCP connect
    size_t max_connections = 0;      // 0: as many as RLIMIT_NOFILE fits
    size_t max_exchanges = 256;      // broker upstream sessions at once (TLS: the costly part)
    int log_fd = -1;
    int effect_log_fd = -1;  // tartaros-exec's effect log (effect_log.h), with run_id
    std::string run_id;
    int notes_fd = -1;    // where the refusal summary goes when the proxy stops (reply.h)
    bool strict = false;  // refuse to run when Landlock is unavailable
    // The plan limits the run's processes: pids.max holds a slot for each lookup thread
    // (shared/net_channel.h), so they start before "ready"; otherwise after it.
    bool lookups_before_ready = false;
    BrokerConfig broker;

    bool channel_mode() const { return channel_fd >= 0; }
    // Whether HTTP proxy requests are served at all (and so lookups and --ports are needed).
    bool http_proxy() const
    {
        if (channel_mode())
            return proxy_port != 0;
        return !(listen_fds.empty() && listen_addrs.empty() && broker.enabled());
    }
    // Whether anything is ever looked up (the resolver pool, its files and port 53).
    bool needs_lookups() const { return http_proxy() || (broker.enabled() && broker.needs_lookups()); }
};

std::variant<Config, std::string> parse_args(const std::vector<std::string> &args);

// The --channel fd of a command line parse_args may have refused, so the failure can still be
// reported over the channel; -1 when there is none that is an AF_UNIX SOCK_SEQPACKET socket.
int channel_fd_in(const std::vector<std::string> &args);

}  // namespace tproxy
