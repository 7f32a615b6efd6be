// compiler/cli/plan_cache.cpp — see plan_cache.h.
#include "plan_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "paths.h"
#include "plan_cache_entry.h"
#include "plan_reader.h"
#include "tartaros_version.h"

namespace tartaros {

namespace {

constexpr std::string_view kMagic(TC_MAGIC, TC_MAGIC_SIZE);
constexpr std::string_view kSuffix = TC_SUFFIX;

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

// ---- the entry's bytes (shared/plan_cache_entry.h) -------------------------------------

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
    w.out().resize(TC_HEADER_SIZE, 0);  // the checksum, set last
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
    const uint64_t checksum = tp_checksum(out.data(), static_cast<uint32_t>(out.size()), TC_CHECKSUM_OFFSET);
    std::memcpy(out.data() + TC_CHECKSUM_OFFSET, &checksum, sizeof checksum);
    return std::move(out);
}

namespace {

std::string text_of(tc_bytes b)
{
    return std::string(reinterpret_cast<const char *>(b.data), b.len);
}

CacheEntry entry_of(const tc_entry &parsed)
{
    CacheEntry entry;
    entry.key = text_of(parsed.key);
    entry.warnings = text_of(parsed.warnings);
    const uint8_t *at = parsed.inputs;
    for (uint32_t i = 0; i < parsed.input_count; ++i) {
        tc_input in{};
        at = tc_next_input(&parsed, at, &in);
        entry.inputs.push_back({static_cast<InputKind>(in.question), text_of(in.path), text_of(in.answer)});
    }
    entry.plan.assign(parsed.plan.data, parsed.plan.data + parsed.plan.len);
    return entry;
}

}  // namespace

std::optional<CacheEntry> decode_cache_entry(const std::vector<uint8_t> &bytes)
{
    tc_entry parsed{};
    if (!tc_entry_parse(bytes.data(), bytes.size(), &parsed))
        return std::nullopt;
    return entry_of(parsed);
}

std::string run_cache_key(const RunCommandLine &line, const std::string &cwd)
{
    std::vector<tr_flag_use> flags;
    for (const FlagUse &flag : line.flags)
        flags.push_back({static_cast<tr_flag>(flag.flag), flag.value.c_str()});
    tr_run_line parsed{};
    parsed.config = line.config.c_str();
    parsed.flags = flags.data();
    parsed.flag_count = flags.size();
    const std::optional<std::string> home = policy_home();
    th_owned_text key;
    // The compiler's binary is this one: its identity makes a rebuilt compiler miss.
    tc_run_key(&key, TARTAROS_VERSION_LINE, "/proc/self/exe", home ? home->c_str() : nullptr, cwd.c_str(), &parsed);
    return std::string(key.data, key.len);
}

std::string cache_file_name(const std::string &key)
{
    char name[32];
    tc_file_name(key.data(), key.size(), name);
    return name;
}

std::optional<CacheEntry> PlanCache::lookup(const std::string &key) const
{
    th_owned_text file;
    tc_entry parsed{};
    if (!tc_lookup(directory_.c_str(), key.data(), key.size(), &file, &parsed))
        return std::nullopt;
    return entry_of(parsed);
}

void PlanCache::store(const CacheEntry &entry) const
{
    if (!make_directories(directory_))
        return;
    const Fd dir(open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (dir.get() < 0 || !tc_trusted_directory(dir.get()))
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
