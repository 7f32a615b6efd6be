// tests/enforcer/fake_cgroupfs.cpp — see fake_cgroupfs.h.
#include "fake_cgroupfs.h"

#include <doctest/doctest.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace {

int remove_entry(const char *path, const struct stat *, int, struct FTW *)
{
    return remove(path);
}

}  // namespace

FakeCgroupfs::FakeCgroupfs()
{
    char tmpl[] = "/tmp/tartaros-cgroupfs-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    root = tmpl;
    proc_path_ = root + "/proc-self-cgroup";
    mountinfo_path_ = root + "/mountinfo";
    file("/mountinfo", "");
}

FakeCgroupfs::~FakeCgroupfs()
{
    nftw(root.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void FakeCgroupfs::dir(const std::string &rel) const
{
    std::string path = root;
    std::stringstream parts(rel);
    for (std::string part; std::getline(parts, part, '/');) {
        if (part.empty())
            continue;
        path += "/" + part;
        mkdir(path.c_str(), 0755);
    }
}

void FakeCgroupfs::file(const std::string &rel, const std::string &content) const
{
    dir(rel.substr(0, rel.rfind('/')));
    std::ofstream out(root + rel, std::ios::trunc);
    out << content;
    REQUIRE(out.good());
}

std::string FakeCgroupfs::read(const std::string &rel) const
{
    std::ifstream in(root + rel);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

bool FakeCgroupfs::exists(const std::string &rel) const
{
    struct stat st;
    return lstat((root + rel).c_str(), &st) == 0;
}

void FakeCgroupfs::proc_self_cgroup(const std::string &text) const
{
    file("/proc-self-cgroup", text);
}

void FakeCgroupfs::mount(const std::string &mount_root, const std::string &mount_point, const std::string &fstype,
                         const std::string &super)
{
    int id = next_mount_id_++;
    mountinfo_ += std::to_string(id) + " 30 0:" + std::to_string(id) + " " + mount_root + " " + mount_point +
        " rw,nosuid,nodev,noexec,relatime shared:" + std::to_string(id) + " - " + fstype + " " + fstype + " " + super +
        "\n";
    file("/mountinfo", mountinfo_);
}

void FakeCgroupfs::fresh_cgroup_files(const std::vector<std::string> &files)
{
    files_ = files;
    file_ptrs_.clear();
    for (const std::string &f : files_)
        file_ptrs_.push_back(f.c_str());
    file_ptrs_.push_back(nullptr);
}

cgroup_host FakeCgroupfs::host(pid_t self) const
{
    return {proc_path_.c_str(), mountinfo_path_.c_str(), root.c_str(), self,
            file_ptrs_.empty() ? nullptr : file_ptrs_.data()};
}

void hybrid_like_this_machine(FakeCgroupfs &fs)
{
    fs.proc_self_cgroup("9:name=systemd:/\n8:pids:/\n7:blkio:/\n6:freezer:/\n5:devices:/\n"
                        "4:memory:/process_api/abc\n3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n0::/\n");
    fs.file("/mountinfo", "");
    fs.mount("/", "/sys/fs/cgroup", "tmpfs", "rw,mode=755");
    for (const char *c : {"cpu", "cpuacct", "memory", "freezer", "pids"})
        fs.mount("/", std::string("/sys/fs/cgroup/") + c, "cgroup", std::string("rw,") + c);
    fs.mount("/", "/sys/fs/cgroup/systemd", "cgroup", "rw,xattr,name=systemd");
    fs.mount("/", "/sys/fs/cgroup/unified", "cgroup2", "rw,nsdelegate");
    for (const char *d : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/memory/process_api/abc",
                          "/sys/fs/cgroup/freezer", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/systemd"})
        fs.file(std::string(d) + "/cgroup.procs", "1\n17\n");
    fs.file("/sys/fs/cgroup/unified/cgroup.controllers", "hugetlb\n");
    fs.file("/sys/fs/cgroup/unified/cgroup.subtree_control", "");
    fs.file("/sys/fs/cgroup/unified/cgroup.procs", "1\n17\n");
}

void pure_v2_scope(FakeCgroupfs &fs, const std::string &procs)
{
    fs.proc_self_cgroup("0::/user.slice/run.scope\n");
    fs.mount("/", "/sys/fs/cgroup", "cgroup2", "rw,nsdelegate,memory_recursiveprot");
    const std::string own = kV2Scope;
    fs.file(own + "/cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
    fs.file(own + "/cgroup.subtree_control", "");
    fs.file(own + "/cgroup.type", "domain\n");
    fs.file(own + "/cgroup.procs", procs);
}

std::vector<std::string> all_control_files()
{
    return {"cgroup.procs=",
            "cgroup.kill=",
            "cgroup.freeze=0\n",
            "cgroup.events=populated 0\nfrozen 0\n",
            "pids.max=max\n",
            "pids.events=max 0\n",
            "memory.max=max\n",
            "memory.swap.max=max\n",
            "memory.events=low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n",
            "memory.peak=0\n",
            "cpu.max=max 100000\n",
            "memory.limit_in_bytes=9223372036854771712\n",
            "memory.memsw.limit_in_bytes=9223372036854771712\n",
            "memory.max_usage_in_bytes=0\n",
            "memory.oom_control=oom_kill_disable 0\nunder_oom 0\noom_kill 0\n",
            "cpu.cfs_period_us=100000\n",
            "cpu.cfs_quota_us=-1\n",
            "freezer.state=THAWED\n"};
}

std::string run_name(pid_t self)
{
    return "tartaros-" + std::to_string(self);
}
