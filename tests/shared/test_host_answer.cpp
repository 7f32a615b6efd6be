// The host's answers as the plan cache records them, and the lexical normalisation the cache
// directory and the compiler's paths share.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "host_answer.h"
#include "plan_cache_entry.h"

namespace {

std::string answer(th_question question, const std::string &path)
{
    th_owned_text text;
    th_answer(question, path.c_str(), &text);
    REQUIRE(!text.failed);
    return std::string(text.data, text.len);
}

std::string normalized(const std::string &path)
{
    th_owned_text text;
    th_normalize_absolute(path.data(), path.size(), &text);
    return std::string(text.data, text.len);
}

std::string cache_directory(const char *xdg, const char *home)
{
    th_owned_text text;
    return tc_cache_directory(xdg, home, &text) ? std::string(text.data, text.len) : "<none>";
}

struct TempDir {
    std::string path;
    TempDir()
    {
        char name[] = "/tmp/tartaros-host-answer-XXXXXX";
        REQUIRE(mkdtemp(name) != nullptr);
        path = name;
    }
    ~TempDir() { CHECK(std::system(("rm -rf '" + path + "'").c_str()) == 0); }
};

void write_file(const std::string &path, const std::string &text)
{
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    close(fd);
}

}  // namespace

TEST_CASE("host answers: kinds, link targets, sorted entries, contents and identities")
{
    TempDir t;
    write_file(t.path + "/b", "bee");
    REQUIRE(mkdir((t.path + "/a").c_str(), 0700) == 0);
    REQUIRE(symlink("b", (t.path + "/link").c_str()) == 0);
    REQUIRE(mkfifo((t.path + "/fifo").c_str(), 0600) == 0);

    CHECK(answer(TH_KIND, t.path + "/a") == "1");
    CHECK(answer(TH_KIND, t.path + "/b") == "2");
    CHECK(answer(TH_KIND, t.path + "/link") == "3");  // never followed
    CHECK(answer(TH_KIND, t.path + "/fifo") == "4");
    CHECK(answer(TH_KIND, t.path + "/absent") == "0");
    CHECK(answer(TH_LINK_TARGET, t.path + "/link") == "b");
    CHECK(answer(TH_LINK_TARGET, t.path + "/b").empty());
    CHECK(answer(TH_ENTRIES, t.path) == std::string("a\0b\0fifo\0link\0", 14));
    CHECK(answer(TH_ENTRIES, t.path + "/a").empty());
    CHECK(answer(TH_CONTENT, t.path + "/b") == "bee");
    CHECK(answer(TH_CONTENT, t.path + "/a") == std::string("\0unreadable", 11));
    CHECK(answer(TH_IDENTITY, t.path + "/absent") == "absent");

    const std::string before = answer(TH_IDENTITY, t.path + "/link");  // followed: b's
    CHECK(before == answer(TH_IDENTITY, t.path + "/b"));
    write_file(t.path + "/b", "beee");
    CHECK(answer(TH_IDENTITY, t.path + "/b") != before);
}

TEST_CASE("host answers: normalisation is lexical")
{
    CHECK(normalized("/") == "/");
    CHECK(normalized("") == "/");
    CHECK(normalized("//a///b/") == "/a/b");
    CHECK(normalized("/a/./b/.") == "/a/b");
    CHECK(normalized("/a/b/../c") == "/a/c");
    CHECK(normalized("/../..//a/..") == "/");
    CHECK(normalized("/a/..b/.c") == "/a/..b/.c");
}

TEST_CASE("plan cache directory: an absolute XDG_CACHE_HOME, else the home's .cache, normalised")
{
    CHECK(cache_directory("/x//cache/", "/home/u") == "/x/cache/tartaros");
    CHECK(cache_directory("relative", "/home/u/") == "/home/u/.cache/tartaros");
    CHECK(cache_directory(nullptr, "/home/u/../v") == "/home/v/.cache/tartaros");
    CHECK(cache_directory("", "relative") == "<none>");
    CHECK(cache_directory(nullptr, nullptr) == "<none>");
}
