/* proxy/main.cpp — tartaros-proxy: parse, open listeners, confine, serve (see README.md).
 *
 * Everything that needs the filesystem or bind(2) happens before confine_self; the resolver
 * threads start after it so they inherit every layer (see confine.h). Exit 78 for a bad
 * command line or a confinement that cannot be installed, 1 for a runtime failure.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "confine.h"
#include "config.h"
#include "resolver.h"
#include "server.h"

namespace {

constexpr int kExitConfig = 78;
constexpr size_t kFdsPerConn = 6;  // client, upstream, two pipes
constexpr size_t kFdReserve = 64;  // listeners, epoll, DNS sockets, log

int fail(const std::string &msg)
{
    std::fprintf(stderr, "tartaros: %s\n", msg.c_str());
    return kExitConfig;
}

// Raises the descriptor limit to its hard maximum and caps connections to what fits.
void fit_connection_limit(tproxy::Config &c)
{
    rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    getrlimit(RLIMIT_NOFILE, &rl);
    size_t fit = rl.rlim_cur > kFdReserve ? (rl.rlim_cur - kFdReserve) / kFdsPerConn : 1;
    if (c.max_connections == 0) {
        c.max_connections = fit;
    } else if (c.max_connections > fit) {
        std::fprintf(stderr, "tartaros: warning: --max-connections lowered to %zu (RLIMIT_NOFILE)\n",
                     fit);
        c.max_connections = fit;
    }
}

std::string open_listeners(const tproxy::Config &c, std::vector<int> *out)
{
    for (int fd : c.listen_fds) {
        int listening = 0;
        socklen_t len = sizeof listening;
        if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening)
            return "--listen-fd " + std::to_string(fd) + " is not a listening socket";
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        out->push_back(fd);
    }
    for (const tproxy::ListenAddr &l : c.listen_addrs) {
        int fd = socket(l.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int one = 1;
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
            bind(fd, reinterpret_cast<const sockaddr *>(&l.addr), l.len) != 0 ||
            listen(fd, SOMAXCONN) != 0)
            return std::string("--listen: ") + strerror(errno);
        out->push_back(fd);
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
    auto parsed = tproxy::parse_args(std::vector<std::string>(argv + 1, argv + argc));
    if (auto *err = std::get_if<std::string>(&parsed))
        return fail(*err);
    tproxy::Config cfg = std::get<tproxy::Config>(std::move(parsed));
    fit_connection_limit(cfg);
    std::vector<int> listeners;
    if (std::string err = open_listeners(cfg, &listeners); !err.empty())
        return fail(err);
    if (cfg.log_fd >= 0)  // a full log pipe must drop lines, not stall every tunnel
        fcntl(cfg.log_fd, F_SETFL, fcntl(cfg.log_fd, F_GETFL) | O_NONBLOCK);
    int sigfd = signal_fd();
    if (sigfd < 0)
        return fail(std::string("signalfd: ") + strerror(errno));
    tproxy::ConfineResult conf = tproxy::confine_self(cfg);
    for (const std::string &w : conf.warnings)
        std::fprintf(stderr, "tartaros: warning: %s\n", w.c_str());
    if (!conf.error.empty())
        return fail("cannot confine the proxy: " + conf.error);
    try {
        tproxy::Resolver resolver(4, 256);
        tproxy::Server server(cfg, std::move(listeners), sigfd, resolver);
        return server.run();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tartaros: proxy: %s\n", e.what());
        return 1;
    }
}
