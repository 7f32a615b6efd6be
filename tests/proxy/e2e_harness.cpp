// tests/proxy/e2e_harness.cpp — see e2e_harness.h.
#include "e2e_harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace e2e {
namespace {

int listen_any(unsigned *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || listen(fd, 4096) != 0)
        throw std::runtime_error("listen on 127.0.0.1");
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
    *port = ntohs(a.sin_port);
    return fd;
}

// fork + exec with stdout or stderr captured through a pipe; returns the text.
std::string run_capture(const std::vector<std::string> &argv, int capture_fd, int *code)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        throw std::runtime_error("pipe");
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], capture_fd);
        std::vector<char *> args;
        for (const std::string &a : argv)
            args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    close(p[1]);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = read(p[0], buf, sizeof buf)) > 0)
        out.append(buf, static_cast<size_t>(n));
    close(p[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return out;
}

}  // namespace

Upstream::Upstream()
{
    lfd_ = listen_any(&port_);
    fcntl(lfd_, F_SETFL, O_NONBLOCK);
    efd_ = eventfd(0, EFD_CLOEXEC);
    epfd_ = epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{EPOLLIN, {.fd = lfd_}};
    epoll_ctl(epfd_, EPOLL_CTL_ADD, lfd_, &ev);
    ev.data.fd = efd_;
    epoll_ctl(epfd_, EPOLL_CTL_ADD, efd_, &ev);
    thread_ = std::thread([this] { loop(); });
}

Upstream::~Upstream()
{
    uint64_t one = 1;
    (void)!write(efd_, &one, sizeof one);
    thread_.join();
    close(epfd_);
    close(efd_);
    close(lfd_);
}

void Upstream::loop()
{
    std::map<int, std::string> heads;
    epoll_event evs[64];
    for (;;) {
        int n = epoll_wait(epfd_, evs, 64, -1);
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            if (fd == efd_) {
                for (auto &[c, h] : heads)
                    close(c);
                return;
            }
            if (fd == lfd_) {
                int c;
                while ((c = accept4(lfd_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0) {
                    accepted_++;
                    heads[c];
                    epoll_event ev{EPOLLIN, {.fd = c}};
                    epoll_ctl(epfd_, EPOLL_CTL_ADD, c, &ev);
                }
                continue;
            }
            char buf[4096];
            ssize_t r = recv(fd, buf, sizeof buf, 0);
            std::string &h = heads[fd];
            if (r > 0)
                h.append(buf, static_cast<size_t>(r));
            if (r > 0 && h.find("\r\n\r\n") == std::string::npos)
                continue;
            if (r > 0) {
                std::string resp =
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(h.size()) +
                    "\r\nConnection: close\r\n\r\n" + h;
                send(fd, resp.data(), resp.size(), MSG_NOSIGNAL);
            }
            epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
            close(fd);
            heads.erase(fd);
        }
    }
}

Proxy::Proxy(const std::vector<std::string> &args)
{
    int lfd = listen_any(&port_);
    char tmpl[] = "/tmp/tartaros-proxy-log.XXXXXX";
    int logfd = mkstemp(tmpl);
    log_path_ = tmpl;
    std::vector<std::string> argv = {TARTAROS_PROXY_BIN, "--listen-fd", std::to_string(lfd), "--log",
                                     std::to_string(logfd)};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = fork();
    if (pid_ == 0) {
        fcntl(lfd, F_SETFD, 0);
        std::vector<char *> a;
        for (const std::string &s : argv)
            a.push_back(const_cast<char *>(s.c_str()));
        a.push_back(nullptr);
        execv(a[0], a.data());
        _exit(127);
    }
    close(lfd);
    close(logfd);
}

Proxy::~Proxy()
{
    stop();
    unlink(log_path_.c_str());
}

int Proxy::stop()
{
    if (pid_ < 0)
        return 0;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
}

std::string Proxy::log() const
{
    std::ifstream f(log_path_);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

bool log_has(const Proxy &p, const std::string &needle, int timeout_ms)
{
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (p.log().find(needle) == std::string::npos) {
        if (std::chrono::steady_clock::now() > end)
            return false;
        usleep(20000);
    }
    return true;
}

int connect_local(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0)
        throw std::runtime_error(std::string("connect: ") + strerror(errno));
    return fd;
}

void send_all(int fd, const std::string &s)
{
    size_t off = 0;
    while (off < s.size()) {
        ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
        if (n <= 0)
            return;  // the proxy may refuse and close before everything is sent
        off += static_cast<size_t>(n);
    }
}

std::string read_to_eof(int fd)
{
    std::string out;
    char buf[8192];
    ssize_t n;
    while ((n = recv(fd, buf, sizeof buf, 0)) > 0)
        out.append(buf, static_cast<size_t>(n));
    close(fd);
    return out;
}

std::string read_head(int fd)
{
    std::string out;
    char c;
    while (out.find("\r\n\r\n") == std::string::npos && recv(fd, &c, 1, 0) == 1)
        out.push_back(c);
    return out;
}

std::string exchange(unsigned port, const std::string &request)
{
    int fd = connect_local(port);
    send_all(fd, request);
    return read_to_eof(fd);
}

std::string status_of(const std::string &response)
{
    if (response.size() < 12 || response.compare(0, 5, "HTTP/") != 0)
        return "";
    return response.substr(9, 3);
}

std::string header_of(const std::string &response, const std::string &name)
{
    std::string key = "\r\n" + name + ": ";
    size_t at = response.find(key);
    size_t head_end = response.find("\r\n\r\n");
    if (at == std::string::npos || at > head_end)
        return "";
    at += key.size();
    return response.substr(at, response.find("\r\n", at) - at);
}

std::string curl(const std::vector<std::string> &args, int *code)
{
    std::vector<std::string> argv = {"/usr/bin/curl", "-sS", "--max-time", "10", "--noproxy", ""};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_capture(argv, 1, code);
}

std::string run_proxy_cli(const std::vector<std::string> &args, int *code)
{
    std::vector<std::string> argv = {TARTAROS_PROXY_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_capture(argv, 2, code);
}

}  // namespace e2e
