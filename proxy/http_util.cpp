/* proxy/http_util.cpp — shared HTTP lexical rules (see http_util.h). */
#include "http_util.h"

#include <algorithm>

namespace tproxy {

char lower_ascii(char c)
{
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b)
{
    return a.size() == b.size() &&
        std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower_ascii(x) == lower_ascii(y); });
}

bool is_token(std::string_view s)
{
    auto tchar = [](char c) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
            return true;
        return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
    };
    return !s.empty() && std::all_of(s.begin(), s.end(), tchar);
}

bool all_digits(std::string_view s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool clean_bytes(std::string_view s)
{
    for (size_t i = 0; i < s.size(); i++) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c == '\r' && (i + 1 == s.size() || s[i + 1] == '\n'))
            continue;
        if (c == '\n' && i > 0 && s[i - 1] == '\r')
            continue;
        if (c < 0x20 && c != '\t')
            return false;
        if (c == 0x7f)
            return false;
    }
    return true;
}

std::string_view trim_ows(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> list_tokens(std::string_view v)
{
    std::vector<std::string_view> out;
    while (!v.empty()) {
        size_t comma = v.find(',');
        std::string_view t = trim_ows(v.substr(0, comma));
        if (!t.empty())
            out.push_back(t);
        v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
    }
    return out;
}

bool split_header_line(std::string_view line, std::string_view *name, std::string_view *value)
{
    if (line.empty() || line.front() == ' ' || line.front() == '\t')
        return false;  // obs-fold
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon)))
        return false;
    *name = line.substr(0, colon);
    *value = trim_ows(line.substr(colon + 1));
    return true;
}

const char *standard_reason(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 103: return "Early Hints";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 412: return "Precondition Failed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
    }
}

}  // namespace tproxy
