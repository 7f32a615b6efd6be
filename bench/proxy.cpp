// bench_proxy — what a tartaros-proxy CONNECT tunnel costs against direct loopback TCP.
//
// Two upstream servers run as threads of this process on 127.0.0.1: a stream server (the
// client sends an 8-byte count, the server sends that many bytes and closes) and an epoll echo
// server. tartaros-proxy runs as a child on a free port with the name bench.test pinned to
// 127.0.0.1 (an internal address is reachable only through a pin) and both upstream ports
// allowed. One run then measures, each time direct and through a tunnel:
//  1. throughput of one stream of BYTES, REPEATS times, direct and tunnel taking turns so both
//     see the same load; best and median, and the CPU time of all processes per GiB (on a
//     machine with few cores a tunnel's extra hop competes for the CPUs the stream needs);
//  2. round trip of 1 byte over an open connection, ROUNDTRIPS times, the direct and the
//     tunnelled round trip taking turns; median and p99;
//  3. TUNNELS connections opened at once (tunnel: every CONNECT sent before any reply is read),
//     then one ping-pong on each; how many worked and how long it took, and the proxy's RSS
//     (VmRSS) idle and with all of them open.
// It prints the machine and a markdown table; the project's target is throughput through the
// tunnel >= 80% of direct loopback. It measures, it does not gate: exit 0 whatever the ratio.
//
// Usage: bench_proxy PROXY_BINARY [BYTES [REPEATS [ROUNDTRIPS [TUNNELS]]]]
//        (defaults 1 GiB, 5, 20000, 1000).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr const char *kName = "bench.test";
constexpr size_t kChunk = 1 << 20;  // per send/recv call of a stream
constexpr int kIoTimeoutS = 10;     // a stalled proxy fails the run instead of hanging it

[[noreturn]] void fail(const std::string &what)
{
    throw std::runtime_error(what + (errno ? std::string(": ") + strerror(errno) : ""));
}

double now_s()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// An owned descriptor; -1 means none (a connection that failed).
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd &&o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    Fd &operator=(Fd &&o) noexcept
    {
        std::swap(fd_, o.fd_);
        return *this;
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    ~Fd() { reset(); }
    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    void reset()
    {
        if (fd_ >= 0)
            close(fd_);
        fd_ = -1;
    }

private:
    int fd_ = -1;
};

sockaddr_in loopback(uint16_t port)
{
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

// ---- plain socket I/O ----

bool send_all(int fd, const void *buf, size_t len)
{
    const char *p = static_cast<const char *>(buf);
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);  // a dead peer is an error, not SIGPIPE
        if (n <= 0)
            return false;
        p += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

bool recv_all(int fd, void *buf, size_t len)
{
    char *p = static_cast<char *>(buf);
    while (len > 0) {
        ssize_t n = recv(fd, p, len, 0);
        if (n <= 0)
            return false;
        p += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

// Blocking connection to 127.0.0.1:port, or an empty Fd. No Nagle: the ping-pongs send single
// bytes and must not wait for delayed ACKs.
Fd dial(uint16_t port)
{
    Fd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in a = loopback(port);
    int one = 1;
    timeval tv{kIoTimeoutS, 0};
    if (!fd || connect(fd.get(), reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 ||
        setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 ||
        setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
        setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0)
        return Fd();
    return fd;
}

Fd listen_loopback(uint16_t port)
{
    Fd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in a = loopback(port);
    if (!fd || bind(fd.get(), reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || listen(fd.get(), SOMAXCONN) != 0)
        fail("listen on 127.0.0.1");
    return fd;
}

uint16_t local_port(int fd)
{
    sockaddr_in a{};
    socklen_t len = sizeof a;
    if (getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) != 0)
        fail("getsockname");
    return ntohs(a.sin_port);
}

// ---- the upstream servers (detached threads; they end with the process) ----

void serve_one_stream(int fd)
{
    static const std::vector<char> data(kChunk, 'x');  // content is not checked: bytes are bytes
    uint64_t left = 0;
    if (!recv_all(fd, &left, sizeof left))
        return;
    while (left > 0) {
        size_t n = static_cast<size_t>(std::min<uint64_t>(left, data.size()));
        if (!send_all(fd, data.data(), n))
            return;
        left -= n;
    }
}

// One stream at a time: the throughput runs never overlap.
void stream_server(int lfd)
{
    for (;;) {
        Fd c(accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC));
        if (c)
            serve_one_stream(c.get());
    }
}

void accept_all(int lfd, int ep)
{
    for (;;) {
        int c = accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (c < 0)
            return;
        epoll_event ev{EPOLLIN, {.fd = c}};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev) != 0)
            close(c);
    }
}

// Echoes what arrived. A ping-pong keeps at most one byte in flight, so a send that does not
// take everything means a broken client; closing is enough (close also leaves the epoll set).
void echo_once(int fd)
{
    char buf[4096];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EAGAIN)
        return;
    if (n <= 0 || send(fd, buf, static_cast<size_t>(n), MSG_NOSIGNAL) != n)
        close(fd);
}

// One epoll loop serves all the concurrent connections of step 3.
void echo_server(int lfd)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{EPOLLIN, {.fd = lfd}};
    fcntl(lfd, F_SETFL, O_NONBLOCK);
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev) != 0)
        std::abort();  // nothing else could serve; the run would only hang
    epoll_event evs[256];
    for (;;) {
        int n = epoll_wait(ep, evs, 256, -1);
        for (int i = 0; i < n; i++) {
            if (evs[i].data.fd == lfd)
                accept_all(lfd, ep);
            else
                echo_once(evs[i].data.fd);
        }
    }
}

struct Upstream {
    uint16_t stream_port;
    uint16_t echo_port;
};

Upstream start_servers()
{
    Fd s = listen_loopback(0), e = listen_loopback(0);
    Upstream u{local_port(s.get()), local_port(e.get())};
    std::thread([fd = std::move(s)] { stream_server(fd.get()); }).detach();
    std::thread([fd = std::move(e)] { echo_server(fd.get()); }).detach();
    return u;
}

// ---- the proxy ----

uint16_t free_port()
{
    return local_port(listen_loopback(0).get());  // closed again; the proxy binds it next
}

// A child process, killed and reaped when this object goes (also when a step throws).
class Child {
public:
    Child() = default;
    Child(const Child &) = delete;
    Child &operator=(const Child &) = delete;
    ~Child()
    {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);  // nothing is wanted from a graceful exit
            waitpid(pid_, nullptr, 0);
        }
    }
    pid_t pid() const { return pid_; }
    void spawn(const std::vector<std::string> &args)
    {
        pid_t parent = getpid();
        pid_ = fork();
        if (pid_ < 0)
            fail("fork");
        if (pid_ == 0)
            exec_child(args, parent);
    }
    // The child's wait status if it has exited (it is then reaped), else -1.
    int exited()
    {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) != pid_)
            return -1;
        pid_ = -1;  // reaped: the destructor must not signal a pid the kernel may reuse
        return status;
    }

private:
    // PDEATHSIG kills the child also when this process dies without unwinding.
    [[noreturn]] static void exec_child(const std::vector<std::string> &args, pid_t parent)
    {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)  // the parent died before prctl took effect
            _exit(127);
        std::vector<char *> argv;
        for (const std::string &a : args)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        std::fprintf(stderr, "bench_proxy: exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }

    pid_t pid_ = -1;
};

// tartaros-proxy on a free port, bench.test pinned to 127.0.0.1, both upstream ports allowed.
class Proxy {
public:
    Proxy(const std::string &path, Upstream u) : port_(free_port())
    {
        child_.spawn({path, "--listen", "127.0.0.1:" + std::to_string(port_), "--allow", kName, "--host",
                      std::string(kName) + "=127.0.0.1", "--ports",
                      std::to_string(u.stream_port) + "," + std::to_string(u.echo_port)});
        wait_listening();
    }
    pid_t pid() const { return child_.pid(); }
    uint16_t port() const { return port_; }

private:
    void wait_listening()
    {
        for (double end = now_s() + 10; now_s() < end; usleep(10000)) {
            if (int status = child_.exited(); status >= 0) {
                errno = 0;
                fail("tartaros-proxy ended early: " +
                     (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                        : "signal " + std::to_string(WTERMSIG(status))));
            }
            if (dial(port_))
                return;
        }
        errno = 0;
        fail("tartaros-proxy is not listening on port " + std::to_string(port_) + " after 10 s");
    }

    uint16_t port_;
    Child child_;
};

long rss_kib(pid_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0)
            return std::strtol(line.c_str() + 6, nullptr, 10);
    return -1;
}

// ---- tunnels ----

bool send_connect(int fd, uint16_t target)
{
    std::string host = std::string(kName) + ":" + std::to_string(target);
    std::string req = "CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
    return send_all(fd, req.data(), req.size());
}

// Reads the proxy's answer to CONNECT. Both servers stay silent until the client speaks, so
// whatever arrives now is the answer alone and may be read in blocks.
bool read_connect_reply(int fd)
{
    std::string reply;
    char buf[512];
    while (reply.find("\r\n\r\n") == std::string::npos && reply.size() < 8192) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0)
            return false;
        reply.append(buf, static_cast<size_t>(n));
    }
    return reply.rfind("HTTP/1.1 200", 0) == 0 && reply.size() == reply.find("\r\n\r\n") + 4;
}

// A connection to the target port, through the proxy when proxy_port is not 0; throws if it
// cannot be had.
Fd open_path(uint16_t proxy_port, uint16_t target)
{
    Fd fd = dial(proxy_port ? proxy_port : target);
    if (fd && proxy_port && !(send_connect(fd.get(), target) && read_connect_reply(fd.get())))
        fd.reset();
    if (!fd)
        fail(std::string(proxy_port ? "CONNECT through the proxy" : "connect") + " to port " + std::to_string(target) +
             " failed");
    return fd;
}

// ---- 1. throughput ----

double stream_mib_s(uint16_t proxy_port, uint16_t stream_port, uint64_t bytes)
{
    static std::vector<char> buf(kChunk);
    Fd fd = open_path(proxy_port, stream_port);
    double t0 = now_s();
    if (!send_all(fd.get(), &bytes, sizeof bytes))
        fail("stream request");
    for (uint64_t got = 0; got < bytes;) {
        ssize_t n = recv(fd.get(), buf.data(), buf.size(), 0);
        if (n <= 0)
            fail("stream ended after " + std::to_string(got) + " bytes");
        got += static_cast<uint64_t>(n);
    }
    return static_cast<double>(bytes) / (1 << 20) / (now_s() - t0);
}

double quantile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::clamp<size_t>(i, 1, v.size()) - 1];
}

struct Pair {
    std::vector<double> direct, tunnel;
};

// User plus system time of a process, all threads, in seconds. Softirq work of loopback TCP is
// charged to whichever task the CPU was running, so only the sum over all parties is fair.
double cpu_s(const std::string &pid)
{
    std::ifstream in("/proc/" + pid + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream rest(stat.substr(stat.rfind(')') + 2));  // the name may hold spaces
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && rest >> field; i++)  // fields 14 and 15: utime, stime
        if (i >= 14)
            ticks += std::strtod(field.c_str(), nullptr);
    return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

struct Throughput {
    Pair mib_s;
    double cpu_direct = 0, cpu_tunnel = 0;  // CPU seconds of this process and the proxy
};

// Direct and tunnel take turns so both see the same load.
Throughput throughput(const Proxy &p, Upstream u, uint64_t bytes, int repeats)
{
    Throughput r;
    std::string proxy_pid = std::to_string(p.pid());
    auto cpu = [&] { return cpu_s("self") + cpu_s(proxy_pid); };
    for (int i = 0; i < repeats; i++) {
        double c0 = cpu();
        r.mib_s.direct.push_back(stream_mib_s(0, u.stream_port, bytes));
        double c1 = cpu();
        r.mib_s.tunnel.push_back(stream_mib_s(p.port(), u.stream_port, bytes));
        r.cpu_direct += c1 - c0;
        r.cpu_tunnel += cpu() - c1;
    }
    return r;
}

// ---- 2. latency ----

double round_trip_us(int fd)
{
    char b = 'p';
    double t0 = now_s();
    if (!send_all(fd, &b, 1) || !recv_all(fd, &b, 1))
        fail("ping-pong");
    return (now_s() - t0) * 1e6;
}

Pair latency(const Proxy &p, Upstream u, int round_trips)
{
    Fd d = open_path(0, u.echo_port), t = open_path(p.port(), u.echo_port);
    for (int i = 0; i < round_trips / 10; i++) {  // warm-up: caches, the proxy's pipes
        round_trip_us(d.get());
        round_trip_us(t.get());
    }
    Pair r;
    for (int i = 0; i < round_trips; i++) {
        r.direct.push_back(round_trip_us(d.get()));
        r.tunnel.push_back(round_trip_us(t.get()));
    }
    return r;
}

// ---- 3. many connections at once ----

struct Many {
    size_t asked = 0, opened = 0, pinged = 0;
    double open_ms = 0, ping_ms = 0;
    long rss_open_kib = -1;
};

size_t alive(const std::vector<Fd> &fds)
{
    return static_cast<size_t>(std::count_if(fds.begin(), fds.end(), [](const Fd &f) { return static_cast<bool>(f); }));
}

// Runs step on every connection still alive; a connection whose step fails is closed and
// stays counted as a failure.
template <class Step>
void each(std::vector<Fd> &fds, Step step)
{
    for (Fd &f : fds)
        if (f && !step(f.get()))
            f.reset();
}

// All connections are set up before any ping, so they are all open together; with the proxy,
// every CONNECT is sent before the first reply is read, so the proxy has all of them in flight.
Many many_at_once(const Proxy *p, Upstream u, size_t n)
{
    Many m;
    m.asked = n;
    std::vector<Fd> fds;
    double t0 = now_s();
    for (size_t i = 0; i < n; i++)
        fds.push_back(dial(p ? p->port() : u.echo_port));
    if (p) {
        each(fds, [&](int fd) { return send_connect(fd, u.echo_port); });
        each(fds, read_connect_reply);
    }
    m.open_ms = (now_s() - t0) * 1e3;
    m.opened = alive(fds);
    if (p)
        m.rss_open_kib = rss_kib(p->pid());
    char b = 'p';
    t0 = now_s();
    each(fds, [&](int fd) { return send_all(fd, &b, 1); });
    each(fds, [&](int fd) { return recv_all(fd, &b, 1); });
    m.ping_ms = (now_s() - t0) * 1e3;
    m.pinged = alive(fds);
    return m;
}

// ---- set-up and report ----

// Each connection costs this process two descriptors (client and, via the proxy or directly,
// the echo server's end); the default soft limit of 1024 is too low for 1,000.
void raise_fd_limit(size_t conns)
{
    rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    errno = 0;
    if (rl.rlim_cur < 2 * conns + 64)
        fail("RLIMIT_NOFILE hard limit " + std::to_string(rl.rlim_cur) + " is too low for " + std::to_string(conns) +
             " connections");
}

std::string first_line(const std::string &path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::string cpu_model()
{
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0)
            return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

void print_machine()
{
    utsname un{};
    uname(&un);
    std::istringstream loadavg(first_line("/proc/loadavg"));
    std::string l1, l5, l15;
    loadavg >> l1 >> l5 >> l15;
    char date[32];
    time_t t = time(nullptr);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&t));
    std::printf("machine: %ld cores, %s, kernel %s, %s, load %s\n", sysconf(_SC_NPROCESSORS_ONLN), cpu_model().c_str(),
                un.release, date, (l1 + " " + l5 + " " + l15).c_str());
    if (std::strtod(l1.c_str(), nullptr) >= 1)
        std::printf("warning: the machine is busy (load %s): other work shares the CPUs\n", l1.c_str());
}

// One table row: both values with `digits` decimals, then the ratio, or the difference when
// `added` (for latencies, what the tunnel adds is the figure that matters).
void row(const char *what, double d, double t, const char *unit, int digits, bool added)
{
    char cmp[32];
    if (added)
        std::snprintf(cmp, sizeof cmp, "%+.*f %s", digits, t - d, unit);
    else
        std::snprintf(cmp, sizeof cmp, "%.2f", t / d);
    std::printf("| %s | %.*f %s | %.*f %s | %s |\n", what, digits, d, unit, digits, t, unit, cmp);
}

void print_table(uint64_t bytes, const Throughput &th, const Pair &rt, const Many &md, const Many &mt, long rss_idle)
{
    const Pair &tp = th.mib_s;
    std::string mib = std::to_string(bytes >> 20) + " MiB";
    std::string n = std::to_string(tp.direct.size()), k = std::to_string(rt.direct.size());
    std::printf("\n| measure | direct loopback | through tartaros-proxy | tunnel vs direct |\n"
                "|---|---:|---:|---:|\n");
    row(("throughput, one " + mib + " stream, best of " + n).c_str(), quantile(tp.direct, 1), quantile(tp.tunnel, 1),
        "MiB/s", 0, false);
    row(("throughput, median of " + n).c_str(), quantile(tp.direct, .5), quantile(tp.tunnel, .5), "MiB/s", 0, false);
    double gib = static_cast<double>(bytes) * static_cast<double>(tp.direct.size()) / (1 << 30);
    row("CPU seconds per GiB streamed, all processes", th.cpu_direct / gib, th.cpu_tunnel / gib, "s", 2, false);
    row(("1-byte round trip, median of " + k).c_str(), quantile(rt.direct, .5), quantile(rt.tunnel, .5), "µs", 1, true);
    row("1-byte round trip, p99", quantile(rt.direct, .99), quantile(rt.tunnel, .99), "µs", 1, true);
    std::printf("| %zu connections at once: set up (tunnel: CONNECT answered) | %zu in %.0f ms | "
                "%zu in %.0f ms | %.2f |\n",
                md.asked, md.opened, md.open_ms, mt.opened, mt.open_ms, mt.open_ms / md.open_ms);
    std::printf("| ... then one ping-pong on each | %zu ok in %.0f ms | %zu ok in %.0f ms | %.2f |\n", md.pinged,
                md.ping_ms, mt.pinged, mt.ping_ms, mt.ping_ms / md.ping_ms);
    std::printf("| proxy RSS: idle / with the %zu tunnels open | | %.1f / %.1f MiB | |\n", mt.opened,
                static_cast<double>(rss_idle) / 1024, static_cast<double>(mt.rss_open_kib) / 1024);
    double ratio = quantile(tp.tunnel, 1) / quantile(tp.direct, 1);
    std::printf("\ntarget: throughput through the tunnel >= 0.80 of direct loopback: "
                "%s (%.2f, best of %s)\n",
                ratio >= 0.8 ? "met" : "NOT met", ratio, n.c_str());
}

unsigned long long arg(int argc, char **argv, int i, unsigned long long dflt)
{
    if (argc <= i)
        return dflt;
    char *end = nullptr;
    unsigned long long v = std::strtoull(argv[i], &end, 10);
    if (*end || v == 0)
        throw std::runtime_error(std::string("not a positive number: ") + argv[i]);
    return v;
}

int run(int argc, char **argv)
{
    if (argc < 2 || argc > 6)
        throw std::runtime_error("usage: bench_proxy PROXY_BINARY [BYTES [REPEATS [ROUNDTRIPS [TUNNELS]]]]");
    uint64_t bytes = arg(argc, argv, 2, 1ull << 30);
    int repeats = static_cast<int>(arg(argc, argv, 3, 5));
    int round_trips = static_cast<int>(arg(argc, argv, 4, 20000));
    size_t tunnels = arg(argc, argv, 5, 1000);
    raise_fd_limit(tunnels);
    Upstream u = start_servers();
    Proxy proxy(argv[1], u);
    long rss_idle = rss_kib(proxy.pid());
    Throughput tp = throughput(proxy, u, bytes, repeats);
    Pair rt = latency(proxy, u, round_trips);
    Many md = many_at_once(nullptr, u, tunnels);
    Many mt = many_at_once(&proxy, u, tunnels);
    print_machine();
    print_table(bytes, tp, rt, md, mt, rss_idle);
    return 0;
}

}  // namespace

int main(int argc, char **argv)
{
    try {
        return run(argc, argv);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_proxy: %s\n", e.what());
        return 1;
    }
}
