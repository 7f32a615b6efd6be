// Tests on this machine's real cgroups, beneath the test process's own (root only: skipped
// with the reason otherwise). Every test removes what it made, also when it fails.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cgroup.h"
#include "cgroup_run.h"
#include "fake_cgroupfs.h"

namespace {

// Why the real tests cannot run here, or "" when they can.
std::string skip_reason(const cgroup_probe &probe, cgroup_controller needed)
{
    if (getuid() != 0)
        return "only root can create cgroups on this machine";
    if (probe.version[needed] == 0)
        return std::string("no cgroup for ") + cgroup_mechanism(&probe, needed) + ": " + probe.why_not[needed];
    return "";
}

std::string read_file(const std::string &path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

bool exists(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

bool reaped_within(pid_t pid, int ms, int *status)
{
    for (int waited = 0; waited < ms; waited += 10) {
        if (waitpid(pid, status, WNOHANG) == pid)
            return true;
        usleep(10000);
    }
    return false;
}

bool killed_by_sigkill(int status)
{
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

// Kills and reaps the processes, then removes the directories (children first), whatever
// the test got to.
struct Cleanup {
    std::vector<pid_t> pids;  // not reaped yet
    std::vector<std::string> dirs;
    cgroup_run *run = nullptr;
    bool reaped_within(pid_t pid, int ms, int *status)
    {
        if (!::reaped_within(pid, ms, status))
            return false;
        std::erase(pids, pid);
        return true;
    }
    ~Cleanup()
    {
        for (pid_t p : pids) {
            kill(p, SIGKILL);
            waitpid(p, nullptr, 0);
        }
        cgroup_finish(run);
        for (auto d = dirs.rbegin(); d != dirs.rend(); ++d)
            rmdir(d->c_str());
    }
};

struct Pipe {
    int fds[2];
    Pipe() { REQUIRE(pipe2(fds, O_CLOEXEC) == 0); }
    ~Pipe()
    {
        close(fds[0]);
        close(fds[1]);
    }
};

// The /proc/<pid>/cgroup line of the hierarchy that carries `c` per `probe`.
std::string cgroup_line(pid_t pid, const cgroup_probe &probe, cgroup_controller c)
{
    std::stringstream lines(read_file("/proc/" + std::to_string(pid) + "/cgroup"));
    for (std::string line; std::getline(lines, line);) {
        std::string list = line.substr(line.find(':') + 1);
        list = list.substr(0, list.find(':'));
        bool v2 = line.rfind("0::", 0) == 0;
        if (probe.version[c] == 2
                ? v2
                : (!v2 &&
                   ("," + list + ",").find(std::string(",") + (c == CG_PIDS ? "pids" : "freezer") + ",") !=
                       std::string::npos))
            return line;
    }
    return "";
}

bool ends_with(const std::string &s, const std::string &tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TEST_CASE("real: a run cgroup with pids.max holds a forked child and is gone after finish")
{
    cgroup_host host = cgroup_host_default();
    cgroup_probe probe;
    cgroup_probe_host(&host, &probe);
    std::string skip = skip_reason(probe, CG_PIDS);
    if (!skip.empty()) {
        MESSAGE("skipped: " << skip);
        return;
    }
    cgroup_wants w = {};
    w.pids_max = 5;
    char why[512] = "";
    Cleanup cleanup;
    cleanup.run = cgroup_create(&host, &probe, &w, why, sizeof why);
    REQUIRE_MESSAGE(cleanup.run != nullptr, why);
    Pipe go, report;
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // once released: forks until refused, reports how many, waits
        char c;
        if (read(go.fds[0], &c, 1) != 1)
            _exit(1);
        int forked = 0;
        for (int i = 0; i < 10; i++) {
            pid_t p = fork();
            if (p == 0)
                for (;;)
                    pause();
            forked += p > 0;
        }
        if (write(report.fds[1], &forked, sizeof forked) != (ssize_t)sizeof forked)
            _exit(1);
        for (;;)
            pause();
    }
    cleanup.pids.push_back(child);
    REQUIRE(cgroup_attach(cleanup.run, child, why, sizeof why));
    CHECK(ends_with(cgroup_line(child, probe, CG_PIDS), "/" + run_name(getpid())));
    REQUIRE(write(go.fds[1], "g", 1) == 1);
    int forked = -1;
    REQUIRE(read(report.fds[0], &forked, sizeof forked) == (ssize_t)sizeof forked);
    CHECK(forked == 4);  // pids.max 5 = the child and four of its children
    cgroup_events ev;
    cgroup_read_events(cleanup.run, &ev);
    CHECK(ev.pids_refused == 6);

    std::vector<std::string> dirs;
    for (int i = 0; i < cleanup.run->ndirs; i++)
        dirs.push_back(cleanup.run->dirs[i].path);
    cgroup_finish(cleanup.run);
    int status;
    REQUIRE(cleanup.reaped_within(child, 2000, &status));
    CHECK(killed_by_sigkill(status));
    for (const std::string &d : dirs) {
        INFO(d);
        CHECK_FALSE(exists(d));
    }
    CHECK(cleanup.run->finished == 1);
}

TEST_CASE("real: the warden kills a leftover and removes the cgroups after a SIGKILLed supervisor")
{
    cgroup_host host = cgroup_host_default();
    cgroup_probe probe;
    cgroup_probe_host(&host, &probe);
    std::string skip = skip_reason(probe, CG_PIDS);
    if (!skip.empty()) {
        MESSAGE("skipped: " << skip);
        return;
    }
    REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);  // the leftover and the warden come here
    Pipe report;
    pid_t supervisor = fork();
    REQUIRE(supervisor >= 0);
    if (supervisor == 0) {
        cgroup_host self = cgroup_host_default();
        cgroup_wants w = {};
        w.pids_max = 50;
        char why[512];
        cgroup_run *run = cgroup_create(&self, &probe, &w, why, sizeof why);
        if (run == nullptr)
            _exit(2);
        pid_t leftover = fork();
        if (leftover == 0)
            for (;;)
                pause();
        if (!cgroup_attach(run, leftover, why, sizeof why))
            _exit(3);
        cgroup_start_warden(run);
        pid_t pids[2] = {run->warden_pid, leftover};
        if (write(report.fds[1], pids, sizeof pids) != (ssize_t)sizeof pids)
            _exit(4);
        raise(SIGKILL);
    }
    Cleanup cleanup;
    cleanup.pids.push_back(supervisor);
    for (cgroup_controller c : {CG_PIDS, CG_FREEZER})
        if (probe.version[c] != 0)
            cleanup.dirs.push_back(std::string(probe.parent[c]) + "/" + run_name(supervisor));
    pid_t pids[2] = {0, 0};
    REQUIRE(read(report.fds[0], pids, sizeof pids) == (ssize_t)sizeof pids);
    cleanup.pids.push_back(pids[1]);
    int status;
    REQUIRE(cleanup.reaped_within(supervisor, 3000, &status));
    CHECK(killed_by_sigkill(status));
    REQUIRE(cleanup.reaped_within(pids[1], 3000, &status));
    CHECK(killed_by_sigkill(status));
    REQUIRE(reaped_within(pids[0], 3000, &status));
    CHECK(WIFEXITED(status));
    for (const std::string &d : cleanup.dirs) {
        INFO(d);
        CHECK_FALSE(exists(d));
    }
}

TEST_CASE("real: the v1 freezer kills a daemonised leftover")
{
    FakeCgroupfs fs;  // only for a /proc/self/cgroup without the v2 line
    std::stringstream lines(read_file("/proc/self/cgroup"));
    std::string without_v2;
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("0::", 0) != 0)
            without_v2 += line + "\n";
    fs.proc_self_cgroup(without_v2);
    cgroup_host host = cgroup_host_default();
    std::string proc_path = fs.root + "/proc-self-cgroup";
    host.proc_self_cgroup = proc_path.c_str();
    cgroup_probe probe;
    cgroup_probe_host(&host, &probe);
    std::string skip = skip_reason(probe, CG_FREEZER);
    if (!skip.empty()) {
        MESSAGE("skipped: " << skip);
        return;
    }
    REQUIRE(probe.version[CG_FREEZER] == 1);
    REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);  // the daemon comes here when its parent exits
    cgroup_wants w = {};
    w.kill_switch = true;
    char why[512] = "";
    Cleanup cleanup;
    cleanup.run = cgroup_create(&host, &probe, &w, why, sizeof why);
    REQUIRE_MESSAGE(cleanup.run != nullptr, why);
    REQUIRE(cleanup.run->ndirs == 1);
    std::string dir = cleanup.run->dirs[0].path;
    Pipe go, report;
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // once released: leaves a daemon behind and exits
        char c;
        if (read(go.fds[0], &c, 1) != 1)
            _exit(1);
        pid_t daemon = fork();
        if (daemon == 0) {
            setsid();
            for (;;)
                pause();
        }
        _exit(write(report.fds[1], &daemon, sizeof daemon) == (ssize_t)sizeof daemon ? 0 : 1);
    }
    cleanup.pids.push_back(child);
    REQUIRE(cgroup_attach(cleanup.run, child, why, sizeof why));
    REQUIRE(write(go.fds[1], "g", 1) == 1);
    pid_t daemon = 0;
    REQUIRE(read(report.fds[0], &daemon, sizeof daemon) == (ssize_t)sizeof daemon);
    cleanup.pids.push_back(daemon);
    int status;
    REQUIRE(cleanup.reaped_within(child, 2000, &status));
    CHECK(ends_with(cgroup_line(daemon, probe, CG_FREEZER), "/" + run_name(getpid())));
    cgroup_finish(cleanup.run);
    REQUIRE(cleanup.reaped_within(daemon, 2000, &status));
    CHECK(killed_by_sigkill(status));
    CHECK_FALSE(exists(dir));
}
