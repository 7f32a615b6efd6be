// The seccomp filter tartaros-proxy loads is the one exported at build time with this
// process's pid written in: byte for byte what libseccomp builds from the rules for that pid
// now (test_confine.cpp checks what the filter does); and the binary tree the rules ask
// libseccomp for answers every call as its default chain of comparisons does.
#include <doctest/doctest.h>

#include <linux/audit.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <iterator>
#include <vector>

#include "bpf_interp.h"
#include "proxy_filter_bpf.h"
#include "proxy_filter_rules.h"

namespace {

// `chain`: libseccomp's default layout instead of the binary tree the rules ask for.
std::vector<sock_filter> libseccomp_program(uint32_t pid, bool chain = false)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    REQUIRE(ctx != nullptr);
    const int fd = memfd_create("proxy-filter", MFD_CLOEXEC);
    REQUIRE(fd >= 0);
    REQUIRE(tproxy::add_proxy_filter_rules(ctx, pid) == 0);
    if (chain)
        REQUIRE(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 1) == 0);
    REQUIRE(seccomp_export_bpf(ctx, fd) == 0);
    seccomp_release(ctx);
    const off_t size = lseek(fd, 0, SEEK_END);
    REQUIRE(size > 0);
    std::vector<sock_filter> insns(static_cast<size_t>(size) / sizeof(sock_filter));
    REQUIRE(pread(fd, insns.data(), static_cast<size_t>(size), 0) == size);
    close(fd);
    return insns;
}

uint32_t answer(const std::vector<sock_filter> &prog, const tp_seccomp_data &data)
{
    static_assert(sizeof(sock_filter) == sizeof(tp_bpf_insn));
    const tp_bpf_result r =
        tp_bpf_evaluate(reinterpret_cast<const tp_bpf_insn *>(prog.data()), static_cast<uint32_t>(prog.size()), &data);
    REQUIRE(r.fault == TP_BPF_FAULT_NONE);
    return r.ret;
}

bool same(const std::vector<sock_filter> &a, const std::vector<sock_filter> &b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); i++)
        if (a[i].code != b[i].code || a[i].jt != b[i].jt || a[i].jf != b[i].jf || a[i].k != b[i].k)
            return false;
    return true;
}

}  // namespace

TEST_CASE("proxy filter: the exported program, its pid written, is libseccomp's for that pid")
{
    std::vector<sock_filter> exported(std::begin(tproxy::kProxyFilter), std::end(tproxy::kProxyFilter));
    CHECK(tproxy::proxy_filter_placeholders(exported.data(), exported.size()) == 1);
    CHECK(same(exported, libseccomp_program(tproxy::kProxyFilterPidPlaceholder)));
    for (uint32_t pid : {static_cast<uint32_t>(getpid()), 1u, 4194304u}) {
        std::vector<sock_filter> patched = exported;
        tproxy::proxy_filter_set_pid(patched.data(), patched.size(), pid);
        CHECK(tproxy::proxy_filter_placeholders(patched.data(), patched.size()) == 0);
        CHECK(same(patched, libseccomp_program(pid)));
    }
}

TEST_CASE("proxy filter: the binary tree answers every call as libseccomp's chain does")
{
    const uint32_t pid = 4242;
    const std::vector<sock_filter> tree = libseccomp_program(pid), chain = libseccomp_program(pid, true);
    CHECK_FALSE(same(tree, chain));
    // Each argument value a rule tests, one either side of it, and values no rule names.
    const uint64_t values[] = {0,
                               1,
                               AF_INET,
                               AF_INET6,
                               AF_UNIX,
                               AF_NETLINK,
                               AF_PACKET,
                               CLONE_THREAD,
                               CLONE_THREAD | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND,
                               CLONE_VM | CLONE_VFORK,
                               FIONREAD,
                               FIONREAD + 1,
                               pid - 1,
                               pid,
                               pid + 1,
                               0xffffffffull,
                               0x100000000ull | pid,
                               ~0ull};
    size_t compared = 0;
    for (uint32_t arch : {uint32_t{AUDIT_ARCH_X86_64}, uint32_t{AUDIT_ARCH_I386}, 0u}) {
        for (uint32_t nr = 0; nr < 1024; nr++) {
            for (uint32_t x32 : {0u, 0x40000000u}) {
                for (uint64_t v : values) {
                    tp_seccomp_data data = {};
                    data.nr = nr | x32;
                    data.arch = arch;
                    data.args[0] = data.args[1] = v;
                    CHECK(answer(tree, data) == answer(chain, data));
                    compared++;
                }
            }
        }
    }
    CHECK(compared == 3u * 1024 * 2 * std::size(values));
}
