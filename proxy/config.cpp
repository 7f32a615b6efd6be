/* proxy/config.cpp — command-line parsing (see config.h). */
#include "config.h"

#include <arpa/inet.h>
#include <fcntl.h>

#include <sys/socket.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "effect_log.h"
#include "net_channel.h"
#include "plan_config.h"

namespace tproxy {
namespace {

bool parse_uint(const std::string &s, unsigned long long max, unsigned long long *out)
{
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty() && *out <= max;
}

std::optional<std::vector<unsigned>> parse_ports(const std::string &s)
{
    std::vector<unsigned> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        unsigned long long p = 0;
        std::string one = s.substr(start, comma == std::string::npos ? comma : comma - start);
        if (!parse_uint(one, 65535, &p) || p == 0)
            return std::nullopt;
        out.push_back(static_cast<unsigned>(p));
        if (comma == std::string::npos)
            return out;
        start = comma + 1;
    }
    return std::nullopt;
}

std::optional<unsigned> parse_port(const std::string &s)
{
    unsigned long long p = 0;
    if (!parse_uint(s, 65535, &p) || p == 0)
        return std::nullopt;
    return static_cast<unsigned>(p);
}

std::optional<int> parse_fd(const std::string &s)
{
    unsigned long long n = 0;
    if (!parse_uint(s, 1u << 30, &n) || fcntl(static_cast<int>(n), F_GETFD) < 0)
        return std::nullopt;
    return static_cast<int>(n);
}

bool is_seqpacket_unix(int fd)
{
    int domain = 0, type = 0;
    socklen_t dl = sizeof domain, tl = sizeof type;
    return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dl) == 0 &&
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 && domain == AF_UNIX && type == SOCK_SEQPACKET;
}

using Handler = std::function<std::string(Config &, const std::string &)>;

std::string bad(const std::string &flag, const std::string &v, const char *want)
{
    return flag + " '" + v + "': " + want;
}

std::string set_ms(int *field, const std::string &flag, const std::string &v)
{
    unsigned long long n = 0;
    if (!parse_uint(v, 86400000, &n) || n == 0)
        return bad(flag, v, "expected milliseconds, 1..86400000");
    *field = static_cast<int>(n);
    return "";
}

std::string add_pattern(std::vector<std::string> *list, const std::string &flag, const std::string &v)
{
    auto p = normalize_pattern(v);
    if (!p)
        return bad(flag, v, "expected a host name, an IP literal or *.suffix");
    list->push_back(*p);
    return "";
}

std::string add_fd(std::vector<int> *list, const std::string &flag, const std::string &v)
{
    auto fd = parse_fd(v);
    if (!fd)
        return bad(flag, v, "expected an open file descriptor");
    list->push_back(*fd);
    return "";
}

std::string add_port(std::vector<unsigned> *list, const std::string &flag, const std::string &v)
{
    auto p = parse_port(v);
    if (!p)
        return bad(flag, v, "expected a port 1..65535");
    list->push_back(*p);
    return "";
}

std::string set_channel(Config &c, const std::string &v)
{
    auto fd = parse_fd(v);
    if (!fd || !is_seqpacket_unix(*fd))
        return bad("--channel", v, "expected an AF_UNIX SOCK_SEQPACKET socket descriptor");
    c.channel_fd = *fd;
    return "";
}

std::string add_expose(Config &c, const std::string &v)
{
    size_t colon = v.find(':');
    auto fd = colon == std::string::npos ? std::nullopt : parse_fd(v.substr(0, colon));
    auto port = colon == std::string::npos ? std::nullopt : parse_port(v.substr(colon + 1));
    if (!fd || !port)
        return bad("--expose", v, "expected FD:PORT, an open descriptor and a port 1..65535");
    c.exposes.push_back({*fd, *port});
    return "";
}

const std::map<std::string, Handler> &handlers()
{
    static const std::map<std::string, Handler> h = {
        {"--listen-fd", [](Config &c, const std::string &v) { return add_fd(&c.listen_fds, "--listen-fd", v); }},
        {"--listen",
         [](Config &c, const std::string &v) -> std::string {
             auto l = parse_listen(v);
             if (!l)
                 return bad("--listen", v, "expected IPv4:PORT or [IPv6]:PORT");
             c.listen_addrs.push_back(*l);
             return "";
         }},
        {"--channel", set_channel},
        {"--plan-fd",
         [](Config &, const std::string &v) {
             return parse_fd(v) ? "" : bad("--plan-fd", v, "expected an open file descriptor");
         }},
        {"--proxy-port",
         [](Config &c, const std::string &v) -> std::string {
             auto p = parse_port(v);
             if (!p)
                 return bad("--proxy-port", v, "expected a port 1..65535");
             c.proxy_port = *p;
             return "";
         }},
        {"--relay", [](Config &c, const std::string &v) { return add_port(&c.relay_ports, "--relay", v); }},
        {"--expose", add_expose},
        {"--allow", [](Config &c, const std::string &v) { return add_pattern(&c.policy.allow, "--allow", v); }},
        {"--deny", [](Config &c, const std::string &v) { return add_pattern(&c.policy.deny, "--deny", v); }},
        {"--host",
         [](Config &c, const std::string &v) -> std::string {
             size_t eq = v.find('=');
             auto pin = eq == std::string::npos ? std::nullopt : parse_pin_address(v.substr(0, eq), v.substr(eq + 1));
             if (!pin)
                 return bad("--host", v, "expected NAME=IPv4 or NAME=IPv6");
             for (const Pin &p : c.policy.pins)
                 if (p.name == pin->name)
                     return bad("--host", v, "this name is pinned twice");
             c.policy.pins.push_back(*pin);
             return "";
         }},
        {"--ports",
         [](Config &c, const std::string &v) -> std::string {
             auto p = parse_ports(v);
             if (!p)
                 return bad("--ports", v, "expected a comma-separated list of ports 1..65535");
             c.policy.ports = *p;
             return "";
         }},
        {"--max-header-bytes",
         [](Config &c, const std::string &v) -> std::string {
             unsigned long long n = 0;
             if (!parse_uint(v, 1 << 20, &n) || n < 256)
                 return bad("--max-header-bytes", v, "expected 256..1048576");
             c.max_header_bytes = n;
             return "";
         }},
        {"--max-connections",
         [](Config &c, const std::string &v) -> std::string {
             unsigned long long n = 0;
             if (!parse_uint(v, 1 << 20, &n) || n == 0)
                 return bad("--max-connections", v, "expected 1..1048576");
             c.max_connections = n;
             return "";
         }},
        {"--max-exchanges",
         [](Config &c, const std::string &v) -> std::string {
             unsigned long long n = 0;
             if (!parse_uint(v, 1 << 16, &n) || n == 0)
                 return bad("--max-exchanges", v, "expected 1..65536");
             c.max_exchanges = n;
             return "";
         }},
        {"--notes",
         [](Config &c, const std::string &v) -> std::string {
             std::vector<int> one;
             std::string err = add_fd(&one, "--notes", v);
             if (err.empty())
                 c.notes_fd = one[0];
             return err;
         }},
        {"--header-timeout-ms",
         [](Config &c, const std::string &v) { return set_ms(&c.header_timeout_ms, "--header-timeout-ms", v); }},
        {"--idle-timeout-ms",
         [](Config &c, const std::string &v) { return set_ms(&c.idle_timeout_ms, "--idle-timeout-ms", v); }},
        {"--connect-timeout-ms",
         [](Config &c, const std::string &v) { return set_ms(&c.connect_timeout_ms, "--connect-timeout-ms", v); }},
        {"--effect-log",
         [](Config &c, const std::string &v) -> std::string {
             std::vector<int> one;
             std::string err = add_fd(&one, "--effect-log", v);
             if (err.empty())
                 c.effect_log_fd = one[0];
             return err;
         }},
        {"--run-id",
         [](Config &c, const std::string &v) -> std::string {
             if (!valid_run_id(v))
                 return bad("--run-id", v, "expected 16 lowercase hexadecimal digits");
             c.run_id = v;
             return "";
         }},
        {"--log",
         [](Config &c, const std::string &v) -> std::string {
             std::vector<int> one;
             std::string err = add_fd(&one, "--log", v);
             if (err.empty())
                 c.log_fd = one[0];
             return err;
         }},
    };
    return h;
}

// Flags that may appear once (the others repeat, or the last value counts).
const std::set<std::string> kOnce = {"--channel", "--plan-fd", "--proxy-port", "--effect-log", "--run-id", "--notes"};
// What configures the HTTP proxy; meaningless in channel mode without --proxy-port.
const std::set<std::string> kPolicyFlags = {"--allow", "--deny", "--host", "--ports"};
// Only in channel mode.
const std::set<std::string> kChannelFlags = {"--proxy-port", "--relay", "--expose"};
// What the plan carries besides the broker's flags: with --plan-fd it comes from there alone.
const std::set<std::string> kPlanCarried = {"--proxy-port", "--relay", "--allow", "--deny", "--host", "--ports"};

std::string check_listen_mode(const Config &c, const std::set<std::string> &seen)
{
    for (const std::string &f : kChannelFlags)
        if (seen.count(f))
            return f + " needs --channel";
    if (c.listen_fds.empty() && c.listen_addrs.empty() && !c.broker.enabled())
        return "no listener: give --listen-fd N, --listen ADDR:PORT or --broker-listen ADDR:PORT";
    if (!c.http_proxy()) {
        for (const std::string &f : kPolicyFlags)
            if (seen.count(f))
                return f + " needs --listen-fd or --listen: there is no HTTP proxy to apply it to";
        return "";
    }
    if (c.policy.allow.empty())
        return "no --allow: the proxy would refuse everything";
    return "";
}

std::string check_channel_mode(const Config &c, const std::set<std::string> &seen)
{
    if (!c.listen_fds.empty() || !c.listen_addrs.empty())
        return "--channel excludes --listen-fd and --listen";
    if (c.proxy_port == 0 && c.broker.port == 0 && c.relay_ports.empty() && c.exposes.empty())
        return "--channel needs at least one of --proxy-port, --broker-port, --relay, --expose";
    if (c.proxy_port != 0 && c.policy.allow.empty())
        return "no --allow: the proxy would refuse everything";
    if (c.proxy_port == 0)
        for (const std::string &f : kPolicyFlags)
            if (seen.count(f))
                return f + " needs --proxy-port: there is no HTTP proxy to apply it to";
    std::vector<unsigned> ports = c.relay_ports;
    if (c.proxy_port != 0)
        ports.push_back(c.proxy_port);
    if (c.broker.port != 0)
        ports.push_back(c.broker.port);
    if (ports.size() > TNC_MAX_LISTENERS)
        return "more than " + std::to_string(TNC_MAX_LISTENERS) + " listeners (--proxy-port, --broker-port, --relay)";
    for (const Expose &e : c.exposes)
        ports.push_back(e.port);
    std::sort(ports.begin(), ports.end());
    auto dup = std::adjacent_find(ports.begin(), ports.end());
    if (dup != ports.end())
        return "port " + std::to_string(*dup) +
            " appears twice among --proxy-port, --broker-port, --relay and --expose";
    return "";
}

// The whole-configuration checks of a configuration from flags alone.
std::string check_flags(const Config &c, const std::set<std::string> &seen)
{
    std::string err = check_broker(c.broker, c.channel_mode());
    if (err.empty())
        err = c.channel_mode() ? check_channel_mode(c, seen) : check_listen_mode(c, seen);
    return err;
}

// The plan's fields, from the plan and nowhere else: a flag for one of them beside --plan-fd
// would be a second source. The reader validated the plan, so nothing is checked again.
std::string from_plan(Config &c, int plan_fd, const std::set<std::string> &seen)
{
    if (!c.channel_mode())
        return "--plan-fd needs --channel";
    for (const std::string &f : seen)
        if (kPlanCarried.count(f) || (is_broker_flag(f) && f != "--broker-secrets"))
            return f + ": with --plan-fd the plan gives it";
    if (c.broker.allow_internal)
        return "--broker-allow-internal: with --plan-fd the plan gives it";
    return config_from_plan(plan_fd, c);
}

}  // namespace

std::variant<Config, std::string> parse_args(const std::vector<std::string> &args)
{
    Config c;
    c.policy.ports = {443, 80};
    std::set<std::string> seen;
    int plan_fd = -1;
    for (size_t i = 0; i < args.size(); i++) {
        if (args[i] == "--strict") {
            c.strict = true;
            continue;
        }
        if (parse_broker_switch(c.broker, args[i]))
            continue;
        auto h = handlers().find(args[i]);
        bool broker = h == handlers().end();
        if (broker && !is_broker_flag(args[i]))
            return "unknown argument '" + args[i] + "'";
        if (i + 1 == args.size())
            return args[i] + " needs a value";
        if (!seen.insert(args[i]).second && (kOnce.count(args[i]) || broker_flag_once(args[i])))
            return args[i] + " given twice";
        const std::string &v = args[++i];
        std::string err = broker ? parse_broker_flag(c.broker, args[i - 1], v) : h->second(c, v);
        if (!err.empty())
            return err;
        if (args[i - 1] == "--plan-fd")
            plan_fd = *parse_fd(v);
    }
    c.broker.last_cap_flags.clear();
    if (seen.count("--effect-log") != seen.count("--run-id"))
        return "--effect-log and --run-id go together";
    std::string err = plan_fd >= 0 ? from_plan(c, plan_fd, seen) : check_flags(c, seen);
    if (!err.empty())
        return err;
    return c;
}

int channel_fd_in(const std::vector<std::string> &args)
{
    for (size_t i = 0; i + 1 < args.size(); i++) {
        if (args[i] != "--channel")
            continue;
        auto fd = parse_fd(args[i + 1]);
        return fd && is_seqpacket_unix(*fd) ? *fd : -1;
    }
    return -1;
}

}  // namespace tproxy
