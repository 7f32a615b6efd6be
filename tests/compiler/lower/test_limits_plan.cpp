// Tests of the limit sections: lowering ([process] limits → TP_SEC_LIMITS, TP_SEC_RLIMITS),
// the compiler's check of them (verify_limits) and the limits step of --explain on hosts
// with cgroup v1, cgroup v2 and no usable cgroup.
#include <doctest/doctest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "explain.h"
#include "fake_host.h"
#include "json_checker.h"
#include "plan_reader.h"
#include "plan_writer.h"
#include "verify.h"
#include "verify_limits.h"

using namespace tartaros;
using tartaros::test::JsonChecker;

namespace {

SourcePos at(uint32_t line, uint32_t col = 1)
{
    return SourcePos{"/w/policy.toml", line, col};
}

Policy limits_policy()
{
    Policy p;
    p.source_path = "/w/policy.toml";
    p.process.max_processes = Located<uint64_t>{512, at(3, 17)};
    p.process.memory_max = Located<uint64_t>{4ull << 30, at(4, 14)};
    p.process.cpu_max = Located<uint32_t>{50000, at(5, 11)};
    p.process.timeout = Located<uint64_t>{1800000, at(6, 11)};
    p.process.rlimits = {{7, 1024, 4096, at(7, 13)}, {3, 8ull << 20, 8ull << 20, at(7, 52)}};
    return p;
}

// Plan bytes, 8-aligned for the reader.
struct Opened {
    std::vector<uint8_t> bytes;
    std::vector<uint64_t> words;
    tp_plan plan{};

    explicit Opened(std::vector<uint8_t> b) : bytes(std::move(b))
    {
        words.assign(bytes.size() / 8 + 1, 0);
        std::memcpy(words.data(), bytes.data(), bytes.size());
        char err[256];
        REQUIRE_MESSAGE(tp_plan_open(reinterpret_cast<const uint8_t *>(words.data()),
                                     static_cast<uint32_t>(bytes.size()), &plan, err, sizeof err) == 0,
                        err);
    }
};

std::vector<uint8_t> compile(const Policy &policy)
{
    FakeHost host;
    LowerOptions options;
    options.host = &host;
    Diagnostics diags;
    std::vector<uint8_t> bytes = lower_policy(policy, options, diags);
    REQUIRE_MESSAGE(!bytes.empty(), (diags.all().empty() ? "" : diags.all().back().message));
    return bytes;
}

std::string rlimits_of(const tp_plan &p)
{
    std::string out;
    for (uint32_t i = 0; i < p.rlimit_count; i++) {
        const tp_rlimit &r = p.rlimits[i];
        out += std::to_string(r.resource) + ":" + std::to_string(r.soft) + "/" + std::to_string(r.hard) + "@" +
            std::to_string(r.origin.line) + "," + std::to_string(r.origin.col) + " ";
    }
    return out;
}

// A hand-made plan with the given limits and rlimits (for verify's refusals).
std::vector<uint8_t> plan_with(const tp_limits *limits, bool required, const std::vector<tp_rlimit> &rlimits)
{
    ir::PlanWriter w;
    if (limits)
        w.set_limits(*limits, required);
    for (const tp_rlimit &r : rlimits)
        w.add_rlimit(r);
    return w.finish();
}

cgroup_probe probe(int version, const char *why = "")
{
    cgroup_probe p{};
    for (int c = 0; c < CG_CONTROLLER_COUNT; c++) {
        p.version[c] = version;
        std::snprintf(p.why_not[c], sizeof p.why_not[c], "%s", why);
    }
    return p;
}

std::string explain(const std::vector<uint8_t> &plan, const cgroup_probe &host, bool json)
{
    std::ostringstream out;
    std::string err;
    REQUIRE_MESSAGE(explain_plan(plan, json, host, out, err), err);
    return out.str();
}

bool has(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("limits plan: no limit writes no limits section and only core = 0")
{
    Opened o(compile(Policy{}));
    CHECK(o.plan.limits == nullptr);
    CHECK(rlimits_of(o.plan) == "4:0/0@0,0 ");
    CHECK(o.plan.header->format_version == 7);
}

TEST_CASE("limits plan: every limit with its origin in a required section")
{
    Opened o(compile(limits_policy()));
    REQUIRE(o.plan.limits != nullptr);
    CHECK(o.plan.limits_section_flags == TP_SECF_REQUIRED);
    const tp_limits &l = *o.plan.limits;
    CHECK(l.max_processes == 512);
    CHECK(l.memory_max == 4ull << 30);
    CHECK(l.cpu_quota_us == 50000);
    CHECK(l.cpu_period_us == TP_CPU_PERIOD_US);
    CHECK(l.timeout_ms == 1800000);
    CHECK(l.grace_ms == kDefaultTimeoutGraceMs);
    CHECK(l.max_processes_origin.line == 3);
    CHECK(l.max_processes_origin.col == 17);
    CHECK(l.memory_max_origin.line == 4);
    CHECK(l.cpu_max_origin.line == 5);
    CHECK(l.timeout_origin.line == 6);
    // Ascending resource order, whatever the policy's; core = 0 added by default.
    CHECK(rlimits_of(o.plan) == "3:8388608/8388608@7,52 4:0/0@0,0 7:1024/4096@7,13 ");
}

TEST_CASE("limits plan: one limit alone and the grace")
{
    Policy p;
    p.source_path = "/w/policy.toml";
    p.process.timeout = Located<uint64_t>{90000, at(3)};
    p.process.timeout_grace = Located<uint64_t>{250, at(4)};
    Opened o(compile(p));
    REQUIRE(o.plan.limits != nullptr);
    CHECK(o.plan.limits->timeout_ms == 90000);
    CHECK(o.plan.limits->grace_ms == 250);
    CHECK(o.plan.limits->max_processes == 0);
    CHECK(o.plan.limits->cpu_quota_us == 0);
    CHECK(o.plan.limits->cpu_period_us == 0);
    CHECK(o.plan.limits->max_processes_origin.line == 0);

    Policy q;
    q.source_path = "/w/policy.toml";
    q.process.cpu_max = Located<uint32_t>{1000, at(3)};
    Opened c(compile(q));
    REQUIRE(c.plan.limits != nullptr);
    CHECK(c.plan.limits->cpu_period_us == TP_CPU_PERIOD_US);
    CHECK(c.plan.limits->timeout_ms == 0);
    CHECK(c.plan.limits->grace_ms == 0);
}

TEST_CASE("limits plan: a policy's core replaces the default")
{
    Policy p;
    p.source_path = "/w/policy.toml";
    p.process.rlimits = {{4, kRlimUnlimited, kRlimUnlimited, at(5, 3)}};
    Opened o(compile(p));
    CHECK(rlimits_of(o.plan) == "4:18446744073709551615/18446744073709551615@5,3 ");
}

TEST_CASE("limits plan: the same policy gives the same bytes")
{
    CHECK(compile(limits_policy()) == compile(limits_policy()));
    Policy reordered = limits_policy();
    std::swap(reordered.process.rlimits[0], reordered.process.rlimits[1]);
    Opened a(compile(limits_policy())), b(compile(reordered));
    CHECK(rlimits_of(a.plan) == rlimits_of(b.plan));
}

TEST_CASE("limits verify: a compiled plan implements its policy and no other")
{
    const Policy policy = limits_policy();
    Opened o(compile(policy));
    CHECK(verify_limits(o.plan, policy) == std::nullopt);

    Policy other = policy;
    other.process.memory_max->value = 2ull << 30;
    CHECK(verify_limits(o.plan, other) == "limits: memory_max differs from the policy's");
    other = policy;
    other.process.max_processes->pos = at(9, 17);
    CHECK(verify_limits(o.plan, other) == "limits: max_processes differs from the policy's");
    other = policy;
    other.process.cpu_max.reset();
    CHECK(verify_limits(o.plan, other) == "limits: the CPU quota or period differs from the policy's cpu_max");
    other = policy;
    other.process.timeout_grace = Located<uint64_t>{1000, at(8)};
    CHECK(verify_limits(o.plan, other) == "limits: the timeout's grace differs from the policy's");
    other = policy;
    other.process.rlimits[0].soft = 512;
    CHECK(verify_limits(o.plan, other) == "limits: rlimit resource 7 differs from the policy's");
    other = policy;
    other.process.rlimits.push_back({0, 60, 60, at(7, 80)});
    CHECK(verify_limits(o.plan, other) == "limits: the plan sets 3 rlimits, the policy 4 (core included)");
    other = Policy{};
    other.process.rlimits = policy.process.rlimits;
    CHECK(verify_limits(o.plan, other) == "limits: the plan has a limits section, the policy sets no limit");
}

TEST_CASE("limits verify: hand-made plans that miss the default core or the required flag")
{
    const Policy policy = limits_policy();
    Opened good(compile(policy));
    const tp_limits l = *good.plan.limits;
    const tp_rlimit stack{3, 0, 8ull << 20, 8ull << 20, {7, 52, 0}};
    const tp_rlimit core{4, 0, 0, 0, {0, 0, 0}};
    const tp_rlimit nofile{7, 0, 1024, 4096, {7, 13, 0}};
    CHECK(verify_limits(Opened(plan_with(&l, true, {stack, core, nofile})).plan, policy) == std::nullopt);
    CHECK(verify_limits(Opened(plan_with(&l, false, {stack, core, nofile})).plan, policy) ==
          "limits: the limits section is not required");
    CHECK(verify_limits(Opened(plan_with(nullptr, true, {stack, core, nofile})).plan, policy) ==
          "limits: the plan has no limits section, the policy sets limits");
    CHECK(verify_limits(Opened(plan_with(&l, true, {stack, nofile})).plan, policy) ==
          "limits: the plan sets 2 rlimits, the policy 3 (core included)");
    const tp_rlimit data{2, 0, 0, 0, {0, 0, 0}};
    CHECK(verify_limits(Opened(plan_with(&l, true, {data, stack, nofile})).plan, policy) ==
          "limits: rlimit 0 is resource 2, not 3");
    tp_rlimit core_set = core;
    core_set.soft = core_set.hard = 1;
    CHECK(verify_limits(Opened(plan_with(&l, true, {stack, core_set, nofile})).plan, policy) ==
          "limits: rlimit resource 4 differs from the policy's");
}

TEST_CASE("limits explain: cgroup v1 names each file and the helpers")
{
    const std::string text = explain(compile(limits_policy()), probe(1), false);
    CHECK(has(text,
              "\n9. limits: max_processes, memory_max, cpu_max, timeout (required: a --strict run refuses one "
              "this host cannot enforce)\n"));
    CHECK(has(text,
              "   9.1 max_processes 512  policy.toml:3:17\n"
              "        - cgroup v1 pids (pids.max = 512 + the enforcer's helpers: init, and the connect mediator "
              "and the socket factory when they run)\n"
              "        - a process that forks past it gets EAGAIN (threads count too)\n"));
    CHECK(has(text,
              "   9.2 memory_max 4G  policy.toml:4:14\n"
              "        - cgroup v1 memory (memory.limit_in_bytes = 4294967296; swap is not extra)\n"
              "        - the OOM killer ends a process of the sandbox at memory_max; when it is the command the "
              "run exits 137; either way a tartaros: line says so\n"));
    CHECK(has(text,
              "   9.3 cpu_max 0.5 CPU  policy.toml:5:11\n"
              "        - cgroup v1 cpu (cpu.cfs_quota_us = 50000, cpu.cfs_period_us = 100000)\n"));
    CHECK(has(text,
              "   9.4 timeout 30m  policy.toml:6:11\n"
              "        - wall clock from the start: SIGTERM to the command, then SIGKILL of every process of the "
              "sandbox after a grace of 5s; the run exits 137 with a tartaros: line naming the timeout\n"
              "        - the supervisor's timer, outside the sandbox: no cgroup needed\n"));
    CHECK(has(text, "   9.5 rlimit stack 8M  policy.toml:7:52\n"));
    CHECK(has(text,
              "   9.6 rlimit core 0  (default)\n"
              "        - implied: no core dumps of the agent's memory are left behind\n"));
    CHECK(has(text, "   9.7 rlimit nofile soft 1024, hard 4096  policy.toml:7:13\n"));
    CHECK(has(text,
              "   - rlimits: set by the command just before it executes and inherited by its descendants, never "
              "above the hard limit tartaros-exec runs with (lowered to it); no cgroup needed\n"));
    CHECK(has(text,
              "   - leftovers (a daemonised child, a forgotten server) are killed at the end of the run: the PID "
              "namespace's init is killed last and takes every process with it, and the run's cgroup is frozen "
              "and each process SIGKILLed\n"));
    CHECK(text.rfind("\n8. exec") < text.find("\n9. limits"));
}

TEST_CASE("limits explain: cgroup v2 files and cgroup.kill")
{
    const std::string text = explain(compile(limits_policy()), probe(2), false);
    CHECK(has(text, "        - cgroup v2 pids (pids.max = 512 + "));
    CHECK(has(text, "        - cgroup v2 memory (memory.max = 4294967296, memory.swap.max = 0)\n"));
    CHECK(has(text, "        - cgroup v2 cpu (cpu.max = \"50000 100000\")\n"));
    CHECK(has(text, "and the run's cgroup is emptied with cgroup.kill\n"));
}

TEST_CASE("limits explain: without a cgroup a strict run refuses and the rest falls back or is lost")
{
    const std::string text = explain(compile(limits_policy()), probe(0, "no permission"), false);
    CHECK(has(text,
              "   9.1 max_processes 512  policy.toml:3:17\n"
              "        - no cgroup here (no permission): RLIMIT_NPROC = 512 + the helpers, set by the command "
              "before it executes; the kernel counts it per user namespace and uid, so in the sandbox's own "
              "user namespace it counts exactly the sandbox's tasks, none of the caller's others, and the "
              "command cannot raise it\n"
              "        - that holds for a caller who is not root, in the sandbox's user namespace: the kernel "
              "never applies RLIMIT_NPROC to root, and without a user namespace it counts every process of the "
              "caller; then a --strict run refuses and a run without it warns\n"
              "        - a process that forks past it gets EAGAIN (threads count too)\n"));
    CHECK(has(text,
              "   9.2 memory_max 4G  policy.toml:4:14\n"
              "        - not enforceable by a cgroup here (no permission): not enforced (a --strict run refuses)\n"
              "   9.3 cpu_max"));
    CHECK(has(text,
              "   9.3 cpu_max 0.5 CPU  policy.toml:5:11\n"
              "        - not enforceable by a cgroup here (no permission): not enforced (a --strict run refuses)\n"
              "   9.4 timeout"));
    CHECK(has(text, "no cgroup needed"));
    CHECK(
        has(text, "at the end of the run: the PID namespace's init is killed last and takes every process with it\n"));

    Policy no_pidns = Policy{};
    no_pidns.process.isolate_pids = {false, at(3)};
    const std::string bare = explain(compile(no_pidns), probe(0, "no permission"), false);
    CHECK(has(bare, "9. limits: no cgroup limit, no timeout; rlimits only\n"));
    CHECK(has(bare,
              "   - leftovers are not guaranteed to end with the run here: no PID namespace and no cgroup "
              "(no permission)\n"));
    CHECK(has(explain(compile(no_pidns), probe(1), false),
              "killed at the end of the run: the run's cgroup is frozen and each process SIGKILLed\n"));
}

TEST_CASE("limits explain: JSON carries the same content")
{
    const std::string json = explain(compile(limits_policy()), probe(0, "no permission"), true);
    CHECK(JsonChecker(json).document());
    CHECK(has(json,
              "{\"step\":\"limits\",\"required\":true,\"limits\":[{\"limit\":\"max_processes\",\"value\":512,"
              "\"text\":\"512\",\"mechanism\":\"RLIMIT_NPROC\",\"enforced\":\"rlimit\",\"origin\":{\"file\":"
              "\"policy.toml\",\"line\":3,\"col\":17},\"notes\":[\"no cgroup here (no permission)"));
    CHECK(has(json,
              "{\"limit\":\"memory_max\",\"value\":4294967296,\"text\":\"4G\",\"mechanism\":\"not enforced\","
              "\"enforced\":\"none\""));
    CHECK(has(json,
              "{\"limit\":\"timeout\",\"value\":1800000,\"text\":\"30m\",\"grace_ms\":5000,\"mechanism\":"
              "\"the supervisor's timer\",\"enforced\":\"supervisor\""));
    CHECK(has(json,
              "\"rlimits\":[{\"resource\":\"stack\",\"number\":3,\"soft\":8388608,\"hard\":8388608,\"origin\":"
              "{\"file\":\"policy.toml\",\"line\":7,\"col\":52}},{\"resource\":\"core\",\"number\":4,\"soft\":0,"
              "\"hard\":0,\"origin\":null},"));
    CHECK(has(json, "},{\"step\":\"limits\","));
    const size_t exec = json.find("{\"step\":\"exec\"");
    CHECK(exec < json.find("{\"step\":\"limits\""));

    Policy unlimited;
    unlimited.source_path = "/w/policy.toml";
    unlimited.process.rlimits = {{4, kRlimUnlimited, kRlimUnlimited, at(5, 3)}};
    const std::string u = explain(compile(unlimited), probe(1), true);
    CHECK(JsonChecker(u).document());
    CHECK(has(u, "{\"resource\":\"core\",\"number\":4,\"soft\":\"unlimited\",\"hard\":\"unlimited\""));
    CHECK(has(explain(compile(unlimited), probe(1), false), "rlimit core unlimited  policy.toml:5:3\n"));
}

TEST_CASE("limits explain: the session and fds 0-2, with and without the hardening")
{
    Policy hardened;
    Policy baseline;
    baseline.process.harden_syscalls = {false, at(3)};
    for (const Policy *p : {&hardened, &baseline}) {
        const std::string text = explain(compile(*p), probe(1), false);
        CHECK(has(text,
                  "5. process: a session of its own; fds 0-2 never the caller's: /dev/null reopened in the "
                  "sandbox's /dev, a file, pipe or socket relayed through a pipe"));
        CHECK(has(text, "the caller's terminal relayed through a pseudo-terminal of the sandbox's own devpts"));
    }
}
