/* proxy/config.h — tartaros-proxy's command line.
 *
 *   tartaros-proxy [--listen-fd N]... [--listen ADDR:PORT]... --allow NAME... [--deny NAME]...
 *                  [--host NAME=ADDR]... [--ports P,P...] [--max-header-bytes N]
 *                  [--header-timeout-ms N] [--idle-timeout-ms N] [--connect-timeout-ms N]
 *                  [--max-connections N] [--log FD] [--strict]
 *
 * Every flag takes one value and may repeat where it makes sense. parse_args either returns a
 * complete, valid Config or an error line; nothing is half-applied. Invariant of a returned
 * Config: at least one listener, at least one allow pattern, no bare "*" pattern, ports in
 * 1..65535, every pin's name normalised.
 */
#pragma once

#include <sys/socket.h>

#include <string>
#include <variant>
#include <vector>

#include "names.h"

namespace tproxy {

struct ListenAddr {
    sockaddr_storage addr;
    socklen_t len;
};

struct Config {
    std::vector<int> listen_fds;
    std::vector<ListenAddr> listen_addrs;
    Policy policy;
    size_t max_header_bytes = 16384;
    int header_timeout_ms = 10000;    // whole head must arrive within this (slowloris)
    int idle_timeout_ms = 300000;     // a tunnel with no byte either way for this long ends
    int connect_timeout_ms = 10000;   // lookup plus TCP connect
    size_t max_connections = 0;       // 0: as many as RLIMIT_NOFILE fits
    int log_fd = -1;
    bool strict = false;  // refuse to run when Landlock is unavailable
};

std::variant<Config, std::string> parse_args(const std::vector<std::string> &args);

}  // namespace tproxy
