// tests/fuzz/targets/fuzz_plan.cpp — the plan reader (ir/plan_reader.h), which tartaros-exec
// and tartaros-proxy run on a plan before trusting a byte of it, and the structural BPF check
// (ir/bpf_check.h) it runs on the seccomp program.
// An input that starts with the plan magic is a plan: its header's total size and checksum
// are set to match (so mutations reach the sections rather than die at the checksum; the
// header's own checks are it.plan_damage's), it is opened, every section accessor is walked
// and the proxy takes its configuration from it (proxy/plan_config.h). Any other input is a
// seccomp program (8-byte instructions) for tp_bpf_check and the interpreter.
// Properties, for any bytes:
//  - no crash, no undefined behaviour (no read outside the buffer: ASan), no hang;
//  - a refusal is a one-line reason and leaves the plan zeroed; opening is deterministic;
//  - an accepted plan keeps every promise of plan_reader.h: each section pointer and count lies
//    inside the buffer, every tp_str of every record is a NUL-terminated string of its length
//    inside the string table, every index of a syscall rule is in range, and the seccomp
//    program passes tp_bpf_check;
//  - a plan the reader accepts is one the proxy can take its configuration from (given it has
//    a network section), or the proxy says why in one line;
//  - a program tp_bpf_check accepts never faults in the interpreter, on any seccomp_data,
//    and returns one of the actions the check allows (the check is sound for the kernel).
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "bpf_check.h"
#include "bpf_interp.h"
#include "config.h"
#include "fuzz_target.h"
#include "plan_config.h"
#include "plan_reader.h"

namespace {

bool inside(const tp_plan &p, const void *ptr, uint64_t bytes)
{
    const uint8_t *b = static_cast<const uint8_t *>(ptr);
    return b >= p.base && b + bytes <= p.base + p.size;
}

void check_str(const tp_plan &p, tp_str s)
{
    FUZZ_ASSERT(static_cast<uint64_t>(s.off) + s.len < p.strtab_size, std::to_string(s.off));
    const char *c = tp_plan_str(&p, s);
    FUZZ_ASSERT(std::strlen(c) == s.len, std::to_string(s.len));
}

template <typename T>
void check_array(const tp_plan &p, const T *records, uint32_t count)
{
    FUZZ_ASSERT(count == 0 || inside(p, records, static_cast<uint64_t>(count) * sizeof(T)), "section outside");
    FUZZ_ASSERT(count <= TP_MAX_RECORDS, std::to_string(count));
}

uint32_t check_program(const tp_bpf_insn *prog, uint32_t n, tartaros::fuzz::Bytes &in)
{
    char err[256];
    if (tp_bpf_check(prog, n, err, sizeof err) != 0) {
        FUZZ_ASSERT(err[0] != '\0' && tartaros::fuzz::one_line(err), err);
        return 1;
    }
    for (int round = 0; round < 8; round++) {
        tp_seccomp_data d{};
        d.nr = in.left() ? in.u32() : static_cast<uint32_t>(round * 61);
        d.arch = round == 7 ? 0x40000003u : TP_ARCH_X86_64;  // i386 once: the arch check's path
        d.instruction_pointer = in.u64();
        for (uint64_t &a : d.args)
            a = in.u64();
        tp_bpf_result r = tp_bpf_evaluate(prog, n, &d);
        FUZZ_ASSERT(r.fault == TP_BPF_FAULT_NONE, tp_bpf_fault_text(r.fault));
        FUZZ_ASSERT(r.executed >= 1 && r.executed <= n, std::to_string(r.executed));
        const uint32_t action = r.ret & TP_RET_ACTION_FULL;
        FUZZ_ASSERT(action == TP_RET_KILL_PROCESS || action == TP_RET_KILL_THREAD || action == TP_RET_ALLOW ||
                        (action == TP_RET_ERRNO && (r.ret & TP_RET_DATA) >= 1 && (r.ret & TP_RET_DATA) <= TP_MAX_ERRNO),
                    std::to_string(r.ret));
        if (d.arch != TP_ARCH_X86_64)
            FUZZ_ASSERT(r.ret == TP_RET_KILL_PROCESS, "a foreign architecture was not killed");
    }
    return 0;
}

void walk(const tp_plan &p, tartaros::fuzz::Bytes &in)
{
    FUZZ_ASSERT(p.strtab != nullptr && inside(p, p.strtab, p.strtab_size), "strtab");
    if (p.meta) {
        check_str(p, p.meta->policy_path);
        check_str(p, p.meta->compiler);
    }
    if (p.ns)
        check_str(p, p.ns->hostname);
    check_array(p, p.mounts, p.mount_count);
    for (uint32_t i = 0; i < p.mount_count; i++)
        for (tp_str s : {p.mounts[i].path, p.mounts[i].source, p.mounts[i].anchor})
            check_str(p, s);
    check_array(p, p.landlock_paths, p.landlock_path_count);
    for (uint32_t i = 0; i < p.landlock_path_count; i++)
        for (tp_str s : {p.landlock_paths[i].path, p.landlock_paths[i].except})
            check_str(p, s);
    check_array(p, p.env, p.env_count);
    for (uint32_t i = 0; i < p.env_count; i++)
        for (tp_str s : {p.env[i].name, p.env[i].value})
            check_str(p, s);
    check_array(p, p.seccomp_prog, p.seccomp_insn_count);
    if (p.seccomp_insn_count)
        FUZZ_ASSERT(check_program(p.seccomp_prog, p.seccomp_insn_count, in) == 0, "the plan's program");
    check_array(p, p.net_ports, p.net_port_count);
    check_array(p, p.net_names, p.net_name_count);
    for (uint32_t i = 0; i < p.net_name_count; i++)
        for (tp_str s : {p.net_names[i].name, p.net_names[i].address})
            check_str(p, s);
    check_array(p, p.rlimits, p.rlimit_count);
    if (p.broker)
        for (tp_str s : {p.broker->auth_header, p.broker->token_env, p.broker->ca_file})
            check_str(p, s);
    check_array(p, p.broker_caps, p.broker_cap_count);
    for (uint32_t i = 0; i < p.broker_cap_count; i++) {
        const tp_broker_cap &c = p.broker_caps[i];
        for (tp_str s : {c.name, c.host, c.header, c.value_env, c.value_format, c.methods, c.path_prefixes})
            check_str(p, s);
    }
    check_array(p, p.sources, p.source_count);
    for (uint32_t i = 0; i < p.source_count; i++)
        check_str(p, p.sources[i]);
    check_array(p, p.syscall_rules, p.syscall_rule_count);
    check_array(p, p.syscall_tests, p.syscall_test_count);
    check_array(p, p.syscall_values, p.syscall_value_count);
    for (uint32_t i = 0; i < p.syscall_rule_count; i++) {
        const tp_syscall_rule &r = p.syscall_rules[i];
        FUZZ_ASSERT(static_cast<uint64_t>(r.first_test) + r.test_count <= p.syscall_test_count, "rule's tests");
        for (uint32_t t = r.first_test; t < r.first_test + r.test_count; t++) {
            const tp_syscall_test &test = p.syscall_tests[t];
            FUZZ_ASSERT(static_cast<uint64_t>(test.first_value) + test.value_count <= p.syscall_value_count,
                        "test's values");
        }
    }
}

// The proxy's reading of the same plan (tartaros-exec hands it over as a sealed memfd).
void check_proxy_config(const uint8_t *plan, uint32_t size, const tp_plan &p)
{
    int fd = memfd_create("fuzz-plan", MFD_CLOEXEC);
    if (fd < 0 || write(fd, plan, size) != static_cast<ssize_t>(size))
        tartaros::fuzz::property_failed(__FILE__, __LINE__, "memfd", "cannot write the plan");
    tproxy::Config c;
    c.broker.secrets_fd = p.broker ? 1000 : -1;  // marks a broker to configure; never read
    const std::string err = tproxy::config_from_plan(fd, c);
    FUZZ_ASSERT(tartaros::fuzz::one_line(err), err);
    if (p.network)
        FUZZ_ASSERT(err.empty(), "the reader accepted a plan the proxy cannot take: " + err);
}

void check_plan(std::vector<uint64_t> &words, uint32_t size, tartaros::fuzz::Bytes &in)
{
    uint8_t *bytes = reinterpret_cast<uint8_t *>(words.data());
    if (size >= sizeof(tp_header)) {
        tp_header h;
        std::memcpy(&h, bytes, sizeof h);
        h.total_size = size;
        std::memcpy(bytes, &h, sizeof h);
        h.checksum = tp_checksum(bytes, size, offsetof(tp_header, checksum));
        std::memcpy(bytes, &h, sizeof h);
    }
    tp_plan p, again;
    char err[512], err2[512];
    const int rc = tp_plan_open(bytes, size, &p, err, sizeof err);
    const int rc2 = tp_plan_open(bytes, size, &again, err2, sizeof err2);
    FUZZ_ASSERT(rc == rc2 && std::memcmp(&p, &again, sizeof p) == 0 && std::strcmp(err, err2) == 0, err);
    if (rc != 0) {
        FUZZ_ASSERT(rc == -1 && err[0] != '\0' && tartaros::fuzz::one_line(err), err);
        const tp_plan zero{};
        FUZZ_ASSERT(std::memcmp(&p, &zero, sizeof p) == 0, "a refused plan left pointers behind");
        return;
    }
    FUZZ_ASSERT(err[0] == '\0', err);
    walk(p, in);
    check_proxy_config(bytes, size, p);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > TP_MAX_PLAN_SIZE)
        return 0;
    tartaros::fuzz::Bytes in(data, size);  // the interpreter's seccomp_data, taken from the input too
    std::vector<uint64_t> words(size / 8 + 1);
    std::memcpy(words.data(), data, size);
    if (size >= 8 && std::memcmp(data, TP_MAGIC, 8) == 0) {
        check_plan(words, static_cast<uint32_t>(size), in);
        return 0;
    }
    const uint32_t n = static_cast<uint32_t>(size / sizeof(tp_bpf_insn));
    check_program(reinterpret_cast<const tp_bpf_insn *>(words.data()), n, in);
    return 0;
}
