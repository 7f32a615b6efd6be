// Tests of the policy's syscall rules and included files downstream of the model: the lowering
// writes them into plan format 6 (records, values, origins naming the right file), write-protects
// the included files like the policy file, rebuilds the profile from the records it wrote; the
// verifier refuses a plan whose rules or files are not the policy's; --explain lists the rules
// with their origins; and the two checks of syscall_rule_checks.h report through the lowering.
// Policies are built by hand (the .tart front-end is tested on its own).
#include <doctest/doctest.h>

#include <cerrno>
#include <sstream>
#include <string>
#include <vector>

#include "bpf_check.h"
#include "bpf_eval.h"
#include "explain.h"
#include "fake_host.h"
#include "lower.h"
#include "plan_bytes.h"
#include "plan_reader.h"
#include "syscall_table.h"
#include "verify.h"

using namespace tartaros;
using plan_bytes::get_u32;
using plan_bytes::put_u32;
using plan_bytes::reseal;
using plan_bytes::section_data;

namespace {

constexpr const char *kPolicy = "/w/agent.tart";
constexpr const char *kRules = "/w/rules.tart";         // inside the writable root
constexpr const char *kShared = "/etc/tart/base.tart";  // outside it

SourcePos at(const char *file, uint32_t line, uint32_t col = 5)
{
    return SourcePos{file, line, col};
}

SyscallCondition cond(SyscallCondition::Kind kind, uint8_t arg, std::vector<uint32_t> values)
{
    return SyscallCondition{kind, arg, std::move(values), {}};
}

SyscallDenyRule deny(std::string_view name, std::vector<SyscallCondition> when, SourcePos pos, uint16_t err = EPERM,
                     bool kill = false)
{
    SyscallDenyRule r;
    r.pos = pos;
    r.name = {std::string(name), SourcePos{pos.file, pos.line, pos.col + 5}};
    r.nr = *seccomp::syscall_number(name);
    r.when = std::move(when);
    r.err = err;
    r.kill = kill;
    return r;
}

// agent.tart includes rules.tart (beside it, in the writable root) and base.tart (elsewhere).
Policy rules_policy()
{
    using K = SyscallCondition::Kind;
    Policy p;
    p.source_path = kPolicy;
    p.sources = {{"agent.tart", kPolicy}, {"rules.tart", kRules}, {"/etc/tart/base.tart", kShared}};
    p.version = {1, at("agent.tart", 1, 1)};
    p.fs.writable_roots = {{"/w", at("agent.tart", 4, 20)}};
    p.syscalls.rules = {
        deny("ioctl", {cond(K::In, 1, {0x541b})}, at("rules.tart", 3), EACCES),
        deny("kcmp", {cond(K::In, 0, {1}), cond(K::AnyBit, 2, {0x6})}, at("/etc/tart/base.tart", 2), 0, true),
        deny("kcmp", {}, at("agent.tart", 7)),
        deny("mmap", {cond(K::NoBit, 3, {0x20}), cond(K::In, 4, {0xffffff9c})}, at("agent.tart", 8, 70000), EINVAL),
    };
    return p;
}

struct Compiled {
    std::vector<uint8_t> bytes;
    Diagnostics diags;
};

Compiled compile(const Policy &policy)
{
    FakeHost host;
    Compiled c;
    LowerOptions options;
    options.host = &host;
    c.bytes = lower_policy(policy, options, c.diags);
    return c;
}

std::string explained(const std::vector<uint8_t> &bytes, bool json)
{
    std::ostringstream out;
    std::string err;
    REQUIRE_MESSAGE(explain_plan(bytes, json, out, err), err);
    return out.str();
}

bool has(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

std::string verdict(const std::vector<uint8_t> &bytes, const Policy &policy)
{
    FakeHost host;
    LowerOptions options;
    options.host = &host;
    return verify_plan(bytes, policy, options).value_or("");
}

}  // namespace

TEST_CASE("syscall rules plan: rules, tests, values and included files are written as the policy says")
{
    const Compiled c = compile(rules_policy());
    REQUIRE_MESSAGE(!c.bytes.empty(), (c.diags.all().empty() ? "" : c.diags.all().back().message));
    plan_bytes::Buf b(c.bytes);
    const plan_bytes::Result r = plan_bytes::open_plan(b.mem.get(), b.len);
    REQUIRE(r.rc == 0);
    const tp_plan &p = r.plan;
    REQUIRE(p.source_count == 2);
    CHECK(std::string(tp_plan_str(&p, p.sources[0])) == kRules);
    CHECK(std::string(tp_plan_str(&p, p.sources[1])) == kShared);
    REQUIRE(p.syscall_rule_count == 4);
    CHECK(p.syscall_rules[0].nr == 16);
    CHECK(p.syscall_rules[0].action == (TP_RET_ERRNO | EACCES));
    CHECK(p.syscall_rules[0].origin.line == 3);
    CHECK(p.syscall_rules[0].origin.file == 1);
    CHECK(p.syscall_rules[1].action == TP_RET_KILL_PROCESS);
    CHECK(p.syscall_rules[1].origin.file == 2);
    CHECK(p.syscall_rules[2].test_count == 0);
    CHECK(p.syscall_rules[2].origin.file == 0);
    CHECK(p.syscall_rules[3].origin.col == 65535);  // clamped
    REQUIRE(p.syscall_test_count == 5);
    CHECK(p.syscall_tests[2].kind == TP_ARG_ANY_BIT);
    CHECK(p.syscall_tests[3].kind == TP_ARG_NO_BIT);
    const std::vector<uint32_t> values(p.syscall_values, p.syscall_values + p.syscall_value_count);
    CHECK(values == std::vector<uint32_t>{0x541b, 1, 0x6, 0x20, 0xffffff9c});
    CHECK(p.exec->origin.file == 0);
}

TEST_CASE("syscall rules plan: the filter answers as the rules say, the high word ignored")
{
    const Compiled c = compile(rules_policy());
    REQUIRE(!c.bytes.empty());
    plan_bytes::Buf b(c.bytes);
    const plan_bytes::Result r = plan_bytes::open_plan(b.mem.get(), b.len);
    REQUIRE(r.rc == 0);
    const std::span<const tp_bpf_insn> prog(r.plan.seccomp_prog, r.plan.seccomp_insn_count);
    auto answer = [&](uint32_t nr, std::vector<uint64_t> args) {
        seccomp::SeccompData d;
        d.nr = nr;
        for (size_t i = 0; i < args.size(); i++)
            d.args[i] = args[i];
        return seccomp::evaluate(prog, d).ret;
    };
    CHECK(answer(16, {0, 0x541b}) == (TP_RET_ERRNO | EACCES));
    CHECK(answer(16, {0, 0x1'0000'541bull}) == (TP_RET_ERRNO | EACCES));
    CHECK(answer(16, {0, 0x5412}) == (TP_RET_ERRNO | EPERM));  // the hardening's TIOCSTI
    CHECK(answer(16, {0, 0x5413}) == TP_RET_ALLOW);
    CHECK(answer(312, {1, 0, 2}) == TP_RET_KILL_PROCESS);
    CHECK(answer(312, {1, 0, 8}) == (TP_RET_ERRNO | EPERM));
    CHECK(answer(312, {0xffffffff'00000001ull, 0, 4}) == TP_RET_KILL_PROCESS);
    CHECK(answer(9, {0, 0, 0, 0x22, 0xffffffffffffff9cull}) == TP_RET_ALLOW);
    CHECK(answer(9, {0, 0, 0, 0x2, 0xffffff9c}) == (TP_RET_ERRNO | EINVAL));
}

TEST_CASE("syscall rules plan: an included file in a writable root is write-protected like the policy file")
{
    const Compiled c = compile(rules_policy());
    REQUIRE(!c.bytes.empty());
    plan_bytes::Buf b(c.bytes);
    const plan_bytes::Result r = plan_bytes::open_plan(b.mem.get(), b.len);
    REQUIRE(r.rc == 0);
    std::vector<std::string> denied;
    for (uint32_t i = 0; i < r.plan.mount_count; i++)
        if (r.plan.mounts[i].op == TP_MNT_WRITE_DENY)
            denied.emplace_back(tp_plan_str(&r.plan, r.plan.mounts[i].path));
    CHECK(std::find(denied.begin(), denied.end(), kPolicy) != denied.end());
    CHECK(std::find(denied.begin(), denied.end(), kRules) != denied.end());
    CHECK(std::find(denied.begin(), denied.end(), kShared) == denied.end());  // read-only already

    Policy outside = rules_policy();
    outside.fs.writable_roots = {{"/w/src", at("agent.tart", 4, 20)}};
    const Compiled o = compile(outside);
    REQUIRE(!o.bytes.empty());
    CHECK_FALSE(has(explained(o.bytes, false), "write_deny /w/rules.tart"));
    CHECK(has(explained(c.bytes, false), "write_deny /w/rules.tart"));
}

TEST_CASE("syscall rules plan: the verifier refuses rules or included files that are not the policy's")
{
    const Policy policy = rules_policy();
    const Compiled c = compile(policy);
    REQUIRE(!c.bytes.empty());
    CHECK(verdict(c.bytes, policy).empty());

    std::vector<uint8_t> errno_changed = c.bytes;
    const size_t rules = section_data(c.bytes, TP_SEC_SYSCALL_RULES);
    put_u32(errno_changed, rules + offsetof(tp_syscall_rule, action), TP_RET_ERRNO | EPERM);
    reseal(errno_changed);
    CHECK(verdict(errno_changed, policy) == "the plan's syscall rules are not the policy's");

    std::vector<uint8_t> moved = c.bytes;  // the origin names the policy file, not rules.tart
    put_u32(moved, rules + offsetof(tp_syscall_rule, origin) + 4, 5);
    reseal(moved);
    CHECK(verdict(moved, policy) == "the plan's syscall rules are not the policy's");

    Policy fewer = policy;
    fewer.syscalls.rules.pop_back();
    CHECK(verdict(c.bytes, fewer) == "the plan's syscall rules are not the policy's");

    Policy other_file = policy;
    other_file.sources[2].absolute = "/etc/tart/other.tart";
    CHECK(verdict(c.bytes, other_file) == "the plan's included files are not the policy's");
}

TEST_CASE("syscall rules plan: --explain lists the policy's rules after the built-in ones, with their files")
{
    const Compiled c = compile(rules_policy());
    REQUIRE(!c.bytes.empty());
    const std::string text = explained(c.bytes, false);
    CHECK(has(text, "policy: /w/agent.tart (version 1)\n  includes: /w/rules.tart\n  includes: /etc/tart/base.tart\n"));
    CHECK(has(text, "   policy rules (after the baseline and hardening"));
    CHECK(has(text, "     rules.tart:3:5  deny ioctl when arg1 == 0x541b: ERRNO(EACCES)\n"));
    CHECK(has(text, "     /etc/tart/base.tart:2:5  deny kcmp when arg0 == 0x1 and arg2 & 0x6 != 0: KILL_PROCESS\n"));
    CHECK(has(text, "     agent.tart:7:5  deny kcmp: ERRNO(EPERM)\n"));
    CHECK(
        has(text, "     agent.tart:8:65535  deny mmap when arg3 & 0x20 == 0 and arg4 == 0xffffff9c: ERRNO(EINVAL)\n"));
    CHECK(has(text, "         ERRNO(EACCES) for arg1 == 0x541b (policy rule at rules.tart:3:5)\n"));
    CHECK(has(text, "     kcmp (312): ALLOW except  (the policy's own syscall rules)\n"));
    CHECK(text.find("   policy rules (") > text.find("     clone3 (435)"));
    CHECK(text.find("   policy rules (") < text.find("   disassembly:"));

    const std::string json = explained(c.bytes, true);
    CHECK(has(json, "\"includes\":[\"/w/rules.tart\",\"/etc/tart/base.tart\"]"));
    CHECK(has(json,
              "\"policy_rules\":[{\"nr\":16,\"name\":\"ioctl\",\"when\":\"arg1 == 0x541b\",\"action\":"
              "\"ERRNO(EACCES)\",\"applies\":true,\"origin\":{\"file\":\"rules.tart\",\"line\":3,\"col\":5}}"));
    CHECK(has(json, "\"origin\":{\"file\":\"/etc/tart/base.tart\",\"line\":2,\"col\":5}"));
    CHECK(has(json,
              "{\"nr\":312,\"name\":\"kcmp\",\"action\":\"ALLOW\",\"why\":\"the policy's own syscall rules\","
              "\"hardening\":false,\"policy\":true,\"policy_rule\":null,\"cases\":[{\"when\":"));
}

TEST_CASE("syscall rules plan: a rule that breaks the start is an error, a shadowed one a warning")
{
    using K = SyscallCondition::Kind;
    Policy p = rules_policy();
    p.syscalls.rules.push_back(deny("execve", {}, at("agent.tart", 9)));
    p.syscalls.rules.push_back(deny("exit_group", {cond(K::In, 0, {3})}, at("agent.tart", 10), 0, true));
    Compiled broken = compile(p);
    CHECK(broken.bytes.empty());
    REQUIRE(broken.diags.error_count() == 2);
    CHECK(broken.diags.all()[0].rule_id == "syscall-rule-breaks-start");
    CHECK(broken.diags.all()[0].pos.line == 9);
    CHECK(broken.diags.all()[0].pos.col == 10);  // the syscall's name
    CHECK(has(broken.diags.all()[1].message, "deny exit_group would keep processes from ending"));

    Policy q = rules_policy();
    q.syscalls.rules.push_back(deny("ptrace", {}, at("agent.tart", 11), EACCES));
    q.syscalls.rules.push_back(deny("kcmp", {cond(K::In, 0, {9})}, at("rules.tart", 12)));
    q.syscalls.rules.push_back(deny("execveat", {cond(K::AnyBit, 4, {0x1000})}, at("agent.tart", 13)));
    const Compiled c = compile(q);
    CHECK_FALSE(c.bytes.empty());
    std::vector<std::string> shadowed;
    for (const Diagnostic &d : c.diags.all()) {
        CHECK(d.rule_id == "syscall-rule-shadowed");
        CHECK(d.severity == Severity::Warning);
        shadowed.push_back(d.pos.file + ":" + std::to_string(d.pos.line) + ": " + d.message);
    }
    CHECK(shadowed ==
          std::vector<std::string>{
              "agent.tart:11: this rule never applies: the hardening already answers every ptrace call "
              "it covers (ERRNO(EPERM) for every call), and a policy rule cannot change a built-in "
              "answer; remove it",
              "rules.tart:12: this rule never applies: the rule at agent.tart:7:5 already decides "
              "every kcmp call it covers, and the first rule that holds decides; remove it, or move it "
              "before that rule"});
    CHECK(has(explained(c.bytes, false),
              "agent.tart:11:5  deny ptrace: ERRNO(EACCES)  (never applies: the "
              "hardening already answers every ptrace call it covers"));
}

TEST_CASE("syscall rules plan: rules no filter can hold are refused with a reason, not a plan")
{
    using K = SyscallCondition::Kind;
    Policy p = rules_policy();
    p.syscalls.rules = {
        deny("ioctl", {cond(K::In, 0, {2, 3}), cond(K::NotIn, 1, {1, 0x10000000}), cond(K::NotIn, 2, {0, 0x10001})},
             at("agent.tart", 3))};
    const Compiled c = compile(p);
    CHECK(c.bytes.empty());
    REQUIRE(c.diags.error_count() == 1);
    CHECK(c.diags.all()[0].rule_id == "seccomp-build");
    CHECK(has(c.diags.all()[0].message, "more than 2048 chains of comparisons"));

    std::vector<uint32_t> many;
    for (uint32_t v = 0; v < 5000; v++)
        many.push_back(v * 977);
    p.syscalls.rules = {deny("kcmp", {cond(K::NotIn, 0, many)}, at("agent.tart", 3))};
    const Compiled d = compile(p);
    CHECK(d.bytes.empty());
    REQUIRE(d.diags.error_count() == 1);
    CHECK(d.diags.all()[0].rule_id == "seccomp-build");
    CHECK(has(d.diags.all()[0].message, "too intricate"));
}

TEST_CASE("syscall rules plan: the same policy gives the same bytes, and no rule gives none of the sections")
{
    CHECK(compile(rules_policy()).bytes == compile(rules_policy()).bytes);
    Policy none = rules_policy();
    none.syscalls.rules.clear();
    none.sources.resize(1);
    const Compiled c = compile(none);
    REQUIRE(!c.bytes.empty());
    plan_bytes::Buf b(c.bytes);
    const plan_bytes::Result r = plan_bytes::open_plan(b.mem.get(), b.len);
    REQUIRE(r.rc == 0);
    CHECK(r.plan.source_count == 0);
    CHECK(r.plan.syscall_rule_count == 0);
    CHECK(get_u32(c.bytes, offsetof(tp_header, format_version)) == 7);
}
