// seccomp_kernel_diff — the kernel differential test of the seccomp lowering.
//
// For each of the four profiles (harden × deny_unix), and the hardened one with a policy's own
// syscall rules of every kind (policy_rules()), the program lower_seccomp() produced is
// installed in a forked child, the child makes real system calls with exact register values,
// and what the kernel did is compared with what evaluate() (compiler/bpf_eval.h) predicts for
// the same seccomp_data and with Profile::intended(). Any difference fails the test.
//
// How nothing gets executed: the child first installs a hand-written "marker" filter that
// answers ERRNO(kMarker) to every call except exit, exit_group and its own seccomp() install
// (recognised by a cookie in an argument seccomp() ignores), then the policy filter. The kernel
// runs every filter and keeps the lowest action value; among equal actions the most recently
// installed filter's data wins (kernel/seccomp.c seccomp_run_filters). So
//   policy ALLOW    -> the marker's ERRNO(kMarker): the call is not executed;
//   policy ERRNO(e) -> e (the policy was installed last);
//   policy KILL     -> the child dies of SIGSYS.
// exit and exit_group pass the marker, so when they are the tested call their status argument
// is set to kExecutedStatus: an exit with that status means "allowed".
//
// A child runs cases until one kills it; the parent then starts a new child at the next case.
// The child reports each case in shared memory (no syscall needed), marking it started before
// the call and done after it, so a death is attributed to exactly one case.
//
// Cases: every native number 0..kFutureMaxNr and beyond (all of validation_inputs() on the
// native architecture: junk arguments, each case's witness moved to every number, argument
// boundaries), a sample of x32 numbers (each kills the child, and a fork costs 5 ms on this
// VM), and i386 calls through `int $0x80` (arch AUDIT_ARCH_I386, 32-bit registers) when the
// kernel has a 32-bit entry at all. A calibration pass first runs every case under the marker
// alone: a case that does not come back as the marker's errno never reaches seccomp on this
// kernel (the PVM guest CI runs on handles numbers 335 and 336 before the seccomp hook), so it
// is reported and left out; no filter could decide it.
//
// Root runs every profile twice: as root and, after setresuid(65534), as an unprivileged user
// (how the enforcer loads the filter: no_new_privs, no capability). Exit 0 when the kernel, the
// evaluator and the intent agree on every case.
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "bpf_check.h"
#include "bpf_eval.h"
#include "seccomp_lower.h"
#include "seccomp_profile.h"
#include "syscall_table.h"

namespace ts = tartaros::seccomp;

namespace {

constexpr uint32_t kArchI386 = 0x40000003u;  // AUDIT_ARCH_I386: what int $0x80 reports
constexpr uint32_t kX32Bit = 0x40000000u;
constexpr uint16_t kMarker = 3333;            // the marker filter's errno: "the policy allowed it"
constexpr uint32_t kCookie = 0x5ecc0de5u;     // args[3] of the child's own seccomp() install
constexpr uint64_t kExecutedStatus = 77;      // status given to a tested exit/exit_group
constexpr uint32_t kUnprivilegedId = 65534;   // nobody/nogroup
constexpr uint32_t kX32Stride = 32;           // one x32 number in 32, plus every table rule's
constexpr size_t kMaxArgumentInputs = 20000;  // per profile; beyond it, an even sample
constexpr uint64_t kI386Junk = 0x5a5a5a5au;   // untested i386 registers
constexpr unsigned kChildAlarmSeconds = 60;   // a child that hangs dies of SIGALRM

// Native numbers of the calls the marker lets through.
constexpr uint32_t kNrExit = 60, kNrExitGroup = 231, kNrSeccomp = 317;

// i386 numbers (arch/x86/entry/syscalls/syscall_32.tbl) worth a case beyond the sample:
// exit, read, write, open, execve, getpid, mount, ptrace, ioctl, socketcall, clone,
// personality, exit_group, unshare, setns, bpf, socket, socketpair, io_uring_setup, clone3.
constexpr uint32_t kI386Named[] = {1,   3,   4,   5,   11,  20,  21,  26,  54,  102,
                                   120, 136, 252, 310, 346, 357, 359, 360, 425, 435};
constexpr uint32_t kI386Stride = 16;  // and one number in 16 up to kFutureMaxNr

enum class Abi : uint8_t { Native, I386 };

struct TestCase {
    Abi abi = Abi::Native;
    ts::SeccompData data;  // exactly what the kernel's seccomp_data holds (the ip aside)
};

// What a filter did to a call, at the granularity the kernel lets a process observe: the two
// kill actions look the same from outside a single-threaded child.
struct Outcome {
    enum class Kind : uint8_t { Allow, Errno, Kill, Died, Other };
    Kind kind = Kind::Other;
    uint32_t detail = 0;  // the errno; for Died the wait status; for Other the value: a call
                          // that returned neither an errno nor the marker, or an unknown action
    bool operator==(const Outcome &) const = default;
};

Outcome outcome_of_ret(uint32_t ret)
{
    uint32_t action = ret & TP_RET_ACTION_FULL;
    if (action == TP_RET_ALLOW)
        return {Outcome::Kind::Allow, 0};
    if (action == TP_RET_ERRNO)
        return {Outcome::Kind::Errno, ret & TP_RET_DATA};
    if (action == TP_RET_KILL_PROCESS || action == TP_RET_KILL_THREAD)
        return {Outcome::Kind::Kill, 0};
    return {Outcome::Kind::Other, ret};
}

std::string describe(const Outcome &o)
{
    switch (o.kind) {
    case Outcome::Kind::Allow: return "ALLOW";
    case Outcome::Kind::Errno: return "ERRNO(" + std::to_string(o.detail) + ")";
    case Outcome::Kind::Kill: return "KILL";
    case Outcome::Kind::Died: break;
    case Outcome::Kind::Other: {
        char buf[32];
        std::snprintf(buf, sizeof buf, "other(0x%x)", o.detail);
        return buf;
    }
    }
    int status = static_cast<int>(o.detail);
    if (!WIFSIGNALED(status))
        return "exited " + std::to_string(WEXITSTATUS(status));
    const char *sig = sigabbrev_np(WTERMSIG(status));
    return "died of " + (sig ? "SIG" + std::string(sig) : "signal " + std::to_string(WTERMSIG(status)));
}

// The call's name: `openat`, `#0x1f4` beyond the table, `x32:read`, `i386#3`.
std::string call_name(const TestCase &c)
{
    const ts::SeccompData &d = c.data;
    std::string name;
    if (c.abi == Abi::I386) {
        name = "i386#" + std::to_string(d.nr);
    } else if (d.nr >= kX32Bit && d.nr <= (kX32Bit | ts::kFutureMaxNr)) {
        std::string_view n = ts::syscall_name(d.nr & ~kX32Bit);
        name = "x32:" + (n.empty() ? "#" + std::to_string(d.nr & ~kX32Bit) : std::string(n));
    } else {
        std::string_view n = ts::syscall_name(d.nr);
        char buf[24];
        std::snprintf(buf, sizeof buf, "#0x%x", d.nr);
        name = n.empty() ? std::string(buf) : std::string(n);
    }
    return name;
}

std::string describe(const TestCase &c)
{
    const ts::SeccompData &d = c.data;
    std::string name = call_name(c) + "(";
    for (int i = 0; i < 6; i++) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s0x%" PRIx64, i ? ", " : "", d.args[i]);
        name += buf;
    }
    return name + ")";
}

// ---- the child side: raw calls, no libc after the filters are in ----

long native_call(uint32_t nr, const uint64_t (&a)[6])
{
    long ret = static_cast<int32_t>(nr);  // the kernel reads the number from eax
    register uint64_t r10 asm("r10") = a[3];
    register uint64_t r8 asm("r8") = a[4];
    register uint64_t r9 asm("r9") = a[5];
    asm volatile("syscall"
                 : "+a"(ret)
                 : "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10), "r"(r8), "r"(r9)
                 : "rcx", "r11", "memory");
    return ret;
}

// A 32-bit syscall from 64-bit code: eax, then ebx ecx edx esi edi ebp. rbp is saved around
// the call by hand (it may be the frame pointer), below the red zone the compiler may be using.
long i386_call(uint32_t nr, const uint64_t (&a)[6])
{
    uint32_t eax = nr;
    uint32_t a5 = static_cast<uint32_t>(a[5]);
    asm volatile("sub $128, %%rsp\n\t"
                 "push %%rbp\n\t"
                 "mov %k[a5], %%ebp\n\t"
                 "int $0x80\n\t"
                 "pop %%rbp\n\t"
                 "add $128, %%rsp"
                 : "+a"(eax), [a5] "+r"(a5)
                 : "b"(static_cast<uint32_t>(a[0])), "c"(static_cast<uint32_t>(a[1])), "d"(static_cast<uint32_t>(a[2])),
                   "S"(static_cast<uint32_t>(a[3])), "D"(static_cast<uint32_t>(a[4]))
                 : "r8", "r9", "r10", "r11", "memory", "cc");
    return static_cast<int32_t>(eax);
}

[[noreturn]] void raw_exit(int status)
{
    const uint64_t args[6] = {static_cast<uint64_t>(status)};
    native_call(kNrExitGroup, args);
    native_call(kNrExit, args);
    __builtin_trap();  // both refused: die of SIGILL, which the parent reports
}

// Shared between parent and children (MAP_SHARED): one slot per case and what the child saw
// of its own credentials.
struct Slot {
    enum : uint32_t { Idle = 0, Started = 1, Done = 2 };
    uint32_t state;
    int64_t ret;
};
struct Shared {
    uint32_t uid_seen;
    uint32_t setup_error;  // the failed setup step, errno << 8 | step; 0 = none
    Slot *slots;           // one per case, in the same mapping, after this header
};

// ERRNO(kMarker) for everything but exit, exit_group, and seccomp() with the cookie in args[3].
constexpr sock_filter kMarkerFilter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, TP_SD_ARCH),             // 0
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TP_ARCH_X86_64, 0, 6),  // 1: foreign -> 8
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, TP_SD_NR),               // 2
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kNrExit, 5, 0),         // 3: -> 9
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kNrExitGroup, 4, 0),    // 4: -> 9
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kNrSeccomp, 0, 2),      // 5: other -> 8
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, TP_SD_ARGS + 3 * 8),     // 6: args[3] low
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kCookie, 1, 0),         // 7: -> 9
    BPF_STMT(BPF_RET | BPF_K, TP_RET_ERRNO | kMarker),          // 8
    BPF_STMT(BPF_RET | BPF_K, TP_RET_ALLOW),                    // 9
};

enum SetupStep : uint32_t { kRlimit = 1, kDumpable, kGroups, kGid, kUid, kNnp, kMarkerInstall, kPolicyInstall };

[[noreturn]] void setup_failed(Shared *sh, SetupStep step)
{
    sh->setup_error = static_cast<uint32_t>(errno) << 8 | step;
    _exit(1);
}

[[noreturn]] void child(Shared *sh, std::span<const tp_bpf_insn> policy, std::span<const TestCase> cases, size_t start,
                        bool unprivileged)
{
    // A killed child must not write a core file (core_pattern may be a relative path).
    const rlimit no_core = {0, 0};
    if (setrlimit(RLIMIT_CORE, &no_core) != 0)
        setup_failed(sh, kRlimit);
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        setup_failed(sh, kDumpable);
    if (unprivileged) {
        if (setgroups(0, nullptr) != 0)
            setup_failed(sh, kGroups);
        if (setresgid(kUnprivilegedId, kUnprivilegedId, kUnprivilegedId) != 0)
            setup_failed(sh, kGid);
        if (setresuid(kUnprivilegedId, kUnprivilegedId, kUnprivilegedId) != 0)
            setup_failed(sh, kUid);
    }
    sh->uid_seen = static_cast<uint32_t>(geteuid());
    alarm(kChildAlarmSeconds);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        setup_failed(sh, kNnp);
    sock_fprog marker = {static_cast<unsigned short>(std::size(kMarkerFilter)),
                         const_cast<sock_filter *>(kMarkerFilter)};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0u, &marker, 0ul) != 0)
        setup_failed(sh, kMarkerInstall);
    static_assert(sizeof(tp_bpf_insn) == sizeof(sock_filter));
    sock_fprog prog = {static_cast<unsigned short>(policy.size()),
                       reinterpret_cast<sock_filter *>(const_cast<tp_bpf_insn *>(policy.data()))};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0u, &prog, static_cast<unsigned long>(kCookie)) != 0)
        setup_failed(sh, kPolicyInstall);

    for (size_t i = start; i < cases.size(); i++) {
        Slot &s = sh->slots[i];
        s.state = Slot::Started;
        const TestCase &c = cases[i];
        s.ret = c.abi == Abi::I386 ? i386_call(c.data.nr, c.data.args) : native_call(c.data.nr, c.data.args);
        s.state = Slot::Done;
    }
    raw_exit(0);
}

// ---- the parent side ----

bool is_exit_call(const TestCase &c)
{
    return c.abi == Abi::Native && (c.data.nr == kNrExit || c.data.nr == kNrExitGroup);
}

Outcome outcome_of_return(int64_t ret)
{
    if (ret == -kMarker)
        return {Outcome::Kind::Allow, 0};
    if (ret < 0 && ret >= -static_cast<int64_t>(TP_MAX_ERRNO))
        return {Outcome::Kind::Errno, static_cast<uint32_t>(-ret)};
    return {Outcome::Kind::Other, static_cast<uint32_t>(ret)};
}

// How the child that died during case `c` ended.
Outcome outcome_of_death(const TestCase &c, int status)
{
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
        return {Outcome::Kind::Kill, 0};
    if (WIFEXITED(status) && static_cast<uint64_t>(WEXITSTATUS(status)) == kExecutedStatus && is_exit_call(c))
        return {Outcome::Kind::Allow, 0};
    return {Outcome::Kind::Died, static_cast<uint32_t>(status)};
}

struct Variant {
    ts::ProfileFlags flags;
    bool unprivileged;
    std::vector<ts::PolicyRule> rules = {};  // a policy's own syscall rules (seccomp_merge.h)
};

std::string variant_name(const Variant &v)
{
    return std::string("harden=") + (v.flags.harden ? "1" : "0") + " deny_unix=" + (v.flags.deny_unix ? "1" : "0") +
        (v.rules.empty() ? "" : " +" + std::to_string(v.rules.size()) + " policy rules") +
        (v.unprivileged ? " uid=65534" : " uid=" + std::to_string(geteuid()));
}

// Policy rules of every kind, some cut by the hardening's cases or by each other, on calls the
// harness does not need (not exit, exit_group or seccomp).
std::vector<ts::PolicyRule> policy_rules()
{
    using K = ts::ArgTest::Kind;
    auto nr = [](std::string_view name) { return *ts::syscall_number(name); };
    return {
        {nr("ioctl"), {{K::In, 1, {0x541b}}}, ts::Action::error(EXDEV), "r.tart:1:1"},
        {nr("kcmp"), {{K::In, 0, {1, 2}}, {K::AnyBit, 2, {0x6}}}, ts::Action::kill(), "r.tart:2:1"},
        {nr("kcmp"), {}, ts::Action::error(EPERM), "r.tart:3:1"},
        {nr("mprotect"), {{K::AnyBit, 2, {0x4}}}, ts::Action::error(EACCES), "r.tart:4:1"},
        {nr("mmap"), {{K::NoBit, 3, {0x20}}}, ts::Action::error(EINVAL), "r.tart:5:1"},
        {nr("socket"), {{K::In, 0, {2}}, {K::In, 1, {3}}}, ts::Action::error(ESOCKTNOSUPPORT), "r.tart:6:1"},
        {nr("personality"), {{K::NotIn, 0, {8}}}, ts::Action::error(EINVAL), "r.tart:7:1"},
    };
}

struct Tally {
    size_t allowed = 0, errnos = 0, killed = 0, children = 0;
    std::vector<std::string> mismatches;
};

// Runs every case in children; the kernel's outcome of case i goes to kernel[i].
// Returns an empty string, or why the run could not be completed.
std::string run_cases(std::span<const tp_bpf_insn> policy, std::span<const TestCase> cases, bool unprivileged,
                      std::vector<Outcome> &kernel, Tally &tally)
{
    size_t bytes = sizeof(Shared) + cases.size() * sizeof(Slot);
    void *mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return std::string("mmap: ") + std::strerror(errno);
    auto *sh = static_cast<Shared *>(mem);
    sh->slots = reinterpret_cast<Slot *>(sh + 1);
    std::string err;
    uint32_t want_uid = unprivileged ? kUnprivilegedId : static_cast<uint32_t>(geteuid());
    for (size_t next = 0; next < cases.size() && err.empty();) {
        std::fflush(nullptr);
        pid_t pid = fork();
        if (pid < 0) {
            err = std::string("fork: ") + std::strerror(errno);
            break;
        }
        if (pid == 0)
            child(sh, policy, cases, next, unprivileged);
        tally.children++;
        int status = 0;
        if (waitpid(pid, &status, 0) != pid) {
            err = std::string("waitpid: ") + std::strerror(errno);
            break;
        }
        if (sh->setup_error != 0) {
            err = "child setup step " + std::to_string(sh->setup_error & 0xff) +
                " failed: " + std::strerror(static_cast<int>(sh->setup_error >> 8));
            break;
        }
        if (sh->uid_seen != want_uid) {
            err = "child ran as uid " + std::to_string(sh->uid_seen) + ", not " + std::to_string(want_uid);
            break;
        }
        size_t i = next;
        for (; i < cases.size() && sh->slots[i].state == Slot::Done; i++)
            kernel[i] = outcome_of_return(sh->slots[i].ret);
        if (i == cases.size()) {
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                err = "child ended with wait status " + std::to_string(status) + " after the last case";
            next = i;
        } else if (sh->slots[i].state == Slot::Started) {
            kernel[i] = outcome_of_death(cases[i], status);
            next = i + 1;
        } else {
            err = "child died (wait status " + std::to_string(status) + ") before case " + describe(cases[i]);
        }
    }
    munmap(mem, bytes);
    return err;
}

// Compares the kernel with the evaluator and the intent; appends one line per disagreement.
void compare(const ts::Profile &profile, std::span<const tp_bpf_insn> policy, std::span<const TestCase> cases,
             std::span<const Outcome> kernel, Tally &tally)
{
    for (size_t i = 0; i < cases.size(); i++) {
        Outcome k = kernel[i];
        Outcome e = outcome_of_ret(ts::evaluate(policy, cases[i].data).ret);
        Outcome p = outcome_of_ret(profile.intended(cases[i].data).ret());
        switch (k.kind) {
        case Outcome::Kind::Allow: tally.allowed++; break;
        case Outcome::Kind::Errno: tally.errnos++; break;
        case Outcome::Kind::Kill: tally.killed++; break;
        case Outcome::Kind::Died:
        case Outcome::Kind::Other: break;
        }
        if (k == e && k == p)
            continue;
        tally.mismatches.push_back(describe(cases[i]) + (cases[i].abi == Abi::I386 ? " [i386]" : "") + ": kernel " +
                                   describe(k) + ", evaluator " + describe(e) + ", intended " + describe(p));
    }
}

// ---- the cases ----

using CaseKey = std::array<uint64_t, 8>;

class CaseSet {
public:
    void add(Abi abi, ts::SeccompData d)
    {
        if (abi == Abi::Native && (d.nr == kNrExit || d.nr == kNrExitGroup))
            d.args[0] = kExecutedStatus;  // an executed exit must be recognisable
        if (abi == Abi::Native && d.nr == kNrSeccomp && static_cast<uint32_t>(d.args[3]) == kCookie)
            d.args[3] ^= 1;  // the cookie would let the call through the marker
        CaseKey key = {static_cast<uint64_t>(abi) << 32 | d.nr,
                       d.args[0],
                       d.args[1],
                       d.args[2],
                       d.args[3],
                       d.args[4],
                       d.args[5],
                       d.arch};
        if (seen_.insert(key).second)
            cases_.push_back({abi, d});
    }
    std::vector<TestCase> take() { return std::move(cases_); }

private:
    std::set<CaseKey> seen_;
    std::vector<TestCase> cases_;
};

struct CaseCounts {
    size_t native = 0, x32 = 0, i386 = 0, arguments = 0;
};

std::vector<TestCase> build_cases(const ts::Profile &profile, bool with_i386, CaseCounts &counts)
{
    CaseSet set;
    std::set<uint32_t> rule_numbers;
    for (const ts::SyscallRule &r : profile.rules())
        rule_numbers.insert(r.nr);

    std::vector<ts::SeccompData> arguments;
    for (const ts::SeccompData &d : profile.validation_inputs()) {
        if (d.arch != TP_ARCH_X86_64)
            continue;  // only i386 is reachable from here, and it gets its own cases below
        const ts::SyscallRule *rule = profile.rule_for(d.nr);
        bool x32 = d.nr >= kX32Bit && d.nr <= (kX32Bit | (ts::kFutureMaxNr + 16));
        if (x32) {
            uint32_t base = d.nr & ~kX32Bit;
            if (base % kX32Stride == 0 || (rule_numbers.count(base) && base <= ts::kTableMaxNr)) {
                set.add(Abi::Native, d);
                counts.x32++;
            }
        } else if (rule != nullptr && !rule->cases.empty()) {
            arguments.push_back(d);
        } else {
            set.add(Abi::Native, d);
            counts.native++;
        }
    }
    size_t stride = (arguments.size() + kMaxArgumentInputs - 1) / kMaxArgumentInputs;
    for (size_t i = 0; i < arguments.size(); i += std::max<size_t>(stride, 1)) {
        set.add(Abi::Native, arguments[i]);
        counts.arguments++;
    }

    std::set<uint32_t> i386;
    if (with_i386) {
        i386.insert(std::begin(kI386Named), std::end(kI386Named));
        for (uint32_t nr = 0; nr <= ts::kFutureMaxNr; nr += kI386Stride)
            i386.insert(nr);
    }
    for (uint32_t nr : i386) {
        ts::SeccompData d;
        d.nr = nr;
        d.arch = kArchI386;
        for (uint64_t &a : d.args)
            a = kI386Junk;
        set.add(Abi::I386, d);
        counts.i386++;
    }
    return set.take();
}

// ---- driver ----

// Whether int $0x80 reaches the kernel's syscall path at all: a child with no filter asks
// getpid (i386 number 20) through it. Kernels without ia32 emulation (ia32_emulation=0, or a
// PVM guest like this project's CI machine) answer SIGSEGV: no filter ever sees such a call,
// so there is nothing to test, and the 52 i386 cases would only cost two forks each.
bool i386_reachable(std::string &why)
{
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        const rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        const uint64_t args[6] = {};
        _exit(i386_call(20, args) == getpid() ? 0 : 1);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        why = "fork failed";
        return false;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return true;
    why = "getpid through int $0x80 " + describe(Outcome{Outcome::Kind::Died, static_cast<uint32_t>(status)}) +
        " with no filter installed";
    return false;
}

// The calibration pass: the same cases under the marker and a policy that allows everything.
// Every case must come back ALLOW. One that does not never reached seccomp on this kernel (a
// number the kernel handles before its seccomp hook, or int $0x80 without ia32 emulation), so
// no filter can decide it either way: it is left out of the comparison and reported.
constexpr tp_bpf_insn kAllowEverything[] = {{BPF_RET | BPF_K, 0, 0, TP_RET_ALLOW}};
// More distinct calls than this outside seccomp means the harness, not the kernel, is broken
// (a marker that did not load would leave every case out and let the test pass empty-handed).
// This PVM guest has two (335, 336).
constexpr size_t kMaxUnfilteredCalls = 4;

struct Calibration {
    std::vector<TestCase> filtered;  // the cases seccomp decides on this kernel
    std::string unfiltered;          // the others, grouped by what happened to them
    size_t unfiltered_count = 0;
    size_t children = 0;
};

std::string calibrate(std::vector<TestCase> cases, bool unprivileged, Calibration &cal)
{
    std::vector<Outcome> kernel(cases.size());
    Tally tally;
    std::string err = run_cases(kAllowEverything, cases, unprivileged, kernel, tally);
    cal.children = tally.children;
    if (!err.empty())
        return "calibration: " + err;
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // outcome -> calls
    std::set<std::string> unfiltered_calls;
    for (size_t i = 0; i < cases.size(); i++) {
        if (kernel[i].kind == Outcome::Kind::Allow) {
            cal.filtered.push_back(cases[i]);
            continue;
        }
        cal.unfiltered_count++;
        unfiltered_calls.insert(call_name(cases[i]));
        std::string what = describe(kernel[i]);
        auto g = std::find_if(groups.begin(), groups.end(), [&](auto &p) { return p.first == what; });
        if (g == groups.end())
            g = groups.insert(groups.end(), {what, {}});
        g->second.push_back(call_name(cases[i]));
    }
    for (const auto &[what, calls] : groups) {
        cal.unfiltered += cal.unfiltered.empty() ? "" : "; ";
        cal.unfiltered += what + ":";
        std::vector<std::pair<std::string, size_t>> names;  // first-seen order, with counts
        for (const std::string &c : calls) {
            auto n = std::find_if(names.begin(), names.end(), [&](auto &p) { return p.first == c; });
            if (n == names.end())
                names.push_back({c, 1});
            else
                n->second++;
        }
        for (size_t i = 0; i < names.size() && i < 8; i++)
            cal.unfiltered +=
                " " + names[i].first + (names[i].second > 1 ? " (" + std::to_string(names[i].second) + " inputs)" : "");
        if (names.size() > 8)
            cal.unfiltered += " ...";
    }
    if (unfiltered_calls.size() > kMaxUnfilteredCalls)
        return "calibration: " + std::to_string(unfiltered_calls.size()) + " distinct calls never reach seccomp (" +
            cal.unfiltered + ")";
    return "";
}

// Runs one profile as one user; prints its summary and mismatches. Returns false on any.
bool run_variant(const Variant &v, bool with_i386)
{
    auto t0 = std::chrono::steady_clock::now();
    ts::Profile profile(v.flags, v.rules);
    std::vector<tp_bpf_insn> policy = ts::lower_seccomp(profile);
    CaseCounts counts;
    Calibration cal;
    std::string err = calibrate(build_cases(profile, with_i386, counts), v.unprivileged, cal);
    std::vector<Outcome> kernel(cal.filtered.size());
    Tally tally;
    if (err.empty())
        err = run_cases(policy, cal.filtered, v.unprivileged, kernel, tally);
    if (!err.empty()) {
        std::printf("FAIL %s: %s\n", variant_name(v).c_str(), err.c_str());
        return false;
    }
    compare(profile, policy, cal.filtered, kernel, tally);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s %s: %zu insns; %zu cases (%zu native, %zu argument, %zu x32, %zu i386), "
                "%zu never reach seccomp here; %zu allowed, %zu errno, %zu killed; "
                "%zu children, %.0f ms; %zu mismatches\n",
                tally.mismatches.empty() ? "ok  " : "FAIL", variant_name(v).c_str(), policy.size(),
                cal.filtered.size() + cal.unfiltered_count, counts.native, counts.arguments, counts.x32, counts.i386,
                cal.unfiltered_count, tally.allowed, tally.errnos, tally.killed, cal.children + tally.children, ms,
                tally.mismatches.size());
    if (cal.unfiltered_count != 0)
        std::printf("  not subject to seccomp on this kernel (left out): %s\n", cal.unfiltered.c_str());
    for (const std::string &m : tally.mismatches)
        std::printf("  mismatch: %s\n", m.c_str());
    return tally.mismatches.empty();
}

// The harness must see a difference when there is one: an allow-everything program (arch
// check only) against the hardening profile, on every native number. The kernel must agree
// with the evaluator on every case and disagree with the intent exactly where the profile
// refuses.
bool self_check()
{
    const tp_bpf_insn allow_all[] = {
        {BPF_LD | BPF_W | BPF_ABS, 0, 0, TP_SD_ARCH},
        {BPF_JMP | BPF_JEQ | BPF_K, 0, 1, TP_ARCH_X86_64},
        {BPF_RET | BPF_K, 0, 0, TP_RET_ALLOW},
        {BPF_RET | BPF_K, 0, 0, TP_RET_KILL_PROCESS},
    };
    ts::Profile profile({true, false});
    CaseSet set;
    for (uint32_t nr = 0; nr <= ts::kFutureMaxNr; nr++) {
        ts::SeccompData d;
        d.nr = nr;
        set.add(Abi::Native, d);
    }
    Calibration cal;
    std::string err = calibrate(set.take(), false, cal);
    std::vector<Outcome> kernel(cal.filtered.size());
    Tally tally;
    if (err.empty())
        err = run_cases(allow_all, cal.filtered, false, kernel, tally);
    size_t denials = 0, evaluator_disagrees = 0, intent_disagrees = 0;
    for (size_t i = 0; err.empty() && i < cal.filtered.size(); i++) {
        const ts::SeccompData &d = cal.filtered[i].data;
        denials += !(profile.intended(d) == ts::Action::allow());
        evaluator_disagrees += !(kernel[i] == outcome_of_ret(ts::evaluate(allow_all, d).ret));
        intent_disagrees += !(kernel[i] == outcome_of_ret(profile.intended(d).ret()));
    }
    bool ok = err.empty() && evaluator_disagrees == 0 && denials > 0 && intent_disagrees == denials;
    std::printf("%s self-check (allow-all program vs the hardening intent): %zu cases, %zu "
                "evaluator disagreements (want 0), %zu intent disagreements (want %zu)%s%s\n",
                ok ? "ok  " : "FAIL", cal.filtered.size(), evaluator_disagrees, intent_disagrees, denials,
                err.empty() ? "" : ": ", err.c_str());
    return ok;
}

}  // namespace

int main()
{
    try {
        bool ok = self_check();
        std::string why;
        bool with_i386 = i386_reachable(why);
        if (!with_i386)
            std::printf("note: i386 cases not run: %s (this kernel has no 32-bit syscall entry, "
                        "so no filter is ever asked about one)\n",
                        why.c_str());
        std::vector<bool> users = {false};
        if (geteuid() == 0)
            users.push_back(true);
        else
            std::printf("note: not root, so only as uid %u (root also runs as uid 65534)\n", geteuid());
        size_t failed = 0, passed = 0;
        for (bool unprivileged : users)
            for (bool harden : {false, true})
                for (bool deny_unix : {false, true}) {
                    bool pass = run_variant({{harden, deny_unix}, unprivileged}, with_i386);
                    (pass ? passed : failed)++;
                }
        for (bool unprivileged : users) {
            bool pass = run_variant({{true, false}, unprivileged, policy_rules()}, with_i386);
            (pass ? passed : failed)++;
        }
        std::printf("kernel_diff: %zu passed, %zu failed\n", passed + ok, failed + !ok);
        return ok && failed == 0 ? 0 : 1;
    } catch (const std::exception &e) {
        std::printf("kernel_diff: error: %s\n", e.what());
        return 1;
    }
}
