// Tests of compiler/seccomp_profile: the intent itself. Its invariants (sorted rules,
// disjoint cases), the answers an attacker's calls must get (high-word garbage, x32, foreign
// architectures), the difference the two policy switches make, and docs/seccomp.md documenting
// every rule.
#include <doctest/doctest.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>

#include "bpf_check.h"
#include "seccomp_profile.h"
#include "syscall_table.h"

using namespace tartaros::seccomp;

namespace {

constexpr uint32_t kX32 = 0x40000000u;
constexpr uint64_t kHigh = 0x100000000ull;  // 1 in the high word

SeccompData call(std::string_view name, std::initializer_list<uint64_t> args = {})
{
    SeccompData d;
    d.nr = *syscall_number(name);
    size_t i = 0;
    for (uint64_t a : args)
        d.args[i++] = a;
    return d;
}

Action answer(ProfileFlags flags, const SeccompData &d)
{
    return Profile(flags).intended(d);
}

const ProfileFlags kHarden{true, false}, kBaseline{false, false}, kDenyUnix{true, true};

}  // namespace

TEST_CASE("seccomp profile: rules are sorted, unique, and their cases disjoint")
{
    for (ProfileFlags flags : {kHarden, kBaseline, kDenyUnix, ProfileFlags{false, true}}) {
        const Profile profile(flags);
        const auto &rules = profile.rules();
        REQUIRE_FALSE(rules.empty());
        for (size_t i = 1; i < rules.size(); i++)
            CHECK(rules[i - 1].nr < rules[i].nr);
        for (const SyscallRule &r : rules) {
            CAPTURE(r.nr);
            CHECK(r.name == syscall_name(r.nr));
            CHECK_FALSE(r.why.empty());
            if (!flags.harden)
                CHECK_FALSE(r.hardening);
            if (!r.cases.empty())
                CHECK(r.otherwise == Action::allow());
        }
        for (const SeccompData &d : profile.validation_inputs()) {
            const SyscallRule *r = profile.rule_for(d.nr);
            if (r == nullptr || d.arch != TP_ARCH_X86_64)
                continue;
            int holding = 0;
            for (const Case &c : r->cases) {
                bool all = true;
                for (const ArgTest &t : c.when)
                    all = all && t.holds(d);
                holding += all;
            }
            CHECK_MESSAGE(holding <= 1, "overlapping cases in " << r->name);
        }
    }
}

TEST_CASE("seccomp profile: the prologue kills foreign architectures and x32, lets -1 pass")
{
    SeccompData d = call("getpid");
    d.arch = 0x40000003u;  // i386: int 0x80
    CHECK(answer(kBaseline, d) == Action::kill());
    d = call("getpid");
    d.nr |= kX32;
    CHECK(answer(kBaseline, d) == Action::kill());
    d.nr = 0xfffffffeu;
    CHECK(answer(kBaseline, d) == Action::kill());
    d.nr = 0xffffffffu;
    CHECK(answer(kHarden, d) == Action::allow());
    CHECK(answer(kHarden, call("getpid")) == Action::allow());
    CHECK(answer(kHarden, call("read")) == Action::allow());
}

TEST_CASE("seccomp profile: socket families are judged on the low 32 bits")
{
    constexpr uint64_t kUnix = 1, kInet = 2, kInet6 = 10, kNetlink = 16, kVsock = 40, kPacket = 17, kAlg = 38;
    for (ProfileFlags flags : {kHarden, kBaseline}) {
        CHECK(answer(flags, call("socket", {kUnix, 1, 0})) == Action::allow());
        CHECK(answer(flags, call("socket", {kHigh | kUnix, 1, 0})) == Action::allow());
        CHECK(answer(flags, call("socket", {kInet, 1, 0})) == Action::allow());
        CHECK(answer(flags, call("socket", {kInet6, 2, 17})) == Action::allow());
        CHECK(answer(flags, call("socket", {kNetlink, 3, 0})) == Action::allow());
        CHECK(answer(flags, call("socket", {kVsock, 1, 0})) == Action::error(EAFNOSUPPORT));
        CHECK(answer(flags, call("socket", {kPacket, 3, 0})) == Action::error(EAFNOSUPPORT));
        CHECK(answer(flags, call("socket", {kAlg, 5, 0})) == Action::error(EAFNOSUPPORT));
        CHECK(answer(flags, call("socket", {0xffffffff00000000ull | kVsock, 1, 0})) == Action::error(EAFNOSUPPORT));
        CHECK(answer(flags, call("socket", {kInet, 1, 262})) == Action::error(EPROTONOSUPPORT));
        CHECK(answer(flags, call("socket", {kInet6, 1, kHigh | 262})) == Action::error(EPROTONOSUPPORT));
        CHECK(answer(flags, call("socket", {kNetlink, 3, 9})) == Action::error(EPROTONOSUPPORT));
        CHECK(answer(flags, call("socket", {kNetlink, 3, kHigh})) == Action::allow());
        CHECK(answer(flags, call("socketpair", {kUnix, 1, 0})) == Action::allow());
        CHECK(answer(flags, call("socketpair", {kInet, 1, 0})) == Action::error(EAFNOSUPPORT));
    }
    CHECK(answer(kDenyUnix, call("socket", {kUnix, 1, 0})) == Action::error(EPERM));
    CHECK(answer(kDenyUnix, call("socket", {kHigh | kUnix, 1, 0})) == Action::error(EPERM));
    CHECK(answer(kDenyUnix, call("socketpair", {kUnix, 1, 0})) == Action::error(EPERM));
    CHECK(answer(kDenyUnix, call("socket", {kInet, 1, 0})) == Action::allow());
}

TEST_CASE("seccomp profile: hardening refuses what docs/seccomp.md lists, the baseline does not")
{
    for (std::string_view name : {"ptrace",
                                  "process_vm_readv",
                                  "bpf",
                                  "mount",
                                  "umount2",
                                  "pivot_root",
                                  "open_tree",
                                  "move_mount",
                                  "fsopen",
                                  "mount_setattr",
                                  "open_tree_attr",
                                  "unshare",
                                  "setns",
                                  "open_by_handle_at",
                                  "keyctl",
                                  "userfaultfd",
                                  "perf_event_open",
                                  "init_module",
                                  "kexec_load",
                                  "reboot",
                                  "syslog",
                                  "iopl",
                                  "acct",
                                  "quotactl_fd"}) {
        CAPTURE(name);
        CHECK(answer(kHarden, call(name)) == Action::error(EPERM));
        CHECK(answer(kBaseline, call(name)) == Action::allow());
    }
    CHECK(answer(kHarden, call("clone3")) == Action::error(ENOSYS));
    CHECK(answer(kBaseline, call("clone3")) == Action::allow());
    for (ProfileFlags flags : {kHarden, kBaseline})
        CHECK(answer(flags, call("io_uring_setup")) == Action::error(ENOSYS));
    SeccompData future;
    future.nr = kTableMaxNr + 1;
    CHECK(answer(kHarden, future) == Action::error(ENOSYS));
    future.nr = kFutureMaxNr;
    CHECK(answer(kHarden, future) == Action::error(ENOSYS));
    future.nr = kFutureMaxNr + 1;
    CHECK(answer(kHarden, future) == Action::allow());
}

TEST_CASE("seccomp profile: argument rules of the hardening (clone, personality, ioctl)")
{
    constexpr uint64_t kSigchld = 17, kNewUser = 0x10000000, kNewNet = 0x40000000, kThread = 0x00010f00;
    CHECK(answer(kHarden, call("clone", {kSigchld})) == Action::allow());
    CHECK(answer(kHarden, call("clone", {kThread})) == Action::allow());
    CHECK(answer(kHarden, call("clone", {kNewUser | kSigchld})) == Action::error(EPERM));
    CHECK(answer(kHarden, call("clone", {kHigh | kNewNet})) == Action::error(EPERM));
    // The kernel truncates clone's flags to 32 bits: a namespace bit above them asks for nothing.
    CHECK(answer(kHarden, call("clone", {(kNewUser << 32) | kSigchld})) == Action::allow());
    CHECK(answer(kBaseline, call("clone", {kNewUser | kSigchld})) == Action::allow());

    CHECK(answer(kHarden, call("personality", {0})) == Action::allow());
    CHECK(answer(kHarden, call("personality", {0xffffffff})) == Action::allow());
    CHECK(answer(kHarden, call("personality", {0xffffffffffffffffull})) == Action::allow());
    CHECK(answer(kHarden, call("personality", {0x0040000})) == Action::error(EPERM));  // ADDR_NO_RANDOMIZE
    CHECK(answer(kHarden, call("personality", {kHigh | 8})) == Action::error(EPERM));  // PER_LINUX32

    CHECK(answer(kHarden, call("ioctl", {0, 0x5412})) == Action::error(EPERM));  // TIOCSTI
    CHECK(answer(kHarden, call("ioctl", {0, kHigh | 0x5412})) == Action::error(EPERM));
    CHECK(answer(kHarden, call("ioctl", {0, 0x541C})) == Action::error(EPERM));  // TIOCLINUX
    CHECK(answer(kHarden, call("ioctl", {0, 0x5413})) == Action::allow());       // TIOCGWINSZ
    CHECK(answer(kBaseline, call("ioctl", {0, 0x5412})) == Action::allow());
}

TEST_CASE("seccomp profile: validation inputs cover every number, x32 and every argument boundary")
{
    const Profile profile(kDenyUnix);
    const std::vector<SeccompData> inputs = profile.validation_inputs();
    std::vector<bool> native(kFutureMaxNr + 1), x32(kFutureMaxNr + 1);
    bool foreign = false, garbage_family = false, mptcp_neighbour = false;
    for (const SeccompData &d : inputs) {
        if (d.arch != TP_ARCH_X86_64)
            foreign = true;
        else if (d.nr <= kFutureMaxNr)
            native[d.nr] = true;
        else if ((d.nr & kX32) && (d.nr & ~kX32) <= kFutureMaxNr)
            x32[d.nr & ~kX32] = true;
        if (d.nr == 41 && d.args[0] == (0xffffffff00000000ull | 1))
            garbage_family = true;
        if (d.nr == 41 && static_cast<uint32_t>(d.args[2]) == 263)
            mptcp_neighbour = true;
    }
    for (uint32_t nr = 0; nr <= kFutureMaxNr; nr++) {
        CAPTURE(nr);
        CHECK(native[nr]);
        CHECK(x32[nr]);
    }
    CHECK(foreign);
    CHECK(garbage_family);
    CHECK(mptcp_neighbour);
    CHECK(inputs == profile.validation_inputs());
}

TEST_CASE("seccomp profile: docs/seccomp.md documents every rule")
{
    std::ifstream in(TARTAROS_SOURCE_DIR "/docs/seccomp.md");
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    const std::string doc = text.str();
    const size_t section = doc.find("# Syscall hardening (seccomp)\n");
    REQUIRE(section != std::string::npos);
    const std::string tables = doc.substr(section, doc.find("\n# ", section + 1) - section);
    const Profile profile(kDenyUnix);
    for (const SyscallRule &r : profile.rules()) {
        if (r.name.empty())
            continue;
        CAPTURE(r.name);
        CHECK(tables.find("`" + std::string(r.name) + "`") != std::string::npos);
    }
    CHECK(tables.find("470–511") != std::string::npos);
}
