// tests/proxy/broker_harness.cpp — see broker_harness.h.
#include "broker_harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "broker_secrets_wire.h"

namespace broker {
namespace {

std::string read_file(const std::string &path)
{
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::string temp_file(int *fd)
{
    char tmpl[] = "/tmp/tartaros-broker-log.XXXXXX";
    *fd = mkstemp(tmpl);
    if (*fd < 0)
        throw std::runtime_error("mkstemp");
    return tmpl;
}

void put_le32(std::string &s, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        s.push_back(static_cast<char>(v >> (8 * i) & 0xff));
}

// A port of 127.0.0.1 nobody listens on right now.
unsigned free_port()
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) != 0)
        throw std::runtime_error("bind 127.0.0.1:0");
    close(fd);
    return ntohs(a.sin_port);
}

int try_connect(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0)
        return fd;
    close(fd);
    return -1;
}

// In a forked child: stderr says why the exec failed (the parent sees only the exit).
void exec_argv(const std::vector<std::string> &argv)
{
    std::vector<char *> a;
    for (const std::string &s : argv)
        a.push_back(const_cast<char *>(s.c_str()));
    a.push_back(nullptr);
    execv(a[0], a.data());
    dprintf(2, "cannot execute %s: %s\n", a[0], strerror(errno));
    _exit(127);
}

// A copy of the proxy in a fresh world-readable directory, for a proxy run as nobody: the
// build tree may lie under a directory others cannot enter (/root is mode 700).
std::string world_readable_proxy()
{
    char tmpl[] = "/tmp/tartaros-proxy-bin.XXXXXX";
    if (!mkdtemp(tmpl) || chmod(tmpl, 0755) != 0)
        throw std::runtime_error("mkdtemp");
    std::string copy = std::string(tmpl) + "/tartaros-proxy";
    std::filesystem::copy_file(TARTAROS_PROXY_BIN, copy);
    std::filesystem::permissions(copy, std::filesystem::perms(0755));
    return copy;
}

}  // namespace

HttpsUpstream::HttpsUpstream(const std::string &san, const std::string &script)
{
    char tmpl[] = "/tmp/tartaros-upstream.XXXXXX";
    if (!mkdtemp(tmpl) || chmod(tmpl, 0755) != 0)  // a proxy run as nobody reads ca.pem
        throw std::runtime_error("mkdtemp");
    dir_ = tmpl;
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        throw std::runtime_error("pipe");
    std::vector<std::string> argv = {"/usr/bin/python3", script, "--dir", dir_};
    if (!san.empty())
        argv.insert(argv.end(), {"--san", san});
    pid_ = fork();
    if (pid_ == 0) {
        dup2(out[1], 1);
        exec_argv(argv);
    }
    close(out[1]);
    std::string line;
    char c;
    pollfd p{out[0], POLLIN, 0};
    while (line.find('\n') == std::string::npos && poll(&p, 1, 20000) == 1 && read(out[0], &c, 1) == 1)
        line.push_back(c);
    close(out[0]);
    // A proxy run as nobody reads ca.pem, whatever this process's umask made of it.
    if (line.rfind("PORT ", 0) != 0 || chmod(ca_file().c_str(), 0644) != 0) {
        kill(pid_, SIGTERM);  // the destructor will not run: clean up here
        waitpid(pid_, nullptr, 0);
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
        throw std::runtime_error(script + " did not start: '" + line + "'");
    }
    port_ = static_cast<unsigned>(std::stoul(line.substr(5)));
}

HttpsUpstream::~HttpsUpstream()
{
    kill(pid_, SIGTERM);
    int status;
    waitpid(pid_, &status, 0);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
}

std::vector<std::string> HttpsUpstream::requests() const
{
    std::vector<std::string> out;
    std::istringstream in(read_file(dir_ + "/requests.jsonl"));
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

int secrets_memfd(const std::string &token, const std::vector<std::string> &values)
{
    std::string s;
    put_le32(s, TBS_MAGIC);
    put_le32(s, static_cast<uint32_t>(1 + values.size()));
    put_le32(s, static_cast<uint32_t>(token.size()));
    s += token;
    for (const std::string &v : values) {
        put_le32(s, static_cast<uint32_t>(v.size()));
        s += v;
    }
    int fd = memfd_create("broker-secrets", MFD_ALLOW_SEALING);
    if (fd < 0 || write(fd, s.data(), s.size()) != static_cast<ssize_t>(s.size()))
        throw std::runtime_error("memfd");
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    return fd;
}

BrokerProxy::BrokerProxy(const std::vector<std::string> &args, const std::string &token,
                         const std::vector<std::string> &values, bool as_nobody)
{
    int lfd, efd, sfd;
    log_ = temp_file(&lfd);
    effects_ = temp_file(&efd);
    err_ = temp_file(&sfd);
    close(lfd);
    close(efd);
    close(sfd);
    if (as_nobody) {
        for (const std::string &f : {log_, effects_, err_})
            if (chown(f.c_str(), 65534, 65534) != 0)
                throw std::runtime_error("chown");
        copy_ = world_readable_proxy();
    }
    // A free port may be taken between the check and the bind: try a few.
    for (int attempt = 0; attempt < 5; attempt++) {
        int secrets = secrets_memfd(token, values);
        bool up = start(args, secrets, as_nobody);
        close(secrets);
        if (up)
            return;
        if (stderr_text().find("Address already in use") == std::string::npos)
            return;  // the test looks at why
    }
}

bool BrokerProxy::start(const std::vector<std::string> &args, int secrets, bool as_nobody)
{
    port_ = free_port();
    // Inherited as they are (no fixed numbers, which could land on the secrets' descriptor).
    int l = open(log_.c_str(), O_WRONLY | O_APPEND), e = open(effects_.c_str(), O_WRONLY | O_APPEND),
        s = open(err_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    std::vector<std::string> argv = {copy_.empty() ? TARTAROS_PROXY_BIN : copy_,
                                     "--broker-listen",
                                     "127.0.0.1:" + std::to_string(port_),
                                     "--broker-secrets",
                                     std::to_string(secrets),
                                     "--log",
                                     std::to_string(l),
                                     "--effect-log",
                                     std::to_string(e),
                                     "--run-id",
                                     "0123456789abcdef"};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = fork();
    if (pid_ == 0) {
        dup2(s, 2);
        if (as_nobody && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
            _exit(126);
        exec_argv(argv);
    }
    close(l);
    close(e);
    close(s);
    // Serving once its listener answers and it has confined itself (seccomp is the last step).
    for (int i = 0; i < 500; i++) {
        int fd = try_connect(port_);
        if (fd >= 0)
            close(fd);
        if (fd >= 0 && confined())
            return true;
        int status;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            return false;
        }
        usleep(10000);
    }
    return false;
}

BrokerProxy::~BrokerProxy()
{
    if (pid_ > 0) {
        kill(pid_, SIGTERM);
        int status;
        waitpid(pid_, &status, 0);
    }
    unlink(log_.c_str());
    unlink(effects_.c_str());
    unlink(err_.c_str());
    if (!copy_.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(std::filesystem::path(copy_).parent_path(), ec);
    }
}

std::string BrokerProxy::log() const
{
    return read_file(log_);
}

std::string BrokerProxy::effects() const
{
    return read_file(effects_);
}

std::string BrokerProxy::stderr_text() const
{
    return read_file(err_);
}

bool BrokerProxy::log_has(const std::string &needle, int timeout_ms) const
{
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (log().find(needle) == std::string::npos) {
        if (std::chrono::steady_clock::now() > end)
            return false;
        usleep(20000);
    }
    return true;
}

std::string BrokerProxy::status_field(const std::string &name) const
{
    std::ifstream f("/proc/" + std::to_string(pid_) + "/status");
    for (std::string line; std::getline(f, line);)
        if (line.rfind(name + ":", 0) == 0) {
            size_t at = line.find_first_not_of(" \t", name.size() + 1);
            return at == std::string::npos ? "" : line.substr(at);
        }
    return "";
}

bool BrokerProxy::confined() const
{
    return status_field("Seccomp") == "2";
}

long BrokerProxy::peak_rss_kib() const
{
    std::string v = status_field("VmHWM");
    return v.empty() ? -1 : std::stol(v);
}

Client::Client(unsigned port)
{
    fd_ = try_connect(port);
    if (fd_ < 0)
        throw std::runtime_error("connect to the broker");
    timeval tv{20, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

Client::~Client()
{
    close(fd_);
}

void Client::send(const std::string &bytes)
{
    size_t off = 0;
    while (off < bytes.size()) {
        ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
        if (n <= 0)
            return;  // the broker may refuse and close before everything is sent
        off += static_cast<size_t>(n);
    }
}

bool Client::fill()
{
    char b[65536];
    ssize_t n = recv(fd_, b, sizeof b, 0);
    if (n <= 0)
        return false;
    buf_.append(b, static_cast<size_t>(n));
    return true;
}

std::string Client::head()
{
    size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos)
        if (!fill())
            return "";
    std::string h = buf_.substr(0, end + 4);
    buf_.erase(0, end + 4);
    return h;
}

std::string Client::response(bool head_request)
{
    std::string body;
    std::string h = response([&](const char *p, size_t n) { body.append(p, n); }, head_request);
    return h.empty() ? "" : h + body;
}

std::string Client::response(const std::function<void(const char *, size_t)> &sink, bool head_request)
{
    std::string h = head();
    if (h.empty())
        return "";
    std::string status = status_of(h);
    std::string te = header_of(h, "Transfer-Encoding"), cl = header_of(h, "Content-Length");
    if (head_request || status[0] == '1' || status == "204" || status == "304")
        return h;
    auto take = [&](size_t n) {  // n more bytes to the sink; false if the connection ends first
        while (n > 0) {
            if (buf_.empty() && !fill())
                return false;
            size_t k = std::min(n, buf_.size());
            sink(buf_.data(), k);
            buf_.erase(0, k);
            n -= k;
        }
        return true;
    };
    if (te == "chunked") {
        for (;;) {
            size_t eol;
            while ((eol = buf_.find("\r\n")) == std::string::npos)
                if (!fill())
                    return h;
            size_t size = std::stoul(buf_.substr(0, eol), nullptr, 16);
            std::string line = buf_.substr(0, eol + 2);
            sink(line.data(), line.size());
            buf_.erase(0, eol + 2);
            if (size == 0) {
                take(2);  // no trailers in these tests: the final CRLF
                return h;
            }
            if (!take(size + 2))
                return h;
        }
    }
    if (!cl.empty()) {
        take(std::stoul(cl));
        return h;
    }
    while (take(buf_.empty() ? 1 : buf_.size())) {
    }
    return h;
}

bool Client::closed_by_peer(int timeout_ms)
{
    pollfd p{fd_, POLLIN, 0};
    if (!buf_.empty() || poll(&p, 1, timeout_ms) != 1)
        return false;
    char c;
    return recv(fd_, &c, 1, 0) == 0;
}

std::string status_of(const std::string &response)
{
    if (response.size() < 12 || response.compare(0, 5, "HTTP/") != 0)
        return "";
    return response.substr(9, 3);
}

std::string header_of(const std::string &response, const std::string &name)
{
    size_t end = response.find("\r\n\r\n");
    std::string head = "\r\n" + response.substr(0, end == std::string::npos ? 0 : end + 2);
    std::string lower = head;
    for (char &c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string key = "\r\n" + name + ":";
    for (char &c : key)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t at = lower.find(key);
    if (at == std::string::npos)
        return "";
    at += key.size();
    while (at < head.size() && head[at] == ' ')
        at++;
    return head.substr(at, head.find("\r\n", at) - at);
}

std::string body_of(const std::string &response)
{
    size_t end = response.find("\r\n\r\n");
    return end == std::string::npos ? "" : response.substr(end + 4);
}

}  // namespace broker
