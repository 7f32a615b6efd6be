// tests/proxy/test_channel.cpp — tartaros-proxy in channel mode, end to end: the real binary
// with one end of a SOCK_SEQPACKET socketpair, the test as the sandbox side (listeners made in
// a private network namespace, the socket factory), upstreams on the host's loopback.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "broker_harness.h"
#include "channel_harness.h"
#include "e2e_harness.h"

using chan::ChannelProxy;
using chan::Netns;

namespace {

#define REQUIRE_NETNS()                                                                                                \
    do {                                                                                                               \
        if (!Netns::available()) {                                                                                     \
            MESSAGE("cannot make a network namespace (needs root): skipped");                                          \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

std::string random_bytes(size_t n, unsigned seed)
{
    std::mt19937 gen(seed);
    std::string s(n, '\0');
    for (char &c : s)
        c = static_cast<char>(gen());
    return s;
}

// A port on the host's loopback where nothing listens (bound, then released).
unsigned closed_host_port()
{
    unsigned port = 0;
    close(chan::host_listen(&port));
    return port;
}

// Whether pid blocks SIGTERM (for its signalfd) within 5 s: before that, SIGTERM kills it.
bool wait_sigterm_blocked(pid_t pid)
{
    for (int i = 0; i < 500; i++) {
        std::ifstream f("/proc/" + std::to_string(pid) + "/status");
        std::string line;
        while (std::getline(f, line))
            if (line.rfind("SigBlk:", 0) == 0 && (std::stoull(line.substr(7), nullptr, 16) >> (SIGTERM - 1) & 1))
                return true;
        usleep(10000);
    }
    return false;
}

std::string inside_exchange(const Netns &ns, unsigned port, const std::string &request)
{
    int fd = ns.connect(port);
    e2e::send_all(fd, request);
    return e2e::read_to_eof(fd);
}

// Sends `ls` (closing the test's copies) and expects the proxy ready.
void expect_ready(ChannelProxy &p, const std::vector<chan::SentListener> &ls)
{
    REQUIRE(p.send_listeners(ls));
    for (const chan::SentListener &l : ls)
        close(l.fd);
    tnc_ready r = p.read_ready();
    CAPTURE(r.message);
    REQUIRE(r.status == TNC_READY);
    CHECK(std::string(r.message).empty());
}

// Sends `ls` (closing the test's copies) and expects the answer `status` with a message
// containing `text`, then the proxy to exit with `code`, having printed nothing.
void expect_failure(ChannelProxy &p, const std::vector<chan::SentListener> &ls, uint8_t status, const std::string &text,
                    int code)
{
    REQUIRE(p.send_listeners(ls));
    for (const chan::SentListener &l : ls)
        close(l.fd);
    tnc_ready r = p.read_ready();
    CAPTURE(r.message);
    CHECK(r.status == status);
    CHECK(std::string(r.message).find(text) != std::string::npos);
    CHECK(p.wait_exit(5000) == code);
    CHECK(p.stderr_text() == "");
}

}  // namespace

TEST_CASE("channel: a relay carries bytes exactly both ways to the host port")
{
    REQUIRE_NETNS();
    Netns ns;
    unsigned port = 0;
    chan::Echo echo(chan::host_listen(&port), "hello from the host\n");
    ChannelProxy p({"--relay", std::to_string(port)});
    expect_ready(p, {{TNC_RELAY, port, ns.listen(port)}});
    for (unsigned i = 0; i < 3; i++) {
        std::string data = random_bytes(4u << 20, i);
        CHECK(chan::round_trip(ns.connect(port), data) == "hello from the host\n" + data);
    }
    CHECK(echo.accepted() == 3);
    CHECK(p.log_has("allowed RELAY 127.0.0.1:" + std::to_string(port) + " addr=127.0.0.1 via=relay"));
}

TEST_CASE("channel: a relay to a host port nobody listens on closes only that connection")
{
    REQUIRE_NETNS();
    Netns ns;
    unsigned open_port = 0, closed_port = closed_host_port();
    chan::Echo echo(chan::host_listen(&open_port));
    ChannelProxy p({"--relay", std::to_string(closed_port), "--relay", std::to_string(open_port)});
    expect_ready(p, {{TNC_RELAY, open_port, ns.listen(open_port)}, {TNC_RELAY, closed_port, ns.listen(closed_port)}});
    CHECK(chan::round_trip(ns.connect(closed_port), "lost") == "");
    CHECK(p.log_has("denied RELAY 127.0.0.1:" + std::to_string(closed_port) +
                    " upstream-unreachable: cannot connect to 127.0.0.1:" + std::to_string(closed_port)));
    CHECK(chan::round_trip(ns.connect(open_port), "still served") == "still served");
}

TEST_CASE("channel: at the connection limit a relay connection is closed and logged")
{
    REQUIRE_NETNS();
    Netns ns;
    unsigned port = 0;
    chan::Echo echo(chan::host_listen(&port), "up\n");
    ChannelProxy p({"--relay", std::to_string(port), "--max-connections", "2"});
    expect_ready(p, {{TNC_RELAY, port, ns.listen(port)}});
    int held[2];
    for (int &fd : held) {
        fd = ns.connect(port);
        char buf[3];
        REQUIRE(recv(fd, buf, sizeof buf, MSG_WAITALL) == 3);  // the tunnel exists
    }
    CHECK(chan::round_trip(ns.connect(port), "over the limit") == "");
    CHECK(p.log_has("denied RELAY 127.0.0.1:" + std::to_string(port) + " overloaded: connection limit reached"));
    close(held[0]);  // the slot frees once the proxy has seen both halves close
    std::string again;
    for (int i = 0; i < 100 && again.empty(); i++, usleep(20000))
        again = chan::round_trip(ns.connect(port), "room again");
    CHECK(again == "up\nroom again");
    close(held[1]);
}

TEST_CASE("channel: the proxy listener serves an allowed pinned name and 403s a denied one")
{
    REQUIRE_NETNS();
    Netns ns;
    e2e::Upstream up;
    std::string upp = std::to_string(up.port());
    ChannelProxy p({"--proxy-port", "3128", "--allow", "allowed.test", "--allow", "denied.test", "--deny",
                    "denied.test", "--host", "allowed.test=127.0.0.1", "--host", "denied.test=127.0.0.1", "--ports",
                    upp});
    expect_ready(p, {{TNC_PROXY, 3128, ns.listen(3128)}});
    std::string ok = inside_exchange(
        ns, 3128, "GET http://allowed.test:" + upp + "/x HTTP/1.1\r\nHost: allowed.test:" + upp + "\r\n\r\n");
    CHECK(e2e::status_of(ok) == "200");
    CHECK(ok.find("GET /x HTTP/1.1") != std::string::npos);
    std::string no =
        inside_exchange(ns, 3128, "CONNECT denied.test:" + upp + " HTTP/1.1\r\nHost: denied.test:" + upp + "\r\n\r\n");
    CHECK(e2e::status_of(no) == "403");
    CHECK(e2e::header_of(no, "X-Proxy-Error") == "blocked-by-denylist");
    CHECK(p.log_has("allowed GET allowed.test:" + upp + " addr=127.0.0.1 via=pin"));
    CHECK(up.accepted() == 1);
}

TEST_CASE("channel: an exposed port reaches a server inside on sockets from the factory")
{
    REQUIRE_NETNS();
    Netns ns;
    unsigned port = 0;
    int host = chan::host_listen(&port);
    chan::Echo inside(ns.listen(port), "hello from inside\n");
    ChannelProxy p({"--expose", std::to_string(host) + ":" + std::to_string(port)}, {host});
    close(host);
    expect_ready(p, {});  // only --expose: message 1 is empty
    chan::Factory factory(p.channel(), ns);
    // Many at once, so answers and connections must be matched in order.
    std::vector<std::thread> clients;
    std::vector<std::string> got(20);
    for (unsigned i = 0; i < got.size(); i++)
        clients.emplace_back([&, i] { got[i] = chan::round_trip(e2e::connect_local(port), random_bytes(100000, i)); });
    for (std::thread &t : clients)
        t.join();
    for (unsigned i = 0; i < got.size(); i++)
        CHECK(got[i] == "hello from inside\n" + random_bytes(100000, i));
    CHECK(factory.answered() == 20);
    CHECK(inside.accepted() == 20);
    CHECK(p.log_has("allowed EXPOSE 127.0.0.1:" + std::to_string(port) + " addr=127.0.0.1 via=expose"));
}

TEST_CASE("channel: a factory errno or a bad socket closes only that connection")
{
    REQUIRE_NETNS();
    Netns ns;
    unsigned port = 0;
    int host = chan::host_listen(&port);
    chan::Echo inside(ns.listen(port));
    ChannelProxy p({"--expose", std::to_string(host) + ":" + std::to_string(port)}, {host});
    close(host);
    expect_ready(p, {});
    chan::Factory factory(p.channel(), ns, {chan::Answer::Emfile, chan::Answer::Udp});
    CHECK(chan::round_trip(e2e::connect_local(port), "first") == "");
    CHECK(p.log_has("socket-failed: the sandbox could not make a socket: " + std::string(strerror(EMFILE))));
    CHECK(chan::round_trip(e2e::connect_local(port), "second") == "");
    CHECK(p.log_has("bad-socket: the sandbox's socket is not an AF_INET SOCK_STREAM TCP socket"));
    CHECK(chan::round_trip(e2e::connect_local(port), "third") == "third");
    CHECK(inside.accepted() == 1);
}

TEST_CASE("channel: a socket request waiting for its answer does not stall other traffic")
{
    REQUIRE_NETNS();
    Netns ns;
    unsigned eport = 0, rport = 0;
    int host = chan::host_listen(&eport);
    chan::Echo upstream(chan::host_listen(&rport));
    ChannelProxy p({"--relay", std::to_string(rport), "--expose", std::to_string(host) + ":" + std::to_string(eport)},
                   {host});
    close(host);
    expect_ready(p, {{TNC_RELAY, rport, ns.listen(rport)}});
    // No factory yet: the request is sent and nobody answers it.
    int waiting = e2e::connect_local(eport);
    auto start = std::chrono::steady_clock::now();
    CHECK(chan::round_trip(ns.connect(rport), "meanwhile") == "meanwhile");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
    chan::Echo inside(ns.listen(eport));
    chan::Factory factory(p.channel(), ns);
    CHECK(chan::round_trip(waiting, "late but served") == "late but served");
}

TEST_CASE("channel: a listener set that does not match the command line gets TNC_FAILED")
{
    REQUIRE_NETNS();
    Netns ns;
    SUBCASE("a proxy listener where a relay was named")
    {
        ChannelProxy p({"--relay", "5000"});
        expect_failure(p, {{TNC_PROXY, 5000, ns.listen(5000)}}, TNC_FAILED,
                       "the sandbox sent a proxy listener for port 5000, which --proxy-port does not name", 1);
    }
    SUBCASE("a relay missing")
    {
        ChannelProxy p({"--relay", "5000", "--relay", "5001"});
        expect_failure(p, {{TNC_RELAY, 5000, ns.listen(5000)}}, TNC_FAILED,
                       "the sandbox sent no listener for --relay 5001", 1);
    }
    SUBCASE("a relay nobody named")
    {
        ChannelProxy p({"--relay", "5000"});
        expect_failure(p, {{TNC_RELAY, 5000, ns.listen(5000)}, {TNC_RELAY, 5001, ns.listen(5001)}}, TNC_FAILED,
                       "relay listener for port 5001, which --relay does not name", 1);
    }
    SUBCASE("a listener bound to another port than it claims")
    {
        ChannelProxy p({"--relay", "5000"});
        expect_failure(p, {{TNC_RELAY, 5000, ns.listen(5002)}}, TNC_FAILED,
                       "is bound to 127.0.0.1:5002, not 127.0.0.1:5000", 1);
    }
    SUBCASE("listeners where only --expose was given")
    {
        unsigned port = 0;
        int host = chan::host_listen(&port);
        ChannelProxy p({"--expose", std::to_string(host) + ":" + std::to_string(port)}, {host});
        close(host);
        expect_failure(p, {{TNC_RELAY, 5000, ns.listen(5000)}}, TNC_FAILED, "does not name", 1);
    }
}

TEST_CASE("channel: a listener message without the hello is refused")
{
    REQUIRE_NETNS();
    Netns ns;
    ChannelProxy p({"--relay", "5000"});
    tnc_listener bare{5000, TNC_RELAY, 0};  // the records alone, as if the hello were forgotten
    REQUIRE(send(p.channel(), &bare, sizeof bare, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof bare));
    tnc_ready r = p.read_ready();
    CAPTURE(r.message);
    CHECK(r.status == TNC_FAILED);
    CHECK(std::string(r.message).find("malformed listener message (4 bytes)") != std::string::npos);
    CHECK(p.wait_exit(5000) == 1);
}

TEST_CASE("channel: a listener that is not listening is refused")
{
    REQUIRE_NETNS();
    Netns ns;
    int bound = ns.socket();
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(5000);
    REQUIRE(bind(bound, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0);
    ChannelProxy p({"--relay", "5000"});
    expect_failure(p, {{TNC_RELAY, 5000, bound}}, TNC_FAILED,
                   "the relay listener for port 5000 is not a listening socket", 1);
}

TEST_CASE("channel: bad arguments are answered on the channel and exit 78")
{
    REQUIRE_NETNS();
    Netns ns;
    SUBCASE("a bad port")
    {
        ChannelProxy p({"--relay", "0"});
        expect_failure(p, {}, TNC_FAILED, "--relay '0': expected a port 1..65535", 78);
    }
    SUBCASE("a policy flag without --proxy-port")
    {
        ChannelProxy p({"--relay", "5000", "--allow", "a.test"});
        expect_failure(p, {{TNC_RELAY, 5000, ns.listen(5000)}}, TNC_FAILED, "--allow needs --proxy-port", 78);
    }
    SUBCASE("an expose fd that is not listening")
    {
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ChannelProxy p({"--expose", std::to_string(s) + ":5000"}, {s});
        close(s);
        expect_failure(p, {}, TNC_FAILED, "not a listening TCP socket", 78);
    }
}

TEST_CASE("channel: without Landlock --strict is TNC_REFUSED and plain mode still serves")
{
    REQUIRE_NETNS();
    Netns ns;
    unsigned port = 0;
    chan::Echo echo(chan::host_listen(&port));
    {
        ChannelProxy p({"--relay", std::to_string(port), "--strict"}, {}, true);
        expect_failure(p, {{TNC_RELAY, port, ns.listen(port)}}, TNC_REFUSED,
                       "cannot confine the proxy: not enforced: Landlock", 78);
    }
    ChannelProxy p({"--relay", std::to_string(port)}, {}, true);
    expect_ready(p, {{TNC_RELAY, port, ns.listen(port)}});
    CHECK(chan::round_trip(ns.connect(port), "unconfined by Landlock") == "unconfined by Landlock");
    CHECK(p.stderr_text().find("tartaros: warning: not enforced: Landlock") == 0);
}

TEST_CASE("channel: EOF on the channel ends the proxy with 0 promptly")
{
    REQUIRE_NETNS();
    Netns ns;
    unsigned port = 0;
    chan::Echo echo(chan::host_listen(&port));
    SUBCASE("after ready, with a tunnel open")
    {
        ChannelProxy p({"--relay", std::to_string(port)});
        expect_ready(p, {{TNC_RELAY, port, ns.listen(port)}});
        int open_tunnel = ns.connect(port);
        auto start = std::chrono::steady_clock::now();
        p.close_channel();
        CHECK(p.wait_exit(2000) == 0);
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(500));
        close(open_tunnel);
    }
    SUBCASE("before message 1: the sandbox ended first")
    {
        ChannelProxy p({"--relay", std::to_string(port)});
        p.close_channel();
        CHECK(p.wait_exit(2000) == 0);
        CHECK(p.stderr_text() == "");
    }
    SUBCASE("SIGTERM while waiting for message 1")
    {
        ChannelProxy p({"--relay", std::to_string(port)});
        REQUIRE(wait_sigterm_blocked(p.pid()));
        kill(p.pid(), SIGTERM);
        CHECK(p.wait_exit(2000) == 0);
    }
}

TEST_CASE("channel: the broker listener forwards over TLS with the capability's header")
{
    REQUIRE_NETNS();
    Netns ns;
    broker::HttpsUpstream up;
    int secrets = broker::secrets_memfd("channel-token-0123456789", {"channel-SECRET-value"});
    ChannelProxy p({"--broker-port", "3129", "--broker-secrets", std::to_string(secrets), "--broker-allow", "localhost",
                    "--broker-allow-internal", "--broker-ca-file", up.ca_file(), "--capability",
                    "gh=localhost:" + std::to_string(up.port()), "--cap-format", "token {value}"},
                   {secrets});
    close(secrets);
    expect_ready(p, {{TNC_BROKER, 3129, ns.listen(3129)}});
    std::string r = inside_exchange(ns, 3129,
                                    "GET /gh/status/200 HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n"
                                    "X-Broker-Auth: channel-token-0123456789\r\nConnection: close\r\n\r\n");
    CHECK(e2e::status_of(r) == "200");
    std::string refused = inside_exchange(ns, 3129,
                                          "GET /gh/status/200 HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n"
                                          "Connection: close\r\n\r\n");
    CHECK(e2e::status_of(refused) == "401");
    CHECK(e2e::header_of(refused, "X-Broker-Error") == "missing-token");
    auto reqs = up.requests();
    REQUIRE(reqs.size() == 1);
    CHECK(reqs[0].find("[\"Authorization\", \"token channel-SECRET-value\"]") != std::string::npos);
    CHECK(reqs[0].find("channel-token") == std::string::npos);
    CHECK(p.log_has("allowed BROKER gh GET localhost:" + std::to_string(up.port()) + " /status/200 status=200"));
    CHECK(p.log().find("SECRET") == std::string::npos);
}

TEST_CASE("channel: a broker listener the command line does not match gets TNC_FAILED")
{
    REQUIRE_NETNS();
    Netns ns;
    auto broker_args = [](int secrets) {
        return std::vector<std::string>{"--broker-port",  "3129",   "--broker-secrets", std::to_string(secrets),
                                        "--broker-allow", "a.test", "--capability",     "a=a.test:443"};
    };
    SUBCASE("no broker listener")
    {
        int secrets = broker::secrets_memfd("t", {"v"});
        ChannelProxy p(broker_args(secrets), {secrets});
        close(secrets);
        expect_failure(p, {}, TNC_FAILED, "the sandbox sent no listener for --broker-port 3129", 1);
    }
    SUBCASE("a proxy listener on the broker's port")
    {
        int secrets = broker::secrets_memfd("t", {"v"});
        ChannelProxy p(broker_args(secrets), {secrets});
        close(secrets);
        expect_failure(p, {{TNC_PROXY, 3129, ns.listen(3129)}}, TNC_FAILED,
                       "the sandbox sent a proxy listener for port 3129, which --proxy-port does not name", 1);
    }
    SUBCASE("a broker listener nobody named")
    {
        ChannelProxy p({"--relay", "5000"});
        expect_failure(p, {{TNC_RELAY, 5000, ns.listen(5000)}, {TNC_BROKER, 3129, ns.listen(3129)}}, TNC_FAILED,
                       "the sandbox sent a broker listener for port 3129, which --broker-port does not name", 1);
    }
    SUBCASE("bad secrets are answered on the channel")
    {
        int secrets = broker::secrets_memfd("t", {});
        ChannelProxy p(broker_args(secrets), {secrets});
        close(secrets);
        expect_failure(p, {{TNC_BROKER, 3129, ns.listen(3129)}}, TNC_FAILED, "--broker-secrets: 1 records, expected 2",
                       78);
    }
}
