// The seccomp filter tartaros-proxy loads is the one exported at build time with this
// process's pid written in: byte for byte what libseccomp builds from the rules for that pid
// now (test_confine.cpp checks what the filter does).
#include <doctest/doctest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <iterator>
#include <vector>

#include "proxy_filter_bpf.h"
#include "proxy_filter_rules.h"

namespace {

std::vector<sock_filter> libseccomp_program(uint32_t pid)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    REQUIRE(ctx != nullptr);
    const int fd = memfd_create("proxy-filter", MFD_CLOEXEC);
    REQUIRE(fd >= 0);
    REQUIRE(tproxy::add_proxy_filter_rules(ctx, pid) == 0);
    REQUIRE(seccomp_export_bpf(ctx, fd) == 0);
    seccomp_release(ctx);
    const off_t size = lseek(fd, 0, SEEK_END);
    REQUIRE(size > 0);
    std::vector<sock_filter> insns(static_cast<size_t>(size) / sizeof(sock_filter));
    REQUIRE(pread(fd, insns.data(), static_cast<size_t>(size), 0) == size);
    close(fd);
    return insns;
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
