// Unit tests of `tartaros run`'s plan cache (compiler/cli/plan_cache, compile_inputs): the
// entry's encoding (round trip; any changed byte, cut or extra byte refused), the key (each
// part of the command line and the home counts), what a compile records (each question once,
// answered as answer_now answers), a lookup against a real directory (a hit; a miss for a
// changed input, another key under the same name, loose modes, a symlink, a second link,
// damage), the cap on entries, where the cache lives, and the lowering of its write deny.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fake_host.h"
#include "home_guard.h"
#include "lower.h"
#include "parsed_policy.h"
#include "paths.h"
#include "plan_cache.h"
#include "plan_reader.h"
#include "verify.h"

using namespace tartaros;

namespace {

// A directory made for one test case (0700, like the cache) and removed after it.
struct TempDir {
    std::string path;
    TempDir()
    {
        std::string pattern = (std::filesystem::temp_directory_path() / "tartaros-plan-cache.XXXXXX").string();
        REQUIRE(mkdtemp(pattern.data()) != nullptr);
        path = pattern;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
};

void write_text(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

CacheEntry sample_entry(const std::string &input_file)
{
    CacheEntry e;
    e.key = std::string("key\0with nul", 12);
    e.warnings = "tartaros: p.toml: 1 warning\n";
    e.inputs = {{InputKind::Content, input_file, answer_now(InputKind::Content, input_file)},
                {InputKind::Kind, "/nonexistent/x", answer_now(InputKind::Kind, "/nonexistent/x")},
                {InputKind::Identity, "/", answer_now(InputKind::Identity, "/")}};
    e.plan = {1, 2, 3, 4, 5, 6, 7, 8, 0, 255};
    return e;
}

std::string only_entry_path(const std::string &cache, const std::string &key)
{
    return cache + "/" + cache_file_name(key);
}

}  // namespace

TEST_CASE("plan cache: an entry's bytes round-trip, and no changed, cut or added byte reads back")
{
    const CacheEntry e = sample_entry("/etc/hostname");
    const std::vector<uint8_t> bytes = encode_cache_entry(e);
    const std::optional<CacheEntry> back = decode_cache_entry(bytes);
    REQUIRE(back);
    CHECK(*back == e);
    for (size_t i = 0; i < bytes.size(); ++i) {
        CAPTURE(i);
        std::vector<uint8_t> flipped = bytes;
        flipped[i] ^= 0x01;
        CHECK_FALSE(decode_cache_entry(flipped));
        CHECK_FALSE(decode_cache_entry(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(i))));
    }
    std::vector<uint8_t> longer = bytes;
    longer.push_back(0);
    CHECK_FALSE(decode_cache_entry(longer));
}

TEST_CASE("plan cache: every part of the command line and the home is in the key")
{
    const HomeGuard home("/home/me");
    RunCommandLine line;
    line.config = "p.toml";
    line.flags = {{RunFlag::Write, "."}, {RunFlag::ReadDeny, "secret"}};
    const std::string key = run_cache_key(line, "/w");
    CHECK(run_cache_key(line, "/w") == key);
    CHECK(run_cache_key(line, "/v") != key);

    RunCommandLine other = line;
    other.config = "q.toml";
    CHECK(run_cache_key(other, "/w") != key);
    other = line;
    std::swap(other.flags[0], other.flags[1]);  // order matters: the merge rules apply in order
    CHECK(run_cache_key(other, "/w") != key);
    other = line;
    other.flags[1].value = "secrets";
    CHECK(run_cache_key(other, "/w") != key);
    other = line;
    other.flags.push_back({RunFlag::PrivateTmp, ""});
    CHECK(run_cache_key(other, "/w") != key);
    {
        const HomeGuard moved("/home/you");
        CHECK(run_cache_key(line, "/w") != key);
    }
    // The launcher's own options do not change the plan.
    other = line;
    other.strict = true;
    other.log = "/tmp/log";
    other.command = {"/bin/true"};
    CHECK(run_cache_key(other, "/w") == key);
    CHECK(cache_file_name(key).size() == 16 + 5);
    CHECK(cache_file_name(key) != cache_file_name(run_cache_key(line, "/v")));
}

TEST_CASE("plan cache: a compile records each question to the host once, answered as a lookup answers")
{
    FakeHost fake;
    fake.kinds["/w/.git"] = HostKind::Directory;
    fake.links["/w/link"] = "target";
    fake.dirs["/w/.git/hooks"] = {"a", "b"};
    const RecordingHost host(fake);
    CHECK(host.kind("/w/.git") == HostKind::Directory);
    CHECK(host.kind("/w/.git") == HostKind::Directory);
    CHECK(host.read_link("/w/link") == "target");
    CHECK(host.entries("/w/.git/hooks") == std::vector<std::string>{"a", "b"});
    REQUIRE(host.inputs().size() == 3);
    CHECK(host.inputs()[0] == Input{InputKind::Kind, "/w/.git", "1"});
    CHECK(host.inputs()[1] == Input{InputKind::LinkTarget, "/w/link", "target"});
    CHECK(host.inputs()[2] == Input{InputKind::Entries, "/w/.git/hooks", std::string("a\0b\0", 4)});

    TempDir dir;
    const RecordingHost real(real_host());
    real.kind(dir.path);
    real.entries(dir.path);
    for (const Input &input : real.inputs())
        CHECK(answer_now(input.kind, input.path) == input.answer);
    write_text(dir.path + "/new", "x");
    CHECK(answer_now(InputKind::Entries, dir.path) != real.inputs()[1].answer);
}

TEST_CASE("plan cache: a lookup finds what was stored, and misses whatever it cannot trust")
{
    TempDir dir;
    const std::string cache = dir.path + "/cache/tartaros";
    const std::string policy = dir.path + "/p.toml";
    write_text(policy, "version = 1\n");
    const PlanCache pc(cache);
    const CacheEntry e = sample_entry(policy);
    const std::string file = only_entry_path(cache, e.key);

    CHECK_FALSE(pc.lookup(e.key));
    pc.store(e);
    struct stat st {};
    REQUIRE(stat(cache.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0700);
    REQUIRE(stat(file.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0600);
    REQUIRE(pc.lookup(e.key));
    CHECK(*pc.lookup(e.key) == e);

    SUBCASE("an input answers otherwise")
    {
        write_text(policy, "version = 1\n# edited\n");
        CHECK_FALSE(pc.lookup(e.key));
    }
    SUBCASE("another key's entry under this key's name")
    {
        CacheEntry other = e;
        other.key = "another key";
        std::ofstream(file, std::ios::binary | std::ios::trunc)
            .write(reinterpret_cast<const char *>(encode_cache_entry(other).data()),
                   static_cast<std::streamsize>(encode_cache_entry(other).size()));
        CHECK_FALSE(pc.lookup(e.key));
    }
    SUBCASE("a group- or other-writable entry or directory")
    {
        REQUIRE(chmod(file.c_str(), 0620) == 0);
        CHECK_FALSE(pc.lookup(e.key));
        REQUIRE(chmod(file.c_str(), 0602) == 0);
        CHECK_FALSE(pc.lookup(e.key));
        REQUIRE(chmod(file.c_str(), 0644) == 0);  // readable by others is fine: plans hold no secret
        CHECK(pc.lookup(e.key));
        REQUIRE(chmod(cache.c_str(), 0770) == 0);
        CHECK_FALSE(pc.lookup(e.key));
        REQUIRE(chmod(cache.c_str(), 0700) == 0);
    }
    SUBCASE("a symlink, as the entry or as the directory")
    {
        REQUIRE(rename(file.c_str(), (dir.path + "/real").c_str()) == 0);
        REQUIRE(symlink((dir.path + "/real").c_str(), file.c_str()) == 0);
        CHECK_FALSE(pc.lookup(e.key));
        REQUIRE(unlink(file.c_str()) == 0);
        REQUIRE(rename((dir.path + "/real").c_str(), file.c_str()) == 0);
        REQUIRE(symlink(cache.c_str(), (dir.path + "/alias").c_str()) == 0);
        CHECK(PlanCache(cache).lookup(e.key));
        CHECK_FALSE(PlanCache(dir.path + "/alias").lookup(e.key));
    }
    SUBCASE("a second link")
    {
        REQUIRE(link(file.c_str(), (dir.path + "/second").c_str()) == 0);
        CHECK_FALSE(pc.lookup(e.key));
    }
    SUBCASE("damage")
    {
        const int fd = open(file.c_str(), O_WRONLY);
        REQUIRE(fd >= 0);
        CHECK(pwrite(fd, "!", 1, 40) == 1);
        close(fd);
        CHECK_FALSE(pc.lookup(e.key));
        pc.store(e);  // the next compile's store replaces it
        CHECK(pc.lookup(e.key));
    }
}

TEST_CASE("plan cache: at most kMaxEntries entries are kept, the oldest go")
{
    TempDir dir;
    const PlanCache pc(dir.path + "/tartaros");
    CacheEntry e = sample_entry("/etc/hostname");
    for (size_t i = 0; i < PlanCache::kMaxEntries + 5; ++i) {
        e.key = "key " + std::to_string(i);
        pc.store(e);
    }
    size_t count = 0;
    for (const auto &entry : std::filesystem::directory_iterator(dir.path + "/tartaros")) {
        CHECK(entry.path().extension() == ".plan");
        count++;
    }
    CHECK(count == PlanCache::kMaxEntries);
    e.key = "key " + std::to_string(PlanCache::kMaxEntries + 4);
    CHECK(pc.lookup(e.key));
}

TEST_CASE("plan cache: where it lives")
{
    const HomeGuard home("/home/me");
    const char *saved = std::getenv("XDG_CACHE_HOME");
    const std::optional<std::string> restore = saved ? std::optional<std::string>(saved) : std::nullopt;
    unsetenv("XDG_CACHE_HOME");
    CHECK(plan_cache_directory() == "/home/me/.cache/tartaros");
    setenv("XDG_CACHE_HOME", "/var/cache/me/", 1);
    CHECK(plan_cache_directory() == "/var/cache/me/tartaros");
    setenv("XDG_CACHE_HOME", "relative/cache", 1);  // ignored, as the XDG specification says
    CHECK(plan_cache_directory() == "/home/me/.cache/tartaros");
    if (restore)
        setenv("XDG_CACHE_HOME", restore->c_str(), 1);
    else
        unsetenv("XDG_CACHE_HOME");
}

TEST_CASE("plan cache: its write deny is made when absent, never masked, and verifies")
{
    Policy p;
    p.source_path = "/home/me/p.toml";
    p.fs.writable_roots = {LocatedPath{"/home/me", SourcePos{"/home/me/p.toml", 3, 1}}};
    FakeHost host;
    host.kinds["/home/me"] = HostKind::Directory;
    LowerOptions options{"", &host};
    options.plan_cache_dir = "/home/me/.cache/tartaros";
    Diagnostics diags;
    const std::vector<uint8_t> plan = lower_policy(p, options, diags);
    REQUIRE_MESSAGE(!plan.empty(), summary(diags));
    tp_plan view{};
    char err[256];
    std::vector<uint64_t> aligned((plan.size() + 7) / 8);
    std::memcpy(aligned.data(), plan.data(), plan.size());
    REQUIRE(tp_plan_open(reinterpret_cast<const uint8_t *>(aligned.data()), static_cast<uint32_t>(plan.size()), &view,
                         err, sizeof err) == 0);
    bool found = false;
    for (uint32_t i = 0; i < view.mount_count; ++i) {
        const tp_mount &m = view.mounts[i];
        if (std::string(tp_plan_str(&view, m.path), m.path.len) != "/home/me/.cache/tartaros")
            continue;
        found = true;
        CHECK(m.op == TP_MNT_WRITE_DENY);
        CHECK((m.flags & TP_MNTF_MATERIALIZE_DIR) != 0);
        CHECK((m.flags & (TP_MNTF_MASK_ABSENT | TP_MNTF_PLACEHOLDER)) == 0);
    }
    CHECK(found);
}
