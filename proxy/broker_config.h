/* proxy/broker_config.h — the credential broker's part of the command line.
 *
 *   --broker-port P              channel mode: one TNC_BROKER listener on 127.0.0.1:P inside
 *   --broker-listen ADDR:PORT    listen mode: the broker's own listener (port 0: any)
 *   --broker-secrets FD          required with a broker (shared/broker_secrets_wire.h; broker_secrets.h)
 *   --broker-auth-header NAME    default X-Broker-Auth
 *   --broker-allow PATTERN       repeatable, at least one: exact name, IP literal or *.suffix
 *   --broker-allow-internal      (no value) upstreams may resolve to internal addresses
 *   --broker-ca-file PATH        extra trusted CAs (PEM), besides the system store
 *   --capability NAME=HOST:PORT  starts a capability; HOST a name or IP literal ([v6])
 *   --cap-header NAME            of the last --capability; default Authorization
 *   --cap-format FORMAT          of the last --capability; default "{value}"
 *   --cap-methods "GET POST"     of the last --capability; default: any method
 *   --cap-path-prefixes "/a /b"  of the last --capability; default: any path
 *
 * The flags are for a standalone proxy; in channel mode tartaros-exec gives the same fields
 * in the plan (plan_config.h). Either way a value passes the rules of shared/broker_rules.h,
 * the ones the compiler and the plan reader apply: among them, a header the broker sets or
 * reads may not be one that frames or routes the message (Host, Content-Length,
 * Transfer-Encoding, hop-by-hop, Proxy-*, Expect), since injecting one would smuggle a second
 * request.
 * Invariants of a BrokerConfig that parse_args returned with a broker (enabled()):
 *  - secrets_fd is an open descriptor; allow is non-empty; 1..TP_MAX_BROKER_CAPS capabilities
 *    with unique names of [A-Za-z0-9._-]{1,64};
 *  - every host is normalised (names.h) and every port is 1..65535;
 *  - header names are RFC 9110 tokens of at most 64 bytes, none of the framing names above,
 *    and no capability's header is the auth header;
 *  - a format is printable ASCII (space included), at most 1024 bytes, with "{value}" once;
 *  - methods are upper-case A-Z words (at most 32 bytes), path prefixes start with '/' and
 *    are printable without spaces (at most 1024 bytes); both lists may be empty (= any).
 */
#pragma once

#include <sys/socket.h>

#include <optional>
#include <string>
#include <vector>

#include "names.h"

namespace tproxy {

struct ListenAddr {
    sockaddr_storage addr;
    socklen_t len;
};

struct Capability {
    std::string name;  // the first path segment of a broker request
    Host host;         // the upstream, normalised
    unsigned port = 443;
    std::string header = "Authorization";
    std::string format = "{value}";
    std::vector<std::string> methods;        // empty: any method
    std::vector<std::string> path_prefixes;  // empty: any path
};

struct BrokerConfig {
    unsigned port = 0;                 // channel mode: the TNC_BROKER listener's port
    std::optional<ListenAddr> listen;  // listen mode
    int secrets_fd = -1;
    std::string auth_header = "X-Broker-Auth";
    std::vector<std::string> allow;  // normalised patterns (allowed_hosts)
    bool allow_internal = false;
    std::string ca_file;  // empty: the system store only
    std::vector<Capability> caps;
    std::vector<std::string> last_cap_flags;  // while parsing: --cap-* given for caps.back()

    bool enabled() const { return port != 0 || listen.has_value(); }
    // Whether some upstream is a name (so lookups, resolver files and port 53 are needed).
    bool needs_lookups() const;
};

// Handles one broker flag (is_broker_flag): "" or the error line. The flag without a value
// (--broker-allow-internal) is handled by parse_broker_switch.
std::string parse_broker_flag(BrokerConfig &b, const std::string &flag, const std::string &value);
bool parse_broker_switch(BrokerConfig &b, const std::string &flag);

// Whether `flag` is one of the broker's flags that take a value.
bool is_broker_flag(const std::string &flag);

// Broker flags that may appear only once.
bool broker_flag_once(const std::string &flag);

// The whole-configuration checks once every flag is read: "" or the error line.
std::string check_broker(const BrokerConfig &b, bool channel_mode);

// "IPv4:PORT" or "[IPv6]:PORT" (the --listen and --broker-listen syntax).
std::optional<ListenAddr> parse_listen(const std::string &s);

// The items of "a b c" (single spaces, as the plan and the flags write lists); none for "".
std::vector<std::string> split_spaced(const std::string &s);

}  // namespace tproxy
