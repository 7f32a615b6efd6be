// Tests of what plan format 6 added to ir/plan_reader: the included files (TP_SEC_SOURCES), the
// file of every origin, and the policy's syscall rules (TP_SEC_SYSCALL_RULES/TESTS/VALUES). A
// writer-built plan round-trips; then every invariant of policy.h's SyscallDenyRule and every
// index and range is broken on purpose, with the checksum resealed, and must be refused with
// its reason.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "bpf_check.h"
#include "plan_bytes.h"
#include "plan_reader.h"
#include "plan_writer.h"

using tartaros::ir::PlanWriter;
using tartaros::ir::SyscallTestSpec;
using namespace plan_bytes;

namespace {

constexpr uint32_t kIoctl = 16, kSocket = 41, kClone = 56, kKcmp = 312;

const std::vector<tp_bpf_insn> kAllowNative = {
    {TP_BPF_LD | TP_BPF_W | TP_BPF_ABS, 0, 0, TP_SD_ARCH},
    {TP_BPF_JMP | TP_BPF_JEQ | TP_BPF_K, 0, 1, TP_ARCH_X86_64},
    {TP_BPF_RET | TP_BPF_K, 0, 0, TP_RET_ALLOW},
    {TP_BPF_RET | TP_BPF_K, 0, 0, TP_RET_KILL_PROCESS},
};

// A policy file that included two files, with three syscall rules: socket (two tests),
// ioctl (one, from the first included file) and kcmp (none, kill).
PlanWriter rules_writer()
{
    PlanWriter w;
    w.set_meta({w.str("/home/u/proj/agent.tart"), w.str("tartaros-compile 0.1.0"), 1, 0});
    w.add_source("/home/u/proj/rules.tart");
    w.add_source("/etc/tartaros/common.tart");
    w.set_exec({0, 0, {9, 3, 2}});
    w.set_seccomp({TP_SC_HARDEN, 469, {2, 1, 0}, {0, 0, 0}}, kAllowNative, true);
    w.add_syscall_rule(kSocket, TP_RET_ERRNO | 1, {4, 5, 0}, {{0, TP_ARG_IN, {16}}, {2, TP_ARG_NOT_IN, {0, 4}}});
    w.add_syscall_rule(kIoctl, TP_RET_ERRNO | 13, {3, 5, 1}, {{1, TP_ARG_IN, {0x5412, 0x541b}}});
    w.add_syscall_rule(kClone, TP_RET_ERRNO | 22, {5, 5, 0}, {{0, TP_ARG_NO_BIT, {0x100}}});
    w.add_syscall_rule(kKcmp, TP_RET_KILL_PROCESS, {7, 65535, 2}, {});
    return w;
}

std::vector<uint8_t> rules_plan()
{
    return rules_writer().finish();
}

// Offset of field `field` of record `i` of section `type`.
std::size_t at(const std::vector<uint8_t> &bytes, uint32_t type, std::size_t record_size, uint32_t i, std::size_t field)
{
    return section_data(bytes, type) + i * record_size + field;
}

std::size_t rule_field(const std::vector<uint8_t> &b, uint32_t i, std::size_t field)
{
    return at(b, TP_SEC_SYSCALL_RULES, sizeof(tp_syscall_rule), i, field);
}

std::size_t test_field(const std::vector<uint8_t> &b, uint32_t i, std::size_t field)
{
    return at(b, TP_SEC_SYSCALL_TESTS, sizeof(tp_syscall_test), i, field);
}

std::size_t value_at(const std::vector<uint8_t> &b, uint32_t i)
{
    return at(b, TP_SEC_SYSCALL_VALUES, sizeof(uint32_t), i, 0);
}

// The test record's arg, kind and reserved bytes as one u32 (little-endian).
uint32_t test_head(uint8_t arg, uint8_t kind, uint16_t reserved = 0)
{
    return arg | static_cast<uint32_t>(kind) << 8 | static_cast<uint32_t>(reserved) << 16;
}

// Sets a u32 at `off`, reseals and expects the plan to be accepted.
void expect_accepted_after(std::vector<uint8_t> bytes, std::size_t off, uint32_t value)
{
    put_u32(bytes, off, value);
    reseal(bytes);
    const Result r = open_plan(bytes);
    CHECK_MESSAGE(r.rc == 0, r.err);
}

// `bytes` without section `type` in its table (its entry moved last and cut off; its bytes stay
// as padding, which the reader allows).
std::vector<uint8_t> without_section(std::vector<uint8_t> bytes, uint32_t type)
{
    const uint32_t count = get_u32(bytes, offsetof(tp_header, section_count));
    const std::size_t entry = section_field(bytes, type, 0);
    const std::size_t last = sizeof(tp_header) + (count - 1) * sizeof(tp_section);
    std::vector<uint8_t> moved(bytes.begin() + static_cast<std::ptrdiff_t>(entry),
                               bytes.begin() + static_cast<std::ptrdiff_t>(entry + sizeof(tp_section)));
    std::copy(bytes.begin() + static_cast<std::ptrdiff_t>(last),
              bytes.begin() + static_cast<std::ptrdiff_t>(last + sizeof(tp_section)),
              bytes.begin() + static_cast<std::ptrdiff_t>(entry));
    std::copy(moved.begin(), moved.end(), bytes.begin() + static_cast<std::ptrdiff_t>(last));
    put_u32(bytes, offsetof(tp_header, section_count), count - 1);
    reseal(bytes);
    return bytes;
}

// `bytes` with its last section grown by one copy of its last record (the section must be the
// last in the file, ending at the end): the count past a limit the writer never exceeds.
std::vector<uint8_t> with_one_more_record(std::vector<uint8_t> bytes, uint32_t type, std::size_t record_size)
{
    const std::size_t size_field = section_field(bytes, type, offsetof(tp_section, size));
    const std::size_t count_field = section_field(bytes, type, offsetof(tp_section, count));
    REQUIRE(section_data(bytes, type) + get_u32(bytes, size_field) == bytes.size());
    std::vector<uint8_t> last(bytes.end() - static_cast<std::ptrdiff_t>(record_size), bytes.end());
    bytes.insert(bytes.end(), last.begin(), last.end());
    put_u32(bytes, size_field, get_u32(bytes, size_field) + static_cast<uint32_t>(record_size));
    put_u32(bytes, count_field, get_u32(bytes, count_field) + 1);
    put_u32(bytes, offsetof(tp_header, total_size), static_cast<uint32_t>(bytes.size()));
    reseal(bytes);
    return bytes;
}

}  // namespace

TEST_CASE("plan reader 6: sources and syscall rules round-trip field by field")
{
    const std::vector<uint8_t> bytes = rules_plan();
    Buf b(bytes);
    Result r = open_plan(b.mem.get(), b.len);
    REQUIRE_MESSAGE(r.rc == 0, r.err);
    const tp_plan &p = r.plan;
    REQUIRE(p.source_count == 2);
    CHECK(std::string(tp_plan_str(&p, p.sources[0])) == "/home/u/proj/rules.tart");
    CHECK(std::string(tp_plan_str(&p, p.sources[1])) == "/etc/tartaros/common.tart");
    CHECK(p.exec->origin.file == 2);
    CHECK(p.exec->origin.col == 3);
    REQUIRE(p.syscall_rule_count == 4);
    REQUIRE(p.syscall_test_count == 4);
    REQUIRE(p.syscall_value_count == 6);
    CHECK(p.syscall_rules[0].nr == kSocket);
    CHECK(p.syscall_rules[0].action == (TP_RET_ERRNO | 1));
    CHECK(p.syscall_rules[0].first_test == 0);
    CHECK(p.syscall_rules[0].test_count == 2);
    CHECK(p.syscall_rules[1].first_test == 2);
    CHECK(p.syscall_rules[1].origin.file == 1);
    CHECK(p.syscall_rules[3].action == TP_RET_KILL_PROCESS);
    CHECK(p.syscall_rules[3].test_count == 0);
    CHECK(p.syscall_rules[3].first_test == 4);
    CHECK(p.syscall_rules[3].origin.col == 65535);
    CHECK(p.syscall_tests[1].arg == 2);
    CHECK(p.syscall_tests[1].kind == TP_ARG_NOT_IN);
    CHECK(p.syscall_tests[1].first_value == 1);
    CHECK(p.syscall_tests[1].value_count == 2);
    CHECK(p.syscall_tests[3].kind == TP_ARG_NO_BIT);
    const std::vector<uint32_t> values(p.syscall_values, p.syscall_values + p.syscall_value_count);
    CHECK(values == std::vector<uint32_t>{16, 0, 4, 0x5412, 0x541b, 0x100});
}

TEST_CASE("plan reader 6: a plan without includes or rules has none of the new sections")
{
    PlanWriter w;
    w.set_meta({w.str("/p/agent.toml"), w.str("tartaros-compile 0.1.0"), 1, 0});
    w.set_seccomp({0, 469, {0, 0, 0}, {0, 0, 0}}, kAllowNative, true);
    Result r = open_plan(w.finish());
    REQUIRE(r.rc == 0);
    CHECK(r.plan.source_count == 0);
    CHECK(r.plan.sources == nullptr);
    CHECK(r.plan.syscall_rule_count == 0);
    CHECK(r.plan.syscall_rules == nullptr);
}

TEST_CASE("plan reader 6: a rule's syscall and action are checked")
{
    const std::vector<uint8_t> b = rules_plan();
    const std::size_t nr = rule_field(b, 0, offsetof(tp_syscall_rule, nr));
    const std::size_t action = rule_field(b, 0, offsetof(tp_syscall_rule, action));
    expect_refused_after(b, nr, 400, "syscall rule 0: 400 is not a syscall of the native table");  // a hole
    expect_refused_after(b, nr, 470, "syscall rule 0: 470 is not a syscall of the native table");
    expect_refused_after(b, nr, 0x40000029, "is not a syscall of the native table");  // x32
    expect_refused_after(b, action, TP_RET_ERRNO, "action 0x50000 is neither ERRNO(1..4095) nor KILL_PROCESS");
    expect_refused_after(b, action, TP_RET_ERRNO | 4096, "action 0x51000 is neither");
    expect_refused_after(b, action, TP_RET_ALLOW, "action 0x7fff0000 is neither");
    expect_refused_after(b, action, TP_RET_KILL_THREAD, "action 0x0 is neither");
    expect_refused_after(b, action, TP_RET_KILL_PROCESS | 1, "action 0x80000001 is neither");
    expect_refused_after(b, action, 0x00030000u | 1, "is neither");  // SECCOMP_RET_TRAP
}

TEST_CASE("plan reader 6: rules, tests and values are laid out one after the other")
{
    const std::vector<uint8_t> b = rules_plan();
    expect_refused_after(b, rule_field(b, 1, offsetof(tp_syscall_rule, first_test)), 1,
                         "syscall rule 1: its tests start at 1, not right after the previous rule's (2)");
    expect_refused_after(b, rule_field(b, 0, offsetof(tp_syscall_rule, first_test)), 1,
                         "syscall rule 0: its tests start at 1");
    expect_refused_after(b, rule_field(b, 0, offsetof(tp_syscall_rule, test_count)), 7,
                         "syscall rule 0: tests 0..7 are more than 6 or lie outside the 4 listed");
    expect_refused_after(b, rule_field(b, 3, offsetof(tp_syscall_rule, test_count)), 1,
                         "syscall rule 3: tests 4..5 are more than 6 or lie outside the 4 listed");
    expect_refused_after(b, rule_field(b, 3, offsetof(tp_syscall_rule, first_test)), 0xffffffffu,
                         "its tests start at 4294967295");
    // clone's rule gives up its test, kcmp's rule starts where it would: one test and one value
    // are left over.
    std::vector<uint8_t> left_over = b;
    put_u32(left_over, rule_field(b, 2, offsetof(tp_syscall_rule, test_count)), 0);
    expect_refused_after(left_over, rule_field(b, 3, offsetof(tp_syscall_rule, first_test)), 3,
                         "syscall rules: 4 tests and 6 values listed, the rules use 3 and 5");
    expect_refused_after(b, test_field(b, 1, offsetof(tp_syscall_test, first_value)), 2,
                         "syscall test 1: its values start at 2, not right after the previous test's (1)");
    expect_refused_after(b, test_field(b, 3, offsetof(tp_syscall_test, value_count)), 2,
                         "syscall test 3: values 5..7 lie outside the 6 listed");
    expect_refused_after(b, test_field(b, 2, offsetof(tp_syscall_test, value_count)), 4,
                         "syscall test 2: values 3..7 lie outside the 6 listed");
    expect_refused_after(b, test_field(b, 2, offsetof(tp_syscall_test, value_count)), 1,
                         "syscall test 3: its values start at 5, not right after the previous test's (4)");
    expect_refused_after(b, test_field(b, 0, offsetof(tp_syscall_test, first_value)), 0xfffffffeu,
                         "syscall test 0: its values start at 4294967294");
}

TEST_CASE("plan reader 6: a test's argument, kind and values are checked")
{
    const std::vector<uint8_t> b = rules_plan();
    const std::size_t head1 = test_field(b, 1, 0);  // socket's arg2 NOT_IN
    expect_refused_after(b, head1, test_head(6, TP_ARG_NOT_IN), "syscall test 1: argument 6 is not 0..5");
    expect_refused_after(b, head1, test_head(0, TP_ARG_NOT_IN), "syscall test 1: argument 0 is not 0..5 or not above");
    expect_refused_after(b, head1, test_head(2, 0), "syscall test 1: unknown kind 0 or reserved bits");
    expect_refused_after(b, head1, test_head(2, 5), "syscall test 1: unknown kind 5 or reserved bits");
    expect_refused_after(b, head1, test_head(2, TP_ARG_NOT_IN, 1), "syscall test 1: unknown kind 2 or reserved bits");
    // Socket's rule with its tests swapped in order: arg 2 before arg 0.
    std::vector<uint8_t> swapped = b;
    put_u32(swapped, test_field(b, 0, 0), test_head(2, TP_ARG_IN));
    expect_refused_after(swapped, head1, test_head(0, TP_ARG_NOT_IN), "argument 0 is not 0..5 or not above");
    // Arguments ascend within a rule only: the next rule's first test may name any.
    expect_accepted_after(b, test_field(b, 2, 0), test_head(0, TP_ARG_IN));
    // NOT_IN {0, 4}: unsorted, duplicated.
    expect_refused_after(b, value_at(b, 1), 4, "syscall test 1: values are not sorted and unique (0x4 before 0x4)");
    expect_refused_after(b, value_at(b, 1), 5, "syscall test 1: values are not sorted and unique (0x5 before 0x4)");
    // A bit test's mask of 0 (either kind); the same single value is fine for ANY_BIT and IN.
    expect_refused_after(b, value_at(b, 5), 0, "syscall test 3: a bit test holds exactly one non-zero mask");
    std::vector<uint8_t> any_bit = b;
    put_u32(any_bit, test_field(b, 3, 0), test_head(0, TP_ARG_ANY_BIT));
    expect_refused_after(any_bit, value_at(b, 5), 0, "syscall test 3: a bit test holds exactly one non-zero mask");
    expect_accepted_after(b, test_field(b, 3, 0), test_head(0, TP_ARG_ANY_BIT));
    expect_accepted_after(b, test_field(b, 3, 0), test_head(0, TP_ARG_IN));
    // ioctl's IN {0x5412, 0x541b} as NOT_IN or a bit test (two values: refused).
    expect_accepted_after(b, test_field(b, 2, 0), test_head(1, TP_ARG_NOT_IN));
    expect_refused_after(b, test_field(b, 2, 0), test_head(1, TP_ARG_NO_BIT),
                         "syscall test 2: a bit test holds exactly one non-zero mask");
    // IN with no value: the layout is shifted, the first check to fail is the count.
    expect_refused_after(b, test_field(b, 0, offsetof(tp_syscall_test, value_count)), 0, "syscall test 0: no value");
}

TEST_CASE("plan reader 6: the syscall sections go with seccomp and each other")
{
    PlanWriter no_seccomp;
    no_seccomp.add_syscall_rule(kKcmp, TP_RET_ERRNO | 1, {1, 1, 0}, {});
    CHECK(open_plan(no_seccomp.finish()).err ==
          "plan has syscall rules without a seccomp filter, tests without rules or values without tests");

    const std::vector<uint8_t> b = rules_plan();
    const std::string unpaired =
        "plan has syscall rules without a seccomp filter, tests without rules or values without tests";
    CHECK(open_plan(without_section(b, TP_SEC_SYSCALL_RULES)).err == unpaired);
    CHECK(open_plan(without_section(b, TP_SEC_SYSCALL_TESTS)).err == unpaired);
    CHECK(open_plan(without_section(without_section(b, TP_SEC_SECCOMP), TP_SEC_SECCOMP_BPF)).err == unpaired);
    CHECK(open_plan(without_section(b, TP_SEC_SYSCALL_VALUES)).err ==
          "syscall test 0: values 0..1 lie outside the 0 listed");
    CHECK(open_plan(without_section(b, TP_SEC_SOURCES)).err ==
          "exec 0: origin names file 2, the plan lists 0 included files");
    CHECK(open_plan(without_section(b, TP_SEC_META)).err ==
          "plan has included files but no meta section naming the policy file");
}

TEST_CASE("plan reader 6: more than 256 rules or 1024 included files are refused")
{
    PlanWriter w;
    w.set_seccomp({0, 469, {0, 0, 0}, {0, 0, 0}}, kAllowNative, true);
    for (uint32_t i = 0; i < TP_MAX_SYSCALL_RULES; i++)
        w.add_syscall_rule(kKcmp, TP_RET_ERRNO | 1, {i + 1, 1, 0}, {});
    CHECK_THROWS_AS(w.add_syscall_rule(kKcmp, TP_RET_ERRNO | 1, {1, 1, 0}, {}), std::length_error);
    const std::vector<uint8_t> full = w.finish();
    CHECK(open_plan(full).rc == 0);
    CHECK(open_plan(with_one_more_record(full, TP_SEC_SYSCALL_RULES, sizeof(tp_syscall_rule))).err ==
          "syscall rules: 257 rules, the limit is 256");

    PlanWriter s;
    s.set_meta({s.str("/p/agent.tart"), s.str("tartaros-compile 0.1.0"), 1, 0});
    for (uint32_t i = 0; i < TP_MAX_SOURCES; i++)
        s.add_source("/p/inc/" + std::to_string(i) + ".tart");
    CHECK_THROWS_AS(s.add_source("/p/one-more.tart"), std::length_error);
    const std::vector<uint8_t> many = s.finish();
    CHECK(open_plan(many).rc == 0);
    CHECK(open_plan(with_one_more_record(many, TP_SEC_SOURCES, sizeof(tp_str))).err ==
          "sources: 1025 included files, the limit is 1024");
}

TEST_CASE("plan reader 6: included files are absolute, distinct and not the policy file")
{
    auto with_sources = [](std::vector<std::string> paths, bool meta = true) {
        PlanWriter w;
        if (meta)
            w.set_meta({w.str("/p/agent.tart"), w.str("tartaros-compile 0.1.0"), 1, 0});
        for (const std::string &path : paths)
            w.add_source(path);
        return open_plan(w.finish()).err;
    };
    CHECK(with_sources({"/p/a.tart", "rules.tart"}) == "source 1: path \"rules.tart\" is not absolute");
    CHECK(with_sources({""}) == "source 0: path \"\" is not absolute");
    CHECK(with_sources({"/p/a.tart", "/p/b.tart", "/p/a.tart"}) == "source 2: \"/p/a.tart\" is listed twice");
    CHECK(with_sources({"/p/agent.tart"}) == "source 0: \"/p/agent.tart\" is the policy file itself");
    CHECK(with_sources({"/" + std::string(TP_MAX_PATH, 'a')}) ==
          "source 0: path is 4097 bytes long, the limit is 4096");
    CHECK(with_sources({"/p/a.tart"}, false) == "plan has included files but no meta section naming the policy file");
}

TEST_CASE("plan reader 6: every origin names the policy file or a listed included file")
{
    const std::vector<uint8_t> b = rules_plan();
    auto file_of = [](std::size_t origin) { return origin + offsetof(tp_origin, line) + 4; };  // col | file << 16
    expect_refused_after(b, file_of(rule_field(b, 1, offsetof(tp_syscall_rule, origin))), 5 | 3u << 16,
                         "syscall rule 1: origin names file 3, the plan lists 2 included files");
    const std::size_t exec = section_data(b, TP_SEC_EXEC);
    expect_refused_after(b, file_of(exec + offsetof(tp_exec, origin)), 3 | 0xffffu << 16,
                         "exec 0: origin names file 65535");
    const std::size_t sc = section_data(b, TP_SEC_SECCOMP);
    expect_refused_after(b, file_of(sc + offsetof(tp_seccomp, deny_unix_origin)), 3u << 16,
                         "seccomp 0: origin names file 3");
    expect_accepted_after(b, file_of(rule_field(b, 1, offsetof(tp_syscall_rule, origin))), 5 | 2u << 16);

    // Each record kind with an origin, one by one, in a plan without included files.
    PlanWriter w;
    tp_mount m{};
    m.op = TP_MNT_TMPFS;
    m.path = w.str("/tmp");
    m.origin = {1, 1, 1};
    w.add_mount(m);
    CHECK(open_plan(w.finish()).err == "mount 0: origin names file 1, the plan lists 0 included files");
    PlanWriter e;
    e.add_env({TP_ENV_SET, 0, e.str("A"), e.str("b"), {2, 1, 1}});
    CHECK(open_plan(e.finish()).err == "env 0: origin names file 1, the plan lists 0 included files");
    PlanWriter r;
    r.add_rlimit({4, 0, 0, 0, {3, 1, 1}});
    CHECK(open_plan(r.finish()).err == "rlimit 0: origin names file 1, the plan lists 0 included files");
    PlanWriter l;
    l.set_limits({0, 0, 0, 0, 1000, 5000, {}, {}, {}, {4, 1, 7}}, true);
    CHECK(open_plan(l.finish()).err == "limits 0: origin names file 7, the plan lists 0 included files");
}
