// tests/proxy/test_e2e.cpp — tartaros-proxy end to end on loopback: a real upstream, curl
// and raw sockets. Test names resolve only through --host pins or /etc/hosts ("localhost"),
// so no lookup ever leaves the machine.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e_harness.h"

using namespace e2e;

namespace {

// allowed.test and *.wild.test pass; denied.test and bad.wild.test are allowed but denied;
// other.test is pinned but not allowed; localhost is allowed but not pinned (internal).
std::vector<std::string> policy_args(unsigned up, std::vector<std::string> extra = {})
{
    std::vector<std::string> a = {"--allow",
                                  "allowed.test",
                                  "--allow",
                                  "*.wild.test",
                                  "--allow",
                                  "denied.test",
                                  "--allow",
                                  "localhost",
                                  "--allow",
                                  "127.0.0.3",
                                  "--deny",
                                  "denied.test",
                                  "--deny",
                                  "bad.wild.test",
                                  "--host",
                                  "allowed.test=127.0.0.1",
                                  "--host",
                                  "a.wild.test=127.0.0.1",
                                  "--host",
                                  "bad.wild.test=127.0.0.1",
                                  "--host",
                                  "denied.test=127.0.0.1",
                                  "--host",
                                  "other.test=127.0.0.1",
                                  "--ports",
                                  std::to_string(up) + ",443",
                                  "--max-header-bytes",
                                  "4096",
                                  "--header-timeout-ms",
                                  "1500"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

std::string connect_req(const std::string &authority)
{
    return "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n";
}

std::string get_req(const std::string &host, unsigned port, const std::string &path)
{
    std::string hp = host + ":" + std::to_string(port);
    return "GET http://" + hp + path + " HTTP/1.1\r\nHost: " + hp + "\r\n\r\n";
}

// Opens a CONNECT tunnel to allowed.test and returns the fd once "200" came back.
int open_tunnel(unsigned proxy, unsigned up)
{
    int fd = connect_local(proxy);
    send_all(fd, connect_req("allowed.test:" + std::to_string(up)));
    std::string head = read_head(fd);
    REQUIRE(status_of(head) == "200");
    return fd;
}

std::string through_tunnel(int fd, const std::string &path)
{
    send_all(fd, "GET " + path + " HTTP/1.1\r\nHost: allowed.test\r\n\r\n");
    return read_to_eof(fd);
}

struct Fixture {
    Upstream up;
    Proxy proxy;
    explicit Fixture(std::vector<std::string> extra = {}) : proxy(policy_args(up.port(), std::move(extra))) {}
};

}  // namespace

TEST_CASE("e2e: an allowed name works through curl -x and curl -p and a raw CONNECT")
{
    Fixture f;
    std::string px = "http://127.0.0.1:" + std::to_string(f.proxy.port());
    std::string url = "http://allowed.test:" + std::to_string(f.up.port()) + "/hello?x=1";
    int code = -1;
    std::string body = curl({"-x", px, "-H", "Proxy-Authorization: Basic eDp5", url}, &code);
    CHECK(code == 0);
    CHECK(body.find("GET /hello?x=1 HTTP/1.1\r\n") == 0);  // origin form upstream
    CHECK(body.find("Proxy-") == std::string::npos);       // Proxy-* headers removed
    CHECK(body.find("Connection: close") != std::string::npos);
    body = curl({"-p", "-x", px, url}, &code);
    CHECK(code == 0);
    CHECK(body.find("GET /hello?x=1 HTTP/1.1\r\n") == 0);
    int fd = open_tunnel(f.proxy.port(), f.up.port());
    CHECK(through_tunnel(fd, "/raw").find("GET /raw HTTP/1.1") != std::string::npos);
    // Bytes sent right behind the CONNECT head reach the upstream too.
    std::string both =
        exchange(f.proxy.port(),
                 connect_req("allowed.test:" + std::to_string(f.up.port())) + "GET /early HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(both.find("200 Connection established") != std::string::npos);
    CHECK(both.find("GET /early HTTP/1.1") != std::string::npos);
    CHECK(log_has(f.proxy, "allowed CONNECT allowed.test:" + std::to_string(f.up.port()) + " addr=127.0.0.1 via=pin"));
    CHECK(log_has(f.proxy, "allowed GET allowed.test:"));
    std::string wild = exchange(f.proxy.port(), get_req("A.Wild.Test.", f.up.port(), "/w"));
    CHECK(status_of(wild) == "200");
}

TEST_CASE("e2e: names outside the allow-list and deny-list hits and internal addresses get 403")
{
    Fixture f;
    std::string up = std::to_string(f.up.port());
    struct Case {
        std::string request, code, mentions;
    } cases[] = {
        {connect_req("other.test:" + up), "blocked-by-allowlist", "allow_domains"},
        {get_req("other.test", f.up.port(), "/"), "blocked-by-allowlist", "other.test"},
        {connect_req("denied.test:" + up), "blocked-by-denylist", "deny_domains"},
        {get_req("bad.wild.test", f.up.port(), "/"), "blocked-by-denylist", "bad.wild.test"},
        {connect_req("localhost:" + up), "blocked-internal-address", "hosts"},
        {get_req("localhost", f.up.port(), "/"), "blocked-internal-address", "loopback"},
        {connect_req("127.0.0.1:" + up), "blocked-by-allowlist", "IP literal"},
        {connect_req("[::1]:" + up), "blocked-by-allowlist", "IP literal"},
        {connect_req("127.0.0.3:" + up), "blocked-internal-address", "loopback"},
        {connect_req("allowed.test:22"), "blocked-port", "--ports"},
        {get_req("allowed.test", 8080, "/"), "blocked-port", "8080"},
    };
    for (const Case &c : cases) {
        CAPTURE(c.request);
        std::string r = exchange(f.proxy.port(), c.request);
        CHECK(status_of(r) == "403");
        CHECK(header_of(r, "X-Proxy-Error") == c.code);
        CHECK(r.find(c.mentions, r.find("\r\n\r\n")) != std::string::npos);
    }
    CHECK(f.up.accepted() == 0);
    CHECK(log_has(f.proxy, "denied CONNECT denied.test:" + up + " blocked-by-denylist"));
    CHECK(log_has(f.proxy, "denied GET localhost:" + up + " blocked-internal-address"));
    int code = -1;
    std::string out = curl(
        {"-i", "-x", "http://127.0.0.1:" + std::to_string(f.proxy.port()), "http://other.test:" + up + "/"}, &code);
    CHECK(status_of(out) == "403");
}

TEST_CASE("e2e: smuggling shapes and oversized and malformed heads are refused")
{
    Fixture f;
    unsigned up = f.up.port();
    std::string hp = "allowed.test:" + std::to_string(up);
    std::string mismatch = "GET http://" + hp + "/ HTTP/1.1\r\nHost: other.test\r\n\r\n";
    std::string dup = "GET http://" + hp + "/ HTTP/1.1\r\nHost: " + hp + "\r\nHost: other.test\r\n\r\n";
    std::string cl_te = "POST http://" + hp + "/ HTTP/1.1\r\nHost: " + hp +
        "\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
    std::string big =
        "GET http://" + hp + "/ HTTP/1.1\r\nHost: " + hp + "\r\nX: " + std::string(5000, 'a') + "\r\n\r\n";
    CHECK(header_of(exchange(f.proxy.port(), mismatch), "X-Proxy-Error") == "host-mismatch");
    CHECK(header_of(exchange(f.proxy.port(), dup), "X-Proxy-Error") == "duplicate-host");
    CHECK(status_of(exchange(f.proxy.port(), cl_te)) == "400");
    std::string r = exchange(f.proxy.port(), big);
    CHECK(status_of(r) == "431");
    CHECK(header_of(r, "X-Proxy-Error") == "header-too-large");
    CHECK(f.up.accepted() == 0);
}

TEST_CASE("e2e: 1000 malformed requests then a good one is served")
{
    Fixture f;
    const std::string bad[] = {
        "garbage\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET http://a b HTTP/1.1\r\n\r\n",
        "CONNECT :443 HTTP/1.1\r\n\r\n",
        "GET http://allowed.test/ HTTP/9\r\n\r\n",
        std::string("\0\1\2\3\r\n\r\n", 8),
        "CONNECT allowed.test:443 HTTP/1.1\nHost: x\n\n",
        "GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n bad\r\n\r\n",
    };
    int refused = 0;
    for (int i = 0; i < 1000; i++) {
        std::string r = exchange(f.proxy.port(), bad[i % std::size(bad)]);
        refused += header_of(r, "X-Proxy-Error").empty() ? 0 : 1;
    }
    CHECK(refused == 1000);
    std::string ok = exchange(f.proxy.port(), get_req("allowed.test", f.up.port(), "/after"));
    CHECK(status_of(ok) == "200");
    CHECK(ok.find("GET /after HTTP/1.1") != std::string::npos);
}

TEST_CASE("e2e: slow clients dripping a head do not block others and are cut at the deadline")
{
    Fixture f;
    auto start = std::chrono::steady_clock::now();
    std::vector<int> slow;
    for (int i = 0; i < 50; i++)
        slow.push_back(connect_local(f.proxy.port()));
    std::string drip = connect_req("allowed.test:" + std::to_string(f.up.port()));
    std::atomic<bool> stop{false};
    std::thread dripper([&] {
        for (size_t i = 0; i < drip.size() - 2 && !stop; i++) {
            for (int fd : slow)
                send(fd, &drip[i], 1, MSG_NOSIGNAL);
            usleep(50000);
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::string ok = exchange(f.proxy.port(), get_req("allowed.test", f.up.port(), "/fast"));
    CHECK(status_of(ok) == "200");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1400));
    std::vector<std::string> cut;
    for (int fd : slow)
        cut.push_back(read_to_eof(fd));
    stop = true;
    dripper.join();
    auto took = std::chrono::steady_clock::now() - start;
    for (const std::string &r : cut)
        CHECK(header_of(r, "X-Proxy-Error") == "header-timeout");
    CHECK(took >= std::chrono::milliseconds(1400));
    CHECK(took < std::chrono::milliseconds(4000));
}

TEST_CASE("e2e: 1000 concurrent idle tunnels are held while new requests are served")
{
    rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    REQUIRE(rl.rlim_cur >= 4000);
    Fixture f;
    std::vector<int> tunnels;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 1000; i++)
        tunnels.push_back(open_tunnel(f.proxy.port(), f.up.port()));
    auto opened = std::chrono::steady_clock::now() - start;
    MESSAGE("1000 tunnels opened in " << std::chrono::duration_cast<std::chrono::milliseconds>(opened).count()
                                      << " ms");
    int code = -1;
    std::string body = curl({"-x", "http://127.0.0.1:" + std::to_string(f.proxy.port()),
                             "http://allowed.test:" + std::to_string(f.up.port()) + "/new"},
                            &code);
    CHECK(code == 0);
    CHECK(body.find("GET /new HTTP/1.1") == 0);
    CHECK(through_tunnel(tunnels.front(), "/first").find("GET /first") != std::string::npos);
    CHECK(through_tunnel(tunnels.back(), "/last").find("GET /last") != std::string::npos);
    for (size_t i = 1; i + 1 < tunnels.size(); i++)
        close(tunnels[i]);
    CHECK(f.up.accepted() == 1001);
}

namespace {

// One connection accepted on 127.0.0.1 and everything it sends echoed back until it ends.
class EchoOnce {
public:
    EchoOnce()
    {
        lfd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        REQUIRE(bind(lfd_, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0);
        REQUIRE(listen(lfd_, 1) == 0);
        REQUIRE(getsockname(lfd_, reinterpret_cast<sockaddr *>(&a), &len) == 0);
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~EchoOnce()
    {
        shutdown(lfd_, SHUT_RDWR);
        thread_.join();
        close(lfd_);
    }
    unsigned port() const { return port_; }

private:
    void serve()
    {
        int fd = accept4(lfd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0)
            return;
        std::vector<char> buf(1 << 16);
        for (ssize_t n; (n = read(fd, buf.data(), buf.size())) > 0;)
            for (ssize_t off = 0, w; off < n; off += w)
                if ((w = write(fd, buf.data() + off, static_cast<size_t>(n - off))) <= 0)
                    return void(close(fd));
        close(fd);
    }
    int lfd_;
    unsigned port_;
    std::thread thread_;
};

}  // namespace

TEST_CASE("e2e: a bulk stream through a tunnel arrives whole in both directions (its pipes grow on the way)")
{
    EchoOnce echo;
    Proxy proxy(policy_args(echo.port()));
    const int fd = open_tunnel(proxy.port(), echo.port());
    // 40 MiB each way: past the 8 MiB after which each direction's pipe is enlarged.
    std::string sent(40u << 20, '\0');
    uint32_t x = 2463534242u;
    for (char &c : sent) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        c = static_cast<char>(x);
    }
    std::thread writer([&] {
        send_all(fd, sent);
        shutdown(fd, SHUT_WR);
    });
    std::string received;
    received.reserve(sent.size());
    std::vector<char> buf(1 << 16);
    for (ssize_t n; (n = read(fd, buf.data(), buf.size())) > 0;)
        received.append(buf.data(), static_cast<size_t>(n));
    writer.join();
    close(fd);
    CHECK(received.size() == sent.size());
    CHECK(received == sent);
}

TEST_CASE("e2e: idle tunnels end at the idle timeout")
{
    Fixture f({"--idle-timeout-ms", "400"});
    int fd = open_tunnel(f.proxy.port(), f.up.port());
    auto start = std::chrono::steady_clock::now();
    char c;
    CHECK(recv(fd, &c, 1, 0) == 0);  // closed by the proxy, not by the 5 s receive timeout
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(2000));
    close(fd);
}

TEST_CASE("e2e: at the connection limit the oldest head-reader makes room and tunnels get 503")
{
    Fixture f({"--max-connections", "3"});
    int slow = connect_local(f.proxy.port());
    send_all(slow, "CONNECT allowed");
    usleep(100000);
    std::vector<int> t = {open_tunnel(f.proxy.port(), f.up.port()), open_tunnel(f.proxy.port(), f.up.port()),
                          open_tunnel(f.proxy.port(), f.up.port())};
    CHECK(header_of(read_to_eof(slow), "X-Proxy-Error") == "header-timeout");  // made room
    std::string r = exchange(f.proxy.port(), get_req("allowed.test", f.up.port(), "/"));
    CHECK(status_of(r) == "503");
    CHECK(header_of(r, "X-Proxy-Error") == "overloaded");
    close(t[0]);
    usleep(200000);
    CHECK(status_of(exchange(f.proxy.port(), get_req("allowed.test", f.up.port(), "/"))) == "200");
    close(t[1]);
    close(t[2]);
}

TEST_CASE("e2e: the running proxy is confined and stops cleanly on SIGTERM")
{
    Fixture f;
    // An answer proves the proxy is serving, and it confines itself before it serves.
    CHECK(status_of(exchange(f.proxy.port(), "garbage\r\n\r\n")) == "400");
    std::ifstream status("/proc/" + std::to_string(f.proxy.pid()) + "/status");
    std::string all((std::istreambuf_iterator<char>(status)), std::istreambuf_iterator<char>());
    CHECK(all.find("NoNewPrivs:\t1") != std::string::npos);
    CHECK(all.find("Seccomp:\t2") != std::string::npos);
    CHECK(all.find("CapEff:\t0000000000000000") != std::string::npos);
    int st = f.proxy.stop();
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
}

TEST_CASE("e2e: bad arguments are one tartaros line and exit 78")
{
    for (const std::vector<std::string> &args :
         {std::vector<std::string>{"--listen", "127.0.0.1:1", "--allow", "*"},
          std::vector<std::string>{"--listen", "127.0.0.1:1"}, std::vector<std::string>{"--allow", "a.test"},
          std::vector<std::string>{"--listen-fd", "0", "--allow", "a.test"},
          std::vector<std::string>{"--listen", "127.0.0.1:1", "--allow", "a.test", "--x"}}) {
        int code = -1;
        std::string err = run_proxy_cli(args, &code);
        CAPTURE(err);
        CHECK(code == 78);
        CHECK(err.rfind("tartaros: ", 0) == 0);
        CHECK(err.find('\n') == err.size() - 1);
    }
}
