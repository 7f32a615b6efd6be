// tests/proxy/broker_harness.h — the credential broker end to end: a real HTTPS upstream
// (https_upstream.py, with its own test CA), tartaros-proxy in listen mode with a broker, and
// an HTTP/1.1 client that reads responses one at a time on a kept connection.
// Everything is on 127.0.0.1; temporary directories and files are removed by the destructors.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace broker {

// The broker's token and two capability values the end-to-end tests run with.
inline const std::string kE2eToken = "5f0c6a1e9b2d47c38e1f0a9b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d";
inline const std::string kE2eValue = "ghp_TOPSECRETvalue0123456789abcdef";
inline const std::string kE2eValue2 = "npm_OTHERsecret9876543210";

// https_upstream.py (or `script`, of the same interface: misbehaving_upstream.py) in a fresh
// temporary directory; `san` is its server certificate's subjectAltName ("" for
// DNS:localhost,IP:127.0.0.1).
class HttpsUpstream {
public:
    explicit HttpsUpstream(const std::string &san = "", const std::string &script = TARTAROS_HTTPS_UPSTREAM);
    ~HttpsUpstream();
    HttpsUpstream(const HttpsUpstream &) = delete;
    HttpsUpstream &operator=(const HttpsUpstream &) = delete;
    unsigned port() const { return port_; }
    std::string ca_file() const { return dir_ + "/ca.pem"; }
    // The request log, one JSON line per request, in order.
    std::vector<std::string> requests() const;

private:
    pid_t pid_ = -1;
    unsigned port_ = 0;
    std::string dir_;
};

// A --broker-secrets file in a memfd (close-on-exec off, so a child inherits it).
int secrets_memfd(const std::string &token, const std::vector<std::string> &values);

// tartaros-proxy --broker-listen 127.0.0.1:<free port> --broker-secrets <memfd> --log FILE
// --effect-log FILE --run-id ... and `args`. With as_nobody the proxy runs as uid/gid 65534,
// from a copy in a world-readable temporary directory.
class BrokerProxy {
public:
    BrokerProxy(const std::vector<std::string> &args, const std::string &token, const std::vector<std::string> &values,
                bool as_nobody = false);
    ~BrokerProxy();
    BrokerProxy(const BrokerProxy &) = delete;
    BrokerProxy &operator=(const BrokerProxy &) = delete;
    unsigned port() const { return port_; }
    pid_t pid() const { return pid_; }
    std::string log() const;
    std::string effects() const;
    std::string stderr_text() const;
    // Whether `needle` is in the decision log within timeout_ms.
    bool log_has(const std::string &needle, int timeout_ms = 3000) const;
    // VmHWM of the process, in KiB.
    long peak_rss_kib() const;
    // A field of /proc/PID/status ("" if absent).
    std::string status_field(const std::string &name) const;

private:
    bool confined() const;
    bool start(const std::vector<std::string> &args, int secrets, bool as_nobody);
    pid_t pid_ = -1;
    unsigned port_ = 0;
    std::string log_, effects_, err_;
    std::string copy_;  // as nobody: the copy of the proxy it runs, else ""
};

// One client connection, responses read one at a time (keep-alive, pipelining).
class Client {
public:
    explicit Client(unsigned port);
    ~Client();
    Client(const Client &) = delete;
    Client &operator=(const Client &) = delete;
    int fd() const { return fd_; }
    void send(const std::string &bytes);
    // The next response, head and body as sent (a chunked body with its framing); an interim
    // 1xx response is one response. "" when the connection ends first.
    std::string response(bool head_request = false);
    // The same, the body given to `sink` piece by piece instead of kept; returns the head.
    std::string response(const std::function<void(const char *, size_t)> &sink, bool head_request = false);
    // Whether the peer closes the connection within timeout_ms (and sends nothing).
    bool closed_by_peer(int timeout_ms = 2000);

private:
    bool fill();  // one recv into buf_; false at EOF or error
    std::string head();
    int fd_;
    std::string buf_;
};

// "401" from a response; "" if none.
std::string status_of(const std::string &response);
// A header's value in a response head; "" if absent.
std::string header_of(const std::string &response, const std::string &name);
// The body after the head.
std::string body_of(const std::string &response);

}  // namespace broker
