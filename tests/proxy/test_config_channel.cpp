// tartaros-proxy's channel-mode command line: what it accepts and every refusal.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <variant>
#include <vector>

#include "config.h"

namespace {

struct Pair {
    int fd[2];
    explicit Pair(int type) { REQUIRE(socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, fd) == 0); }
    ~Pair()
    {
        close(fd[0]);
        close(fd[1]);
    }
    std::string first() const { return std::to_string(fd[0]); }
};

std::string error_of(const std::vector<std::string> &args)
{
    auto r = tproxy::parse_args(args);
    auto *e = std::get_if<std::string>(&r);
    return e ? *e : "";
}

}  // namespace

TEST_CASE("config channel: a full command line")
{
    Pair chan(SOCK_SEQPACKET);
    auto r = tproxy::parse_args({"--channel", chan.first(), "--proxy-port", "3128", "--allow", "a.test", "--relay",
                                 "5432", "--relay", "6379", "--expose", "0:8080", "--strict"});
    REQUIRE(std::holds_alternative<tproxy::Config>(r));
    const auto &c = std::get<tproxy::Config>(r);
    CHECK(c.channel_fd == chan.fd[0]);
    CHECK(c.channel_mode());
    CHECK(c.http_proxy());
    CHECK(c.proxy_port == 3128);
    CHECK(c.relay_ports == std::vector<unsigned>{5432, 6379});
    REQUIRE(c.exposes.size() == 1);
    CHECK(c.exposes[0].fd == 0);
    CHECK(c.exposes[0].port == 8080);
    CHECK(c.listen_fds.empty());
}

TEST_CASE("config channel: relays alone need no policy and serve no HTTP")
{
    Pair chan(SOCK_SEQPACKET);
    auto r = tproxy::parse_args({"--channel", chan.first(), "--relay", "5432"});
    REQUIRE(std::holds_alternative<tproxy::Config>(r));
    const auto &c = std::get<tproxy::Config>(r);
    CHECK_FALSE(c.http_proxy());
    CHECK(c.policy.allow.empty());
}

TEST_CASE("config channel: refusals")
{
    Pair chan(SOCK_SEQPACKET), stream(SOCK_STREAM);
    auto with = [&](std::vector<std::string> more) {
        std::vector<std::string> a = {"--channel", chan.first()};
        a.insert(a.end(), more.begin(), more.end());
        return error_of(a);
    };
    CHECK(with({}) == "--channel needs at least one of --proxy-port, --broker-port, --relay, --expose");
    CHECK(with({"--proxy-port", "3128"}) == "no --allow: the proxy would refuse everything");
    CHECK(with({"--relay", "1", "--allow", "a.test"}) ==
          "--allow needs --proxy-port: there is no HTTP proxy to apply it to");
    CHECK(with({"--relay", "1", "--ports", "443"}).find("--ports needs --proxy-port") == 0);
    CHECK(with({"--relay", "1", "--listen", "127.0.0.1:1"}) == "--channel excludes --listen-fd and --listen");
    CHECK(with({"--relay", "1", "--listen-fd", "0"}) == "--channel excludes --listen-fd and --listen");
    CHECK(with({"--relay", "0"}) == "--relay '0': expected a port 1..65535");
    CHECK(with({"--relay", "65536"}) != "");
    CHECK(with({"--relay", "5", "--relay", "5"}).find("port 5 appears twice") == 0);
    CHECK(with({"--relay", "5", "--expose", "0:5"}).find("port 5 appears twice") == 0);
    CHECK(with({"--proxy-port", "5", "--allow", "a.test", "--relay", "5"}).find("port 5 appears twice") == 0);
    CHECK(with({"--proxy-port", "5", "--proxy-port", "6", "--allow", "a.test"}) == "--proxy-port given twice");
    CHECK(with({"--relay", "5", "--channel", chan.first()}) == "--channel given twice");
    CHECK(with({"--expose", "5"}).find("--expose '5': expected FD:PORT") == 0);
    CHECK(with({"--expose", "x:5"}) != "");
    CHECK(with({"--expose", "0:0"}) != "");
    CHECK(with({"--expose", "987654:5"}) != "");
    std::vector<std::string> many;
    for (unsigned p = 1; p <= 65; p++)
        many.insert(many.end(), {"--relay", std::to_string(p)});
    CHECK(with(many).find("more than 64 listeners") == 0);
    CHECK(error_of({"--channel", stream.first(), "--relay", "1"}).find("--channel") == 0);
    CHECK(error_of({"--channel", "987654", "--relay", "1"}).find("--channel") == 0);
    CHECK(error_of({"--listen-fd", "0", "--allow", "a.test", "--relay", "1"}) == "--relay needs --channel");
    CHECK(error_of({"--listen-fd", "0", "--allow", "a.test", "--proxy-port", "1"}) == "--proxy-port needs --channel");
}

TEST_CASE("config channel: the channel of a refused command line is still found")
{
    Pair chan(SOCK_SEQPACKET), stream(SOCK_STREAM);
    CHECK(tproxy::channel_fd_in({"--relay", "0", "--channel", chan.first()}) == chan.fd[0]);
    CHECK(tproxy::channel_fd_in({"--channel", stream.first()}) == -1);
    CHECK(tproxy::channel_fd_in({"--channel"}) == -1);
    CHECK(tproxy::channel_fd_in({"--relay", "5"}) == -1);
}

TEST_CASE("config channel: the plan is the one source of what it carries")
{
    Pair chan(SOCK_SEQPACKET);
    auto plan_fd = [] {
        int fd = memfd_create("not-a-plan", MFD_CLOEXEC);
        REQUIRE(write(fd, "not a plan", 10) == 10);
        return fd;
    };
    int fd = plan_fd();
    CHECK(error_of({"--channel", chan.first(), "--plan-fd", std::to_string(fd), "--allow", "a.test"}) ==
          "--allow: with --plan-fd the plan gives it");
    CHECK(error_of({"--channel", chan.first(), "--plan-fd", std::to_string(fd), "--relay", "5"}) ==
          "--relay: with --plan-fd the plan gives it");
    CHECK(error_of({"--channel", chan.first(), "--plan-fd", std::to_string(fd), "--broker-allow-internal"}) ==
          "--broker-allow-internal: with --plan-fd the plan gives it");
    CHECK(error_of({"--listen-fd", "0", "--plan-fd", std::to_string(fd)}) == "--plan-fd needs --channel");
    CHECK(error_of({"--channel", chan.first(), "--plan-fd", "987654"}).find("--plan-fd '987654'") == 0);
    // Read with the plan reader, which refuses what is not a plan (and the fd is closed).
    CHECK(error_of({"--channel", chan.first(), "--plan-fd", std::to_string(fd)}).find("invalid plan on --plan-fd: ") ==
          0);
    CHECK(fcntl(fd, F_GETFD) < 0);
}
