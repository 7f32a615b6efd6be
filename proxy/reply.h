/* proxy/reply.h — what the proxy says: refusal responses and the decision log.
 *
 * Every refusal is one HTTP response with "Connection: close", an X-Proxy-Error code and a
 * one-line text body that names the host and what to change (the policy field for policy
 * refusals). Every decision — allowed or refused — is one log line, written with a single
 * write(2) so lines from one proxy never interleave.
 */
#pragma once

#include <string>

#include "effect_log.h"

namespace tproxy {

struct Refusal {
    int status;        // 400, 401, 403, 404, 405, 408, 414, 431, 501, 502, 503, 504, 505
    const char *code;  // X-Proxy-Error (X-Broker-Error for the broker)
    std::string body;  // one line, no newline
};

// The whole HTTP response for a refusal.
std::string refusal_response(const Refusal &r);

// The broker's refusal: X-Broker-Error instead of X-Proxy-Error, a one-line body starting
// "tartaros-broker:", and "Connection: close" only when `close`.
std::string broker_refusal_response(const Refusal &r, bool close);

// "HTTP/1.1 200 Connection established" and its blank line.
const std::string &connect_established();

// Each decision also goes to the effect log, when tartaros-exec passed one (effect_log.h).
class DecisionLog {
public:
    DecisionLog(int fd, EffectLog effects) : fd_(fd), effects_(std::move(effects)) {}
    // "allowed METHOD host:port addr=ADDR via=pin|dns|literal"
    void allowed(const std::string &method, const std::string &target, const std::string &addr,
                 const char *via) const;
    // "denied METHOD host:port CODE: body"
    void denied(const std::string &method, const std::string &target, const Refusal &r) const;
    // The broker: "allowed BROKER cap METHOD host:port /path status=S up=N down=M" (then
    // " incomplete CODE: why" when cut short), or "denied BROKER cap METHOD host:port /path
    // CODE: body" with "-" for what is not known yet.
    void broker(const BrokerEvent &e) const;

private:
    void line(const std::string &s) const;
    int fd_;
    EffectLog effects_;
};

}  // namespace tproxy
