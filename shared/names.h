/* shared/names.h — host names, IP literals and the allow/deny decision made before any lookup.
 *
 * A host as the client wrote it is normalised once (normalize_host) and from then on only the
 * normalised form is matched, logged and resolved, so matching and connecting can never
 * disagree about which host is meant. Normalised: lower case, one trailing dot removed,
 * IPv6 literals without brackets in inet_ntop's canonical text, IPv4 literals only in strict
 * dotted-quad form (a last label that is all digits or 0x… is an IPv4 literal or an error, so
 * "127.1" or "2130706433" can never pass as a name and be resolved to loopback).
 *
 * Policy entries: an exact name, or "*.suffix", which matches strict subdomains only
 * ("*.example.com" matches "a.example.com", not "example.com"). A deny entry wins over any
 * allow entry. A pin (--host NAME=ADDR) fixes NAME's only address: no lookup, and the
 * internal-address rule does not apply to it.
 */
#pragma once

#include <netinet/in.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tproxy {

enum class HostKind { Name, V4Literal, V6Literal };

struct Host {
    std::string text;  // normalised (see above)
    HostKind kind = HostKind::Name;
};

// nullopt when `raw` is not a valid DNS name or IP literal (empty label, bad character, label
// over 63 or name over 253 bytes, non-canonical numeric form). `raw` has no brackets/port.
std::optional<Host> normalize_host(std::string_view raw);

// A policy pattern: "*.suffix" or an exact host; nullopt if malformed (and for a bare "*").
std::optional<std::string> normalize_pattern(std::string_view raw);

struct Pin {
    std::string name;       // normalised
    sockaddr_storage addr;  // port 0; the port is the request's
    socklen_t addr_len;
};

struct Policy {
    std::vector<std::string> allow;  // normalised patterns
    std::vector<std::string> deny;
    std::vector<Pin> pins;
    std::vector<unsigned> ports;  // allowed destination ports
};

// True when `name` (normalised) matches `pattern` (normalised).
bool pattern_matches(std::string_view pattern, std::string_view name);

enum class Verdict { Allow, DenyAllowlist, DenyDenylist, DenyPort };

struct PreDecision {
    Verdict verdict;
    const Pin *pin;  // set when allowed and pinned
};

// The decision before resolution: deny-list, then allow-list, then port.
PreDecision decide(const Policy &p, const Host &h, unsigned port);

// Parses "1.2.3.4" or "::1" (no brackets) strictly; nullopt otherwise.
std::optional<Pin> parse_pin_address(std::string_view name, std::string_view addr);

}  // namespace tproxy
