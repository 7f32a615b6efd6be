// tests/proxy/channel_harness.cpp — see channel_harness.h.
#include "channel_harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace chan {
namespace {

sockaddr_in loopback(unsigned port)
{
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    return a;
}

void set_timeouts(int fd)
{
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

bool send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return false;
        p += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

std::string read_file(const std::string &path)
{
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// Sends one socket-request answer: a status byte and, with 0, the fd.
void answer(int chan, unsigned char status, int fd)
{
    iovec iov{&status, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (fd >= 0) {
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    (void)!sendmsg(chan, &msg, MSG_NOSIGNAL);
}

// A filter that makes landlock_create_ruleset answer ENOSYS, as on a kernel without
// Landlock; everything else is allowed. Installed in the child just before execve.
void hide_landlock()
{
    sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_create_ruleset, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    sock_fprog prog{static_cast<unsigned short>(std::size(code)), code};
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

}  // namespace

Netns::Netns()
{
    std::string err;
    std::thread t([&] {
        // A thread's network namespace is its own: the rest of the test process stays put.
        if (unshare(CLONE_NEWNET) != 0) {
            err = std::string("unshare(CLONE_NEWNET): ") + strerror(errno);
            return;
        }
        int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        ifreq ifr{};
        std::strcpy(ifr.ifr_name, "lo");
        if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
            ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
            if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
                err = std::string("lo up: ") + strerror(errno);
        }
        close(s);
        nsfd_ = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    });
    t.join();
    if (!err.empty() || nsfd_ < 0)
        throw std::runtime_error(err.empty() ? "open ns/net" : err);
}

Netns::~Netns()
{
    close(nsfd_);
}

bool Netns::available()
{
    static const bool ok = [] {
        try {
            Netns n;
            return true;
        } catch (const std::exception &) {
            return false;
        }
    }();
    return ok;
}

int Netns::socket(int type) const
{
    int fd = -1;
    std::thread([&] {
        if (setns(nsfd_, CLONE_NEWNET) == 0)
            fd = ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
    }).join();
    if (fd < 0)
        throw std::runtime_error("socket in the namespace");
    return fd;
}

int Netns::listen(unsigned port) const
{
    int fd = socket();
    sockaddr_in a = loopback(port);
    if (bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || ::listen(fd, 128) != 0)
        throw std::runtime_error(std::string("listen inside: ") + strerror(errno));
    return fd;
}

int Netns::connect(unsigned port) const
{
    int fd = socket();
    set_timeouts(fd);
    sockaddr_in a = loopback(port);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0)
        throw std::runtime_error(std::string("connect inside: ") + strerror(errno));
    return fd;
}

int host_listen(unsigned *port)
{
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = loopback(0);
    if (bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || ::listen(fd, 128) != 0)
        throw std::runtime_error("listen on the host");
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
    *port = ntohs(a.sin_port);
    return fd;
}

ChannelProxy::ChannelProxy(const std::vector<std::string> &args, const std::vector<int> &inherit, bool without_landlock)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        throw std::runtime_error("socketpair");
    chan_ = sv[0];
    char log_tmpl[] = "/tmp/tartaros-chan-log.XXXXXX";
    char err_tmpl[] = "/tmp/tartaros-chan-err.XXXXXX";
    int logfd = mkostemp(log_tmpl, O_CLOEXEC), errfd = mkostemp(err_tmpl, O_CLOEXEC);
    log_path_ = log_tmpl;
    err_path_ = err_tmpl;
    std::vector<std::string> argv = {TARTAROS_PROXY_BIN, "--channel", std::to_string(sv[1]), "--log",
                                     std::to_string(logfd)};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char *> a;
    for (const std::string &s : argv)
        a.push_back(const_cast<char *>(s.c_str()));
    a.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
        for (int fd : inherit)
            fcntl(fd, F_SETFD, 0);
        fcntl(sv[1], F_SETFD, 0);
        fcntl(logfd, F_SETFD, 0);
        dup2(errfd, 2);
        if (without_landlock)
            hide_landlock();
        execv(a[0], a.data());
        _exit(127);
    }
    close(sv[1]);
    close(logfd);
    close(errfd);
}

ChannelProxy::~ChannelProxy()
{
    if (pid_ > 0) {
        kill(pid_, SIGTERM);
        waitpid(pid_, nullptr, 0);
    }
    if (chan_ >= 0)
        close(chan_);
    unlink(log_path_.c_str());
    unlink(err_path_.c_str());
}

bool ChannelProxy::send_listeners(const std::vector<SentListener> &ls)
{
    // The bytes of message 1: the hello, then one record per listener.
    tnc_hello hello{TNC_HELLO_MAGIC, static_cast<uint32_t>(ls.size())};
    std::vector<char> payload(reinterpret_cast<const char *>(&hello),
                              reinterpret_cast<const char *>(&hello) + sizeof hello);
    std::vector<int> fds;
    for (const SentListener &l : ls) {
        tnc_listener item{static_cast<uint16_t>(l.port), l.kind, 0};
        payload.insert(payload.end(), reinterpret_cast<const char *>(&item),
                       reinterpret_cast<const char *>(&item) + sizeof item);
        fds.push_back(l.fd);
    }
    iovec iov{payload.data(), payload.size()};
    std::vector<char> control(CMSG_SPACE(fds.size() * sizeof(int)));
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (!fds.empty()) {
        msg.msg_control = control.data();
        msg.msg_controllen = control.size();
        cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(fds.size() * sizeof(int));
        std::memcpy(CMSG_DATA(c), fds.data(), fds.size() * sizeof(int));
    }
    return sendmsg(chan_, &msg, MSG_NOSIGNAL) == static_cast<ssize_t>(iov.iov_len);
}

tnc_ready ChannelProxy::read_ready(int timeout_ms)
{
    tnc_ready r{};
    pollfd p{chan_, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) == 1 && recv(chan_, &r, sizeof r, MSG_DONTWAIT) == sizeof r)
        return r;
    r.status = 255;
    std::strcpy(r.message, "no answer");
    return r;
}

void ChannelProxy::close_channel()
{
    close(chan_);
    chan_ = -1;
}

int ChannelProxy::wait_exit(int timeout_ms)
{
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (pid_ > 0) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            pid_ = -1;
            break;
        }
        if (std::chrono::steady_clock::now() > end)
            return -1;
        usleep(5000);
    }
    return status_;
}

std::string ChannelProxy::stderr_text() const
{
    return read_file(err_path_);
}

std::string ChannelProxy::log() const
{
    return read_file(log_path_);
}

bool ChannelProxy::log_has(const std::string &needle, int timeout_ms) const
{
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (log().find(needle) == std::string::npos) {
        if (std::chrono::steady_clock::now() > end)
            return false;
        usleep(20000);
    }
    return true;
}

Factory::Factory(int chan, const Netns &ns, std::vector<Answer> script)
    : chan_(chan), stopfd_(eventfd(0, EFD_CLOEXEC)), ns_(ns), script_(std::move(script))
{
    thread_ = std::thread([this] { loop(); });
}

Factory::~Factory()
{
    uint64_t one = 1;
    (void)!write(stopfd_, &one, sizeof one);
    thread_.join();
    close(stopfd_);
}

void Factory::loop()
{
    for (size_t i = 0;;) {
        pollfd p[2] = {{chan_, POLLIN, 0}, {stopfd_, POLLIN, 0}};
        poll(p, 2, -1);
        if (p[1].revents)
            return;
        char req = 0;
        ssize_t n = recv(chan_, &req, 1, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN))
            return;
        if (n < 0 || req != TNC_SOCKET_REQUEST)
            continue;
        Answer a = i < script_.size() ? script_[i] : Answer::Socket;
        i++;
        if (a == Answer::Emfile) {
            answer(chan_, EMFILE, -1);
        } else {
            int fd = ns_.socket(a == Answer::Udp ? SOCK_DGRAM : SOCK_STREAM | SOCK_NONBLOCK);
            answer(chan_, 0, fd);
            close(fd);
        }
        answered_++;
    }
}

Echo::Echo(int lfd, std::string banner) : lfd_(lfd), stopfd_(eventfd(0, EFD_CLOEXEC)), banner_(std::move(banner))
{
    thread_ = std::thread([this] { accept_loop(); });
}

Echo::~Echo()
{
    uint64_t one = 1;
    (void)!write(stopfd_, &one, sizeof one);
    thread_.join();
    for (int c : conns_)
        shutdown(c, SHUT_RDWR);  // wakes a worker still blocked in recv or send
    for (std::thread &w : workers_)
        w.join();
    for (int c : conns_)
        close(c);
    close(stopfd_);
    close(lfd_);
}

void Echo::accept_loop()
{
    for (;;) {
        pollfd p[2] = {{lfd_, POLLIN, 0}, {stopfd_, POLLIN, 0}};
        poll(p, 2, -1);
        if (p[1].revents)
            return;
        int c = accept4(lfd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        accepted_++;
        conns_.push_back(c);
        workers_.emplace_back([this, c] {
            if (!send_all(c, banner_.data(), banner_.size()))
                return;
            char buf[65536];
            ssize_t n;
            while ((n = recv(c, buf, sizeof buf, 0)) > 0)
                if (!send_all(c, buf, static_cast<size_t>(n)))
                    return;
            shutdown(c, SHUT_WR);
        });
    }
}

std::string round_trip(int fd, const std::string &data)
{
    set_timeouts(fd);
    std::thread writer([&] {
        send_all(fd, data.data(), data.size());
        shutdown(fd, SHUT_WR);
    });
    std::string out;
    char buf[65536];
    ssize_t n;
    while ((n = recv(fd, buf, sizeof buf, 0)) > 0)
        out.append(buf, static_cast<size_t>(n));
    writer.join();
    close(fd);
    return out;
}

}  // namespace chan
