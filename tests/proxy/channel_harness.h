// tests/proxy/channel_harness.h — the sandbox side of tartaros-proxy's channel mode, played by
// the test: a private network namespace standing in for the sandbox's, the proxy process with
// the other end of the channel, the socket factory, and an echo server.
// The namespace is what makes a relay testable at all: inside and on the host, 127.0.0.1:P
// are different sockets, so the relay's listener (inside) and its target (host) share a port
// without one swallowing the other, as in a real sandbox. Needs CAP_SYS_ADMIN (root).
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "net_channel.h"

namespace chan {

class Netns {
public:
    Netns();  // throws std::runtime_error when no namespace can be made
    ~Netns();
    Netns(const Netns &) = delete;
    Netns &operator=(const Netns &) = delete;
    // Whether this process may make one (the tests skip otherwise).
    static bool available();
    // A close-on-exec socket of the namespace.
    int socket(int type = SOCK_STREAM) const;
    // Listening on 127.0.0.1:port inside.
    int listen(unsigned port) const;
    // Connected to 127.0.0.1:port inside, blocking, 5 s send and receive timeouts.
    int connect(unsigned port) const;

private:
    int nsfd_ = -1;
};

// Listening on the host's 127.0.0.1 with a kernel-chosen port (*port), close-on-exec.
int host_listen(unsigned *port);

struct SentListener {
    uint8_t kind;  // TNC_PROXY or TNC_RELAY
    unsigned port;
    int fd;
};

// tartaros-proxy started with --channel FD --log FD and `args`; `inherit` are descriptors the
// proxy gets as they are (the --expose listeners). Its stderr goes to a file. With
// without_landlock, it runs under a seccomp filter that answers landlock_create_ruleset with
// ENOSYS, as a kernel without Landlock would.
class ChannelProxy {
public:
    explicit ChannelProxy(const std::vector<std::string> &args, const std::vector<int> &inherit = {},
                          bool without_landlock = false);
    ~ChannelProxy();
    int channel() const { return chan_; }
    pid_t pid() const { return pid_; }
    // Message 1. False when sendmsg failed.
    bool send_listeners(const std::vector<SentListener> &ls);
    // Message 2 within timeout_ms; status 255 and "no answer" on a timeout or EOF.
    tnc_ready read_ready(int timeout_ms = 5000);
    // Ends the sandbox side: the proxy sees EOF.
    void close_channel();
    // The exit code once it has exited within timeout_ms (128+N for signal N); -1 if not.
    int wait_exit(int timeout_ms);
    std::string stderr_text() const;
    std::string log() const;
    bool log_has(const std::string &needle, int timeout_ms = 2000) const;

private:
    pid_t pid_ = -1;
    int chan_ = -1;
    int status_ = -1;
    std::string log_path_, err_path_;
};

// The sandbox's socket factory: answers each socket request on the channel, in order, as
// `script` says for that request; past its end, with a fresh socket of the namespace.
enum class Answer { Socket, Emfile, Udp };

class Factory {
public:
    Factory(int chan, const Netns &ns, std::vector<Answer> script = {});
    ~Factory();
    int answered() const { return answered_.load(); }

private:
    void loop();
    int chan_, stopfd_;
    const Netns &ns_;
    std::vector<Answer> script_;
    std::atomic<int> answered_{0};
    std::thread thread_;
};

// Echoes every connection accepted on lfd (taken) until the client half-closes, then
// half-closes too. `banner` is sent first on each connection, so the server speaks first.
class Echo {
public:
    explicit Echo(int lfd, std::string banner = "");
    ~Echo();
    int accepted() const { return accepted_.load(); }

private:
    void accept_loop();
    int lfd_, stopfd_;
    std::string banner_;
    std::atomic<int> accepted_{0};
    std::vector<int> conns_;
    std::vector<std::thread> workers_;
    std::thread thread_;
};

// Sends `data` from a second thread while reading until EOF; what was read. Closes fd.
std::string round_trip(int fd, const std::string &data);

}  // namespace chan
