// Unit tests for the .tart front-end's syscall rules: every condition form into the model's
// SyscallDenyRule (whose invariants they must meet), values as the kernel reads 32-bit
// arguments, actions, the rule limit, every error; and the constant and errno names.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <cerrno>
#include <set>

#include "syscall_constants.h"
#include "syscall_table.h"
#include "test_frontend_dsl_fixture.h"

using namespace tartaros;
using namespace tartaros::test;
using Kind = SyscallCondition::Kind;

namespace {

// The rules of `body` (the inside of a syscalls block), which must parse.
std::vector<SyscallDenyRule> rules_of(const std::string &body)
{
    Parsed parsed = parse_text("version 1;\nsyscalls {\n" + body + "\n}\n", "/w/p.tart");
    REQUIRE_MESSAGE(parsed.policy, summary(parsed.diags));
    return parsed.policy->syscalls.rules;
}

std::string errors_of(const std::string &body)
{
    Parsed parsed = parse_text("version 1;\nsyscalls {\n" + body + "\n}\n", "/w/p.tart");
    CHECK_FALSE(parsed.policy);
    return summary(parsed.diags);
}

void check_condition(const SyscallCondition &c, uint8_t arg, Kind kind, const std::vector<uint32_t> &values)
{
    CHECK(c.arg == arg);
    CHECK(c.kind == kind);
    CHECK(c.values == values);
}

}  // namespace

TEST_CASE("dsl syscalls: each condition form becomes one kind of test on the low 32 bits")
{
    const std::vector<SyscallDenyRule> rules =
        rules_of("deny socket when arg0 == AF_NETLINK and arg2 != NETLINK_ROUTE;\n"
                 "deny ioctl when arg1 in {TIOCSTI, 0x541C, 21522} errno EPERM;\n"
                 "deny personality when arg0 not in {0xffffffff, 0} errno EINVAL;\n"
                 "deny clone when arg0 & CLONE_NEWUSER | CLONE_NEWNET;\n"
                 "deny mprotect when arg2 & PROT_EXEC != 0 kill;\n"
                 "deny mmap when arg2 & PROT_EXEC == 0 errno 13;\n"
                 "deny kcmp;");
    REQUIRE(rules.size() == 7);
    CHECK(rules[0].name.value == "socket");
    CHECK(rules[0].nr == *seccomp::syscall_number("socket"));
    CHECK(rules[0].pos.line == 3);
    CHECK(rules[0].pos.col == 1);
    CHECK(rules[0].name.pos.col == 6);
    REQUIRE(rules[0].when.size() == 2);
    check_condition(rules[0].when[0], 0, Kind::In, {AF_NETLINK});
    CHECK(rules[0].when[0].pos.col == 18);  // the argument's name
    check_condition(rules[0].when[1], 2, Kind::NotIn, {NETLINK_ROUTE});
    CHECK_FALSE(rules[0].kill);
    CHECK(rules[0].err == EPERM);  // the default
    REQUIRE(rules[1].when.size() == 1);
    check_condition(rules[1].when[0], 1, Kind::In, {TIOCSTI, 0x541C});  // sorted, unique
    check_condition(rules[2].when[0], 0, Kind::NotIn, {0, 0xffffffff});
    CHECK(rules[2].err == EINVAL);
    check_condition(rules[3].when[0], 0, Kind::AnyBit, {static_cast<uint32_t>(CLONE_NEWUSER | CLONE_NEWNET)});
    check_condition(rules[4].when[0], 2, Kind::AnyBit, {PROT_EXEC});
    CHECK(rules[4].kill);
    check_condition(rules[5].when[0], 2, Kind::NoBit, {PROT_EXEC});
    CHECK(rules[5].err == EACCES);
    CHECK(rules[6].when.empty());
}

TEST_CASE("dsl syscalls: conditions are sorted by argument, negative values wrap modulo 2^32")
{
    const std::vector<SyscallDenyRule> rules =
        rules_of("deny openat when arg2 & O_CREAT and arg0 == -100;\ndeny kcmp when arg0 == -2147483648 | 1;");
    REQUIRE(rules[0].when.size() == 2);
    check_condition(rules[0].when[0], 0, Kind::In, {0xffffff9c});  // AT_FDCWD
    check_condition(rules[0].when[1], 2, Kind::AnyBit, {O_CREAT});
    CHECK(*syscall_constant("AT_FDCWD") == 0xffffff9c);
    check_condition(rules[1].when[0], 0, Kind::In, {0x80000001});
}

TEST_CASE("dsl syscalls: rules of several blocks and files keep their order, 256 at most")
{
    std::string body;
    for (int i = 0; i < 256; ++i)
        body += "deny kcmp when arg0 == " + std::to_string(i) + ";\n";
    CHECK(rules_of(body).size() == kMaxSyscallRules);
    CHECK(errors_of(body + "deny kcmp;") ==
          "259:1: error: more than 256 syscall rules: the seccomp filter must stay within the kernel's 4096 "
          "instructions [syscall-rule-count]\n");
}

TEST_CASE("dsl syscalls: every error, at its token")
{
    CHECK(errors_of("deny opn;") ==
          "3:6: error: unknown syscall 'opn' (x86_64); did you mean 'open'? [unknown-syscall]\n");
    CHECK(errors_of("deny socket when arg0 == AF_NETLNK;") ==
          "3:26: error: unknown constant 'AF_NETLNK'; did you mean 'AF_NETLINK'? [unknown-constant]\n");
    CHECK(errors_of("deny socket when arg9 == 1;") ==
          "3:18: error: 'arg9' is not an argument: a condition tests arg0, arg1, arg2, arg3, arg4 or arg5 "
          "[syscall-condition]\n");
    CHECK(errors_of("deny socket when argv == 1;") ==
          "3:18: error: 'argv' is not an argument: a condition tests arg0, arg1, arg2, arg3, arg4 or arg5 "
          "[syscall-condition]\n");
    CHECK(errors_of("deny ioctl when arg1 == 4294967296;") ==
          "3:25: error: '4294967296' is outside -2147483648..4294967295: a condition tests the low 32 bits of an "
          "argument [syscall-condition]\n");
    CHECK(errors_of("deny ioctl when arg1 in {1, -2147483649};") ==
          "3:29: error: '-2147483649' is outside -2147483648..4294967295: a condition tests the low 32 bits of an "
          "argument [syscall-condition]\n");
    CHECK(errors_of("deny ioctl when arg1 == 1 and arg1 != 2;") ==
          "3:31: error: a second condition on 'arg1' (the first is at /w/p.tart:3:17): a rule tests each argument "
          "once; write one condition, such as arg1 in {…} [syscall-condition]\n");
    CHECK(errors_of("deny mmap when arg2 & O_RDONLY;") ==
          "3:23: error: a mask of 0 tests no bit [syscall-condition]\n");
    CHECK(errors_of("deny mmap when arg2 & 4 != 4;") ==
          "3:28: error: after a mask only '== 0' (no bit set) or '!= 0' (some bit set) can follow "
          "[syscall-condition]\n");
    CHECK(errors_of("deny kcmp errno EPRM;") ==
          "3:17: error: unknown errno 'EPRM'; did you mean 'EPERM'? [syscall-action]\n");
    CHECK(errors_of("deny kcmp errno 0;") == "3:17: error: errno 0 is outside 1..4095 [syscall-action]\n");
    CHECK(errors_of("deny kcmp errno -1;") == "3:17: error: errno -1 is outside 1..4095 [syscall-action]\n");
    CHECK(rules_of("deny kcmp errno 4095;")[0].err == 4095);
}

TEST_CASE("dsl syscalls: constant names carry the headers' values, errno names both ways")
{
    CHECK(*syscall_constant("AF_NETLINK") == AF_NETLINK);
    CHECK(*syscall_constant("TIOCSTI") == TIOCSTI);
    CHECK(*syscall_constant("CLONE_NEWUSER") == CLONE_NEWUSER);
    CHECK(*syscall_constant("PER_LINUX32") == 0x0008);
    CHECK(*syscall_constant("SIGKILL") == 9);
    CHECK_FALSE(syscall_constant("AF_NOPE"));
    const std::vector<std::string> &names = syscall_constant_names();
    CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
    CHECK(*errno_number("EPERM") == 1);
    CHECK(*errno_number("EWOULDBLOCK") == EAGAIN);
    CHECK(errno_name(EAGAIN) == "EAGAIN");
    CHECK(errno_name(95) == "EOPNOTSUPP");
    CHECK(errno_name(4000).empty());
    for (const std::string &name : errno_names())
        CHECK(errno_name(*errno_number(name)) != "");
}
