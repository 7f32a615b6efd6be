/* proxy/reply.cpp — refusal responses and decision log lines (see reply.h). */
#include "reply.h"

#include <unistd.h>

namespace tproxy {
namespace {

const char *reason_phrase(int status)
{
    switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
    }
}

// Bodies quote client-supplied text; keep it printable so a log line stays one line.
std::string printable(const std::string &s)
{
    std::string out;
    for (char c : s)
        out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
    return out;
}

}  // namespace

std::string refusal_response(const Refusal &r)
{
    std::string body = "tartaros-proxy: " + printable(r.body) + "\n";
    return "HTTP/1.1 " + std::to_string(r.status) + " " + reason_phrase(r.status) +
           "\r\nX-Proxy-Error: " + r.code +
           "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

std::string broker_refusal_response(const Refusal &r, bool close)
{
    std::string body = "tartaros-broker: " + printable(r.body) + "\n";
    return "HTTP/1.1 " + std::to_string(r.status) + " " + reason_phrase(r.status) +
           "\r\nX-Broker-Error: " + r.code +
           "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
           std::to_string(body.size()) + (close ? "\r\nConnection: close" : "") + "\r\n\r\n" + body;
}

const std::string &connect_established()
{
    static const std::string s = "HTTP/1.1 200 Connection established\r\n\r\n";
    return s;
}

void DecisionLog::allowed(const std::string &method, const std::string &target,
                          const std::string &addr, const char *via) const
{
    line("allowed " + printable(method) + " " + target + " addr=" + addr + " via=" + via);
    effects_.record({true, method, target, addr, via, 0, "", ""});
}

void DecisionLog::denied(const std::string &method, const std::string &target,
                         const Refusal &r) const
{
    line("denied " + printable(method) + " " + printable(target) + " " + r.code + ": " +
         printable(r.body));
    effects_.record({false, method, target, "", "", r.status, r.code, r.body});
}

void DecisionLog::broker(const BrokerEvent &e) const
{
    auto part = [](const std::string &s) { return s.empty() ? std::string("-") : printable(s); };
    std::string target = e.host.empty() ? "-"
                          : e.host.find(':') != std::string::npos
                              ? "[" + e.host + "]:" + std::to_string(e.port)
                              : e.host + ":" + std::to_string(e.port);
    std::string head = " BROKER " + part(e.capability) + " " + part(e.method) + " " + target + " " +
                       part(e.path);
    if (std::string(e.decision) == "allow") {
        std::string s = "allowed" + head + " status=" + std::to_string(e.status) +
                        " up=" + std::to_string(e.bytes_up) + " down=" + std::to_string(e.bytes_down);
        if (!e.complete)
            s += std::string(" incomplete ") + e.reason + ": " + printable(e.detail);
        line(s);
    } else {
        line("denied" + head + " " + e.reason + ": " + printable(e.detail));
    }
    effects_.record(e);
}

void DecisionLog::line(const std::string &s) const
{
    if (fd_ < 0)
        return;
    std::string l = s + "\n";
    // One write: atomic on a pipe up to PIPE_BUF; a full pipe drops the line, never the loop.
    (void)!write(fd_, l.data(), l.size());
}

}  // namespace tproxy
