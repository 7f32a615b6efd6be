/* proxy/effect_log.h — the proxy's network events in tartaros-exec's effect log.
 *
 * tartaros-exec passes a duplicate of the log's descriptor (--effect-log FD) and the run's id
 * (--run-id ID); every decision the proxy takes, allowed or refused, on any route, becomes
 * one JSON line (schema: docs/effect-log.md; event "network", and "broker" for the credential
 * broker, one line per request once it is refused or its exchange has ended), written with a
 * single write(2) on the shared O_APPEND file description, so it never mixes with the
 * supervisor's or the mediator's lines.
 * The text is escaped by the same code as theirs (shared/jsonl.h). A failed write loses the line;
 * the log is a regular file, so a write never waits for a reader.
 */
#pragma once

#include <string>

namespace tproxy {

// One decision, as DecisionLog (reply.h) sees it.
struct Decision {
    bool allowed;
    std::string method;   // the request's method; RELAY or EXPOSE for the raw routes; "-": none read
    std::string target;   // "host:port", "[v6]:port", or "-"
    std::string address;  // allowed: the address connected to
    const char *via;      // allowed: pin, dns, literal, relay, expose
    int status;           // refused: the HTTP status
    const char *code;     // refused: the X-Proxy-Error code
    std::string detail;   // refused: the one-line body
};

// One use of the credential broker: a refusal, or an exchange once it has ended. Nothing in
// it is a header value or the token; the path has no query.
struct BrokerEvent {
    const char *decision;    // "allow" (forwarded), "deny" (refused), "fail" (502, 503, 504)
    std::string capability;  // "" before the capability is known
    std::string method;      // "" when no request could be read
    std::string host;        // the capability's upstream; "" before it is known
    unsigned port = 0;
    std::string path;                       // upstream path without the query; "" before it is known
    int status = 0;                         // the response's or the refusal's; 0: no response head came
    uint64_t bytes_up = 0, bytes_down = 0;  // body bytes relayed each way
    bool complete = true;                   // allow: the whole exchange went through
    const char *reason = "";                // deny/fail, or an incomplete allow: the code
    std::string detail;                     // the same: one line
};

class EffectLog {
public:
    EffectLog(int fd, std::string run_id) : fd_(fd), run_(std::move(run_id)) {}

    // Writes the decision's line; nothing without a log.
    void record(const Decision &d) const;
    void record(const BrokerEvent &e) const;

    // The line for a decision taken at CLOCK_REALTIME (sec, nsec), '\n' included.
    std::string format(const Decision &d, long long sec, long nsec) const;
    std::string format(const BrokerEvent &e, long long sec, long nsec) const;

private:
    int fd_;
    std::string run_;
};

// Whether `id` is a run id as tartaros-exec makes them: 16 lowercase hexadecimal digits.
bool valid_run_id(const std::string &id);

}  // namespace tproxy
