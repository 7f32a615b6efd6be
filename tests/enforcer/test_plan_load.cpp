// Unit tests of the enforcer's plan loading (enforcer/plan_load.h) on plans the real compiler
// writes: from a path (its identity recorded for the guard: the absolute, symlink-free name,
// device and inode) and from an open file (a sealed memfd, as tartaros run hands it over);
// and every refusal, each in a child (a refusal exits 78 with one line): a missing file, a
// closed descriptor, a cut plan, a plan one byte over the format's limit.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "in_child.h"
#include "plan_load.h"

namespace fs = std::filesystem;

namespace {

// A scratch directory with a compiled plan, plan.bin, and a symlink to the directory.
struct Scratch {
    fs::path dir;
    fs::path plan;
    std::string bytes;

    Scratch()
    {
        char tmpl[] = "/var/tmp/tartaros-plan-load.XXXXXX";
        REQUIRE(mkdtemp(tmpl) != nullptr);
        dir = tmpl;
        plan = dir / "plan.bin";
        std::ofstream(dir / "policy.toml") << "version = 1\n[filesystem]\nwritable_roots = [\"w\"]\n";
        fs::create_directory(dir / "w");
        const std::string compile = std::string(TARTAROS_BINARY_DIR) + "/bin/tartaros-compile " +
            (dir / "policy.toml").string() + " -o " + plan.string() + " 2>/dev/null";
        REQUIRE(system(compile.c_str()) == 0);
        std::ifstream in(plan, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
        REQUIRE(bytes.size() > 64);
        fs::create_directory_symlink(dir, dir.string() + "-link");
    }
    ~Scratch()
    {
        fs::remove(dir.string() + "-link");
        fs::remove_all(dir);
    }
    void write(const std::string &name, const std::string &content) const
    {
        std::ofstream(dir / name, std::ios::binary) << content;
    }
};

}  // namespace

TEST_CASE("plan load: from a path, with its identity, also named through a symlink")
{
    Scratch s;
    plan_identity file = {};
    const tp_plan *plan = load_plan((s.dir.string() + "-link/plan.bin").c_str(), -1, &file);
    REQUIRE(plan != nullptr);
    CHECK(plan->header != nullptr);
    CHECK(plan->landlock != nullptr);
    REQUIRE(file.path != nullptr);
    CHECK(std::string(file.path) == s.plan.string());  // the kernel's name, not the link's
    struct stat st;
    REQUIRE(stat(s.plan.c_str(), &st) == 0);
    CHECK(file.dev == st.st_dev);
    CHECK(file.ino == st.st_ino);
}

TEST_CASE("plan load: from a sealed memfd, with no path to protect")
{
    Scratch s;
    const int fd = memfd_create("plan", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, s.bytes.data(), s.bytes.size()) == static_cast<ssize_t>(s.bytes.size()));
    REQUIRE(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) == 0);
    plan_identity file = {};
    file.path = "stale";
    const tp_plan *plan = load_plan("ignored", fd, &file);
    REQUIRE(plan != nullptr);
    CHECK(plan->exec != nullptr);
    CHECK(file.path == nullptr);
    CHECK(fcntl(fd, F_GETFD) < 0);  // read and closed
}

TEST_CASE("plan load: refusals are exit 78 with one tartaros: line")
{
    Scratch s;
    s.write("cut.bin", s.bytes.substr(0, s.bytes.size() - 8));
    s.write("huge.bin", std::string(TP_MAX_PLAN_SIZE + 1, 'x'));
    struct Case {
        std::string path;
        int fd;
        std::string says;
    } cases[] = {
        {(s.dir / "absent.bin").string(), -1, "tartaros: cannot open plan "},
        {"unused", 1000, "tartaros: cannot read the plan on --plan-fd 1000"},
        {(s.dir / "cut.bin").string(), -1, "tartaros: invalid plan "},
        {(s.dir / "huge.bin").string(), -1, "larger than the limit"},
    };
    for (const Case &c : cases) {
        CAPTURE(c.path);
        const ChildResult r = in_child([&] {
            plan_identity file = {};
            load_plan(c.path.c_str(), c.fd, &file);
            return 0;
        });
        CHECK(r.code == 78);
        CHECK(r.err.find(c.says) != std::string::npos);
        CHECK(r.err.rfind("tartaros: ", 0) == 0);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
}
