/* proxy/http_response.cpp — response heads and their framing (see http_response.h). */
#include "http_response.h"

#include <charconv>

#include "http_util.h"

namespace tproxy {
namespace {

constexpr size_t kMaxResponseHeaders = 256;
constexpr size_t kMaxLengthDigits = 18;  // below 2^63: no overflow on the way

ResponseParse failed(std::string why)
{
    ResponseParse p;
    p.status = ParseStatus::Error;
    p.error = std::move(why);
    return p;
}

bool parse_status_line(std::string_view line, Response *r)
{
    // "HTTP/1.1 200 OK"; the reason may be empty ("HTTP/1.1 204 ").
    if (line.size() < 12 || line[8] != ' ' || (line.size() > 12 && line[12] != ' '))
        return false;
    std::string_view version = line.substr(0, 8);
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
        return false;
    std::string_view code = line.substr(9, 3);
    if (!all_digits(code))
        return false;
    std::from_chars(code.data(), code.data() + 3, r->status);
    if (r->status < 100 || r->status > 599)
        return false;
    r->version = std::string(version);
    r->reason = line.size() > 13 ? std::string(line.substr(13)) : "";
    return true;
}

std::vector<std::string_view> values(const Response &r, std::string_view name)
{
    std::vector<std::string_view> out;
    for (const auto &[n, v] : r.headers)
        if (iequals(n, name))
            out.push_back(v);
    return out;
}

}  // namespace

ResponseParse parse_response(std::string_view buf, size_t max_head)
{
    size_t end = buf.find("\r\n\r\n");
    size_t seen = end == std::string_view::npos ? buf.size() : end + 4;
    if (!clean_bytes(buf.substr(0, seen)))
        return failed("bare CR, bare LF or control byte in the response head");
    if (seen > max_head || (end == std::string_view::npos && buf.size() >= max_head))
        return failed("response head over " + std::to_string(max_head) + " bytes");
    if (end == std::string_view::npos)
        return {};
    ResponseParse out;
    Response &r = out.resp;
    std::string_view head = buf.substr(0, end);
    size_t eol = head.find("\r\n");
    if (!parse_status_line(head.substr(0, eol), &r))
        return failed("malformed status line");
    if (r.status == 101)
        return failed("101 Switching Protocols: the broker asked for no upgrade");
    while (eol != std::string_view::npos) {
        size_t start = eol + 2;
        eol = head.find("\r\n", start);
        std::string_view name, value;
        if (!split_header_line(head.substr(start, eol - start), &name, &value))
            return failed("malformed or folded response header line");
        if (r.headers.size() == kMaxResponseHeaders)
            return failed("more than 256 response header lines");
        r.headers.emplace_back(std::string(name), std::string(value));
    }
    r.head_len = seen;
    out.status = ParseStatus::Ok;
    return out;
}

ResponseFraming response_framing(const Response &r, std::string_view method)
{
    ResponseFraming f;
    bool close = r.version != "HTTP/1.1";
    for (std::string_view c : values(r, "Connection"))
        for (std::string_view t : list_tokens(c))
            close = close || iequals(t, "close");
    auto lengths = values(r, "Content-Length");
    auto encodings = values(r, "Transfer-Encoding");
    f.keep_alive = !close;
    if (method == "HEAD" || r.status == 204 || r.status == 304)
        return f;  // no body, whatever the headers say
    if (!lengths.empty() && !encodings.empty()) {
        f.error = "both Content-Length and Transfer-Encoding";
        return f;
    }
    if (!encodings.empty()) {
        if (encodings.size() > 1 || !iequals(encodings[0], "chunked"))
            f.error = "a transfer coding other than 'chunked'";
        f.body = Framer::chunked(true);
        return f;
    }
    if (!lengths.empty()) {
        uint64_t n = 0;
        for (std::string_view l : lengths)
            if (l != lengths[0] || !all_digits(l) || l.size() > kMaxLengthDigits)
                f.error = "malformed or conflicting Content-Length";
        std::from_chars(lengths[0].data(), lengths[0].data() + lengths[0].size(), n);
        f.body = Framer::length(n);
        return f;
    }
    f.body = Framer::until_close();
    f.keep_alive = false;
    return f;
}

}  // namespace tproxy
