/* proxy/reply.h — what the proxy says: refusal responses and the decision log.
 *
 * Every refusal is one HTTP response with "Connection: close", an X-Proxy-Error code and a
 * one-line text body that names the host and what to change (the policy field for policy
 * refusals). Every decision — allowed or refused — is one log line, written with a single
 * write(2) so lines from one proxy never interleave. Refusals are also tallied for the notes
 * the run prints at its end (shared/net_channel.h): one line per distinct refusal, so a person
 * who saw only "403" or "502" learns why without --log.
 */
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

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

// The refusals of a run, one entry per (who, what, code) in order of first occurrence; the
// first kMaxNotes are kept with their counts, later kinds are only counted, so a client
// inventing names cannot grow it.
class RefusalTally {
public:
    // who: "the proxy" or "the broker"; what: "CONNECT host:port" ("" when not known);
    // key: what tells two refusals of that code apart.
    void add(const char *who, const std::string &what, const std::string &key, const char *code,
             const std::string &body);
    // "tartaros: note: the proxy refused CONNECT nx.test:443 3 times: dns-failure: could not
    // resolve nx.test: ...\n" per entry, printable ASCII, each at most TNC_MAX_NOTE_BYTES.
    std::string notes() const;

private:
    struct Entry {
        std::string head;  // "the proxy refused CONNECT nx.test:443"
        std::string tail;  // "dns-failure: could not resolve ..."
        uint64_t count;
    };
    std::vector<Entry> entries_;
    std::unordered_map<std::string, size_t> index_;
    uint64_t others_ = 0;  // refusals of kinds past the kept ones
};

// Each decision also goes to the effect log, when tartaros-exec passed one (effect_log.h).
class DecisionLog {
public:
    DecisionLog(int fd, EffectLog effects) : fd_(fd), effects_(std::move(effects)) {}
    // "allowed METHOD host:port addr=ADDR via=pin|dns|literal"
    void allowed(const std::string &method, const std::string &target, const std::string &addr, const char *via) const;
    // "denied METHOD host:port CODE: body"
    void denied(const std::string &method, const std::string &target, const Refusal &r);
    // The broker: "allowed BROKER cap METHOD host:port /path status=S up=N down=M" (then
    // " incomplete CODE: why" when cut short), or "denied BROKER cap METHOD host:port /path
    // CODE: body" with "-" for what is not known yet.
    void broker(const BrokerEvent &e);
    // Writes the tally's notes to fd (nothing when fd < 0), then closes it.
    void write_notes(int fd) const;

private:
    void line(const std::string &s) const;
    int fd_;
    EffectLog effects_;
    RefusalTally tally_;
};

}  // namespace tproxy
