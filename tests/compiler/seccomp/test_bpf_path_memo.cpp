// Unit tests of PathMemo: a call is answered from the last path only when it agrees with the
// last call run on every word that path loaded, so its answers are evaluate()'s, on a small
// hand-written program and on every validation input of every lowered profile.
#include <doctest/doctest.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <cstddef>
#include <vector>

#include "bpf_path_memo.h"
#include "seccomp_lower.h"
#include "seccomp_profile.h"

using namespace tartaros::seccomp;

namespace {

using Prog = std::vector<tp_bpf_insn>;

constexpr uint32_t kArg1Low = offsetof(seccomp_data, args) + 8;

// read (0) is allowed; getpid (39) is refused when the low word of its second argument is 7.
const Prog kProgram = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 6),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 39, 0, 3),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArg1Low),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 7, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
};

SeccompData with(uint32_t nr, uint64_t arg1)
{
    SeccompData d;
    d.nr = nr;
    d.args[1] = arg1;
    return d;
}

}  // namespace

TEST_CASE("path memo: a call is run again when it differs in a word the last path loaded")
{
    PathMemo memo(kProgram);
    CHECK(memo.ret(with(0, 0)) == SECCOMP_RET_ALLOW);
    CHECK(memo.runs() == 1);
    // read's path loads nr and arch only: its arguments do not matter.
    CHECK(memo.ret(with(0, 7)) == SECCOMP_RET_ALLOW);
    CHECK(memo.runs() == 1);
    // Another nr: run.
    CHECK(memo.ret(with(39, 0)) == SECCOMP_RET_ALLOW);
    CHECK(memo.runs() == 2);
    // getpid's path loaded the low word of args[1]: a call that differs there is run.
    CHECK(memo.ret(with(39, 7)) == (SECCOMP_RET_ERRNO | 1));
    CHECK(memo.runs() == 3);
    // ... and one that differs in its high word only (not loaded) is not.
    CHECK(memo.ret(with(39, 0xffffffff'00000007ull)) == (SECCOMP_RET_ERRNO | 1));
    CHECK(memo.runs() == 3);
    SeccompData foreign = with(39, 7);
    foreign.arch = AUDIT_ARCH_I386;
    CHECK(memo.ret(foreign) == SECCOMP_RET_KILL_PROCESS);
    CHECK(memo.runs() == 4);
}

TEST_CASE("path memo: its answers are evaluate()'s on every validation input of every lowered profile")
{
    for (ProfileFlags flags : {ProfileFlags{false, false}, ProfileFlags{true, true}}) {
        const Profile profile(flags);
        const Prog prog = lower_seccomp(profile);
        PathMemo memo(prog);
        size_t inputs = 0, wrong = 0;
        profile.visit_validation_inputs([&](const SeccompData &d) {
            inputs++;
            wrong += memo.ret(d) != evaluate(prog, d).ret;
        });
        CHECK(wrong == 0);
        // What it is for: most inputs differ from the one before only where no path looks.
        CHECK(memo.runs() < inputs / 2);
    }
}
