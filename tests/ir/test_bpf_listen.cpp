// Unit tests of the listener program (ir/bpf_listen.h): on every compiled profile, over the
// whole validation input set of the profile, the listener program returns what the plan's
// filter returns when that is a kill, USER_NOTIF when it is an errno, and the mediator's
// rules' answer when it is an allow; and the errno the mediator answers (the plan's filter
// run by ir/bpf_interp.h on the same input) is the plan's own.
#include <doctest/doctest.h>

#include <vector>

#include "bpf_check.h"
#include "bpf_eval.h"
#include "bpf_interp.h"
#include "bpf_listen.h"
#include "seccomp_lower.h"
#include "seccomp_profile.h"
#include "syscall_names.h"

using namespace tartaros::seccomp;

namespace {

using Prog = std::vector<tp_bpf_insn>;

constexpr ProfileFlags kAllFlags[] = {{false, false}, {false, true}, {true, false}, {true, true}};
constexpr uint32_t kExecve = 59, kConnect = 42, kExecveat = 322, kBind = 49, kSendto = 44, kSendmsg = 46,
                   kSendmmsg = 307;

// The mediator's rules with the effect log (ir/bpf_listen.h).
Prog mediator_rules(bool execs)
{
    Prog out(TP_MEDIATOR_RULES_MAX);
    out.resize(tp_mediator_rules(execs, out.data()));
    return out;
}
const Prog kTail = mediator_rules(true);

// What the mediator's rules notify: connect, bind, every sendmsg and sendmmsg, sendto with an
// address; execs with the log.
bool notifies(const SeccompData &d, bool execs)
{
    if (d.nr == kConnect || d.nr == kBind || d.nr == kSendmsg || d.nr == kSendmmsg ||
        (execs && (d.nr == kExecve || d.nr == kExecveat)))
        return true;
    return d.nr == kSendto && d.args[4] != 0;
}

Prog listener_for(const Prog &plan)
{
    Prog out(TP_BPF_MAXINSNS);
    const uint32_t len = tp_bpf_listener_program(plan.data(), static_cast<uint32_t>(plan.size()), kTail.data(),
                                                 static_cast<uint32_t>(kTail.size()), out.data(), TP_BPF_MAXINSNS);
    REQUIRE(len == plan.size() + kTail.size());
    out.resize(len);
    return out;
}

uint32_t action(uint32_t ret)
{
    return ret & TP_RET_ACTION_FULL;
}

}  // namespace

TEST_CASE("the listener program keeps kills and notifies denials and mediated calls on every profile")
{
    for (const ProfileFlags flags : kAllFlags) {
        CAPTURE(flags.harden);
        CAPTURE(flags.deny_unix);
        const Profile profile(flags);
        const Prog plan = lower_seccomp(profile);
        const Prog listener = listener_for(plan);
        size_t denials = 0, kills = 0, mediated = 0;
        profile.visit_validation_inputs([&](const SeccompData &d) {
            const uint32_t p = evaluate(plan, d).ret;
            const uint32_t l = evaluate(listener, d).ret;
            if (action(p) == TP_RET_ERRNO) {
                denials++;
                CHECK(l == TP_RET_USER_NOTIF);
            } else if (p == TP_RET_ALLOW) {
                const bool notified = notifies(d, true);
                mediated += notified;
                CHECK(l == (notified ? TP_RET_USER_NOTIF : TP_RET_ALLOW));
            } else {
                kills++;
                CHECK(l == p);
            }
        });
        CHECK(denials > 100);
        CHECK(kills > 100);
        CHECK(mediated > 0);
    }
}

TEST_CASE("the mediator's rules notify connect, bind, sendmsg, sendmmsg and sendto with an address, all 64 bits of it")
{
    for (const bool execs : {false, true}) {
        CAPTURE(execs);
        const Prog rules = mediator_rules(execs);
        CHECK(rules.size() <= TP_MEDIATOR_RULES_MAX);
        for (const uint32_t nr :
             {kConnect, kBind, kSendto, kSendmsg, kSendmmsg, kExecve, kExecveat, 0u, 45u /* recvfrom */,
              47u /* recvmsg */, 299u /* recvmmsg */, 1u /* write */, 20u /* writev */}) {
            for (const uint64_t addr : {0ull, 1ull, 0x7ffc00000000ull, 0x100000000ull, ~0ull}) {
                SeccompData d{};
                d.nr = nr;
                d.args[4] = addr;
                CAPTURE(nr);
                CAPTURE(addr);
                CHECK(evaluate(rules, d).ret == (notifies(d, execs) ? TP_RET_USER_NOTIF : TP_RET_ALLOW));
            }
        }
    }
}

TEST_CASE("the mediator's verdict on a notification is the plan's errno")
{
    const Profile profile({true, false});
    const Prog plan = lower_seccomp(profile);
    const Prog listener = listener_for(plan);
    for (const SeccompData &d : profile.validation_inputs()) {
        if (evaluate(listener, d).ret != TP_RET_USER_NOTIF)
            continue;
        tp_seccomp_data raw = {d.nr, d.arch, d.instruction_pointer, {}};
        for (int i = 0; i < 6; i++)
            raw.args[i] = d.args[i];
        const tp_bpf_result r = tp_bpf_evaluate(plan.data(), static_cast<uint32_t>(plan.size()), &raw);
        REQUIRE(r.fault == TP_BPF_FAULT_NONE);
        CHECK(r.ret == evaluate(plan, d).ret);
    }
}

TEST_CASE("a listener program that would not fit is refused")
{
    const Prog plan = lower_seccomp(Profile({true, true}));
    Prog out(TP_BPF_MAXINSNS);
    const auto n = static_cast<uint32_t>(plan.size());
    CHECK(tp_bpf_listener_program(plan.data(), n, kTail.data(), 6, out.data(), n + 5) == 0);
    CHECK(tp_bpf_listener_program(plan.data(), n, kTail.data(), 0, out.data(), TP_BPF_MAXINSNS) == 0);
    const Prog huge(TP_BPF_MAXINSNS - 5, plan.back());
    CHECK(tp_bpf_listener_program(huge.data(), static_cast<uint32_t>(huge.size()), kTail.data(), 6, out.data(),
                                  TP_BPF_MAXINSNS) == 0);
}

TEST_CASE("the interpreter reports faults instead of running off the program")
{
    const tp_seccomp_data d = {};
    const Prog far_jump = {{TP_BPF_JMP | TP_BPF_JA, 0, 0, 5}, {TP_BPF_RET | TP_BPF_K, 0, 0, TP_RET_ALLOW}};
    tp_bpf_result r = tp_bpf_evaluate(far_jump.data(), 2, &d);
    CHECK(r.fault == TP_BPF_FAULT_PATH);
    CHECK(r.fault_pc == 0);
    const Prog bad_load = {{TP_BPF_LD | TP_BPF_W | TP_BPF_ABS, 0, 0, 64}, {TP_BPF_RET | TP_BPF_K, 0, 0, 0}};
    r = tp_bpf_evaluate(bad_load.data(), 2, &d);
    CHECK(r.fault == TP_BPF_FAULT_LOAD);
    CHECK(r.fault_value == 64);
    CHECK(tp_bpf_evaluate(bad_load.data(), 0, &d).fault == TP_BPF_FAULT_LENGTH);
}

TEST_CASE("the shared syscall names agree with the numbers the mediator sees")
{
    CHECK(std::string(tp_syscall_name(0)) == "read");
    CHECK(std::string(tp_syscall_name(101)) == "ptrace");
    CHECK(std::string(tp_syscall_name(272)) == "unshare");
    CHECK(std::string(tp_syscall_name(TP_SYSCALL_MAX_NR)) == "file_setattr");
    CHECK(tp_syscall_name(400) == nullptr);
    CHECK(tp_syscall_name(TP_SYSCALL_MAX_NR + 1) == nullptr);
    CHECK(tp_syscall_name(0xffffffffu) == nullptr);
}
