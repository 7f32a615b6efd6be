// tests/proxy/e2e_harness.h — a loopback upstream, a tartaros-proxy process and socket helpers
// for the end-to-end tests. Everything listens on 127.0.0.1 with a kernel-chosen port; the
// proxy gets its listener as an inherited fd, so there is no port race and no startup wait.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace e2e {

// A tiny HTTP/1.1 server: answers each request head with 200 and the head it received as the
// body, then closes. A connection that sends nothing is held (an idle tunnel's far end).
class Upstream {
public:
    Upstream();
    ~Upstream();
    unsigned port() const { return port_; }
    int accepted() const { return accepted_.load(); }

private:
    void loop();
    int lfd_, efd_, epfd_;
    unsigned port_;
    std::atomic<int> accepted_{0};
    std::thread thread_;
};

// tartaros-proxy started with --listen-fd, --log FILE and the given arguments.
class Proxy {
public:
    explicit Proxy(const std::vector<std::string> &args);
    ~Proxy();
    unsigned port() const { return port_; }
    pid_t pid() const { return pid_; }
    std::string log() const;
    // SIGTERM and wait; the wait status.
    int stop();

private:
    pid_t pid_ = -1;
    unsigned port_ = 0;
    std::string log_path_;
};

// Blocking TCP connection to 127.0.0.1:port with 5 s send/receive timeouts.
int connect_local(unsigned port);
void send_all(int fd, const std::string &s);
// Reads until the peer closes (or the timeout); closes fd.
std::string read_to_eof(int fd);
// Reads until the end of a response head.
std::string read_head(int fd);
// One request on a fresh connection; the whole response.
std::string exchange(unsigned port, const std::string &request);
// "403" from "HTTP/1.1 403 Forbidden…"; "" if none.
std::string status_of(const std::string &response);
// The value of a response header, "" if absent.
std::string header_of(const std::string &response, const std::string &name);
// Runs curl with the given arguments; its stdout, and its exit code in *code.
std::string curl(const std::vector<std::string> &args, int *code);
// Runs tartaros-proxy with args; its stderr and exit code.
std::string run_proxy_cli(const std::vector<std::string> &args, int *code);
// Whether `needle` occurs in the proxy's log within timeout_ms.
bool log_has(const Proxy &p, const std::string &needle, int timeout_ms = 2000);

}  // namespace e2e
