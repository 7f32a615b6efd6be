// Unit tests of the early filter's condition (enforcer/setup_calls.h) on plans the real
// compiler writes: the default filter admits every set-up call; a policy rule on one of them
// (every call of it, or on the constant the enforcer passes) does not; a rule on other values
// of an argument the enforcer passes as a constant does; and a rule that reads an argument the
// enforcer does not fix (a descriptor, a length) does not, whatever the value tested.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "plan_load.h"
#include "setup_calls.h"

namespace fs = std::filesystem;

namespace {

// Compiles a .tart policy with `rules` in its syscalls block; true when the plan's filter
// admits the set-up calls.
bool admits_with(const std::string &rules)
{
    char tmpl[] = "/var/tmp/tartaros-setup-calls.XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    const fs::path dir = tmpl;
    std::ofstream(dir / "policy.tart") << "version 1;\nfilesystem { writable_roots \"w\"; }\n"
                                       << (rules.empty() ? "" : "syscalls {\n" + rules + "\n}\n");
    fs::create_directory(dir / "w");
    const std::string plan = (dir / "plan.bin").string();
    const std::string compile = std::string(TARTAROS_BINARY_DIR) + "/bin/tartaros-compile " +
        (dir / "policy.tart").string() + " -o " + plan + " 2>/dev/null";
    const int rc = system(compile.c_str());
    plan_identity file = {};
    const tp_plan *p = rc == 0 ? load_plan(plan.c_str(), -1, &file) : nullptr;
    const bool admits = p != nullptr && filter_admits_setup_calls(p->seccomp_prog, p->seccomp_insn_count);
    fs::remove_all(dir);
    REQUIRE(rc == 0);
    return admits;
}

}  // namespace

TEST_CASE("early filter: the built-in filter admits every set-up call")
{
    CHECK(admits_with(""));
}

TEST_CASE("early filter: a rule on a set-up call keeps the filter for the last step")
{
    CHECK_FALSE(admits_with("deny chdir errno EXDEV;"));
    CHECK_FALSE(admits_with("deny capset;"));
    CHECK_FALSE(admits_with("deny landlock_restrict_self errno EPERM;"));
    CHECK_FALSE(admits_with("deny close_range errno ENOSYS;"));
    // on the constant the enforcer passes
    CHECK_FALSE(admits_with("deny ioctl when arg1 == TIOCSPGRP errno EPERM;"));
    CHECK_FALSE(admits_with("deny prctl when arg0 == PR_SET_PDEATHSIG errno EPERM;"));
    CHECK_FALSE(admits_with("deny mmap when arg2 == 3 errno ENOMEM;"));
}

TEST_CASE("early filter: a rule on other values of a constant argument changes nothing")
{
    CHECK(admits_with("deny ioctl when arg1 == FIONREAD errno EXDEV;"));
    CHECK(admits_with("deny prctl when arg0 == PR_SET_NAME errno EPERM;"));
    CHECK(admits_with("deny mmap when arg2 == 7 errno EPERM;"));
    // and a rule on a call the command does not make before exec
    CHECK(admits_with("deny kcmp errno ENOSYS;"));
}

TEST_CASE("early filter: a rule that reads an argument the enforcer does not fix refuses")
{
    CHECK_FALSE(admits_with("deny write when arg0 == 1000 errno EBADF;"));
    CHECK_FALSE(admits_with("deny mmap when arg1 == 4096 errno ENOMEM;"));
    CHECK_FALSE(admits_with("deny ioctl when arg0 == 1000 errno EBADF;"));
}

TEST_CASE("early filter: every listed call is a real system call, listed once per argument set")
{
    REQUIRE(setup_call_count() > 0);
    for (uint32_t i = 0; i < setup_call_count(); i++) {
        const setup_call &a = setup_calls()[i];
        CHECK(a.nr < 470);
        for (uint32_t j = i + 1; j < setup_call_count(); j++) {
            const setup_call &b = setup_calls()[j];
            const bool same = a.nr == b.nr && a.constant_args == b.constant_args &&
                std::equal(std::begin(a.args), std::end(a.args), std::begin(b.args));
            CHECK_FALSE(same);
        }
    }
}
