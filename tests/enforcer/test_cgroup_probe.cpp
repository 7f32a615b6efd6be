// Unit tests of cgroup_probe_host (shared/cgroup_probe.h) against fake cgroupfs trees: which
// hierarchy each controller gets, the parent directory, the leaf move, and the reason when
// none can be used.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "cgroup_probe.h"
#include "fake_cgroupfs.h"

namespace {

constexpr pid_t kSelf = 4242;

cgroup_probe probe(const FakeCgroupfs &fs, pid_t self = kSelf)
{
    cgroup_host host = fs.host(self);
    cgroup_probe p;
    cgroup_probe_host(&host, &p);
    return p;
}

}  // namespace

TEST_CASE("probe: v1 hybrid like this machine puts the limits on v1 and the kill switch on v2")
{
    FakeCgroupfs fs;
    hybrid_like_this_machine(fs);
    cgroup_probe p = probe(fs);
    CHECK(p.version[CG_PIDS] == 1);
    CHECK(p.version[CG_MEMORY] == 1);
    CHECK(p.version[CG_CPU] == 1);
    CHECK(p.version[CG_FREEZER] == 2);
    CHECK(std::string(p.parent[CG_PIDS]) == fs.root + "/sys/fs/cgroup/pids");
    CHECK(std::string(p.parent[CG_MEMORY]) == fs.root + "/sys/fs/cgroup/memory/process_api/abc");
    CHECK(std::string(p.parent[CG_CPU]) == fs.root + "/sys/fs/cgroup/cpu");
    CHECK(std::string(p.parent[CG_FREEZER]) == fs.root + "/sys/fs/cgroup/unified");
    CHECK_FALSE(p.leaf_move);
    CHECK(std::string(cgroup_mechanism(&p, CG_PIDS)) == "cgroup v1 pids");
    CHECK(std::string(cgroup_mechanism(&p, CG_MEMORY)) == "cgroup v1 memory");
    CHECK(std::string(cgroup_mechanism(&p, CG_FREEZER)) == "cgroup v2 freezer");
}

TEST_CASE("probe: v1 freezer when there is no cgroup2 mount")
{
    FakeCgroupfs fs;
    hybrid_like_this_machine(fs);
    fs.proc_self_cgroup("6:freezer:/\n8:pids:/\n");
    cgroup_probe p = probe(fs);
    CHECK(p.version[CG_FREEZER] == 1);
    CHECK(std::string(p.parent[CG_FREEZER]) == fs.root + "/sys/fs/cgroup/freezer");
    CHECK(p.version[CG_MEMORY] == 0);
    CHECK(std::string(p.why_not[CG_MEMORY]) == "the cgroup v1 memory mount does not show our cgroup");
    CHECK(std::string(cgroup_mechanism(&p, CG_MEMORY)) == "no cgroup");
}

TEST_CASE("probe: pure v2 at the root with the controllers enabled needs no leaf move")
{
    FakeCgroupfs fs;
    fs.proc_self_cgroup("0::/\n");
    fs.mount("/", "/sys/fs/cgroup", "cgroup2", "rw");
    fs.file("/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
    fs.file("/sys/fs/cgroup/cgroup.subtree_control", "cpu memory pids\n");
    fs.file("/sys/fs/cgroup/cgroup.procs", "1\n4242\n99\n");
    cgroup_probe p = probe(fs);
    for (int c = 0; c < CG_CONTROLLER_COUNT; c++) {
        CHECK(p.version[c] == 2);
        CHECK(std::string(p.parent[c]) == fs.root + "/sys/fs/cgroup");
        CHECK_FALSE(p.enable[c]);
    }
    CHECK_FALSE(p.leaf_move);
    CHECK(std::string(cgroup_mechanism(&p, CG_CPU)) == "cgroup v2 cpu");
}

TEST_CASE("probe: the v2 root is never written so a controller it does not enable is unavailable")
{
    FakeCgroupfs fs;
    fs.proc_self_cgroup("0::/\n");
    fs.mount("/", "/sys/fs/cgroup", "cgroup2", "rw");
    fs.file("/sys/fs/cgroup/cgroup.controllers", "cpu memory pids\n");
    fs.file("/sys/fs/cgroup/cgroup.subtree_control", "memory\n");
    fs.file("/sys/fs/cgroup/cgroup.procs", "4242\n");
    cgroup_probe p = probe(fs);
    CHECK(p.version[CG_MEMORY] == 2);
    CHECK(p.version[CG_PIDS] == 0);
    CHECK(std::string(p.why_not[CG_PIDS]) ==
          "cgroup v2 pids is not enabled at the root " + fs.root + "/sys/fs/cgroup and no v1 hierarchy");
    CHECK_FALSE(p.leaf_move);
}

TEST_CASE("probe: v2 with the supervisor alone in its cgroup takes the leaf move")
{
    FakeCgroupfs fs;
    pure_v2_scope(fs, "4242\n");
    cgroup_probe p = probe(fs);
    for (int c : {CG_PIDS, CG_MEMORY, CG_CPU}) {
        CHECK(p.version[c] == 2);
        CHECK(p.enable[c]);
    }
    CHECK(p.version[CG_FREEZER] == 2);
    CHECK_FALSE(p.enable[CG_FREEZER]);
    CHECK(p.leaf_move);
    CHECK(std::string(p.parent[CG_PIDS]) == fs.root + "/sys/fs/cgroup/user.slice/run.scope");
}

TEST_CASE("probe: v2 with other processes in the cgroup gets no controllers")
{
    FakeCgroupfs fs;
    pure_v2_scope(fs, "4242\n4243\n");
    cgroup_probe p = probe(fs);
    const std::string own = fs.root + "/sys/fs/cgroup/user.slice/run.scope";
    CHECK(p.version[CG_PIDS] == 0);
    CHECK(std::string(p.why_not[CG_PIDS]) ==
          "cgroup v2 pids is not enabled in " + own + ", which has other processes and no v1 hierarchy");
    CHECK_FALSE(p.leaf_move);
    // the kill switch needs no controller, so no leaf move either
    CHECK(p.version[CG_FREEZER] == 2);
    CHECK(std::string(p.parent[CG_FREEZER]) == own);
}

TEST_CASE("probe: v2 with other processes falls back to a v1 pids hierarchy")
{
    FakeCgroupfs fs;
    pure_v2_scope(fs, "4243\n4242\n");
    fs.proc_self_cgroup("3:pids:/user.slice\n0::/user.slice/run.scope\n");
    fs.mount("/", "/sys/fs/cgroup/pids", "cgroup", "rw,pids");
    fs.dir("/sys/fs/cgroup/pids/user.slice");
    cgroup_probe p = probe(fs);
    CHECK(p.version[CG_PIDS] == 1);
    CHECK(std::string(p.parent[CG_PIDS]) == fs.root + "/sys/fs/cgroup/pids/user.slice");
    CHECK(p.version[CG_MEMORY] == 0);
}

TEST_CASE("probe: no controller anywhere")
{
    FakeCgroupfs fs;
    fs.proc_self_cgroup("0::/\n");
    cgroup_probe p = probe(fs);
    for (int c = 0; c < CG_CONTROLLER_COUNT; c++)
        CHECK(p.version[c] == 0);
    CHECK(std::string(p.why_not[CG_PIDS]) == "no cgroup v2 and no v1 hierarchy");
    fs.mount("/", "/sys/fs/cgroup/unified", "cgroup2", "rw");
    fs.file("/sys/fs/cgroup/unified/cgroup.controllers", "hugetlb\n");
    p = probe(fs);
    CHECK(std::string(p.why_not[CG_PIDS]) == "no pids controller in cgroup v2 and no v1 hierarchy");
}

TEST_CASE("probe: co-mounted cpu and cpuacct")
{
    FakeCgroupfs fs;
    fs.proc_self_cgroup("4:cpu,cpuacct:/grp\n0::/\n");
    fs.mount("/", "/sys/fs/cgroup/cpu,cpuacct", "cgroup", "rw,cpu,cpuacct");
    fs.dir("/sys/fs/cgroup/cpu,cpuacct/grp");
    cgroup_probe p = probe(fs);
    CHECK(p.version[CG_CPU] == 1);
    CHECK(std::string(p.parent[CG_CPU]) == fs.root + "/sys/fs/cgroup/cpu,cpuacct/grp");
    CHECK(p.version[CG_PIDS] == 0);
}

TEST_CASE("probe: a mount root other than slash maps the cgroup path through it")
{
    FakeCgroupfs fs;
    fs.proc_self_cgroup("4:memory:/process_api/abc\n8:pids:/outside\n");
    fs.mount("/process_api", "/sys/fs/cgroup/memory", "cgroup", "rw,memory");
    fs.mount("/inside", "/sys/fs/cgroup/my\\040pids", "cgroup", "rw,pids");
    fs.dir("/sys/fs/cgroup/memory/abc");
    fs.dir("/sys/fs/cgroup/my pids");
    cgroup_probe p = probe(fs);
    CHECK(p.version[CG_MEMORY] == 1);
    CHECK(std::string(p.parent[CG_MEMORY]) == fs.root + "/sys/fs/cgroup/memory/abc");
    CHECK(p.version[CG_PIDS] == 0);
    CHECK(std::string(p.why_not[CG_PIDS]) == "the cgroup v1 pids mount does not show our cgroup");

    fs.proc_self_cgroup("8:pids:/inside/x\n4:memory:/process_api\n");
    fs.dir("/sys/fs/cgroup/my pids/x");
    p = probe(fs);
    CHECK(std::string(p.parent[CG_PIDS]) == fs.root + "/sys/fs/cgroup/my pids/x");
    CHECK(std::string(p.parent[CG_MEMORY]) == fs.root + "/sys/fs/cgroup/memory");
}

TEST_CASE("probe: a cgroup path that climbs out of the mount is not used")
{
    FakeCgroupfs fs;
    fs.proc_self_cgroup("8:pids:/../other\n");
    fs.mount("/", "/sys/fs/cgroup/pids", "cgroup", "rw,pids");
    fs.dir("/sys/fs/cgroup/pids");
    CHECK(probe(fs).version[CG_PIDS] == 0);
}

// Root passes every access(W_OK) check, so as root the probe runs in a child that has become
// uid 65534; otherwise the directories are made read-only for the caller.
TEST_CASE("probe: an unwritable v1 hierarchy is refused with the uid")
{
    FakeCgroupfs fs;
    hybrid_like_this_machine(fs);
    const std::string pids = fs.root + "/sys/fs/cgroup/pids";
    cgroup_probe p;
    unsigned uid = getuid() == 0 ? 65534u : (unsigned)getuid();
    if (getuid() == 0) {
        REQUIRE(chmod(fs.root.c_str(), 0755) == 0);
        int fds[2];
        REQUIRE(pipe(fds) == 0);
        pid_t child = fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0)
                _exit(1);
            cgroup_host host = fs.host(kSelf);
            cgroup_probe_host(&host, &p);
            _exit(write(fds[1], &p, sizeof p) == (ssize_t)sizeof p ? 0 : 1);
        }
        close(fds[1]);
        REQUIRE(read(fds[0], &p, sizeof p) == (ssize_t)sizeof p);
        close(fds[0]);
        int status;
        REQUIRE(waitpid(child, &status, 0) == child);
    } else {
        for (const char *d : {"/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory/process_api/abc", "/sys/fs/cgroup/cpu",
                              "/sys/fs/cgroup/freezer", "/sys/fs/cgroup/unified"})
            REQUIRE(chmod((fs.root + d).c_str(), 0555) == 0);
        p = probe(fs);
        for (const char *d : {"/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory/process_api/abc", "/sys/fs/cgroup/cpu",
                              "/sys/fs/cgroup/freezer", "/sys/fs/cgroup/unified"})
            chmod((fs.root + d).c_str(), 0755);
    }
    for (int c = 0; c < CG_CONTROLLER_COUNT; c++)
        CHECK(p.version[c] == 0);
    CHECK(std::string(p.why_not[CG_PIDS]) ==
          "cgroup v1 pids at " + pids + " is not writable by uid " + std::to_string(uid));
    CHECK(std::string(p.why_not[CG_FREEZER]) ==
          "cgroup v2 " + fs.root + "/sys/fs/cgroup/unified is not writable by uid " + std::to_string(uid) +
              "; cgroup v1 freezer at " + fs.root + "/sys/fs/cgroup/freezer is not writable by uid " +
              std::to_string(uid));
}
