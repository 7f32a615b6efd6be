// tests/enforcer/fake_cgroupfs.h — a cgroupfs stand-in in a temp dir: the /proc/self/cgroup
// and mountinfo texts, and cgroup directories whose control files are plain files. cgroup_host
// points into it (root = the temp dir), so the code under test reads and writes only there.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "cgroup_probe.h"

class FakeCgroupfs {
public:
    FakeCgroupfs();
    ~FakeCgroupfs();
    FakeCgroupfs(const FakeCgroupfs &) = delete;
    FakeCgroupfs &operator=(const FakeCgroupfs &) = delete;

    std::string root;  // the temp dir; every path below is relative to it

    void dir(const std::string &rel) const;                               // mkdir -p
    void file(const std::string &rel, const std::string &content) const;  // with its directories
    std::string read(const std::string &rel) const;
    bool exists(const std::string &rel) const;

    void proc_self_cgroup(const std::string &text) const;
    // One mountinfo line per call: fstype "cgroup" (super = "rw,pids") or "cgroup2".
    void mount(const std::string &mount_root, const std::string &mount_point, const std::string &fstype,
               const std::string &super);

    // Files a fresh cgroup gets ("name" or "name=content"); kept alive here for cgroup_host.
    void fresh_cgroup_files(const std::vector<std::string> &files);

    cgroup_host host(pid_t self) const;

private:
    std::string mountinfo_;
    int next_mount_id_ = 30;
    std::vector<std::string> files_;
    std::vector<const char *> file_ptrs_;
    std::string proc_path_, mountinfo_path_;
};

// This machine's layout: v1 cpu, cpuacct, memory (beneath /process_api/abc), freezer, pids,
// name=systemd; cgroup2 at /sys/fs/cgroup/unified with only hugetlb and other processes.
void hybrid_like_this_machine(FakeCgroupfs &fs);

// A pure v2 host; the caller's cgroup is kV2Scope (not the root) holding `procs`.
constexpr const char *kV2Scope = "/sys/fs/cgroup/user.slice/run.scope";
void pure_v2_scope(FakeCgroupfs &fs, const std::string &procs);

// Every v1 and v2 control file the code under test touches, with a kernel's initial content.
std::vector<std::string> all_control_files();

// The "tartaros-<pid>" name of a run's cgroups.
std::string run_name(pid_t self);
