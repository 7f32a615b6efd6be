// compiler/model/domains.cpp — domain-pattern checks (see domains.h).
#include "domains.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "names.h"
#include "paths.h"

namespace tartaros {

namespace {

constexpr const char *kSyntax = "domain-syntax";
constexpr const char *kTooBroad = "domain-too-broad";

// Public suffixes listed (in the private section) only to isolate the owner's own hosts from
// each other's cookies: every name under them is run by the owner, none can be registered by
// anyone else, so a wildcard over them reaches no third party.
const std::vector<std::string_view> kOwnerRunSuffixes = {"githubusercontent.com"};

std::nullopt_t refuse(DomainError &err, std::string message, const char *rule_id)
{
    err.message = std::move(message);
    err.rule_id = rule_id;
    return std::nullopt;
}

// The host a URL-like entry names ("https://user@GitHub.com:443/x" → "github.com"), for the
// hint of a refusal; "" when there is no valid one.
std::string bare_host(std::string_view raw)
{
    std::string_view s = raw;
    if (const size_t scheme = s.find("://"); scheme != std::string_view::npos)
        s.remove_prefix(scheme + 3);
    s = s.substr(0, s.find_first_of("/?#"));
    if (const size_t at = s.rfind('@'); at != std::string_view::npos)
        s.remove_prefix(at + 1);
    if (s.starts_with('[') && s.find(']') != std::string_view::npos)
        s = s.substr(1, s.find(']') - 1);
    else if (std::count(s.begin(), s.end(), ':') == 1)
        s = s.substr(0, s.find(':'));
    const std::optional<std::string> host = tproxy::normalize_pattern(s);
    return host ? *host : "";
}

bool is_v6_literal(std::string_view raw)
{
    const std::optional<tproxy::Host> host = tproxy::normalize_host(raw);
    return host && host->kind == tproxy::HostKind::V6Literal;
}

// Why `raw` is a URL or host:port rather than a host, or "" when it is not.
std::string url_part(std::string_view raw, std::string_view ports_hint)
{
    if (raw.find("://") != std::string_view::npos)
        return " is a URL";
    if (raw.find('@') != std::string_view::npos)
        return " has a user name";
    if (raw.find_first_of("/?#") != std::string_view::npos)
        return " has a path";
    if (raw.find_first_of("[]") != std::string_view::npos)
        return " has brackets";
    if (raw.find(':') != std::string_view::npos && std::count(raw.begin(), raw.end(), ':') == 1 && !is_v6_literal(raw))
        return " has a port (" + std::string(ports_hint) + ")";
    return "";
}

// The port of "host:PORT" as written, or nullopt after filling `err`.
std::optional<uint16_t> upstream_port(std::string_view raw, std::string_view digits, DomainError &err)
{
    const bool numeric = !digits.empty() && digits.size() <= 5 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    const unsigned long port = numeric ? std::stoul(std::string(digits)) : 0;
    if (port < 1 || port > 65535)
        return refuse(err, quoted(raw) + ": " + quoted(digits) + " is not a port number (1 to 65535)", "invalid-port");
    return static_cast<uint16_t>(port);
}

// Why "*.suffix" is too broad, or "" when it is not.
std::string too_broad(const std::string &suffix, const PublicSuffixList &psl)
{
    if (suffix.find('.') == std::string::npos)
        return " matches every name in the top-level domain " + quoted(suffix);
    const bool owner_run =
        std::find(kOwnerRunSuffixes.begin(), kOwnerRunSuffixes.end(), suffix) != kOwnerRunSuffixes.end();
    if (!owner_run && psl.is_public_suffix(suffix))
        return " matches every name anyone registers under the public suffix " + quoted(suffix);
    const std::string below = psl.suffix_below(suffix);
    if (!below.empty())
        return " also matches every name anyone registers under the public suffix " + quoted(below);
    return "";
}

}  // namespace

std::optional<std::string> check_domain_pattern(std::string_view raw, const PublicSuffixList &psl, DomainError &err,
                                                std::string_view ports_hint)
{
    if (raw.empty())
        return refuse(err, "an empty string is not a domain", kSyntax);
    if (const std::string why = url_part(raw, ports_hint); !why.empty()) {
        const std::string host = bare_host(raw);
        return refuse(err,
                      quoted(raw) + why + ": write the host name alone" + (host.empty() ? "" : ", " + quoted(host)),
                      kSyntax);
    }
    if (raw == "*")
        return refuse(err, "'*' would allow every host: list the domains themselves", kTooBroad);
    const size_t star = raw.find('*');
    if (star != std::string_view::npos && (!raw.starts_with("*.") || raw.find('*', 1) != std::string_view::npos))
        return refuse(err, quoted(raw) + ": '*' is only allowed as a leading '*.', as in '*.example.com'", kSyntax);
    std::optional<std::string> pattern = tproxy::normalize_pattern(raw);
    if (!pattern)
        return refuse(err, quoted(raw) + " is not a valid host name or IP literal", kSyntax);
    if (pattern->starts_with("*.")) {
        const std::string why = too_broad(pattern->substr(2), psl);
        if (!why.empty())
            return refuse(err, quoted(raw) + " is too broad: it" + why, kTooBroad);
    }
    return pattern;
}

std::optional<std::string> check_pin_name(std::string_view raw, DomainError &err)
{
    const std::optional<tproxy::Host> host = tproxy::normalize_host(raw);
    if (!host)
        return refuse(err, quoted(raw) + " is not a valid host name", kSyntax);
    if (host->kind != tproxy::HostKind::Name)
        return refuse(err, quoted(raw) + " is an IP literal: only a host name can be given an address", kSyntax);
    return host->text;
}

std::optional<std::string> check_pin_address(std::string_view name, std::string_view raw, DomainError &err)
{
    const std::optional<tproxy::Pin> pin = tproxy::parse_pin_address(name, raw);
    if (!pin)
        return refuse(err,
                      "the address of " + quoted(name) + ", " + quoted(raw) +
                          ", is not an IPv4 or IPv6 address (IPv6 is written without brackets)",
                      "host-address");
    char text[INET6_ADDRSTRLEN];
    const void *address = pin->addr.ss_family == AF_INET
        ? static_cast<const void *>(&reinterpret_cast<const sockaddr_in *>(&pin->addr)->sin_addr)
        : static_cast<const void *>(&reinterpret_cast<const sockaddr_in6 *>(&pin->addr)->sin6_addr);
    // Cannot fail: the family is one inet_pton parsed and the buffer fits either.
    inet_ntop(pin->addr.ss_family, address, text, sizeof text);
    return std::string(text);
}

std::optional<UpstreamHost> check_upstream_host(std::string_view raw, DomainError &err)
{
    constexpr const char *kHostRule = "capability-host";
    const std::string example = ", like 'api.github.com' or 'git.example.com:8443'";
    if (raw.empty())
        return refuse(err, "an empty string is not a host" + example, kHostRule);
    if (raw.find("://") != std::string_view::npos || raw.find_first_of("/?#@") != std::string_view::npos)
        return refuse(err,
                      quoted(raw) +
                          " is a URL, not a host: write the host alone (the path of a request is the "
                          "agent's)" +
                          example,
                      kHostRule);
    if (raw.find('*') != std::string_view::npos)
        return refuse(err, quoted(raw) + ": a capability names one host, not a pattern" + example, kHostRule);
    std::string_view host = raw;
    std::optional<uint16_t> port;
    if (raw.starts_with('[')) {
        const size_t close = raw.find(']');
        const std::string_view after = close == std::string_view::npos ? "" : raw.substr(close + 1);
        if (close == std::string_view::npos || !is_v6_literal(raw.substr(1, close - 1)) ||
            (!after.empty() && !after.starts_with(':')))
            return refuse(err, quoted(raw) + ": brackets hold an IPv6 address, as in '[2001:db8::1]:8443'", kHostRule);
        host = raw.substr(1, close - 1);
        if (!after.empty() && !(port = upstream_port(raw, after.substr(1), err)))
            return std::nullopt;
    } else if (std::count(raw.begin(), raw.end(), ':') == 1) {
        host = raw.substr(0, raw.find(':'));
        if (!(port = upstream_port(raw, raw.substr(raw.find(':') + 1), err)))
            return std::nullopt;
    }
    const std::optional<tproxy::Host> normal = tproxy::normalize_host(host);
    if (!normal)
        return refuse(err,
                      quoted(raw) + " is not a valid host name or IP address" +
                          (raw.find(':') != std::string_view::npos ? " (an IPv6 address with a port is written "
                                                                     "in brackets, '[2001:db8::1]:8443')"
                                                                   : ""),
                      kHostRule);
    return UpstreamHost{normal->text, port};
}

}  // namespace tartaros
