// Unit tests for compiler/paths: normalisation, policy path resolution and refusals, and
// the whole-file read and atomic write.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <pwd.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "home_guard.h"
#include "paths.h"

using namespace tartaros;

namespace {

const std::optional<std::string> kHome = std::string("/home/agent");

struct Resolved {
    std::optional<std::string> path;
    PathError err;
};

Resolved resolve(std::string_view raw, const std::optional<std::string> &home = kHome)
{
    Resolved r;
    r.path = resolve_policy_path(raw, "read_denies", "/work/project", home, r.err);
    return r;
}

// The C library's home of `uid` (getpwuid: NSS, which policy_home() does not use), so the
// two can disagree.
std::optional<std::string> libc_home(uid_t uid)
{
    const struct passwd *entry = getpwuid(uid);
    return entry != nullptr && entry->pw_dir != nullptr ? std::optional<std::string>(entry->pw_dir) : std::nullopt;
}

// A fresh directory under /tmp, removed with everything in it at scope exit.
struct TempDir {
    std::string path;
    TempDir()
    {
        std::string pattern = (std::filesystem::temp_directory_path() / "tartaros-paths-XXXXXX").string();
        REQUIRE(mkdtemp(pattern.data()) != nullptr);
        path = pattern;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("paths: normalize_absolute collapses, drops . and resolves .. lexically")
{
    const std::pair<const char *, const char *> table[] = {
        {"/", "/"},
        {"//", "/"},
        {"/a", "/a"},
        {"/a/", "/a"},
        {"//a//b///c//", "/a/b/c"},
        {"/a/./b/.", "/a/b"},
        {"/a/b/..", "/a"},
        {"/a/b/../../c", "/c"},
        {"/..", "/"},
        {"/../../a/..", "/"},
        {"/a/../../../b", "/b"},
        {"/a/.../b", "/a/.../b"},
        {"/a/..b/c", "/a/..b/c"},
        {"/.hidden/./x", "/.hidden/x"},
        {"/a b/c d", "/a b/c d"},
        {"/é/ü", "/é/ü"},
    };
    for (const auto &[input, expected] : table) {
        CAPTURE(input);
        CHECK(normalize_absolute(input) == expected);
    }
}

TEST_CASE("paths: parent_directory")
{
    CHECK(parent_directory("/a/b/c") == "/a/b");
    CHECK(parent_directory("/a") == "/");
    CHECK(parent_directory("/") == "/");
}

TEST_CASE("paths: absolute_path resolves against the current directory")
{
    char cwd[4096];
    REQUIRE(getcwd(cwd, sizeof cwd) != nullptr);
    CHECK(absolute_path("/x/./y/") == std::optional<std::string>("/x/y"));
    CHECK(absolute_path("p.toml") == normalize_absolute(std::string(cwd) + "/p.toml"));
    CHECK(absolute_path("") == normalize_absolute(cwd));
}

TEST_CASE("paths: printable escapes control characters only")
{
    CHECK(printable("a\nb") == "a\\nb");
    CHECK(printable(std::string("a\0b", 3)) == "a\\x00b");
    CHECK(printable("tab\there\x7f") == "tab\\there\\x7f");
    CHECK(printable("é ~/x") == "é ~/x");
}

TEST_CASE("paths: tilde expands to the compiling user's home")
{
    CHECK(resolve("~").path == std::optional<std::string>("/home/agent"));
    CHECK(resolve("~/").path == std::optional<std::string>("/home/agent"));
    CHECK(resolve("~/.ssh").path == std::optional<std::string>("/home/agent/.ssh"));
    CHECK(resolve("~//.aws/./creds/").path == std::optional<std::string>("/home/agent/.aws/creds"));
    CHECK(resolve("~/../other").path == std::optional<std::string>("/home/other"));
    CHECK(resolve("~/.ssh", std::string("/home/agent/")).path == std::optional<std::string>("/home/agent/.ssh"));
    CHECK(resolve("a/~/b").path == std::optional<std::string>("/work/project/a/~/b"));
}

TEST_CASE("paths: tilde refusals")
{
    Resolved r = resolve("~alice/x");
    CHECK_FALSE(r.path);
    CHECK(r.err.rule_id == "invalid-path");
    CHECK(r.err.message ==
          "read_denies: '~alice/x': '~user' paths are not supported; write '~/...' or an absolute path");

    r = resolve("~/.ssh", std::nullopt);
    CHECK_FALSE(r.path);
    CHECK(r.err.message ==
          "read_denies: cannot expand '~' in '~/.ssh': $HOME is not set and uid " + std::to_string(getuid()) +
              " has no home directory in /etc/passwd");

    r = resolve("~", std::string(""));
    CHECK_FALSE(r.path);
    CHECK(r.err.message ==
          "read_denies: cannot expand '~' in '~': $HOME is set but empty; set it to your home "
          "directory, or unset it to use the one in /etc/passwd");

    r = resolve("~/x", std::string("relative/home"));
    CHECK_FALSE(r.path);
    CHECK(r.err.message == "read_denies: cannot expand '~' in '~/x': $HOME ('relative/home') is not an absolute path");

    // Without a tilde, no home is needed.
    CHECK(resolve("/etc", std::nullopt).path == std::optional<std::string>("/etc"));
}

TEST_CASE("paths: policy_home is $HOME as set, else /etc/passwd's home of the real uid")
{
    {
        HomeGuard home("/srv/agent-home");
        CHECK(policy_home() == std::optional<std::string>("/srv/agent-home"));
    }
    {
        HomeGuard home("");  // kept as it is: resolve_policy_path refuses it where `~` is used
        CHECK(policy_home() == std::optional<std::string>(""));
        CHECK(resolve("~/.ssh", policy_home()).err.message.find("$HOME is set but empty") != std::string::npos);
    }
    HomeGuard unset(nullptr);
    const std::optional<std::string> expected = libc_home(getuid());
    REQUIRE(expected);  // the test machine's users are all in /etc/passwd
    CHECK(policy_home() == expected);
    CHECK(resolve("~/.ssh", policy_home()).path == std::optional<std::string>(normalize_absolute(*expected + "/.ssh")));
}

TEST_CASE("paths: passwd_home reads the sixth field of the first line with the uid")
{
    const std::string passwd = "root:x:0:0:root:/root:/bin/bash\n"
                               "# a comment:x:1000:1000::/nowhere:/bin/sh\n"
                               "short:x:1000:1000\n"
                               "nohome:x:1000:1000:::/bin/sh\n"
                               "agent:x:1000:1000:Agent,,,:/home/agent:/bin/bash\n"
                               "again:x:1000:1000::/home/again:/bin/sh\n"
                               "ten:x:10:10::/home/ten:/bin/sh\n"
                               "last:x:42:42::/home/last:/bin/sh";
    CHECK(passwd_home(passwd, 0) == std::optional<std::string>("/root"));
    CHECK(passwd_home(passwd, 1000) == std::optional<std::string>("/home/agent"));
    CHECK(passwd_home(passwd, 1) == std::nullopt);                               // "10" is not "1"
    CHECK(passwd_home(passwd, 100) == std::nullopt);                             // nor "1000" "100"
    CHECK(passwd_home(passwd, 42) == std::optional<std::string>("/home/last"));  // no final newline
    CHECK(passwd_home("", 0) == std::nullopt);
    CHECK(passwd_home("a:x:7:7::/h:/bin/sh:extra\n", 7) == std::nullopt);  // not seven fields
}

TEST_CASE("paths: relative paths resolve against the policy directory")
{
    CHECK(resolve(".").path == std::optional<std::string>("/work/project"));
    CHECK(resolve("./").path == std::optional<std::string>("/work/project"));
    CHECK(resolve(".git/hooks").path == std::optional<std::string>("/work/project/.git/hooks"));
    CHECK(resolve("../shared//x/").path == std::optional<std::string>("/work/shared/x"));
    CHECK(resolve("../../../../..").path == std::optional<std::string>("/"));
    CHECK(resolve("/abs/../x").path == std::optional<std::string>("/x"));
}

TEST_CASE("paths: glob characters are refused with the field named")
{
    for (const char *raw : {"~/.ssh/*", "/tmp/?x", "/a/[ab]", "/a/b]", "/a/{x,y}"}) {
        CAPTURE(raw);
        const Resolved r = resolve(raw);
        CHECK_FALSE(r.path);
        CHECK(r.err.rule_id == "glob");
        CHECK(r.err.message.rfind("read_denies: '", 0) == 0);
    }
    const Resolved r = resolve("~/.ssh/*.pem");
    CHECK(r.err.message ==
          "read_denies: '~/.ssh/*.pem' contains the glob character '*'; globs are not supported on Linux "
          "(TartarOS has no glob engine): list each path");
    CHECK(resolve("/a/x}").path == std::optional<std::string>("/a/x}"));
}

TEST_CASE("paths: empty, NUL, newline and overlong paths are refused")
{
    Resolved r = resolve("");
    CHECK_FALSE(r.path);
    CHECK(r.err.rule_id == "invalid-path");
    CHECK(r.err.message == "read_denies: empty path");

    r = resolve(std::string_view("/a\0b", 4));
    CHECK_FALSE(r.path);
    CHECK(r.err.message == "read_denies: '/a\\x00b' contains a NUL character");

    r = resolve("/a\nb");
    CHECK_FALSE(r.path);
    CHECK(r.err.message == "read_denies: '/a\\nb' contains a newline");

    const std::string longest = "/" + std::string(kMaxPathLength - 1, 'x');
    CHECK(resolve(longest).path == std::optional<std::string>(longest));
    r = resolve(longest + "y");
    CHECK_FALSE(r.path);
    CHECK(r.err.rule_id == "invalid-path");
    CHECK(r.err.message == "read_denies: '/" + std::string(79, 'x') + "...' is longer than 4095 bytes once resolved");
    // The limit applies to the resolved path, not to the text.
    CHECK(resolve(longest + "/..").path == std::optional<std::string>("/"));
}

TEST_CASE("paths: read_file reads everything and reports errno text")
{
    TempDir dir;
    const std::string file = dir.path + "/f";
    std::string data(200000, 'q'), out, err;
    data[12345] = '\0';
    std::vector<uint8_t> bytes(data.begin(), data.end());
    REQUIRE(write_file_atomically(file, bytes, 0600, err));
    CHECK(read_file(file, out, err));
    CHECK(out == data);

    CHECK_FALSE(read_file(dir.path + "/missing", out, err));
    CHECK(err == "No such file or directory");
    CHECK_FALSE(read_file(dir.path, out, err));
    CHECK(err == "Is a directory");
}

TEST_CASE("paths: write_file_atomically replaces the file with the given mode and leaves no temporary")
{
    TempDir dir;
    const std::string file = dir.path + "/plan.bin";
    std::string err, out;
    const mode_t old_umask = umask(077);
    REQUIRE(write_file_atomically(file, {1, 2, 3}, 0644, err));
    REQUIRE(write_file_atomically(file, {4, 5}, 0644, err));
    umask(old_umask);

    CHECK(read_file(file, out, err));
    CHECK(out == std::string("\x04\x05"));
    struct stat st {};
    REQUIRE(stat(file.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0644);
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path), std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("paths: a failed atomic write leaves the target and the directory untouched")
{
    TempDir dir;
    std::string err;
    CHECK_FALSE(write_file_atomically(dir.path + "/missing/plan.bin", {1}, 0644, err));
    CHECK(err == "No such file or directory");

    // Renaming a file over a non-empty directory fails after the temporary was written.
    const std::string target = dir.path + "/occupied";
    std::filesystem::create_directories(target + "/inside");
    CHECK_FALSE(write_file_atomically(target, {1}, 0644, err));
    CHECK(err == "Is a directory");
    CHECK(std::filesystem::is_directory(target + "/inside"));
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path), std::filesystem::directory_iterator()) == 1);
}
