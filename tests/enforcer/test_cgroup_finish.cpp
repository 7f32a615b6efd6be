// Unit tests of cgroup_finish and the warden (enforcer/cgroup.h) on fake cgroupfs trees. A
// fake cgroup.procs is a plain file, so a test that puts a real child's pid in it also plays
// the kernel's part: once the child has died it empties the file.
#include <dirent.h>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "cgroup.h"
#include "cgroup_run.h"
#include "fake_cgroupfs.h"

namespace {

cgroup_wants pids_limit()
{
    cgroup_wants w = {};
    w.pids_max = 10;
    return w;
}

cgroup_run *create(const FakeCgroupfs &fs, pid_t self, const cgroup_wants &wants)
{
    cgroup_host host = fs.host(self);
    cgroup_probe probe;
    cgroup_probe_host(&host, &probe);
    char why[512] = "";
    cgroup_run *run = cgroup_create(&host, &probe, &wants, why, sizeof why);
    REQUIRE_MESSAGE(run != nullptr, why);
    return run;
}

pid_t sleeping_child()
{
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        for (;;)
            pause();
    }
    return pid;
}

// The kernel's part for a fake tree: reaps `child` and then empties each cgroup.procs.
class FakeKernel {
public:
    FakeKernel(pid_t child, const cgroup_run *run) : child_(child)
    {
        for (int i = 0; i < run->ndirs; i++)
            procs_.push_back(std::string(run->dirs[i].path) + "/cgroup.procs");
        thread_ = std::thread([this] {
            waitpid(child_, &status_, 0);
            for (const std::string &p : procs_)
                truncated_ = truncate(p.c_str(), 0) == 0 && truncated_;
            done_ = true;
        });
    }
    ~FakeKernel()
    {
        if (!done_)
            kill(child_, SIGKILL);
        thread_.join();
    }
    // The child's wait status once it has died within `ms`; -1 if it still runs.
    int status_within(int ms)
    {
        for (int waited = 0; !done_ && waited < ms; waited += 10)
            usleep(10000);
        if (!done_)
            return -1;
        REQUIRE(truncated_);
        return status_;
    }

private:
    pid_t child_;
    std::vector<std::string> procs_;
    int status_ = 0;
    bool truncated_ = true;
    std::atomic<bool> done_{false};
    std::thread thread_;
};

bool killed_by_sigkill(int status)
{
    return status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

// Waits for `pid` (a child, or an orphan handed to this subreaper) for at most `ms`.
bool reaped_within(pid_t pid, int ms, int *status)
{
    for (int waited = 0; waited < ms; waited += 10) {
        if (waitpid(pid, status, WNOHANG) == pid)
            return true;
        usleep(10000);
    }
    return false;
}

std::vector<std::string> fd_links(pid_t pid)
{
    std::vector<std::string> links;
    std::string dir = "/proc/" + std::to_string(pid) + "/fd";
    DIR *d = opendir(dir.c_str());
    if (d == nullptr)
        return links;
    for (dirent *e; (e = readdir(d)) != nullptr;) {
        if (e->d_name[0] == '.')
            continue;
        char target[256] = "";
        ssize_t n = readlink((dir + "/" + e->d_name).c_str(), target, sizeof target - 1);
        links.push_back(n > 0 ? std::string(target, (size_t)n) : "?");
    }
    closedir(d);
    return links;
}

// A "supervisor": a child that creates the run's cgroups in `fs`, starts the warden, sends
// its pid, then does `then` (it never returns).
pid_t supervisor_with_warden(const FakeCgroupfs &fs, const cgroup_wants &wants, int report_fd,
                             void (*then)(cgroup_run *))
{
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        cgroup_host host = fs.host(getpid());
        cgroup_probe probe;
        cgroup_probe_host(&host, &probe);
        char why[512];
        cgroup_run *run = cgroup_create(&host, &probe, &wants, why, sizeof why);
        if (run == nullptr)
            _exit(2);
        cgroup_start_warden(run);
        if (write(report_fd, &run->warden_pid, sizeof run->warden_pid) != (ssize_t)sizeof run->warden_pid)
            _exit(3);
        then(run);
        _exit(0);
    }
    return pid;
}

pid_t read_pid(int fd)
{
    pid_t pid = 0;
    REQUIRE(read(fd, &pid, sizeof pid) == (ssize_t)sizeof pid);
    return pid;
}

struct Pipe {
    int fds[2];
    Pipe() { REQUIRE(pipe2(fds, O_CLOEXEC) == 0); }
    ~Pipe()
    {
        close(fds[0]);
        close(fds[1]);
    }
};

}  // namespace

TEST_CASE("finish: kills what is left and removes every cgroup")
{
    FakeCgroupfs fs;
    hybrid_like_this_machine(fs);
    unsigned kill_switch = 0;  // cg_bit(CG_FREEZER) on the version that should carry it
    int kill_version = 0;
    SUBCASE("v1 with the v2 kill switch")
    {
        kill_switch = cg_bit(CG_FREEZER), kill_version = 2;
    }
    SUBCASE("v1 with the v1 freezer")
    {
        fs.proc_self_cgroup("6:freezer:/\n8:pids:/\n");
        kill_switch = cg_bit(CG_FREEZER), kill_version = 1;
    }
    SUBCASE("v1 pids alone")
    {
        fs.proc_self_cgroup("8:pids:/\n");
    }
    fs.fresh_cgroup_files(all_control_files());
    cgroup_run *run = create(fs, 4242, pids_limit());
    REQUIRE(run->ndirs == (kill_switch ? 2 : 1));
    CHECK(run->dirs[0].controllers == cg_bit(CG_PIDS));
    if (kill_switch) {
        CHECK(run->dirs[1].controllers == kill_switch);
        CHECK(run->dirs[1].version == kill_version);
    }
    pid_t child = sleeping_child();
    char why[256];
    REQUIRE(cgroup_attach(run, child, why, sizeof why));
    FakeKernel kernel(child, run);
    cgroup_finish(run);
    CHECK(killed_by_sigkill(kernel.status_within(2000)));
    for (int i = 0; i < run->ndirs; i++)
        CHECK_FALSE(fs.exists(std::string(run->dirs[i].path).substr(fs.root.size())));
    CHECK(run->finished == 1);
}

TEST_CASE("finish: undoes the leaf move")
{
    FakeCgroupfs fs;
    pure_v2_scope(fs, "4242\n");
    fs.fresh_cgroup_files(all_control_files());
    cgroup_run *run = create(fs, 4242, pids_limit());
    cgroup_finish(run);
    CHECK_FALSE(fs.exists(std::string(kV2Scope) + "/tartaros-4242"));
    CHECK_FALSE(fs.exists(std::string(kV2Scope) + "/tartaros-4242.supervisor"));
    CHECK(fs.read(std::string(kV2Scope) + "/cgroup.subtree_control") == "-pids");
    CHECK(fs.read(std::string(kV2Scope) + "/cgroup.procs") == "4242");
    CHECK(run->finished == 1);
}

TEST_CASE("finish: a cgroup that cannot be removed leaves the warden's work undone")
{
    FakeCgroupfs fs;
    hybrid_like_this_machine(fs);
    fs.fresh_cgroup_files(all_control_files());
    cgroup_run *run = create(fs, 4242, pids_limit());
    const std::string pids = "/sys/fs/cgroup/pids/" + run_name(4242);
    fs.file(pids + "/stray", "");
    cgroup_finish(run);
    CHECK(fs.exists(pids));
    CHECK_FALSE(fs.exists("/sys/fs/cgroup/unified/" + run_name(4242)));
    CHECK(run->finished == 0);
}

TEST_CASE("warden: cleans up after a SIGKILLed supervisor")
{
    REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);  // the orphaned warden comes to this process
    FakeCgroupfs fs;
    pure_v2_scope(fs, "");
    Pipe report;
    pid_t supervisor = fork();
    REQUIRE(supervisor >= 0);
    if (supervisor == 0) {
        fs.proc_self_cgroup("0::/user.slice/run.scope\n");
        fs.file(std::string(kV2Scope) + "/cgroup.procs", std::to_string(getpid()) + "\n");
        fs.fresh_cgroup_files(all_control_files());
        cgroup_host host = fs.host(getpid());
        cgroup_probe probe;
        cgroup_probe_host(&host, &probe);
        char why[512];
        cgroup_wants w = pids_limit();
        cgroup_run *run = cgroup_create(&host, &probe, &w, why, sizeof why);
        if (run == nullptr)
            _exit(2);
        cgroup_start_warden(run);
        if (write(report.fds[1], &run->warden_pid, sizeof(pid_t)) != (ssize_t)sizeof(pid_t))
            _exit(3);
        raise(SIGKILL);
    }
    pid_t warden = read_pid(report.fds[0]);
    int status;
    REQUIRE(waitpid(supervisor, &status, 0) == supervisor);
    CHECK(killed_by_sigkill(status));
    REQUIRE(reaped_within(warden, 5000, &status));
    CHECK(WIFEXITED(status));
    const std::string own = kV2Scope;
    CHECK_FALSE(fs.exists(own + "/" + run_name(supervisor)));
    CHECK_FALSE(fs.exists(own + "/" + run_name(supervisor) + ".supervisor"));
    CHECK(fs.read(own + "/cgroup.subtree_control") == "-pids");
    CHECK(fs.read(own + "/cgroup.procs") == std::to_string(supervisor));
}

TEST_CASE("warden: leaves everything alone once the supervisor has finished")
{
    REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
    FakeCgroupfs fs;
    hybrid_like_this_machine(fs);
    fs.fresh_cgroup_files(all_control_files());
    Pipe report;
    // finished is what cgroup_finish sets last; set alone, the cgroups stay for the test to see
    pid_t supervisor = supervisor_with_warden(fs, pids_limit(), report.fds[1], [](cgroup_run *run) {
        __atomic_store_n(&run->finished, 1u, __ATOMIC_RELEASE);
    });
    pid_t warden = read_pid(report.fds[0]);
    int status;
    REQUIRE(waitpid(supervisor, &status, 0) == supervisor);
    CHECK(WIFEXITED(status));
    REQUIRE(reaped_within(warden, 5000, &status));
    CHECK(fs.exists("/sys/fs/cgroup/pids/" + run_name(supervisor)));
    CHECK(fs.exists("/sys/fs/cgroup/unified/" + run_name(supervisor)));
}

TEST_CASE("warden: keeps no fd but the supervisor's pidfd and has its own session")
{
    REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
    FakeCgroupfs fs;
    hybrid_like_this_machine(fs);
    fs.fresh_cgroup_files(all_control_files());
    Pipe report, go;
    static int go_fd;
    go_fd = go.fds[0];
    pid_t supervisor = supervisor_with_warden(fs, pids_limit(), report.fds[1], [](cgroup_run *run) {
        char c;
        if (read(go_fd, &c, 1) != 1)
            _exit(4);
        cgroup_finish(run);
    });
    pid_t warden = read_pid(report.fds[0]);
    std::vector<std::string> fds;
    for (int waited = 0; waited < 2000; waited += 10) {
        fds = fd_links(warden);
        if (fds.size() == 1)
            break;
        usleep(10000);
    }
    REQUIRE(fds.size() == 1);
    CHECK(fds[0] == "anon_inode:[pidfd]");
    CHECK(getsid(warden) == warden);
    REQUIRE(write(go.fds[1], "g", 1) == 1);
    int status;
    REQUIRE(waitpid(supervisor, &status, 0) == supervisor);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    REQUIRE(reaped_within(warden, 5000, &status));
    CHECK_FALSE(fs.exists("/sys/fs/cgroup/pids/" + run_name(supervisor)));
}
