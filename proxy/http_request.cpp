/* proxy/http_request.cpp — the strict request-head parser and the upstream head (see .h). */
#include "http_request.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "http_util.h"

namespace tproxy {
namespace {

constexpr size_t kMaxRequestLine = 8192;
constexpr size_t kMaxHeaders = 100;

ParseResult fail(int status, const char *code, std::string detail)
{
    ParseResult r;
    r.status = ParseStatus::Error;
    r.err = {status, code, std::move(detail)};
    return r;
}

ParseResult bad(std::string detail)
{
    return fail(400, "bad-request", std::move(detail));
}

// A request target is visible ASCII only (RFC 9112 §3.2): a tab, another control byte or DEL
// is a separator to some servers and part of the path to others, so it could turn one target
// into two readings. (A space never gets here: it splits the request line.)
bool visible_ascii(std::string_view target)
{
    for (char c : target)
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
            return false;
    return true;
}

bool parse_port(std::string_view s, unsigned *port)
{
    if (!all_digits(s) || s.size() > 5)
        return false;
    std::from_chars(s.data(), s.data() + s.size(), *port);
    return *port >= 1 && *port <= 65535;
}

// "host[:port]" or "[v6][:port]"; a missing port is default_port (0: the port is required).
bool parse_authority(std::string_view a, unsigned default_port, Host *host, unsigned *port)
{
    std::string_view h, p;
    bool has_port = false;
    if (!a.empty() && a.front() == '[') {
        size_t close = a.find(']');
        if (close == std::string_view::npos)
            return false;
        h = a.substr(1, close - 1);
        std::string_view rest = a.substr(close + 1);
        if (!rest.empty() && rest.front() != ':')
            return false;
        has_port = !rest.empty();
        p = has_port ? rest.substr(1) : rest;
        if (h.find(':') == std::string_view::npos)
            return false;  // brackets hold IPv6 only
    } else {
        size_t colon = a.find(':');
        has_port = colon != std::string_view::npos;
        h = a.substr(0, colon);
        p = has_port ? a.substr(colon + 1) : std::string_view{};
    }
    if (has_port ? !parse_port(p, port) : default_port == 0)
        return false;
    if (!has_port)
        *port = default_port;
    auto n = normalize_host(h);
    if (!n)
        return false;
    *host = *n;
    return true;
}

// The broker's form: "/<path>[?query]" only (the capability is the first segment).
ParseResult parse_origin_target(Request &r, std::string_view target)
{
    if (r.is_connect && target.front() != '/')
        return bad("CONNECT is not a broker request: send GET /<capability>/<path>");
    if (target.front() != '/')
        return bad("absolute-form or authority-form target: send /<capability>/<path>");
    if (target.find('#') != std::string_view::npos)
        return bad("fragment in request target");
    r.path = std::string(target);
    return {};
}

ParseResult parse_target(Request &r, std::string_view target, Form form)
{
    if (form == Form::Origin)
        return parse_origin_target(r, target);
    if (r.is_connect) {
        if (!parse_authority(target, 0, &r.host, &r.port))
            return bad("CONNECT needs host:port, got '" + std::string(target) + "'");
        return {};
    }
    if (!target.empty() && target.front() == '/')
        return fail(400, "not-a-proxy-request", "origin-form request: send an absolute URL");
    if (target.size() >= 8 && iequals(target.substr(0, 8), "https://"))
        return fail(400, "unsupported-scheme", "https:// through a proxy is CONNECT host:443");
    if (target.size() < 7 || !iequals(target.substr(0, 7), "http://"))
        return fail(400, "unsupported-scheme", "only http:// URLs and CONNECT are proxied");
    std::string_view rest = target.substr(7);
    if (rest.find('#') != std::string_view::npos)
        return bad("fragment in request target");
    size_t end = rest.find_first_of("/?");
    std::string_view authority = rest.substr(0, end);
    if (authority.find('@') != std::string_view::npos)
        return bad("userinfo in request target");
    if (!parse_authority(authority, 80, &r.host, &r.port))
        return bad("bad host in request target '" + std::string(authority) + "'");
    std::string_view path = end == std::string_view::npos ? "" : rest.substr(end);
    r.path = path.empty() ? "/" : (path.front() == '?' ? "/" + std::string(path) : std::string(path));
    return {};
}

ParseResult parse_request_line(Request &r, std::string_view line, Form form)
{
    if (line.size() > kMaxRequestLine)
        return fail(414, "uri-too-long", "request line over 8192 bytes");
    size_t sp1 = line.find(' ');
    size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
        return bad("request line is not 'METHOD TARGET VERSION'");
    r.method = std::string(line.substr(0, sp1));
    std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    r.version = std::string(line.substr(sp2 + 1));
    if (!is_token(r.method) || target.empty())
        return bad("malformed method or empty target");
    if (!visible_ascii(target))
        return bad("space, tab, control byte or DEL in the request target");
    if (form == Form::Origin && r.version != "HTTP/1.1")
        return fail(505, "unsupported-version", "only HTTP/1.1 is brokered");
    if (r.version != "HTTP/1.1" && r.version != "HTTP/1.0")
        return fail(505, "unsupported-version", "only HTTP/1.0 and HTTP/1.1 are proxied");
    r.is_connect = r.method == "CONNECT";
    return parse_target(r, target, form);
}

ParseResult parse_header_line(Request &r, std::string_view line)
{
    if (line.front() == ' ' || line.front() == '\t')
        return bad("folded header line (obs-fold)");
    std::string_view name, value;
    if (!split_header_line(line, &name, &value))
        return bad("malformed header line");
    if (r.headers.size() == kMaxHeaders)
        return fail(431, "header-too-large", "more than 100 header lines");
    r.headers.emplace_back(std::string(name), std::string(value));
    return {};
}

// Origin form: Host is the authority the client addressed (the broker compares it with its
// own); it must be there once and well formed.
ParseResult check_origin_host(Request &r)
{
    auto hosts = header_values(r, "Host");
    if (hosts.size() > 1)
        return bad("more than one Host header");
    if (hosts.empty())
        return fail(400, "host-mismatch", "Host header missing");
    if (!parse_authority(hosts[0], 80, &r.host, &r.port))
        return fail(400, "host-mismatch", "malformed Host header");
    return {};
}

ParseResult check_host_header(Request &r, Form form)
{
    if (form == Form::Origin)
        return check_origin_host(r);
    auto hosts = header_values(r, "Host");
    if (hosts.size() > 1)
        return fail(400, "duplicate-host", "more than one Host header");
    if (hosts.empty()) {
        if (r.is_connect)
            return {};
        return fail(400, "host-mismatch", "Host header missing");
    }
    Host h;
    unsigned port = 0;
    if (!parse_authority(hosts[0], r.is_connect ? r.port : 80, &h, &port))
        return fail(400, "host-mismatch", "malformed Host header");
    if (h.text != r.host.text || port != r.port)
        return fail(400, "host-mismatch", "Host '" + std::string(hosts[0]) + "' does not match the request target");
    return {};
}

ParseResult check_framing(Request &r, Form)
{
    auto lengths = header_values(r, "Content-Length");
    auto encodings = header_values(r, "Transfer-Encoding");
    if (!lengths.empty() && !encodings.empty())
        return bad("both Content-Length and Transfer-Encoding");
    for (std::string_view l : lengths)
        if (l != lengths[0] || !all_digits(l))
            return bad("malformed or conflicting Content-Length");
    if (encodings.size() > 1 || (encodings.size() == 1 && !iequals(encodings[0], "chunked")))
        return fail(501, "unsupported-transfer-encoding", "only 'Transfer-Encoding: chunked'");
    if (!encodings.empty() && r.version == "HTTP/1.0")
        return bad("Transfer-Encoding in an HTTP/1.0 request");
    for (std::string_view c : header_values(r, "Connection"))
        for (std::string_view t : list_tokens(c))
            if (iequals(t, "host") || iequals(t, "content-length") || iequals(t, "transfer-encoding"))
                return bad("Connection names an end-to-end header");
    return {};
}

// A complete but invalid request line is refused at once, not at the header deadline.
ParseResult early_line_check(std::string_view buf, Form form)
{
    size_t eol = buf.find("\r\n");
    if (eol == std::string_view::npos)
        return {};
    Request r;
    ParseResult line = parse_request_line(r, buf.substr(0, eol), form);
    return line.status == ParseStatus::Error ? line : ParseResult{};
}

}  // namespace

std::vector<std::string_view> header_values(const Request &r, std::string_view name)
{
    std::vector<std::string_view> out;
    for (const auto &[n, v] : r.headers)
        if (iequals(n, name))
            out.push_back(v);
    return out;
}

bool is_hop_by_hop(const Request &r, std::string_view name)
{
    static constexpr std::string_view kHop[] = {"connection", "keep-alive", "te", "trailer", "upgrade"};
    if (name.size() >= 6 && iequals(name.substr(0, 6), "proxy-"))
        return true;
    for (std::string_view h : kHop)
        if (iequals(name, h))
            return true;
    for (std::string_view c : header_values(r, "Connection"))
        for (std::string_view t : list_tokens(c))
            if (iequals(t, name))
                return true;
    return false;
}

ParseResult parse_request(std::string_view buf, size_t max_head, Form form)
{
    size_t end = buf.find("\r\n\r\n");
    size_t seen = end == std::string_view::npos ? buf.size() : end + 4;
    if (!clean_bytes(buf.substr(0, seen)))
        return bad("bare CR, bare LF or control byte in the request head");
    if (end == std::string_view::npos || seen > max_head) {
        if (buf.size() >= max_head || seen > max_head)
            return fail(431, "header-too-large", "request head over " + std::to_string(max_head) + " bytes");
        return early_line_check(buf, form);
    }
    ParseResult out;
    Request &r = out.req;
    std::string_view head = buf.substr(0, end);
    size_t eol = head.find("\r\n");
    ParseResult line = parse_request_line(r, head.substr(0, eol), form);
    if (line.status == ParseStatus::Error)
        return line;
    while (eol != std::string_view::npos) {
        size_t start = eol + 2;
        eol = head.find("\r\n", start);
        ParseResult h = parse_header_line(r, head.substr(start, eol - start));
        if (h.status == ParseStatus::Error)
            return h;
    }
    for (auto check : {check_host_header, check_framing}) {
        ParseResult c = check(r, form);
        if (c.status == ParseStatus::Error)
            return c;
    }
    r.head_len = seen;
    out.status = ParseStatus::Ok;
    return out;
}

std::string upstream_head(const Request &r)
{
    std::string out = r.method + " " + r.path + " " + r.version + "\r\n";
    for (const auto &[name, value] : r.headers)
        if (!is_hop_by_hop(r, name))
            out += name + ": " + value + "\r\n";
    out += "Connection: close\r\n\r\n";
    return out;
}

}  // namespace tproxy
