// Unit tests of the effect log's supervisor side (enforcer/effect_log.h): which files it
// refuses to open, how it opens the others, and the run_start and run_end lines of a run that
// ends before the sandbox starts. Each case runs in a child process: the log's state is the
// process's, and a refusal exits.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "effect_log.h"
#include "in_child.h"
#include "json_checker.h"

namespace {

struct TempDir {
    std::string path;
    TempDir()
    {
        char tmpl[] = "/tmp/tartaros-effect-log.XXXXXX";
        REQUIRE(mkdtemp(tmpl) != nullptr);
        path = tmpl;
    }
    ~TempDir() { (void)!system(("rm -rf '" + path + "'").c_str()); }
};

char *const kArgv[] = {const_cast<char *>("/bin/echo"), const_cast<char *>("a\"b"), nullptr};

// A run_ctx whose plan is only a header: enough for a run that ends before the sandbox.
struct FakeRun {
    tp_header header = {};
    tp_plan plan = {};
    run_ctx ctx = {};
    explicit FakeRun(const std::string &log)
    {
        header.checksum = 0x0123456789abcdefull;
        plan.header = &header;
        plan.size = 4096;
        ctx.plan = &plan;
        ctx.argv = kArgv;
        ctx.strict = true;
        ctx.log_path = strdup(log.c_str());
    }
};

int open_only(const std::string &log)
{
    FakeRun run(log);
    effect_log_open(&run.ctx);
    return effect_log_enabled() ? 0 : 1;
}

std::vector<std::string> lines_of(const std::string &path)
{
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

}  // namespace

TEST_CASE("the effect log is created with mode 0600 and appended to")
{
    TempDir dir;
    std::string log = dir.path + "/log.jsonl";
    CHECK(in_child([&] { return open_only(log); }).code == 0);
    struct stat st;
    REQUIRE(stat(log.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0600);
    std::ofstream(log) << "earlier line\n";
    CHECK(in_child([&] { return open_only(log); }).code == 0);
    CHECK(lines_of(log) == std::vector<std::string>{"earlier line"});
}

TEST_CASE("an effect log that cannot be opened is a refusal naming it")
{
    TempDir dir;
    std::string missing = dir.path + "/no/such/dir/log";
    ChildResult r = in_child([&] { return open_only(missing); });
    CHECK(r.code == 78);
    CHECK(r.err == "tartaros: cannot open the effect log " + missing + ": No such file or directory\n");

    std::string link = dir.path + "/link";
    REQUIRE(symlink((dir.path + "/target").c_str(), link.c_str()) == 0);
    r = in_child([&] { return open_only(link); });
    CHECK(r.code == 78);
    CHECK(r.err.find("cannot open the effect log " + link + ": ") != std::string::npos);
    CHECK(access((dir.path + "/target").c_str(), F_OK) != 0);
}

TEST_CASE("a FIFO or a directory is refused without waiting")
{
    TempDir dir;
    std::string fifo = dir.path + "/fifo";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    ChildResult r = in_child([&] { return open_only(fifo); });
    CHECK(r.code == 78);
    CHECK(r.err.find("cannot open the effect log " + fifo) != std::string::npos);
    r = in_child([&] { return open_only(dir.path); });
    CHECK(r.code == 78);
}

TEST_CASE("an effect log with a second hard link is refused")
{
    TempDir dir;
    std::string log = dir.path + "/log", other = dir.path + "/other";
    std::ofstream(log) << "";
    REQUIRE(link(log.c_str(), other.c_str()) == 0);
    ChildResult r = in_child([&] { return open_only(log); });
    CHECK(r.code == 78);
    CHECK(r.err ==
          "tartaros: cannot open the effect log " + log +
              ": it has 2 hard links, and the sandbox might see another one\n");
}

TEST_CASE("a run that ends before the sandbox logs run_start and run_end")
{
    TempDir dir;
    std::string log = dir.path + "/log";
    ChildResult r = in_child([&] {
        FakeRun run(log);
        effect_log_open(&run.ctx);
        effect_log_loss("memory_max", "a cgroup with the memory controller", "no cgroup here", nullptr);
        effect_log_loss("memory_max", "again", "deduplicated", nullptr);
        effect_log_loss("max_processes", "a cgroup", "no cgroup here", "RLIMIT_NPROC instead");
        effect_log_warning("a warning\nwith a newline");
        return effect_log_run_end(78, "memory_max cannot be enforced");
    });
    CHECK(r.code == 78);
    std::vector<std::string> lines = lines_of(log);
    REQUIRE(lines.size() == 2);
    for (const std::string &l : lines)
        CHECK_MESSAGE(tartaros::test::JsonChecker(l).document(), l);
    const std::string &start = lines[0];
    CHECK(start.rfind("{\"time\":\"", 0) == 0);
    CHECK(start.find("\"by\":\"supervisor\",\"event\":\"run_start\",\"schema\":1") != std::string::npos);
    CHECK(start.find("\"strict\":true,\"argv\":[\"/bin/echo\",\"a\\\"b\"]") != std::string::npos);
    CHECK(start.find("\"checksum\":\"0x0123456789abcdef\",\"size\":4096,\"file\":null") != std::string::npos);
    CHECK(start.find("\"installed\":[]") != std::string::npos);
    CHECK(start.find("\"degraded\":[{\"guarantee\":\"memory_max\",\"needs\":\"a cgroup with the memory "
                     "controller\",\"reason\":\"no cgroup here\",\"instead\":null},{\"guarantee\":"
                     "\"max_processes\",\"needs\":\"a cgroup\",\"reason\":\"no cgroup here\",\"instead\":"
                     "\"RLIMIT_NPROC instead\"}]") != std::string::npos);
    CHECK(start.find("\"warnings\":[\"a warning\\nwith a newline\"]") != std::string::npos);
    const std::string &end = lines[1];
    CHECK(end.find("\"event\":\"run_end\",\"exit\":78,\"error\":\"memory_max cannot be enforced\"") !=
          std::string::npos);
    CHECK(end.find("\"memory_peak_bytes\":null,\"max_rss_kib\":null") != std::string::npos);
    std::string run_id = start.substr(start.find("\"run\":\"") + 7, 16);
    CHECK(end.find("\"run\":\"" + run_id + "\"") != std::string::npos);
}
