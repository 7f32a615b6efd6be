// compiler/cli/plan_cache.cpp — see plan_cache.h.
#include "plan_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "paths.h"
#include "plan_reader.h"
#include "tartaros_version.h"

namespace tartaros {

namespace {

constexpr std::string_view kMagic = "tartaros-cache1\n";  // the format: a new one misses every old entry
constexpr uint32_t kChecksumOffset = 16;
constexpr uint32_t kHeaderSize = 24;
constexpr off_t kMaxEntrySize = 64 << 20;
constexpr std::string_view kSuffix = ".plan";

// A descriptor closed at the end of its scope.
class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd()
    {
        if (fd_ >= 0)
            close(fd_);
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

// ---- the entry's bytes: native byte order (the cache never leaves its machine) -------------

class Writer {
public:
    void u32(uint32_t v)
    {
        out_.insert(out_.end(), reinterpret_cast<uint8_t *>(&v), reinterpret_cast<uint8_t *>(&v) + 4);
    }
    void bytes(std::string_view s)
    {
        u32(static_cast<uint32_t>(s.size()));
        out_.insert(out_.end(), s.begin(), s.end());
    }
    std::vector<uint8_t> &out() { return out_; }

private:
    std::vector<uint8_t> out_;
};

class Reader {
public:
    Reader(const std::vector<uint8_t> &in, size_t at) : in_(in), at_(at) {}
    uint32_t u32()
    {
        uint32_t v = 0;
        if (in_.size() - at_ < 4) {
            ok_ = false;
            return 0;
        }
        std::memcpy(&v, in_.data() + at_, 4);
        at_ += 4;
        return v;
    }
    std::string bytes()
    {
        const uint32_t n = u32();
        if (!ok_ || in_.size() - at_ < n) {
            ok_ = false;
            return {};
        }
        std::string s(reinterpret_cast<const char *>(in_.data() + at_), n);
        at_ += n;
        return s;
    }
    bool done() const { return ok_ && at_ == in_.size(); }
    bool ok() const { return ok_; }

private:
    const std::vector<uint8_t> &in_;
    size_t at_;
    bool ok_ = true;
};

bool valid_kind(uint32_t kind)
{
    return kind >= static_cast<uint32_t>(InputKind::Content) && kind <= static_cast<uint32_t>(InputKind::Identity);
}

// ---- trust ----------------------------------------------------------------------------

// Only the caller can have written what `st` describes (see plan_cache.h).
bool callers_own(const struct stat &st)
{
    return st.st_uid == geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

bool trusted_directory(int dir)
{
    struct stat st {};
    return fstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && callers_own(st);
}

std::optional<std::vector<uint8_t>> read_trusted_file(int dir, const std::string &name)
{
    const Fd fd(openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    struct stat st {};
    if (fd.get() < 0 || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || !callers_own(st) || st.st_nlink != 1 ||
        st.st_size < kHeaderSize || st.st_size > kMaxEntrySize)
        return std::nullopt;
    std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = read(fd.get(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return std::nullopt;  // shorter than its size said: being replaced, or damaged
        done += static_cast<size_t>(n);
    }
    return bytes;
}

bool inputs_unchanged(const std::vector<Input> &inputs)
{
    return std::all_of(inputs.begin(), inputs.end(),
                       [](const Input &input) { return answer_now(input.kind, input.path) == input.answer; });
}

// ---- writing --------------------------------------------------------------------------

// `path` and its missing ancestors, new ones 0700 (the XDG base directory specification's mode).
bool make_directories(const std::string &path)
{
    struct stat st {};
    if (lstat(path.c_str(), &st) == 0)
        return S_ISDIR(st.st_mode);
    if (path == "/" || !make_directories(parent_directory(path)))
        return false;
    return mkdir(path.c_str(), 0700) == 0 || errno == EEXIST;
}

// Removes the oldest entries (by modification time) beyond kMaxEntries - 1, making room for one.
void prune(int dir)
{
    const int listing = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = listing < 0 ? nullptr : fdopendir(listing);
    if (d == nullptr) {
        if (listing >= 0)
            close(listing);
        return;
    }
    std::vector<std::pair<struct timespec, std::string>> entries;
    while (const struct dirent *e = readdir(d)) {
        const std::string_view name(e->d_name);
        struct stat st {};
        if (name.size() > kSuffix.size() && name.ends_with(kSuffix) &&
            fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
            entries.emplace_back(st.st_mtim, e->d_name);
    }
    closedir(d);
    if (entries.size() < PlanCache::kMaxEntries)
        return;
    std::sort(entries.begin(), entries.end(), [](const auto &a, const auto &b) {
        return a.first.tv_sec != b.first.tv_sec ? a.first.tv_sec < b.first.tv_sec : a.first.tv_nsec < b.first.tv_nsec;
    });
    for (size_t i = 0; i + PlanCache::kMaxEntries <= entries.size(); ++i)
        unlinkat(dir, entries[i].second.c_str(), 0);
}

}  // namespace

std::vector<uint8_t> encode_cache_entry(const CacheEntry &entry)
{
    Writer w;
    w.out().assign(kMagic.begin(), kMagic.end());
    w.out().resize(kHeaderSize, 0);  // the checksum, set last
    w.bytes(entry.key);
    w.bytes(entry.warnings);
    w.u32(static_cast<uint32_t>(entry.inputs.size()));
    for (const Input &input : entry.inputs) {
        w.u32(static_cast<uint32_t>(input.kind));
        w.bytes(input.path);
        w.bytes(input.answer);
    }
    w.bytes(std::string_view(reinterpret_cast<const char *>(entry.plan.data()), entry.plan.size()));
    std::vector<uint8_t> &out = w.out();
    const uint64_t checksum = tp_checksum(out.data(), static_cast<uint32_t>(out.size()), kChecksumOffset);
    std::memcpy(out.data() + kChecksumOffset, &checksum, sizeof checksum);
    return std::move(out);
}

std::optional<CacheEntry> decode_cache_entry(const std::vector<uint8_t> &bytes)
{
    if (bytes.size() < kHeaderSize || bytes.size() > static_cast<size_t>(kMaxEntrySize) ||
        std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0)
        return std::nullopt;
    uint64_t checksum = 0;
    std::memcpy(&checksum, bytes.data() + kChecksumOffset, sizeof checksum);
    if (checksum != tp_checksum(bytes.data(), static_cast<uint32_t>(bytes.size()), kChecksumOffset))
        return std::nullopt;
    Reader r(bytes, kHeaderSize);
    CacheEntry entry;
    entry.key = r.bytes();
    entry.warnings = r.bytes();
    const uint32_t count = r.u32();
    for (uint32_t i = 0; r.ok() && i < count; ++i) {
        const uint32_t kind = r.u32();
        std::string path = r.bytes();
        std::string answer = r.bytes();
        if (!valid_kind(kind))
            return std::nullopt;
        entry.inputs.push_back({static_cast<InputKind>(kind), std::move(path), std::move(answer)});
    }
    const std::string plan = r.bytes();
    if (!r.done())
        return std::nullopt;
    entry.plan.assign(plan.begin(), plan.end());
    return entry;
}

std::string run_cache_key(const RunCommandLine &line, const std::string &cwd)
{
    Writer w;
    w.bytes(kMagic);
    w.bytes(TARTAROS_VERSION_LINE);
    w.bytes(answer_now(InputKind::Identity, "/proc/self/exe"));  // a rebuilt compiler, same version
    w.bytes(std::to_string(getuid()) + ':' + std::to_string(geteuid()));
    w.bytes(policy_home().value_or(std::string("\0none", 5)));
    w.bytes(cwd);
    w.bytes(line.config);
    for (const FlagUse &flag : line.flags) {
        w.u32(static_cast<uint32_t>(flag.flag));
        w.bytes(flag.value);
    }
    const std::vector<uint8_t> &out = w.out();
    return std::string(out.begin(), out.end());
}

std::string cache_file_name(const std::string &key)
{
    const uint64_t hash =
        tp_checksum(reinterpret_cast<const uint8_t *>(key.data()), static_cast<uint32_t>(key.size()), UINT32_MAX);
    char name[32];
    std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(hash));
    return name + std::string(kSuffix);
}

std::optional<CacheEntry> PlanCache::lookup(const std::string &key) const
{
    const Fd dir(open(directory_.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (dir.get() < 0 || !trusted_directory(dir.get()))
        return std::nullopt;
    const std::optional<std::vector<uint8_t>> bytes = read_trusted_file(dir.get(), cache_file_name(key));
    if (!bytes)
        return std::nullopt;
    std::optional<CacheEntry> entry = decode_cache_entry(*bytes);
    if (!entry || entry->key != key || !inputs_unchanged(entry->inputs))
        return std::nullopt;
    return entry;
}

void PlanCache::store(const CacheEntry &entry) const
{
    if (!make_directories(directory_))
        return;
    const Fd dir(open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (dir.get() < 0 || !trusted_directory(dir.get()))
        return;
    prune(dir.get());
    const std::string name = cache_file_name(entry.key);
    const std::string temp = "." + name + "." + std::to_string(getpid());
    // No fsync: an entry lost or torn by a crash is a miss (its checksum fails), not an error.
    const Fd file(openat(dir.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (file.get() < 0)
        return;
    if (!write_all(file.get(), encode_cache_entry(entry)) ||
        renameat(dir.get(), temp.c_str(), dir.get(), name.c_str()) != 0)
        unlinkat(dir.get(), temp.c_str(), 0);
}

}  // namespace tartaros
