/* proxy/main.cpp — tartaros-proxy: parse, open listeners, confine, serve (see README.md).
 *
 * Everything that needs the filesystem or bind(2) happens before confine_self; the resolver
 * threads start after it so they inherit every layer (see confine.h). Exit 78 for a bad
 * command line or a confinement that cannot be installed, 1 for a runtime failure.
 * Channel mode: the same order, then the listeners arrive from the sandbox (channel.h). Every
 * failure is answered on the channel once message 1 has come, and then nothing is printed:
 * the sandbox side prints the one `tartaros:` line. Only a failure nobody asked for (the
 * channel ended first) goes to stderr.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "broker.h"
#include "channel.h"
#include "config.h"
#include "confine.h"
#include "exit_codes.h"
#include "resolver.h"
#include "server.h"
#include "tartaros_version.h"

namespace {

constexpr size_t kFdsPerConn = 6;  // client, upstream, two pipes
constexpr size_t kFdReserve = 64;  // epoll, DNS sockets, log, channel; listeners are added

int fail(const std::string &msg)
{
    std::fprintf(stderr, "tartaros: %s\n", msg.c_str());
    return EXIT_REFUSAL;
}

// Raises the descriptor limit to its hard maximum and caps connections to what fits; with
// --max-connections, then lowers both limits to what that many connections need, so the
// kernel holds the cap too (and the proxy cannot take more descriptors than its share).
void fit_connection_limit(tproxy::Config &c)
{
    rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    getrlimit(RLIMIT_NOFILE, &rl);
    size_t reserve =
        kFdReserve + c.listen_fds.size() + c.listen_addrs.size() + c.relay_ports.size() + c.exposes.size() + 2;
    size_t fit = rl.rlim_cur > reserve ? (rl.rlim_cur - reserve) / kFdsPerConn : 1;
    if (c.max_connections == 0) {
        c.max_connections = fit;
        return;
    }
    if (c.max_connections > fit) {
        // tartaros-exec derives the number from memory_max; only a person typing it is told.
        if (!c.channel_mode())
            std::fprintf(stderr, "tartaros: warning: --max-connections lowered to %zu (RLIMIT_NOFILE)\n", fit);
        c.max_connections = fit;
    }
    rl.rlim_cur = rl.rlim_max = reserve + c.max_connections * kFdsPerConn;
    setrlimit(RLIMIT_NOFILE, &rl);
}

int listen_on(const tproxy::ListenAddr &l)
{
    int fd = socket(l.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
        bind(fd, reinterpret_cast<const sockaddr *>(&l.addr), l.len) == 0 && listen(fd, SOMAXCONN) == 0)
        return fd;
    int err = errno;
    if (fd >= 0)
        close(fd);
    errno = err;
    return -1;
}

bool is_listening(int fd)
{
    int listening = 0;
    socklen_t len = sizeof listening;
    return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening;
}

void take_fd(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

std::string open_listeners(const tproxy::Config &c, std::vector<tproxy::Listener> *out)
{
    for (int fd : c.listen_fds) {
        if (!is_listening(fd))
            return "--listen-fd " + std::to_string(fd) + " is not a listening socket";
        take_fd(fd);
        out->push_back({fd, tproxy::Route::Http, 0});
    }
    for (const tproxy::ListenAddr &l : c.listen_addrs) {
        int fd = listen_on(l);
        if (fd < 0)
            return std::string("--listen: ") + strerror(errno);
        out->push_back({fd, tproxy::Route::Http, 0});
    }
    if (c.broker.listen) {
        int fd = listen_on(*c.broker.listen);
        if (fd < 0)
            return std::string("--broker-listen: ") + strerror(errno);
        out->push_back({fd, tproxy::Route::Broker, 0});
    }
    return "";
}

// What clients of a broker listening on fd must name in Host: its port, and its address
// (with "localhost" for a loopback one).
tproxy::OwnAddress own_address(int fd)
{
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
    tproxy::OwnAddress own;
    own.hosts = {tproxy::addr_text(a)};
    bool v4 = a.ss_family == AF_INET;
    own.port =
        ntohs(v4 ? reinterpret_cast<sockaddr_in *>(&a)->sin_port : reinterpret_cast<sockaddr_in6 *>(&a)->sin6_port);
    if (own.hosts[0] == "127.0.0.1" || own.hosts[0] == "::1")
        own.hosts.push_back("localhost");
    return own;
}

// The broker's secrets and TLS client, made while files can still be read; "" or why not.
std::string make_broker(const tproxy::Config &c, std::unique_ptr<tproxy::Broker> *out)
{
    if (!c.broker.enabled())
        return "";
    auto b = std::unique_ptr<tproxy::Broker>(new tproxy::Broker{c.broker, {}, nullptr, {}});
    if (std::string err = tproxy::read_broker_secrets(c.broker.secrets_fd, c.broker, &b->secrets); !err.empty())
        return err;
    std::string err;
    std::vector<std::string> warnings;
    b->tls = tproxy::TlsClient::create(c.broker.ca_file, &err, &warnings);
    for (const std::string &w : warnings)
        std::fprintf(stderr, "tartaros: warning: %s\n", w.c_str());
    if (!b->tls)
        return err;
    *out = std::move(b);
    return "";
}

// The supervisor's host listeners for --expose: listening TCP sockets on their port.
std::string take_exposes(const tproxy::Config &c, std::vector<tproxy::Listener> *out)
{
    for (const tproxy::Expose &e : c.exposes) {
        std::string name = "--expose " + std::to_string(e.fd) + ":" + std::to_string(e.port);
        sockaddr_storage a{};
        socklen_t len = sizeof a;
        int type = 0;
        socklen_t tl = sizeof type;
        if (!is_listening(e.fd) || getsockopt(e.fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 || type != SOCK_STREAM ||
            getsockname(e.fd, reinterpret_cast<sockaddr *>(&a), &len) != 0)
            return name + ": not a listening TCP socket";
        unsigned port = a.ss_family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in *>(&a)->sin_port)
                                               : ntohs(reinterpret_cast<sockaddr_in6 *>(&a)->sin6_port);
        if ((a.ss_family != AF_INET && a.ss_family != AF_INET6) || port != e.port)
            return name + ": the socket listens on port " + std::to_string(port);
        take_fd(e.fd);
        out->push_back({e.fd, tproxy::Route::Expose, e.port});
    }
    return "";
}

// SIGTERM and SIGINT end the loop through a signalfd; blocked before any thread exists so
// no resolver thread can take them.
int signal_fd()
{
    signal(SIGPIPE, SIG_IGN);  // splice(2) to a closed peer raises it; EPIPE is enough
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, nullptr);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

// A failure in channel mode: answered on the channel once message 1 has come, else printed.
int channel_failure(int chan, int sigfd, uint8_t status, const std::string &msg, int code)
{
    tproxy::ListenerMessage m = tproxy::receive_listeners(chan, sigfd);
    tproxy::close_listeners(m.listeners);
    if (m.end == tproxy::ChannelEnd::Message && tproxy::send_ready(chan, status, msg))
        return code;
    std::fprintf(stderr, "tartaros: %s\n", msg.c_str());
    return code;
}

void make_log_non_blocking(const tproxy::Config &c)
{
    if (c.log_fd >= 0)  // a full log pipe must drop lines, not stall every tunnel
        fcntl(c.log_fd, F_SETFL, fcntl(c.log_fd, F_GETFL) | O_NONBLOCK);
}

int run_listen_mode(const tproxy::Config &cfg, int sigfd)
{
    std::vector<tproxy::Listener> listeners;
    if (std::string err = open_listeners(cfg, &listeners); !err.empty())
        return fail(err);
    std::unique_ptr<tproxy::Broker> broker;
    if (std::string err = make_broker(cfg, &broker); !err.empty())
        return fail(err);
    for (const tproxy::Listener &l : listeners)
        if (l.route == tproxy::Route::Broker)
            broker->own = own_address(l.fd);
    make_log_non_blocking(cfg);
    tproxy::ConfineResult conf = tproxy::confine_self(cfg);
    for (const std::string &w : conf.warnings)
        std::fprintf(stderr, "tartaros: warning: %s\n", w.c_str());
    if (!conf.error.empty())
        return fail("cannot confine the proxy: " + conf.error);
    try {
        tproxy::Resolver resolver(cfg.needs_lookups() ? 4 : 0, 256);
        tproxy::Server server(cfg, std::move(listeners), sigfd, -1, resolver, broker.get());
        return server.run();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tartaros: proxy: %s\n", e.what());
        return 1;
    }
}

// Message 1, checked against the command line; "" and the listeners added to *listeners, or
// why not (the received descriptors are closed then). *ended: the sandbox went first.
std::string receive_checked(const tproxy::Config &cfg, int sigfd, std::vector<tproxy::Listener> *listeners, bool *ended)
{
    tproxy::ListenerMessage m = tproxy::receive_listeners(cfg.channel_fd, sigfd);
    *ended = m.end != tproxy::ChannelEnd::Message;
    if (*ended)
        return "";
    std::string err = m.error.empty() ? tproxy::check_listeners(cfg, m.listeners) : m.error;
    if (!err.empty()) {
        tproxy::close_listeners(m.listeners);
        return err;
    }
    for (const tproxy::ChannelListener &l : m.listeners) {
        take_fd(l.fd);
        tproxy::Route r = l.kind == TNC_PROXY ? tproxy::Route::Http
            : l.kind == TNC_BROKER            ? tproxy::Route::Broker
                                              : tproxy::Route::Relay;
        listeners->push_back({l.fd, r, l.port});
    }
    return "";
}

int run_channel_mode(const tproxy::Config &cfg, int sigfd)
{
    int chan = cfg.channel_fd;
    std::vector<tproxy::Listener> listeners;
    if (std::string err = take_exposes(cfg, &listeners); !err.empty())
        return channel_failure(chan, sigfd, TNC_FAILED, err, EXIT_REFUSAL);
    std::unique_ptr<tproxy::Broker> broker;
    if (std::string err = make_broker(cfg, &broker); !err.empty())
        return channel_failure(chan, sigfd, TNC_FAILED, err, EXIT_REFUSAL);
    if (broker)
        broker->own = {{"127.0.0.1", "localhost"}, cfg.broker.port};
    make_log_non_blocking(cfg);
    tproxy::ConfineResult conf = tproxy::confine_self(cfg);
    if (!conf.error.empty())  // under --strict a warning is the error: said once, over there
        return channel_failure(chan, sigfd, cfg.strict ? TNC_REFUSED : TNC_FAILED,
                               "cannot confine the proxy: " + conf.error, EXIT_REFUSAL);
    for (const std::string &w : conf.warnings)
        std::fprintf(stderr, "tartaros: warning: %s\n", w.c_str());
    bool ended = false;
    std::string err = receive_checked(cfg, sigfd, &listeners, &ended);
    if (ended)
        return 0;  // the sandbox ended (or a signal came) before it asked for anything
    if (!err.empty()) {
        if (!tproxy::send_ready(chan, TNC_FAILED, err))
            std::fprintf(stderr, "tartaros: %s\n", err.c_str());
        return 1;
    }
    // The resolver threads are confined (they inherit every layer). Under max_processes they
    // start before "ready": they hold the slots the enforcer added to pids.max for them, and
    // the command cannot take those. Otherwise "ready" goes first and the threads start with
    // the first lookup, if the command ever asks for one (resolver.h). The listeners queue
    // connections until the server's loop runs.
    bool ready = false;
    try {
        if (!cfg.lookups_before_ready) {
            if (!tproxy::send_ready(chan, TNC_READY, ""))
                return 0;  // the sandbox has already ended
            ready = true;
        }
        tproxy::Resolver resolver(tnc_proxy_lookup_threads(cfg.http_proxy(), cfg.broker.enabled()), 256,
                                  cfg.lookups_before_ready ? tproxy::Resolver::Start::Now
                                                           : tproxy::Resolver::Start::OnFirstLookup);
        tproxy::Server server(cfg, std::move(listeners), sigfd, chan, resolver, broker.get());
        if (!ready && !tproxy::send_ready(chan, TNC_READY, ""))
            return 0;
        return server.run();
    } catch (const std::exception &e) {
        std::string msg = std::string("proxy: ") + e.what();
        if (ready || !tproxy::send_ready(chan, TNC_FAILED, msg))
            std::fprintf(stderr, "tartaros: %s\n", msg.c_str());
        return 1;
    }
}

}  // namespace

#if defined(__SANITIZE_ADDRESS__)
// LeakSanitizer's exit-time check stops the world with clone and ptrace, which the proxy's
// own seccomp filter kills. ASan and UBSan stay on; the unit tests leak-check the same code
// outside the sandbox.
extern "C" const char *__lsan_default_options()
{
    return "detect_leaks=0";
}
#endif

int main(int argc, char **argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 1 && args[0] == "--version") {
        std::cout << "tartaros-proxy " << TARTAROS_VERSION_LINE << '\n';
        return std::cout.flush() ? 0 : 1;
    }
    int sigfd = signal_fd();
    if (sigfd < 0)
        return fail(std::string("signalfd: ") + strerror(errno));
    auto parsed = tproxy::parse_args(args);
    if (auto *err = std::get_if<std::string>(&parsed)) {
        int chan = tproxy::channel_fd_in(args);
        return chan >= 0 ? channel_failure(chan, sigfd, TNC_FAILED, *err, EXIT_REFUSAL) : fail(*err);
    }
    tproxy::Config cfg = std::get<tproxy::Config>(std::move(parsed));
    // The effect log must stay out of reach of /proc/PID/fd from a sandbox that sees this
    // process (one without a PID namespace), and the broker's secrets out of reach of
    // /proc/PID/mem and ptrace by any process of the same uid: not dumpable, only
    // CAP_SYS_PTRACE opens them. Set before the secrets are read.
    if (cfg.effect_log_fd >= 0 || cfg.broker.enabled())
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    fit_connection_limit(cfg);
    return cfg.channel_mode() ? run_channel_mode(cfg, sigfd) : run_listen_mode(cfg, sigfd);
}
