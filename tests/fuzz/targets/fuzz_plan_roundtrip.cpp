// tests/fuzz/targets/fuzz_plan_roundtrip.cpp — a differential check of the plan's two ends:
// the writer (ir/plan_writer.h, the compiler's) and the reader (ir/plan_reader.h, the
// enforcer's and the proxy's). The input describes a random valid plan — its metadata,
// namespaces, included files, environment, exec flags, limits, rlimits and syscall rules,
// every value within the ranges ir/plan.h allows, strings of any non-NUL bytes — which is
// written, read and compared field by field.
// Properties, for any valid plan:
//  - the reader accepts what the writer wrote (no valid plan is refused);
//  - what it reads is exactly what was written, every string, number and origin;
//  - writing again what was read gives the same bytes (the format has one encoding), and
//    writing is deterministic.
#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "bpf_check.h"
#include "fuzz_target.h"
#include "plan_reader.h"
#include "plan_writer.h"
#include "syscall_names.h"

namespace {

using tartaros::fuzz::Bytes;
using tartaros::ir::PlanWriter;
using tartaros::ir::SyscallTestSpec;

struct Env {
    uint32_t op;
    std::string name, value;
    tp_origin origin;
};

struct Rule {
    uint32_t nr, action;
    tp_origin origin;
    std::vector<SyscallTestSpec> tests;
};

// A plan as the fuzzer describes it, and as it is read back.
struct Spec {
    std::string policy_path, compiler;
    uint32_t policy_version = 0;
    bool has_ns = false, ns_required = false;
    uint32_t ns_flags = 0, ns_req = 0;
    std::string hostname;
    tp_origin ns_origin{};
    std::vector<std::string> sources;
    std::vector<Env> env;
    bool has_exec = false;
    uint32_t exec_flags = 0;
    tp_origin exec_origin{};
    bool has_limits = false, limits_required = false;
    tp_limits limits{};
    std::vector<tp_rlimit> rlimits;
    bool has_seccomp = false, seccomp_required = false;
    tp_seccomp seccomp{};
    std::vector<tp_bpf_insn> prog;
    std::vector<Rule> rules;
};

bool operator==(const tp_origin &a, const tp_origin &b)
{
    return a.line == b.line && a.col == b.col && a.file == b.file;
}

bool same_tests(const std::vector<SyscallTestSpec> &a, const std::vector<SyscallTestSpec> &b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); i++)
        if (a[i].arg != b[i].arg || a[i].kind != b[i].kind || a[i].values != b[i].values)
            return false;
    return true;
}

std::string text(Bytes &in, size_t max)
{
    std::string s = in.str(max);
    std::replace(s.begin(), s.end(), '\0', '.');
    return s;
}

tp_origin origin(Bytes &in, size_t sources)
{
    tp_origin o;
    o.line = in.u32();
    o.col = in.u16();
    o.file = static_cast<uint16_t>(in.u8() % (sources + 1));
    return o;
}

uint64_t pick(Bytes &in, uint64_t lo, uint64_t hi)  // 0, or a value in lo..hi
{
    uint64_t v = in.u64();
    return (v & 1) ? 0 : lo + (v >> 1) % (hi - lo + 1);
}

Spec generate(Bytes &in)
{
    Spec s;
    s.policy_path = "/" + text(in, 64);
    s.compiler = text(in, 32);
    s.policy_version = in.u32();
    for (size_t n = in.u8() % 5; n > 0; n--) {
        std::string p = "/" + text(in, 32);
        if (p != s.policy_path && std::find(s.sources.begin(), s.sources.end(), p) == s.sources.end())
            s.sources.push_back(p);
    }
    if ((s.has_ns = in.flag())) {
        s.ns_flags = in.u8() & 0x7f;
        s.ns_req = in.u8() & s.ns_flags;
        s.ns_required = in.flag();
        s.hostname = text(in, 64);
        s.ns_origin = origin(in, s.sources.size());
    }
    for (size_t n = in.u8() % 8; n > 0; n--) {
        Env e;
        e.op = in.flag() ? TP_ENV_SET : TP_ENV_PASS;
        e.name = text(in, 16);
        std::replace(e.name.begin(), e.name.end(), '=', '_');
        if (e.name.empty())
            e.name = "V";
        e.value = e.op == TP_ENV_SET ? text(in, 64) : "";
        e.origin = origin(in, s.sources.size());
        s.env.push_back(e);
    }
    if ((s.has_exec = in.flag())) {
        s.exec_flags = in.u8() & TP_EXEC_INHERIT_ENV;
        s.exec_origin = origin(in, s.sources.size());
    }
    if ((s.has_limits = in.flag())) {
        s.limits_required = in.flag();
        tp_limits &l = s.limits;
        l.max_processes = pick(in, 1, TP_MAX_PROCESSES);
        l.memory_max = pick(in, TP_MIN_MEMORY, TP_MAX_MEMORY);
        l.cpu_quota_us = static_cast<uint32_t>(pick(in, 1000, TP_MAX_CPU_QUOTA));
        l.cpu_period_us = l.cpu_quota_us ? TP_CPU_PERIOD_US : 0;
        l.timeout_ms = pick(in, 1, TP_MAX_TIMEOUT_MS);
        l.grace_ms = l.timeout_ms ? 1 + in.u32() % TP_MAX_GRACE_MS : 0;
        if (!l.max_processes && !l.memory_max && !l.cpu_quota_us && !l.timeout_ms)
            l.max_processes = 1;
        for (tp_origin *o : {&l.max_processes_origin, &l.memory_max_origin, &l.cpu_max_origin, &l.timeout_origin})
            *o = origin(in, s.sources.size());
    }
    const uint32_t resources = in.u16() & TP_RLIMIT_KNOWN;
    for (uint32_t r = 0; r < 16; r++)
        if ((resources >> r) & 1u) {
            tp_rlimit l{};
            l.resource = r;
            l.soft = in.flag() ? TP_RLIM_INFINITY : in.u32();
            l.hard = l.soft == TP_RLIM_INFINITY || in.flag() ? TP_RLIM_INFINITY : l.soft + in.u16();
            l.origin = origin(in, s.sources.size());
            s.rlimits.push_back(l);
        }
    if ((s.has_seccomp = in.flag())) {
        s.seccomp_required = in.flag();
        s.seccomp.profile = in.u8() & (TP_SC_HARDEN | TP_SC_DENY_UNIX);
        s.seccomp.table_max_nr = in.u16();
        s.seccomp.harden_origin = origin(in, s.sources.size());
        s.seccomp.deny_unix_origin = origin(in, s.sources.size());
        // The shortest program tp_bpf_check accepts: the architecture check, then one return.
        const uint32_t ret = in.flag() ? TP_RET_ALLOW : TP_RET_ERRNO | (1 + in.u16() % TP_MAX_ERRNO);
        s.prog = {{TP_BPF_LD | TP_BPF_W | TP_BPF_ABS, 0, 0, TP_SD_ARCH},
                  {TP_BPF_JMP | TP_BPF_JEQ | TP_BPF_K, 0, 1, TP_ARCH_X86_64},
                  {TP_BPF_RET | TP_BPF_K, 0, 0, ret},
                  {TP_BPF_RET | TP_BPF_K, 0, 0, TP_RET_KILL_PROCESS}};
    }
    for (size_t n = s.has_seccomp ? in.u8() % 6 : 0; n > 0; n--) {
        Rule r;
        r.nr = in.u16() % 512;
        if (tp_syscall_name(r.nr) == nullptr)
            continue;
        r.action = in.flag() ? TP_RET_KILL_PROCESS : TP_RET_ERRNO | (1 + in.u16() % TP_MAX_ERRNO);
        r.origin = origin(in, s.sources.size());
        const uint8_t args = in.u8() & 0x3f;
        for (uint8_t a = 0; a < 6; a++) {
            if (!((args >> a) & 1u))
                continue;
            SyscallTestSpec t;
            t.arg = a;
            t.kind = static_cast<uint8_t>(TP_ARG_IN + in.u8() % 4);
            if (t.kind == TP_ARG_ANY_BIT || t.kind == TP_ARG_NO_BIT) {
                t.values = {in.u32() | 1u << (in.u8() % 32)};
            } else {
                std::set<uint32_t> v;
                for (size_t k = 1 + in.u8() % 4; k > 0; k--)
                    v.insert(in.u32());
                t.values.assign(v.begin(), v.end());
            }
            r.tests.push_back(t);
        }
        s.rules.push_back(r);
    }
    return s;
}

std::vector<uint8_t> write(const Spec &s)
{
    PlanWriter w;
    w.set_meta({w.str(s.policy_path), w.str(s.compiler), s.policy_version, 0});
    for (const std::string &p : s.sources)
        w.add_source(p);
    if (s.has_ns)
        w.set_namespaces({s.ns_flags, s.ns_req, w.str(s.hostname), s.ns_origin}, s.ns_required);
    for (const Env &e : s.env)
        w.add_env({e.op, 0, w.str(e.name), w.str(e.value), e.origin});
    if (s.has_exec)
        w.set_exec({s.exec_flags, 0, s.exec_origin});
    if (s.has_limits)
        w.set_limits(s.limits, s.limits_required);
    for (const tp_rlimit &r : s.rlimits)
        w.add_rlimit(r);
    if (s.has_seccomp)
        w.set_seccomp(s.seccomp, s.prog, s.seccomp_required);
    for (const Rule &r : s.rules)
        w.add_syscall_rule(r.nr, r.action, r.origin, r.tests);
    return w.finish();
}

Spec read(const tp_plan &p)
{
    auto str = [&](tp_str t) { return std::string(tp_plan_str(&p, t), t.len); };
    Spec s;
    FUZZ_ASSERT(p.meta != nullptr, "no meta");
    s.policy_path = str(p.meta->policy_path);
    s.compiler = str(p.meta->compiler);
    s.policy_version = p.meta->policy_version;
    for (uint32_t i = 0; i < p.source_count; i++)
        s.sources.push_back(str(p.sources[i]));
    if ((s.has_ns = p.ns != nullptr)) {
        s.ns_flags = p.ns->flags;
        s.ns_req = p.ns->required;
        s.ns_required = (p.ns_section_flags & TP_SECF_REQUIRED) != 0;
        s.hostname = str(p.ns->hostname);
        s.ns_origin = p.ns->origin;
    }
    for (uint32_t i = 0; i < p.env_count; i++)
        s.env.push_back({p.env[i].op, str(p.env[i].name), str(p.env[i].value), p.env[i].origin});
    if ((s.has_exec = p.exec != nullptr)) {
        s.exec_flags = p.exec->flags;
        s.exec_origin = p.exec->origin;
    }
    if ((s.has_limits = p.limits != nullptr)) {
        s.limits = *p.limits;
        s.limits_required = (p.limits_section_flags & TP_SECF_REQUIRED) != 0;
    }
    s.rlimits.assign(p.rlimits, p.rlimits + p.rlimit_count);
    if ((s.has_seccomp = p.seccomp != nullptr)) {
        s.seccomp = *p.seccomp;
        s.seccomp_required = (p.seccomp_section_flags & TP_SECF_REQUIRED) != 0;
        s.prog.assign(p.seccomp_prog, p.seccomp_prog + p.seccomp_insn_count);
    }
    for (uint32_t i = 0; i < p.syscall_rule_count; i++) {
        const tp_syscall_rule &r = p.syscall_rules[i];
        Rule out{r.nr, r.action, r.origin, {}};
        for (uint32_t t = r.first_test; t < r.first_test + r.test_count; t++) {
            const tp_syscall_test &test = p.syscall_tests[t];
            SyscallTestSpec spec;
            spec.arg = test.arg;
            spec.kind = test.kind;
            spec.values.assign(p.syscall_values + test.first_value,
                               p.syscall_values + test.first_value + test.value_count);
            out.tests.push_back(spec);
        }
        s.rules.push_back(out);
    }
    return s;
}

void compare(const Spec &a, const Spec &b)
{
    FUZZ_ASSERT(a.policy_path == b.policy_path && a.compiler == b.compiler && a.policy_version == b.policy_version,
                "meta");
    FUZZ_ASSERT(a.sources == b.sources, "sources");
    FUZZ_ASSERT(a.has_ns == b.has_ns && a.ns_flags == b.ns_flags && a.ns_req == b.ns_req &&
                    a.ns_required == b.ns_required && a.hostname == b.hostname && a.ns_origin == b.ns_origin,
                "namespaces");
    FUZZ_ASSERT(a.env.size() == b.env.size(), "env count");
    for (size_t i = 0; i < a.env.size(); i++)
        FUZZ_ASSERT(a.env[i].op == b.env[i].op && a.env[i].name == b.env[i].name && a.env[i].value == b.env[i].value &&
                        a.env[i].origin == b.env[i].origin,
                    "env " + a.env[i].name);
    FUZZ_ASSERT(a.has_exec == b.has_exec && a.exec_flags == b.exec_flags && a.exec_origin == b.exec_origin, "exec");
    FUZZ_ASSERT(a.has_limits == b.has_limits && a.limits_required == b.limits_required &&
                    std::memcmp(&a.limits, &b.limits, sizeof a.limits) == 0,
                "limits");
    FUZZ_ASSERT(a.rlimits.size() == b.rlimits.size() &&
                    (a.rlimits.empty() ||
                     std::memcmp(a.rlimits.data(), b.rlimits.data(), a.rlimits.size() * sizeof(tp_rlimit)) == 0),
                "rlimits");
    FUZZ_ASSERT(
        a.has_seccomp == b.has_seccomp && a.seccomp_required == b.seccomp_required &&
            std::memcmp(&a.seccomp, &b.seccomp, sizeof a.seccomp) == 0 && a.prog.size() == b.prog.size() &&
            (a.prog.empty() || std::memcmp(a.prog.data(), b.prog.data(), a.prog.size() * sizeof(tp_bpf_insn)) == 0),
        "seccomp");
    FUZZ_ASSERT(a.rules.size() == b.rules.size(), "rule count");
    for (size_t i = 0; i < a.rules.size(); i++)
        FUZZ_ASSERT(a.rules[i].nr == b.rules[i].nr && a.rules[i].action == b.rules[i].action &&
                        a.rules[i].origin == b.rules[i].origin && same_tests(a.rules[i].tests, b.rules[i].tests),
                    "rule " + std::to_string(i));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Bytes in(data, size);
    const Spec spec = generate(in);
    const std::vector<uint8_t> bytes = write(spec);
    FUZZ_ASSERT(write(spec) == bytes, "the writer is not deterministic");
    std::vector<uint64_t> words(bytes.size() / 8 + 1);
    std::memcpy(words.data(), bytes.data(), bytes.size());
    tp_plan p;
    char err[512];
    const int rc = tp_plan_open(reinterpret_cast<const uint8_t *>(words.data()), static_cast<uint32_t>(bytes.size()),
                                &p, err, sizeof err);
    FUZZ_ASSERT(rc == 0, std::string("the reader refused what the writer wrote: ") + err);
    const Spec back = read(p);
    compare(spec, back);
    FUZZ_ASSERT(write(back) == bytes, "writing what was read gave other bytes");
    return 0;
}
