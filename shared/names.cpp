/* shared/names.cpp — normalisation and matching of host names (see names.h). */
#include "names.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include "host_rules.h"

namespace tproxy {
namespace {

char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

std::optional<Host> normalize_host(std::string_view raw)
{
    std::string s;
    s.reserve(raw.size());
    for (char c : raw)
        s.push_back(lower(c));
    if (s.find(':') != std::string::npos) {
        in6_addr a6;
        if (inet_pton(AF_INET6, s.c_str(), &a6) != 1)
            return std::nullopt;  // also refuses zone ids ("fe80::1%eth0")
        char buf[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, &a6, buf, sizeof buf);
        return Host{buf, HostKind::V6Literal};
    }
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    const size_t last = thr::last_label(s.data(), s.size());
    if (thr::looks_numeric(s.data() + last, s.size() - last)) {
        in_addr a4;  // inet_pton, unlike inet_aton, accepts only the dotted quad
        if (inet_pton(AF_INET, s.c_str(), &a4) != 1)
            return std::nullopt;
        char buf[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &a4, buf, sizeof buf);
        if (s != buf)
            return std::nullopt;  // leading zeros ("010.0.0.1"): octal to some parsers
        return Host{s, HostKind::V4Literal};
    }
    if (!thr::name_labels(s.data(), s.size()))
        return std::nullopt;
    return Host{s, HostKind::Name};
}

std::optional<std::string> normalize_pattern(std::string_view raw)
{
    if (raw.size() > 2 && raw.substr(0, 2) == "*.") {
        auto h = normalize_host(raw.substr(2));
        if (!h || h->kind != HostKind::Name)
            return std::nullopt;
        return "*." + h->text;
    }
    auto h = normalize_host(raw);
    if (!h)
        return std::nullopt;
    return h->text;
}

bool pattern_matches(std::string_view pattern, std::string_view name)
{
    if (pattern.size() > 2 && pattern.substr(0, 2) == "*.") {
        std::string_view suffix = pattern.substr(1);  // ".example.com"
        return name.size() > suffix.size() && name.ends_with(suffix);
    }
    return pattern == name;
}

PreDecision decide(const Policy &p, const Host &h, unsigned port)
{
    auto matches = [&](const std::string &pat) { return pattern_matches(pat, h.text); };
    if (std::any_of(p.deny.begin(), p.deny.end(), matches))
        return {Verdict::DenyDenylist, nullptr};
    if (!std::any_of(p.allow.begin(), p.allow.end(), matches))
        return {Verdict::DenyAllowlist, nullptr};
    if (std::find(p.ports.begin(), p.ports.end(), port) == p.ports.end())
        return {Verdict::DenyPort, nullptr};
    for (const Pin &pin : p.pins)
        if (pin.name == h.text)
            return {Verdict::Allow, &pin};
    return {Verdict::Allow, nullptr};
}

std::optional<Pin> parse_pin_address(std::string_view name, std::string_view addr)
{
    auto n = normalize_host(name);
    if (!n)
        return std::nullopt;
    Pin pin{n->text, {}, 0};
    std::string a(addr);
    auto *v4 = reinterpret_cast<sockaddr_in *>(&pin.addr);
    auto *v6 = reinterpret_cast<sockaddr_in6 *>(&pin.addr);
    if (inet_pton(AF_INET, a.c_str(), &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        pin.addr_len = sizeof(sockaddr_in);
    } else if (inet_pton(AF_INET6, a.c_str(), &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        pin.addr_len = sizeof(sockaddr_in6);
    } else {
        return std::nullopt;
    }
    return pin;
}

}  // namespace tproxy
