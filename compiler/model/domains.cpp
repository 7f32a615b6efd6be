// compiler/model/domains.cpp — domain-pattern checks and the Public Suffix List (see domains.h).
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

std::optional<std::u32string> decode_utf8(std::string_view text)
{
    std::u32string out;
    for (size_t i = 0; i < text.size();) {
        const auto lead = static_cast<uint8_t>(text[i]);
        const size_t length = lead < 0x80 ? 1
            : (lead >> 5) == 0x6          ? 2
            : (lead >> 4) == 0xE          ? 3
            : (lead >> 3) == 0x1E         ? 4
                                          : 0;
        if (length == 0 || i + length > text.size())
            return std::nullopt;
        uint32_t code = length == 1 ? lead : lead & (0x7Fu >> length);
        for (size_t k = 1; k < length; ++k) {
            const auto next = static_cast<uint8_t>(text[i + k]);
            if ((next >> 6) != 0x2)
                return std::nullopt;
            code = (code << 6) | (next & 0x3Fu);
        }
        out.push_back(static_cast<char32_t>(code));
        i += length;
    }
    return out;
}

// RFC 3492 §6.1 bias adaptation, with the parameters of §5 for IDNA.
constexpr uint32_t kBase = 36, kTMin = 1, kTMax = 26, kSkew = 38, kDamp = 700;

uint32_t adapt(uint32_t delta, uint32_t points, bool first)
{
    delta = first ? delta / kDamp : delta / 2;
    delta += delta / points;
    uint32_t k = 0;
    while (delta > ((kBase - kTMin) * kTMax) / 2) {
        delta /= kBase - kTMin;
        k += kBase;
    }
    return k + (kBase - kTMin + 1) * delta / (delta + kSkew);
}

char punycode_digit(uint32_t d)
{
    return static_cast<char>(d < 26 ? 'a' + d : '0' + (d - 26));
}

// RFC 3492 §6.3 encoding; labels are at most 63 bytes, far from the overflow bounds.
std::string punycode(const std::u32string &code_points)
{
    std::string out;
    for (char32_t c : code_points)
        if (c < 0x80)
            out.push_back(static_cast<char>(c));
    const auto basic = static_cast<uint32_t>(out.size());
    if (basic > 0)
        out.push_back('-');
    uint32_t n = 0x80, delta = 0, bias = 72, handled = basic;
    while (handled < code_points.size()) {
        uint32_t next = UINT32_MAX;
        for (char32_t c : code_points)
            if (c >= n)
                next = std::min(next, static_cast<uint32_t>(c));
        delta += (next - n) * (handled + 1);
        n = next;
        for (char32_t c : code_points) {
            if (c < n)
                ++delta;
            if (c != n)
                continue;
            uint32_t q = delta;
            for (uint32_t k = kBase;; k += kBase) {
                const uint32_t t = k <= bias ? kTMin : k >= bias + kTMax ? kTMax : k - bias;
                if (q < t)
                    break;
                out.push_back(punycode_digit(t + (q - t) % (kBase - t)));
                q = (q - t) / (kBase - t);
            }
            out.push_back(punycode_digit(q));
            bias = adapt(delta, handled + 1, handled == basic);
            delta = 0;
            ++handled;
        }
        ++delta;
        ++n;
    }
    return out;
}

// `rule` (after any "!" or "*.") with each label in ASCII form, or "" when malformed.
std::string ascii_rule(std::string_view rule)
{
    // Nearly every rule is ASCII already: its labels are their own ASCII form (decoding them
    // as UTF-8 first would change nothing), so only the empty label is malformed.
    if (std::all_of(rule.begin(), rule.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
        if (rule.empty() || rule.front() == '.' || rule.back() == '.' || rule.find("..") != std::string_view::npos)
            return "";
        std::string out(rule);
        for (char &c : out)
            c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        return out;
    }
    std::string out;
    size_t start = 0;
    while (true) {
        const size_t dot = rule.find('.', start);
        const std::string_view label = rule.substr(start, dot == std::string_view::npos ? dot : dot - start);
        const std::optional<std::string> ascii = idn_label_to_ascii(label);
        if (label.empty() || !ascii)
            return "";
        if (!out.empty())
            out.push_back('.');
        for (char c : *ascii)
            out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
        if (dot == std::string_view::npos)
            return out;
        start = dot + 1;
    }
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

std::optional<std::string> idn_label_to_ascii(std::string_view label)
{
    const std::optional<std::u32string> code_points = decode_utf8(label);
    if (!code_points)
        return std::nullopt;
    if (std::all_of(code_points->begin(), code_points->end(), [](char32_t c) { return c < 0x80; }))
        return std::string(label);
    return "xn--" + punycode(*code_points);
}

PublicSuffixList PublicSuffixList::parse(std::string_view text)
{
    PublicSuffixList list;
    // Debian's list holds about 10,000 rules: no rehashing on the way there.
    list.rules_.reserve(16384);
    list.below_.reserve(16384);
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        line = line.substr(0, line.find_first_of(" \t\r"));
        if (line.empty() || line.starts_with("//"))
            continue;
        list.add_rule(std::string(line));
    }
    return list;
}

PublicSuffixList PublicSuffixList::load(const std::string &path)
{
    std::string text, err;
    if (!read_file(path, text, err))
        return {};
    return parse(text);
}

const PublicSuffixList &PublicSuffixList::system()
{
    static const PublicSuffixList list = load(kPublicSuffixListPath);
    return list;
}

void PublicSuffixList::add_rule(const std::string &rule)
{
    const bool exception = rule.starts_with('!');
    const bool wildcard = rule.starts_with("*.");
    const std::string name = ascii_rule(std::string_view(rule).substr(exception ? 1 : wildcard ? 2 : 0));
    if (name.empty())
        return;
    if (exception) {
        exceptions_.insert(name);
        return;
    }
    (wildcard ? wildcards_ : rules_).insert(name);
    // Every name above the rule has a public suffix under it; a wildcard's base too.
    const std::string shown = wildcard ? "*." + name : name;
    if (wildcard)
        below_.emplace(name, shown);
    for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1))
        below_.emplace(name.substr(dot + 1), shown);
}

bool PublicSuffixList::is_public_suffix(std::string_view name) const
{
    for (size_t start = 0;;) {
        if (exceptions_.contains(std::string(name.substr(start))))
            return false;
        const size_t dot = name.find('.', start);
        if (dot == std::string_view::npos)
            break;
        start = dot + 1;
    }
    const size_t first_dot = name.find('.');
    if (first_dot == std::string_view::npos)
        return true;
    return rules_.contains(std::string(name)) || wildcards_.contains(std::string(name.substr(first_dot + 1)));
}

std::string PublicSuffixList::suffix_below(std::string_view name) const
{
    const auto found = below_.find(std::string(name));
    return found == below_.end() ? "" : found->second;
}

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
