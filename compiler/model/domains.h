// compiler/model/domains.h — checking the domain patterns of [network] allow_domains / deny_domains.
//
// A pattern is an exact host name, an IP literal (dotted-quad IPv4 or IPv6 without brackets),
// or "*.suffix" (strict subdomains of suffix). Patterns are normalised by the proxy's own
// rules (tproxy::normalize_pattern), so the compiler accepts exactly what the proxy matches.
//
// A wildcard is refused as too broad when it would match names that anyone can register:
// the suffix is a single label ("*.com"), a public suffix ("*.co.uk", "*.github.io": the
// private section of the list counts), or has public suffixes under it ("*.amazonaws.com"
// matches every S3 bucket under "s3.amazonaws.com"). The one exception is a short list of
// suffixes whose every subdomain is run by their owner ("githubusercontent.com"): the list
// holds them only to isolate the owner's hosts from each other's cookies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "public_suffix_list.h"

namespace tartaros {

struct DomainError {
    std::string message;  // one line, quoting the entry as written
    std::string rule_id;  // "domain-syntax" or "domain-too-broad"
};

// Checks one allow_domains / deny_domains entry as written and returns its normalised form;
// nullopt with the reason in `err` when it is refused (see the top of this file). `ports_hint`
// says where the ports come from, for an entry written with one.
inline constexpr std::string_view kDomainPortsHint = "the ports the proxy connects to are set by 'domain_ports'";
std::optional<std::string> check_domain_pattern(std::string_view raw, const PublicSuffixList &psl, DomainError &err,
                                                std::string_view ports_hint = kDomainPortsHint);

// A credential broker's upstream, `host` of a [[broker.capability]]: a host name, an IPv4
// literal or an IPv6 literal, optionally followed by ":port" (IPv6 then in brackets,
// "[2001:db8::1]:8443"); the host normalised as the proxy matches it (lower case, IPv6
// without brackets), the port 1..65535 or absent. Refused with rule "capability-host" (a URL,
// a path, a wildcard, not a host) or "invalid-port".
struct UpstreamHost {
    std::string host;
    std::optional<uint16_t> port;
};
std::optional<UpstreamHost> check_upstream_host(std::string_view raw, DomainError &err);

// A name of [network] hosts as written → its normalised form; refused when it is not a valid
// host name (an IP literal is refused too: only a name can be given an address).
std::optional<std::string> check_pin_name(std::string_view raw, DomainError &err);

// The address pinned for `name` (normalised) → its canonical text ("::0:1" → "::1"), parsed by
// the proxy's rules (tproxy::parse_pin_address); refused with rule "host-address" otherwise.
std::optional<std::string> check_pin_address(std::string_view name, std::string_view raw, DomainError &err);

}  // namespace tartaros
