// Unit tests of cgroup_create, cgroup_attach and cgroup_read_events (enforcer/cgroup.h) on
// fake cgroupfs trees: which directories are made, exactly which control files get which
// values, the leaf move, and that a failure leaves nothing behind.
#include <doctest/doctest.h>
#include <unistd.h>

#include <map>
#include <string>

#include "cgroup.h"
#include "cgroup_run.h"
#include "fake_cgroupfs.h"

namespace {

constexpr pid_t kSelf = 4242;
const std::string kPids = "/sys/fs/cgroup/pids/";
const std::string kMemory = "/sys/fs/cgroup/memory/process_api/abc/";
const std::string kCpu = "/sys/fs/cgroup/cpu/";
const std::string kUnified = "/sys/fs/cgroup/unified/";

struct Made {
    cgroup_run *run;
    std::string why;
};

Made create(const FakeCgroupfs &fs, const cgroup_wants &wants, const cgroup_probe *forced = nullptr)
{
    cgroup_host host = fs.host(kSelf);
    cgroup_probe probe;
    cgroup_probe_host(&host, &probe);
    char why[512] = "";
    cgroup_run *run = cgroup_create(&host, forced ? forced : &probe, &wants, why, sizeof why);
    return {run, why};
}

cgroup_wants all_limits()
{
    cgroup_wants w = {};
    w.pids_max = 100;
    w.memory_max = 64u << 20;
    w.cpu_quota_us = 50000;
    w.cpu_period_us = 100000;
    return w;
}

// Every fresh control file of `dir` holds its initial content, except those in `written`.
void check_files(const FakeCgroupfs &fs, const std::string &dir, const std::map<std::string, std::string> &written)
{
    for (const std::string &f : all_control_files()) {
        std::string name = f.substr(0, f.find('=')), initial = f.substr(f.find('=') + 1);
        auto it = written.find(name);
        INFO(dir << name);
        CHECK(fs.read(dir + name) == (it == written.end() ? initial : it->second));
    }
}

std::string own(const std::string &rel = "")
{
    return std::string(kV2Scope) + rel;
}

}  // namespace

TEST_CASE("create: v1 hybrid writes exactly the limit files and a v2 kill switch")
{
    FakeCgroupfs fs;
    hybrid_like_this_machine(fs);
    fs.fresh_cgroup_files(all_control_files());
    Made m = create(fs, all_limits());
    REQUIRE_MESSAGE(m.run != nullptr, m.why);
    const std::string name = run_name(kSelf) + "/";
    check_files(fs, kPids + name, {{"pids.max", "100"}});
    check_files(fs, kMemory + name,
                {{"memory.limit_in_bytes", "67108864"}, {"memory.memsw.limit_in_bytes", "67108864"}});
    check_files(fs, kCpu + name, {{"cpu.cfs_period_us", "100000"}, {"cpu.cfs_quota_us", "50000"}});
    check_files(fs, kUnified + name, {});
    CHECK(m.run->ndirs == 4);
    CHECK_FALSE(fs.exists("/sys/fs/cgroup/freezer/" + run_name(kSelf)));
    CHECK_FALSE(fs.exists("/sys/fs/cgroup/cpuacct/" + run_name(kSelf)));
    CHECK(m.run->leaf.own == nullptr);
}

TEST_CASE("create: v2 leaf move enables the controllers and one cgroup carries them all")
{
    FakeCgroupfs fs;
    pure_v2_scope(fs, "4242\n");
    fs.fresh_cgroup_files(all_control_files());
    Made m = create(fs, all_limits());
    REQUIRE_MESSAGE(m.run != nullptr, m.why);
    CHECK(m.run->ndirs == 1);
    CHECK(fs.read(own("/tartaros-4242.supervisor/cgroup.procs")) == "4242");
    CHECK(fs.read(own("/cgroup.subtree_control")) == "+pids +memory +cpu");
    check_files(
        fs, own("/tartaros-4242/"),
        {{"pids.max", "100"}, {"memory.max", "67108864"}, {"memory.swap.max", "0"}, {"cpu.max", "50000 100000"}});
    CHECK(fs.read(own("/cgroup.procs")) == "4242\n");
}

TEST_CASE("create: the swap limit files are written only where they exist")
{
    FakeCgroupfs fs;
    SUBCASE("v2")
    {
        pure_v2_scope(fs, "4242\n");
        fs.fresh_cgroup_files({"cgroup.procs=", "memory.max=max\n"});
        cgroup_wants w = {};
        w.memory_max = 2u << 20;
        Made m = create(fs, w);
        REQUIRE_MESSAGE(m.run != nullptr, m.why);
        CHECK(fs.read(own("/tartaros-4242/memory.max")) == "2097152");
        CHECK_FALSE(fs.exists(own("/tartaros-4242/memory.swap.max")));
    }
    SUBCASE("v1")
    {
        hybrid_like_this_machine(fs);
        fs.fresh_cgroup_files({"cgroup.procs=", "memory.limit_in_bytes=max\n"});
        cgroup_wants w = {};
        w.memory_max = 2u << 20;
        Made m = create(fs, w);
        REQUIRE_MESSAGE(m.run != nullptr, m.why);
        CHECK(fs.read(kMemory + run_name(kSelf) + "/memory.limit_in_bytes") == "2097152");
        CHECK_FALSE(fs.exists(kMemory + run_name(kSelf) + "/memory.memsw.limit_in_bytes"));
    }
}

TEST_CASE("create: controllers co-mounted in one v1 hierarchy share one cgroup")
{
    FakeCgroupfs fs;
    fs.proc_self_cgroup("5:pids,freezer:/grp\n");
    fs.mount("/", "/sys/fs/cgroup/pids,freezer", "cgroup", "rw,pids,freezer");
    fs.dir("/sys/fs/cgroup/pids,freezer/grp");
    fs.fresh_cgroup_files(all_control_files());
    cgroup_wants w = {};
    w.pids_max = 7;
    Made m = create(fs, w);
    REQUIRE_MESSAGE(m.run != nullptr, m.why);
    REQUIRE(m.run->ndirs == 1);
    CHECK(m.run->dirs[0].controllers == (cg_bit(CG_PIDS) | cg_bit(CG_FREEZER)));
    CHECK(fs.read("/sys/fs/cgroup/pids,freezer/grp/" + run_name(kSelf) + "/pids.max") == "7");
}

TEST_CASE("create: a bare kill switch")
{
    FakeCgroupfs fs;
    fs.fresh_cgroup_files(all_control_files());
    cgroup_wants w = {};
    w.kill_switch = true;
    SUBCASE("on the v2 freezer")
    {
        hybrid_like_this_machine(fs);
        Made m = create(fs, w);
        REQUIRE_MESSAGE(m.run != nullptr, m.why);
        REQUIRE(m.run->ndirs == 1);
        CHECK(m.run->dirs[0].version == 2);
        CHECK(fs.exists(kUnified + run_name(kSelf)));
    }
    SUBCASE("on a v1 hierarchy without a limit when there is no freezer")
    {
        fs.proc_self_cgroup("8:pids:/\n");
        fs.mount("/", "/sys/fs/cgroup/pids", "cgroup", "rw,pids");
        fs.dir("/sys/fs/cgroup/pids");
        Made m = create(fs, w);
        REQUIRE_MESSAGE(m.run != nullptr, m.why);
        CHECK(fs.read(kPids + run_name(kSelf) + "/pids.max") == "max\n");
    }
    SUBCASE("refused when no cgroup can be made")
    {
        fs.proc_self_cgroup("0::/\n");
        Made m = create(fs, w);
        CHECK(m.run == nullptr);
        CHECK(m.why == "no cgroup for the kill switch: no cgroup v2 and no v1 hierarchy");
    }
}

TEST_CASE("create: a wanted limit without a cgroup fails with the probe's reason and makes nothing")
{
    FakeCgroupfs fs;
    hybrid_like_this_machine(fs);
    fs.fresh_cgroup_files(all_control_files());
    cgroup_host host = fs.host(kSelf);
    cgroup_probe probe;
    cgroup_probe_host(&host, &probe);
    probe.version[CG_MEMORY] = 0;
    snprintf(probe.why_not[CG_MEMORY], sizeof probe.why_not[CG_MEMORY], "the memory reason");
    Made m = create(fs, all_limits(), &probe);
    CHECK(m.run == nullptr);
    CHECK(m.why == "no cgroup for the memory limit: the memory reason");
    CHECK_FALSE(fs.exists(kPids + run_name(kSelf)));
}

TEST_CASE("create: a failed limit write removes every cgroup made")
{
    FakeCgroupfs fs;
    hybrid_like_this_machine(fs);
    std::vector<std::string> files = all_control_files();
    std::erase(files, "cpu.cfs_quota_us=-1\n");
    fs.fresh_cgroup_files(files);
    Made m = create(fs, all_limits());
    CHECK(m.run == nullptr);
    CHECK(m.why ==
          "cannot write 50000 to " + fs.root + kCpu + run_name(kSelf) + "/cpu.cfs_quota_us: No such file or directory");
    for (const std::string &d : {kPids, kMemory, kCpu, kUnified})
        CHECK_FALSE(fs.exists(d + run_name(kSelf)));
}

TEST_CASE("create: a failure after the leaf move undoes it")
{
    FakeCgroupfs fs;
    pure_v2_scope(fs, "4242\n");
    std::vector<std::string> files = all_control_files();
    std::erase(files, "cpu.max=max 100000\n");
    fs.fresh_cgroup_files(files);
    Made m = create(fs, all_limits());
    CHECK(m.run == nullptr);
    CHECK(m.why.find("/cpu.max: No such file or directory") != std::string::npos);
    CHECK_FALSE(fs.exists(own("/tartaros-4242")));
    CHECK_FALSE(fs.exists(own("/tartaros-4242.supervisor")));
    CHECK(fs.read(own("/cgroup.subtree_control")) == "-pids -memory -cpu");
    CHECK(fs.read(own("/cgroup.procs")) == "4242");
}

TEST_CASE("create: an existing run directory is never reused")
{
    FakeCgroupfs fs;
    hybrid_like_this_machine(fs);
    fs.fresh_cgroup_files(all_control_files());
    fs.file(kMemory + run_name(kSelf) + "/marker", "someone else's");
    Made m = create(fs, all_limits());
    CHECK(m.run == nullptr);
    CHECK(m.why == fs.root + kMemory + run_name(kSelf) + " exists already (a run's cgroup is never reused)");
    CHECK_FALSE(fs.exists(kPids + run_name(kSelf)));
    CHECK(fs.read(kMemory + run_name(kSelf) + "/marker") == "someone else's");
}

TEST_CASE("attach: the pid goes into every run cgroup")
{
    FakeCgroupfs fs;
    hybrid_like_this_machine(fs);
    fs.fresh_cgroup_files(all_control_files());
    Made m = create(fs, all_limits());
    REQUIRE_MESSAGE(m.run != nullptr, m.why);
    char why[256] = "";
    CHECK(cgroup_attach(m.run, 31337, why, sizeof why));
    for (const std::string &d : {kPids, kMemory, kCpu, kUnified})
        CHECK(fs.read(d + run_name(kSelf) + "/cgroup.procs") == "31337");
}

TEST_CASE("attach: a cgroup that refuses the pid is reported")
{
    FakeCgroupfs fs;
    hybrid_like_this_machine(fs);
    fs.fresh_cgroup_files({"pids.max=max\n"});
    cgroup_wants w = {};
    w.pids_max = 5;
    Made m = create(fs, w);
    REQUIRE_MESSAGE(m.run != nullptr, m.why);
    char why[512] = "";
    CHECK_FALSE(cgroup_attach(m.run, 31337, why, sizeof why));
    CHECK(std::string(why) ==
          "cannot move process 31337 into the cgroup " + fs.root + kPids + run_name(kSelf) +
              ": No such file or directory");
}

TEST_CASE("read_events: what v1 and v2 counted")
{
    FakeCgroupfs fs;
    fs.fresh_cgroup_files(all_control_files());
    cgroup_events ev;
    SUBCASE("v1")
    {
        hybrid_like_this_machine(fs);
        Made m = create(fs, all_limits());
        REQUIRE_MESSAGE(m.run != nullptr, m.why);
        fs.file(kMemory + run_name(kSelf) + "/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
        fs.file(kMemory + run_name(kSelf) + "/memory.max_usage_in_bytes", "67104768\n");
        fs.file(kPids + run_name(kSelf) + "/pids.events", "max 7\n");
        cgroup_read_events(m.run, &ev);
        CHECK(ev.oom_kills == 2);
        CHECK(ev.pids_refused == 7);
        CHECK(ev.memory_peak == 67104768);
    }
    SUBCASE("v2")
    {
        pure_v2_scope(fs, "4242\n");
        Made m = create(fs, all_limits());
        REQUIRE_MESSAGE(m.run != nullptr, m.why);
        fs.file(own("/tartaros-4242/memory.events"), "low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\noom_group_kill 0\n");
        fs.file(own("/tartaros-4242/memory.peak"), "2097152\n");
        fs.file(own("/tartaros-4242/pids.events"), "max 4\n");
        cgroup_read_events(m.run, &ev);
        CHECK(ev.oom_kills == 1);
        CHECK(ev.pids_refused == 4);
        CHECK(ev.memory_peak == 2097152);
    }
}
