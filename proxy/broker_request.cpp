/* proxy/broker_request.cpp — the broker's decisions and rewrites (see broker_request.h). */
#include "broker_request.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "broker_reflect.h"
#include "http_util.h"

namespace tproxy {
namespace {

int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = lower_ascii(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

std::string methods_text(const std::vector<std::string> &m)
{
    std::string s;
    for (const std::string &x : m)
        s += (s.empty() ? "" : " ") + x;
    return s;
}

Refusal refusal(int status, const char *code, std::string body)
{
    return {status, code, std::move(body)};
}

// Splits "/<cap>[/<rest>][?query]" into the capability and the upstream target.
void split_target(const std::string &target, std::string *cap, std::string *path, std::string *log_path)
{
    size_t q = target.find('?');
    std::string_view p = std::string_view(target).substr(0, q);
    size_t slash = p.find('/', 1);
    *cap = std::string(p.substr(1, slash == std::string_view::npos ? std::string_view::npos : slash - 1));
    *log_path = slash == std::string_view::npos ? "/" : std::string(p.substr(slash));
    *path = *log_path + (q == std::string::npos ? "" : target.substr(q));
}

bool method_is(const Request &r, std::initializer_list<std::string_view> names)
{
    // Case-insensitive: a lenient upstream reads "trace" or "get" as the method it names.
    return std::any_of(names.begin(), names.end(), [&](std::string_view n) { return iequals(r.method, n); });
}

// What the broker never relays whatever a capability allows, and bodies where a server may
// not read one: an upstream that ignores such a body reads it as the next request on the
// connection, which the broker's next head (with its credential) then completes.
std::optional<Refusal> check_method_and_body(const Request &r)
{
    if (method_is(r, {"TRACE", "TRACK", "CONNECT"}))
        return refusal(405, "method-not-allowed",
                       r.method +
                           " is never brokered: an upstream would echo or tunnel the request, "
                           "credential included");
    if (method_is(r, {"GET", "HEAD", "OPTIONS", "DELETE"}) && has_body(r))
        return refusal(400, "bad-request",
                       "a " + r.method +
                           " request has no body: send no Transfer-Encoding and at most "
                           "Content-Length: 0");
    auto expect = header_values(r, "Expect");
    if (!expect.empty() && (expect.size() > 1 || !iequals(expect[0], "100-continue")))
        return refusal(417, "expectation-failed", "the only expectation relayed is 'Expect: 100-continue'");
    return std::nullopt;
}

std::optional<Refusal> check_host_and_token(const Request &r, const BrokerConfig &b, const BrokerSecrets &s,
                                            const OwnAddress &own)
{
    bool ours = r.port == own.port && std::find(own.hosts.begin(), own.hosts.end(), r.host.text) != own.hosts.end();
    if (!ours)
        return refusal(400, "host-mismatch",
                       "Host is not the broker's address (" + (own.hosts.empty() ? "" : own.hosts[0]) + ":" +
                           std::to_string(own.port) + ")");
    auto tokens = header_values(r, b.auth_header);
    if (tokens.size() > 1)
        return refusal(400, "bad-request", "more than one " + b.auth_header + " header");
    if (std::string defect = path_defect(std::string_view(r.path).substr(0, r.path.find('?'))); !defect.empty())
        return refusal(400, "bad-request", defect);
    if (std::optional<Refusal> shape = check_method_and_body(r))
        return shape;
    if (tokens.empty())
        return refusal(401, "missing-token",
                       "no " + b.auth_header + " header: send the token from $CREDENTIALS_DIRECTORY/broker-token");
    if (!s.token_matches(tokens[0]))
        return refusal(401, "bad-token", "the " + b.auth_header + " token is wrong");
    return std::nullopt;
}

std::optional<Refusal> check_capability(const Request &r, const BrokerConfig &b, const Capability &c,
                                        const std::string &log_path)
{
    if (header_values(r, c.header).size() > 1)
        return refusal(400, "bad-request", "more than one " + c.header + " header");
    if (!std::any_of(b.allow.begin(), b.allow.end(),
                     [&](const std::string &p) { return pattern_matches(p, c.host.text); }))
        return refusal(403, "host-not-allowed",
                       "capability " + c.name + ": " + c.host.text + " is not in allowed_hosts");
    if (!c.methods.empty() && std::find(c.methods.begin(), c.methods.end(), r.method) == c.methods.end())
        return refusal(405, "method-not-allowed",
                       "capability " + c.name + " allows " + methods_text(c.methods) + ", not " + r.method);
    if (!c.path_prefixes.empty() &&
        std::none_of(c.path_prefixes.begin(), c.path_prefixes.end(),
                     [&](const std::string &p) { return prefix_allows(p, log_path); }))
        return refusal(403, "path-not-allowed",
                       "capability " + c.name + " allows only paths under " + methods_text(c.path_prefixes));
    return std::nullopt;
}

bool dropped_from_request(const Request &r, const BrokerConfig &b, const Capability &c, std::string_view name)
{
    return iequals(name, "Host") || iequals(name, b.auth_header) || iequals(name, c.header) || is_hop_by_hop(r, name);
}

bool response_hop_by_hop(const Response &resp, std::string_view name)
{
    static constexpr std::string_view kHop[] = {"connection", "keep-alive", "te", "upgrade"};
    if (name.size() >= 6 && iequals(name.substr(0, 6), "proxy-"))
        return true;
    for (std::string_view h : kHop)
        if (iequals(name, h))
            return true;
    for (const auto &[n, v] : resp.headers)
        if (iequals(n, "Connection"))
            for (std::string_view t : list_tokens(v))
                if (iequals(t, name))
                    return true;
    return false;
}

}  // namespace

void wipe_request(Request &r)
{
    for (auto &[name, value] : r.headers)
        wipe_string(value);
    r.headers.clear();
}

std::optional<Framer> request_body(const Request &r)
{
    auto lengths = header_values(r, "Content-Length");
    if (!header_values(r, "Transfer-Encoding").empty())
        return Framer::chunked(false);
    if (lengths.empty())
        return Framer::none();
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(lengths[0].data(), lengths[0].data() + lengths[0].size(), n);
    if (ec != std::errc() || end != lengths[0].data() + lengths[0].size())
        return std::nullopt;
    return Framer::length(n);
}

bool has_body(const Request &r)
{
    std::optional<Framer> body = request_body(r);
    return !body || !body->done();
}

bool expects_continue(const Request &r)
{
    auto expect = header_values(r, "Expect");
    return expect.size() == 1 && iequals(expect[0], "100-continue") && has_body(r);
}

bool wants_close(const Request &r)
{
    for (std::string_view c : header_values(r, "Connection"))
        for (std::string_view t : list_tokens(c))
            if (iequals(t, "close"))
                return true;
    return false;
}

std::string path_defect(std::string_view path)
{
    if (path.find('\\') != std::string_view::npos)
        return "backslash in the path";
    if (path.find("//") != std::string_view::npos)
        return "empty path segment ('//')";
    for (size_t i = 0; i < path.size(); i++) {
        if (path[i] != '%')
            continue;
        if (i + 2 >= path.size() || hex_digit(path[i + 1]) < 0 || hex_digit(path[i + 2]) < 0)
            return "malformed %-escape in the path";
        int v = hex_digit(path[i + 1]) * 16 + hex_digit(path[i + 2]);
        if (v == '.' || v == '/' || v == '\\' || v == 0)
            return "encoded dot, slash, backslash or NUL in the path";
    }
    size_t start = 1;
    while (start <= path.size()) {
        size_t end = path.find('/', start);
        std::string_view seg = path.substr(start, end == std::string_view::npos ? end : end - start);
        if (seg == "." || seg == "..")
            return "dot segment in the path";
        if (end == std::string_view::npos)
            break;
        start = end + 1;
    }
    return "";
}

bool prefix_allows(std::string_view prefix, std::string_view path)
{
    if (!path.starts_with(prefix))
        return false;
    return path.size() == prefix.size() || prefix.back() == '/' || path[prefix.size()] == '/';
}

BrokerDecision broker_decide(const Request &r, const BrokerConfig &b, const BrokerSecrets &s, const OwnAddress &own)
{
    BrokerDecision d;
    if ((d.refusal = check_host_and_token(r, b, s, own)))
        return d;
    std::string cap;
    split_target(r.path, &cap, &d.path, &d.log_path);
    auto it = std::find_if(b.caps.begin(), b.caps.end(), [&](const Capability &c) { return c.name == cap; });
    if (it == b.caps.end()) {
        d.refusal = refusal(404, "unknown-capability",
                            cap.empty() ? std::string("no capability in the path: send /<capability>/<path>")
                                        : "no capability named '" + cap + "'");
        return d;
    }
    d.cap = static_cast<int>(it - b.caps.begin());
    d.refusal = check_capability(r, b, *it, d.log_path);
    return d;
}

Secret upstream_request_head(const Request &r, const BrokerConfig &b, const Capability &c, const std::string &path,
                             const Secret &line, bool close)
{
    std::string host = c.host.kind == HostKind::V6Literal ? "[" + c.host.text + "]" : c.host.text;
    if (c.port != 443)
        host += ":" + std::to_string(c.port);
    std::vector<std::string_view> parts = {r.method, " ", path, " HTTP/1.1\r\nHost: ", host, "\r\n"};
    for (const auto &[name, value] : r.headers)
        if (!dropped_from_request(r, b, c, name))
            parts.insert(parts.end(), {name, ": ", value, "\r\n"});
    parts.push_back(line.view());
    if (close)
        parts.push_back("Connection: close\r\n");
    parts.push_back("\r\n");
    size_t size = 0;
    for (std::string_view p : parts)
        size += p.size();
    Secret head(size);
    char *at = head.data();
    for (std::string_view p : parts) {
        std::memcpy(at, p.data(), p.size());
        at += p.size();
    }
    return head;
}

ClientHead client_response_head(const Response &resp, const ValueFinder &value, bool close)
{
    ClientHead h;
    std::string reason = resp.reason;
    if (value.found_in(reason)) {
        wipe_string(reason);
        reason = standard_reason(resp.status);
        h.dropped++;
    }
    h.text = "HTTP/1.1 " + std::to_string(resp.status) + " " + reason + "\r\n";
    for (const auto &[name, v] : resp.headers) {
        if (response_hop_by_hop(resp, name))
            continue;
        if (value.found_in(name) || value.found_in(v)) {
            h.dropped++;
            h.framing_dropped =
                h.framing_dropped || iequals(name, "Content-Length") || iequals(name, "Transfer-Encoding");
            continue;
        }
        h.text += name + ": " + v + "\r\n";
    }
    if (close)
        h.text += "Connection: close\r\n";
    h.text += "\r\n";
    return h;
}

}  // namespace tproxy
