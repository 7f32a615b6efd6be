// compiler/model/paths.cpp — policy paths to model paths (lexically), and whole-file read/write.
#include "paths.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <new>

#include "host_answer.h"
#include "plan_cache_entry.h"
#include "write_all.h"

namespace tartaros {

namespace {

constexpr std::string_view kGlobCharacters = "*?[]{";
constexpr size_t kShownPathLength = 80;

// A path in a message: printable, and cut after kShownPathLength (a path can be any length).
std::string quoted_path(std::string_view raw)
{
    std::string shown = printable(raw);
    if (shown.size() > kShownPathLength)
        shown = shown.substr(0, kShownPathLength) + "...";
    return "'" + shown + "'";
}

bool refuse(PathError &err, std::string_view field, const std::string &what, const char *rule_id)
{
    err.message = std::string(field) + ": " + what;
    err.rule_id = rule_id;
    return false;
}

// The checks on the text as written, before anything is expanded.
bool check_raw(std::string_view raw, std::string_view field, PathError &err)
{
    if (raw.empty())
        return refuse(err, field, "empty path", "invalid-path");
    if (raw.find('\0') != std::string_view::npos)
        return refuse(err, field, quoted_path(raw) + " contains a NUL character", "invalid-path");
    if (raw.find('\n') != std::string_view::npos)
        return refuse(err, field, quoted_path(raw) + " contains a newline", "invalid-path");
    const size_t glob = raw.find_first_of(kGlobCharacters);
    if (glob != std::string_view::npos)
        return refuse(err, field,
                      quoted_path(raw) + " contains the glob character '" + std::string(1, raw[glob]) +
                          "'; globs are not supported on Linux (TartarOS has no glob engine): list each path",
                      "glob");
    return true;
}

// `raw` with a leading "~" or "~/" replaced by the home directory; other paths unchanged.
std::optional<std::string> expand_home(std::string_view raw, std::string_view field,
                                       const std::optional<std::string> &home, PathError &err)
{
    if (raw.front() != '~')
        return std::string(raw);
    if (raw.size() > 1 && raw[1] != '/') {
        refuse(err, field, quoted_path(raw) + ": '~user' paths are not supported; write '~/...' or an absolute path",
               "invalid-path");
        return std::nullopt;
    }
    if (!home) {
        refuse(err, field,
               "cannot expand '~' in " + quoted_path(raw) + ": $HOME is not set and uid " + std::to_string(getuid()) +
                   " has no home directory in /etc/passwd",
               "invalid-path");
        return std::nullopt;
    }
    if (home->empty()) {
        refuse(err, field,
               "cannot expand '~' in " + quoted_path(raw) +
                   ": $HOME is set but empty; set it to your home directory, or unset it to use the "
                   "one in /etc/passwd",
               "invalid-path");
        return std::nullopt;
    }
    if (home->front() != '/') {
        refuse(err, field,
               "cannot expand '~' in " + quoted_path(raw) + ": $HOME (" + quoted_path(*home) +
                   ") is not an absolute path",
               "invalid-path");
        return std::nullopt;
    }
    return *home + "/" + std::string(raw.substr(1));
}

}  // namespace

std::optional<std::string> passwd_home(std::string_view passwd, uid_t uid)
{
    const std::string wanted = std::to_string(uid);
    for (size_t start = 0; start < passwd.size();) {
        const size_t newline = passwd.find('\n', start);
        const std::string_view line = passwd.substr(start, newline - start);
        start = newline == std::string_view::npos ? passwd.size() : newline + 1;
        if (line.starts_with('#'))
            continue;  // as glibc's files source reads it
        std::vector<std::string_view> fields;
        for (size_t from = 0;;) {
            const size_t colon = line.find(':', from);
            fields.push_back(line.substr(from, colon - from));
            if (colon == std::string_view::npos)
                break;
            from = colon + 1;
        }
        // name:password:uid:gid:gecos:home:shell
        if (fields.size() == 7 && fields[2] == wanted && !fields[5].empty())
            return std::string(fields[5]);
    }
    return std::nullopt;
}

std::optional<std::string> policy_home()
{
    if (const char *home = std::getenv("HOME"))
        return std::string(home);
    std::string passwd, err;
    if (!read_file("/etc/passwd", passwd, err))
        return std::nullopt;
    return passwd_home(passwd, getuid());
}

std::optional<std::string> plan_cache_directory()
{
    const std::optional<std::string> home = policy_home();
    th_owned_text directory;
    if (!tc_cache_directory(std::getenv("XDG_CACHE_HOME"), home ? home->c_str() : nullptr, &directory))
        return std::nullopt;
    return std::string(directory.data, directory.len);
}

std::string normalize_absolute(std::string_view path)
{
    th_owned_text out;
    th_normalize_absolute(path.data(), path.size(), &out);
    if (out.failed)
        throw std::bad_alloc();
    return std::string(out.data, out.len);
}

std::optional<std::string> absolute_path(std::string_view path)
{
    if (!path.empty() && path.front() == '/')
        return normalize_absolute(path);
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == nullptr)
        return std::nullopt;
    return normalize_absolute(std::string(cwd) + "/" + std::string(path));
}

std::string parent_directory(std::string_view path)
{
    const size_t slash = path.rfind('/');
    if (slash == std::string_view::npos || slash == 0)
        return "/";
    return std::string(path.substr(0, slash));
}

std::string printable(std::string_view text)
{
    std::string out;
    for (char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (byte < 0x20 || byte == 0x7F) {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02x", byte);
            out += hex;
        } else {
            out += c;
        }
    }
    return out;
}

std::string quoted(std::string_view text)
{
    return "'" + printable(text) + "'";
}

std::optional<std::string> resolve_policy_path(std::string_view raw, std::string_view field,
                                               const std::string &base_dir, const std::optional<std::string> &home,
                                               PathError &err)
{
    if (!check_raw(raw, field, err))
        return std::nullopt;
    std::optional<std::string> expanded = expand_home(raw, field, home, err);
    if (!expanded)
        return std::nullopt;
    const std::string joined = expanded->front() == '/' ? *expanded : base_dir + "/" + *expanded;
    std::string resolved = normalize_absolute(joined);
    if (resolved.size() > kMaxPathLength) {
        refuse(err, field,
               quoted_path(raw) + " is longer than " + std::to_string(kMaxPathLength) + " bytes once resolved",
               "invalid-path");
        return std::nullopt;
    }
    return resolved;
}

bool write_all(int fd, const std::vector<uint8_t> &data)
{
    return ::write_all(fd, data.data(), data.size());
}

bool read_file(const std::string &path, std::string &out, std::string &err)
{
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        err = std::strerror(errno);
        return false;
    }
    out.clear();
    char buffer[65536];
    for (;;) {
        const ssize_t got = read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            err = std::strerror(errno);
            close(fd);
            return false;
        }
        if (got == 0)
            break;
        if (out.size() + static_cast<size_t>(got) > kMaxReadSize) {
            err = "larger than " + std::to_string(kMaxReadSize >> 20) + " MiB";
            close(fd);
            return false;
        }
        out.append(buffer, static_cast<size_t>(got));
    }
    close(fd);
    return true;
}

namespace {

// Makes the rename itself durable. Best effort: the data is already safe in the file.
void sync_directory(const std::string &dir)
{
    const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    fsync(fd);
    close(fd);
}

}  // namespace

bool write_file_atomically(const std::string &path, const std::vector<uint8_t> &data, unsigned mode, std::string &err)
{
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    std::string temp = dir + "/." + name + ".XXXXXX";
    const int fd = mkostemp(temp.data(), O_CLOEXEC);
    if (fd < 0) {
        err = std::strerror(errno);
        return false;
    }
    const bool written = write_all(fd, data) && fchmod(fd, static_cast<mode_t>(mode)) == 0 && fsync(fd) == 0;
    const int saved_errno = errno;
    const bool closed = close(fd) == 0;
    if (!written || !closed || rename(temp.c_str(), path.c_str()) != 0) {
        err = std::strerror(!written ? saved_errno : errno);
        unlink(temp.c_str());
        return false;
    }
    sync_directory(dir);
    return true;
}

}  // namespace tartaros
