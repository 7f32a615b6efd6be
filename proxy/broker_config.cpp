/* proxy/broker_config.cpp — the broker's flags and their checks (see broker_config.h). */
#include "broker_config.h"

#include <arpa/inet.h>
#include <fcntl.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "broker_rules.h"
#include "plan.h"

namespace tproxy {
namespace {

// "a b c" (the plan's form of methods and path prefixes) when every item passes `item`.
std::optional<std::vector<std::string>> checked_list(const std::string &s, bool (*item)(const char *, size_t))
{
    if (!tbr::spaced_list(s.data(), s.size(), item))
        return std::nullopt;
    return split_spaced(s);
}

std::string bad(const std::string &flag, const std::string &v, const char *want)
{
    return flag + " '" + v + "': " + want;
}

std::optional<unsigned> parse_port(std::string_view s)
{
    unsigned p = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), p);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty() || p == 0 || p > 65535)
        return std::nullopt;
    return p;
}

// NAME=HOST:PORT with HOST a name, an IPv4 literal or a bracketed IPv6 literal.
std::string add_capability(BrokerConfig &b, const std::string &v)
{
    const char *want = "expected NAME=HOST:PORT (NAME of [A-Za-z0-9._-], HOST a name or IP literal)";
    size_t eq = v.find('=');
    size_t colon = v.rfind(':');
    if (eq == std::string::npos || colon == std::string::npos || colon < eq)
        return bad("--capability", v, want);
    Capability c;
    c.name = v.substr(0, eq);
    std::string host = v.substr(eq + 1, colon - eq - 1);
    bool bracketed = host.size() > 2 && host.front() == '[' && host.back() == ']';
    if (bracketed)
        host = host.substr(1, host.size() - 2);
    if (bracketed != (host.find(':') != std::string::npos))
        return bad("--capability", v, "an IPv6 literal goes in brackets, and nothing else does");
    auto h = normalize_host(host);
    auto port = parse_port(std::string_view(v).substr(colon + 1));
    if (!tbr::capability_name(c.name.data(), c.name.size()) || !h || !port)
        return bad("--capability", v, want);
    for (const Capability &o : b.caps)
        if (o.name == c.name)
            return bad("--capability", v, "this name is given twice");
    c.host = *h;
    c.port = *port;
    b.caps.push_back(std::move(c));
    b.last_cap_flags.clear();
    return "";
}

std::string set_cap_field(BrokerConfig &b, const std::string &flag, const std::string &v)
{
    if (b.caps.empty())
        return flag + " needs a --capability before it";
    Capability &c = b.caps.back();
    if (std::find(b.last_cap_flags.begin(), b.last_cap_flags.end(), flag) != b.last_cap_flags.end())
        return flag + " given twice for capability " + c.name;
    b.last_cap_flags.push_back(flag);
    if (flag == "--cap-header") {
        if (!tbr::header_name(v.data(), v.size()))
            return bad(flag, v, "expected an HTTP field name (not one that frames or routes the message)");
        c.header = v;
    } else if (flag == "--cap-format") {
        if (!tbr::value_format(v.data(), v.size()))
            return bad(flag, v, "expected printable ASCII with {value} exactly once, at most 1024 bytes");
        c.format = v;
    } else if (flag == "--cap-methods") {
        auto m = checked_list(v, tbr::method_item);
        if (!m)
            return bad(flag, v, "expected upper-case methods separated by one space");
        c.methods = *m;
    } else {
        auto p = checked_list(v, tbr::prefix_item);
        if (!p)
            return bad(flag, v, "expected paths starting with '/' separated by one space");
        c.path_prefixes = *p;
    }
    return "";
}

const std::set<std::string> kCapFlags = {"--cap-header", "--cap-format", "--cap-methods", "--cap-path-prefixes"};
const std::set<std::string> kOnce = {"--broker-port", "--broker-listen", "--broker-secrets", "--broker-auth-header",
                                     "--broker-ca-file"};

}  // namespace

bool BrokerConfig::needs_lookups() const
{
    return std::any_of(caps.begin(), caps.end(), [](const Capability &c) { return c.host.kind == HostKind::Name; });
}

std::optional<ListenAddr> parse_listen(const std::string &s)
{
    size_t colon = s.rfind(':');
    if (colon == std::string::npos)
        return std::nullopt;
    std::string_view ps = std::string_view(s).substr(colon + 1);
    unsigned port = 0;
    auto [end, ec] = std::from_chars(ps.data(), ps.data() + ps.size(), port);
    if (ec != std::errc() || end != ps.data() + ps.size() || ps.empty() || port > 65535)
        return std::nullopt;
    std::string host = s.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    auto pin = parse_pin_address("listen", host);
    if (!pin)
        return std::nullopt;
    ListenAddr l{pin->addr, pin->addr_len};
    auto port16 = htons(static_cast<uint16_t>(port));
    if (l.addr.ss_family == AF_INET)
        reinterpret_cast<sockaddr_in *>(&l.addr)->sin_port = port16;
    else
        reinterpret_cast<sockaddr_in6 *>(&l.addr)->sin6_port = port16;
    return l;
}

std::vector<std::string> split_spaced(const std::string &s)
{
    std::vector<std::string> out;
    for (size_t start = 0; start < s.size();) {
        size_t space = std::min(s.find(' ', start), s.size());
        out.push_back(s.substr(start, space - start));
        start = space + 1;
    }
    return out;
}

bool is_broker_flag(const std::string &flag)
{
    static const std::set<std::string> kOthers = {"--broker-allow", "--capability"};
    return kOnce.count(flag) || kCapFlags.count(flag) || kOthers.count(flag);
}

bool broker_flag_once(const std::string &flag)
{
    return kOnce.count(flag) != 0;
}

bool parse_broker_switch(BrokerConfig &b, const std::string &flag)
{
    if (flag != "--broker-allow-internal")
        return false;
    b.allow_internal = true;
    return true;
}

std::string parse_broker_flag(BrokerConfig &b, const std::string &flag, const std::string &v)
{
    if (flag == "--broker-port") {
        auto p = parse_port(v);
        if (!p)
            return bad(flag, v, "expected a port 1..65535");
        b.port = *p;
    } else if (flag == "--broker-listen") {
        b.listen = parse_listen(v);
        if (!b.listen)
            return bad(flag, v, "expected IPv4:PORT or [IPv6]:PORT");
    } else if (flag == "--broker-secrets") {
        unsigned long long n = 0;
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (ec != std::errc() || end != v.data() + v.size() || v.empty() || n > (1u << 30) ||
            fcntl(static_cast<int>(n), F_GETFD) < 0)
            return bad(flag, v, "expected an open file descriptor");
        b.secrets_fd = static_cast<int>(n);
    } else if (flag == "--broker-auth-header") {
        if (!tbr::header_name(v.data(), v.size()))
            return bad(flag, v, "expected an HTTP field name (not one that frames or routes the message)");
        b.auth_header = v;
    } else if (flag == "--broker-allow") {
        auto p = normalize_pattern(v);
        if (!p)
            return bad(flag, v, "expected a host name, an IP literal or *.suffix");
        b.allow.push_back(*p);
    } else if (flag == "--broker-ca-file") {
        if (v.empty())
            return bad(flag, v, "expected a path");
        b.ca_file = v;
    } else if (flag == "--capability") {
        return add_capability(b, v);
    } else if (kCapFlags.count(flag)) {
        return set_cap_field(b, flag, v);
    } else {
        return "unknown argument '" + flag + "'";
    }
    return "";
}

std::string check_broker(const BrokerConfig &b, bool channel_mode)
{
    if (channel_mode && b.listen)
        return "--broker-listen is for listen mode; with --channel give --broker-port";
    if (!channel_mode && b.port != 0)
        return "--broker-port needs --channel";
    if (!b.enabled()) {
        bool any = b.secrets_fd >= 0 || !b.allow.empty() || !b.caps.empty() || b.allow_internal || !b.ca_file.empty() ||
            b.auth_header != "X-Broker-Auth";
        return any ? std::string("broker flags need ") + (channel_mode ? "--broker-port" : "--broker-listen") : "";
    }
    if (b.secrets_fd < 0)
        return "a broker needs --broker-secrets FD";
    if (b.allow.empty())
        return "a broker needs at least one --broker-allow";
    if (b.caps.empty())
        return "a broker needs at least one --capability";
    if (b.caps.size() > TP_MAX_BROKER_CAPS)
        return "more than " + std::to_string(TP_MAX_BROKER_CAPS) + " capabilities";
    for (const Capability &c : b.caps)
        if (tbr::same_header(c.header.data(), c.header.size(), b.auth_header.data(), b.auth_header.size()))
            return "capability " + c.name + ": its header " + c.header + " is the broker's auth header";
    return "";
}

}  // namespace tproxy
