/* proxy/reply.cpp — refusal responses and decision log lines (see reply.h). */
#include "reply.h"

#include <unistd.h>

#include <cstring>

#include "http_util.h"
#include "net_channel.h"

namespace tproxy {
namespace {

const char *reason_phrase(int status)
{
    const char *standard = standard_reason(status);
    return standard[0] != '\0' ? standard : "Error";
}

// The status line's text: the standard phrase and the code, which is what tools print
// ("Tunnel connection failed: 403 Forbidden (blocked-by-allowlist)"); a failed lookup says
// so, as a bare 502 reads like the upstream's fault.
std::string status_text(const Refusal &r)
{
    if (std::strcmp(r.code, "dns-failure") == 0)
        return "Could Not Resolve Host (dns-failure)";
    return std::string(reason_phrase(r.status)) + " (" + r.code + ")";
}

// Notes go to a person's terminal: printable ASCII only, so no escape sequence gets there.
std::string terminal_safe(const std::string &s)
{
    std::string out;
    for (char c : s)
        out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
    return out;
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
    return "HTTP/1.1 " + std::to_string(r.status) + " " + status_text(r) + "\r\nX-Proxy-Error: " + r.code +
        "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\nConnection: close\r\n\r\n" + body;
}

std::string broker_refusal_response(const Refusal &r, bool close)
{
    std::string body = "tartaros-broker: " + printable(r.body) + "\n";
    return "HTTP/1.1 " + std::to_string(r.status) + " " + status_text(r) + "\r\nX-Broker-Error: " + r.code +
        "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
        (close ? "\r\nConnection: close" : "") + "\r\n\r\n" + body;
}

const std::string &connect_established()
{
    static const std::string s = "HTTP/1.1 200 Connection established\r\n\r\n";
    return s;
}

void RefusalTally::add(const char *who, const std::string &what, const std::string &key, const char *code,
                       const std::string &body)
{
    std::string id = std::string(who) + '\0' + key + '\0' + code;
    if (auto it = index_.find(id); it != index_.end()) {
        entries_[it->second].count++;
        return;
    }
    if (entries_.size() >= TNC_MAX_NOTES) {
        others_++;
        return;
    }
    index_.emplace(std::move(id), entries_.size());
    std::string head = std::string(who) + " refused " + (what.empty() ? "a connection" : what);
    entries_.push_back({terminal_safe(head), terminal_safe(std::string(code) + ": " + body), 1});
}

std::string RefusalTally::notes() const
{
    std::string out;
    for (const Entry &e : entries_) {
        std::string times = e.count == 1 ? "once" : std::to_string(e.count) + " times";
        std::string l = "tartaros: note: " + e.head + " " + times + ": " + e.tail;
        if (l.size() > TNC_MAX_NOTE_BYTES - 1)
            l.replace(TNC_MAX_NOTE_BYTES - 4, std::string::npos, "...");
        out += l + "\n";
    }
    if (others_ > 0)
        out += "tartaros: note: the proxy refused " + std::to_string(others_) + " more request" +
            (others_ == 1 ? "" : "s") + " of other kinds (see --log)\n";
    return out;
}

void DecisionLog::allowed(const std::string &method, const std::string &target, const std::string &addr,
                          const char *via) const
{
    line("allowed " + printable(method) + " " + target + " addr=" + addr + " via=" + via);
    effects_.record({true, method, target, addr, via, 0, "", ""});
}

void DecisionLog::denied(const std::string &method, const std::string &target, const Refusal &r)
{
    std::string what = method == "-" ? "" : method;
    if (target != "-")
        what += (what.empty() ? "" : " ") + target;
    tally_.add("the proxy", what, target, r.code, r.body);
    line("denied " + printable(method) + " " + printable(target) + " " + r.code + ": " + printable(r.body));
    effects_.record({false, method, target, "", "", r.status, r.code, r.body});
}

void DecisionLog::broker(const BrokerEvent &e)
{
    auto part = [](const std::string &s) { return s.empty() ? std::string("-") : printable(s); };
    std::string target = e.host.empty()         ? "-"
        : e.host.find(':') != std::string::npos ? "[" + e.host + "]:" + std::to_string(e.port)
                                                : e.host + ":" + std::to_string(e.port);
    std::string head = " BROKER " + part(e.capability) + " " + part(e.method) + " " + target + " " + part(e.path);
    if (std::string(e.decision) == "allow") {
        std::string s = "allowed" + head + " status=" + std::to_string(e.status) + " up=" + std::to_string(e.bytes_up) +
            " down=" + std::to_string(e.bytes_down);
        if (!e.complete)
            s += std::string(" incomplete ") + e.reason + ": " + printable(e.detail);
        line(s);
    } else {
        line("denied" + head + " " + e.reason + ": " + printable(e.detail));
        tally_.add("the broker", head.substr(sizeof " BROKER " - 1), part(e.capability) + " " + target, e.reason,
                   e.detail);
    }
    effects_.record(e);
}

void DecisionLog::write_notes(int fd) const
{
    if (fd < 0)
        return;
    std::string text = tally_.notes();
    // The supervisor reads only after the command's output is done: a blocking pipe, and a
    // summary bounded far below its capacity, so this never waits on it.
    for (size_t off = 0; off < text.size();) {
        ssize_t n = write(fd, text.data() + off, text.size() - off);
        if (n <= 0)
            break;
        off += static_cast<size_t>(n);
    }
    close(fd);
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
