/* proxy/effect_log.cpp — the proxy's network events (effect_log.h). */
#include "effect_log.h"

#include <time.h>
#include <unistd.h>

#include <vector>

#include "jsonl.h"

namespace tproxy {
namespace {

const char *route_of(const std::string &method)
{
    return method == "RELAY" ? "relay" : method == "EXPOSE" ? "expose" : "http";
}

// "host:port" or "[v6]:port" into its parts; false for "-" or anything else.
bool split_target(const std::string &target, std::string *host, unsigned *port)
{
    size_t colon = target.rfind(':');
    if (colon == std::string::npos || colon + 1 == target.size() || colon + 6 < target.size())
        return false;
    unsigned p = 0;
    for (size_t i = colon + 1; i < target.size(); i++) {
        if (target[i] < '0' || target[i] > '9')
            return false;
        p = p * 10 + static_cast<unsigned>(target[i] - '0');
    }
    *host = target.substr(0, colon);
    if (host->size() >= 2 && host->front() == '[' && host->back() == ']')
        *host = host->substr(1, host->size() - 2);
    *port = p;
    return p > 0 && p < 65536 && !host->empty();
}

}  // namespace

std::string EffectLog::format(const Decision &d, long long sec, long nsec) const
{
    std::vector<char> buf(1024 +
                          6 * (run_.size() + d.method.size() + d.target.size() + d.address.size() + d.detail.size()));
    jsonl::line l;
    jsonl::begin(l, buf.data(), buf.size());
    jsonl::field_time(l, "time", sec, nsec);
    jsonl::field_str(l, "run", run_.data(), run_.size());
    jsonl::field_str(l, "by", "proxy");
    jsonl::field_str(l, "event", "network");
    // 502-504: the policy let it through, but no upstream connection came of it.
    jsonl::field_str(l, "decision", d.allowed ? "allow" : d.status >= 502 && d.status <= 504 ? "fail" : "deny");
    const char *route = route_of(d.method);
    jsonl::field_str(l, "route", route);
    if (route[0] == 'h' && d.method != "-")
        jsonl::field_str(l, "method", d.method.data(), d.method.size());
    std::string host;
    unsigned port = 0;
    if (split_target(d.target, &host, &port)) {
        jsonl::field_str(l, "host", host.data(), host.size());
        jsonl::field_u64(l, "port", port);
    } else {
        jsonl::field_null(l, "host");
        jsonl::field_null(l, "port");
    }
    if (d.allowed) {
        jsonl::field_str(l, "address", d.address.data(), d.address.size());
        jsonl::field_str(l, "via", d.via);
    } else {
        jsonl::field_u64(l, "status", static_cast<uint64_t>(d.status));
        jsonl::field_str(l, "reason", d.code);
        jsonl::field_str(l, "detail", d.detail.data(), d.detail.size());
    }
    size_t len = jsonl::finish(l);
    return std::string(buf.data(), len);
}

std::string EffectLog::format(const BrokerEvent &e, long long sec, long nsec) const
{
    std::vector<char> buf(
        1024 +
        6 * (run_.size() + e.capability.size() + e.method.size() + e.host.size() + e.path.size() + e.detail.size()));
    jsonl::line l;
    jsonl::begin(l, buf.data(), buf.size());
    jsonl::field_time(l, "time", sec, nsec);
    jsonl::field_str(l, "run", run_.data(), run_.size());
    jsonl::field_str(l, "by", "proxy");
    jsonl::field_str(l, "event", "broker");
    jsonl::field_str(l, "decision", e.decision);
    auto str_or_null = [&](const char *k, const std::string &v) {
        if (v.empty())
            jsonl::field_null(l, k);
        else
            jsonl::field_str(l, k, v.data(), v.size());
    };
    str_or_null("capability", e.capability);
    str_or_null("method", e.method);
    str_or_null("host", e.host);
    if (e.port != 0)
        jsonl::field_u64(l, "port", e.port);
    else
        jsonl::field_null(l, "port");
    str_or_null("path", e.path);
    if (e.status != 0)
        jsonl::field_u64(l, "status", static_cast<uint64_t>(e.status));
    else
        jsonl::field_null(l, "status");
    jsonl::field_u64(l, "bytes_up", e.bytes_up);
    jsonl::field_u64(l, "bytes_down", e.bytes_down);
    bool allowed = std::string(e.decision) == "allow";
    if (allowed)
        jsonl::field_bool(l, "complete", e.complete);
    if (!allowed || !e.complete) {
        jsonl::field_str(l, "reason", e.reason);
        jsonl::field_str(l, "detail", e.detail.data(), e.detail.size());
    }
    size_t len = jsonl::finish(l);
    return std::string(buf.data(), len);
}

void EffectLog::record(const Decision &d) const
{
    if (fd_ < 0)
        return;
    timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    std::string line = format(d, now.tv_sec, now.tv_nsec);
    (void)!write(fd_, line.data(), line.size());
}

void EffectLog::record(const BrokerEvent &e) const
{
    if (fd_ < 0)
        return;
    timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    std::string line = format(e, now.tv_sec, now.tv_nsec);
    (void)!write(fd_, line.data(), line.size());
}

bool valid_run_id(const std::string &id)
{
    if (id.size() != 16)
        return false;
    for (char c : id)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    return true;
}

}  // namespace tproxy
