// Unit tests of the disassembler: golden text of a small program, and action names.
#include <doctest/doctest.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <cerrno>
#include <cstddef>
#include <string>
#include <vector>

#include "bpf_disasm.h"

using namespace tartaros::seccomp;

TEST_CASE("bpf_disasm: golden text of a small program")
{
    const std::vector<tp_bpf_insn> prog = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 14),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 12, 0),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 59, 0, 9),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 41, 0, 7),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args) + 4),
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args)),
        BPF_STMT(BPF_LDX | BPF_IMM, 40),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 1),
        BPF_STMT(BPF_JMP | BPF_JA, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAFNOSUPPORT),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    };
    const std::string got = disassemble(prog);
    const std::string want = R"(     0: ld [arch]
     1: jeq #0xc000003e          ; true 2, false 16
     2: ld [nr]
     3: jge #0x40000000          ; true 16, false 4
     4: jge #0x3b                ; true 5, false 14 (execve)
     5: jeq #0x29                ; true 6, false 13 (socket)
     6: ld [args[0].hi]
     7: and #0x0
     8: jeq #0x0                 ; true 9, false 13
     9: ld [args[0].lo]
    10: ldx #0x28
    11: jeq x                    ; true 12, false 13
    12: ja 14
    13: ret ALLOW
    14: ret ERRNO(EAFNOSUPPORT)
    15: ret ERRNO(ENOSYS)
    16: ret KILL_PROCESS
)";
    CHECK(got == want);
}

TEST_CASE("bpf_disasm: instructions the structural check refuses are still printed")
{
    const std::vector<tp_bpf_insn> prog = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 64),
        BPF_STMT(BPF_ST, 3),
        BPF_STMT(BPF_ALU | BPF_NEG, 0),
        BPF_STMT(BPF_MISC | BPF_TAX, 0),
        BPF_STMT(BPF_ALU | BPF_LSH | BPF_X, 0),
        BPF_STMT(BPF_RET | BPF_A, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 5),
    };
    CHECK(disassemble(prog) == R"(     0: ld [0x40]
     1: unknown code=0x0002 jt=0 jf=0 k=0x3
     2: neg
     3: tax
     4: lsh x
     5: ret a
     6: ret TRACE(5)
)");
}

TEST_CASE("bpf_disasm: action names")
{
    CHECK(action_name(SECCOMP_RET_ALLOW) == "ALLOW");
    CHECK(action_name(SECCOMP_RET_ERRNO | EPERM) == "ERRNO(EPERM)");
    CHECK(action_name(SECCOMP_RET_ERRNO | ENOSYS) == "ERRNO(ENOSYS)");
    CHECK(action_name(SECCOMP_RET_ERRNO | 4095) == "ERRNO(4095)");
    CHECK(action_name(SECCOMP_RET_KILL_PROCESS) == "KILL_PROCESS");
    CHECK(action_name(SECCOMP_RET_KILL_THREAD) == "KILL_THREAD");
    CHECK(action_name(SECCOMP_RET_TRAP) == "TRAP");
    CHECK(action_name(SECCOMP_RET_LOG) == "LOG");
    CHECK(action_name(SECCOMP_RET_USER_NOTIF) == "USER_NOTIF");
    // Data the kernel ignores is shown, or two different values would print alike.
    CHECK(action_name(SECCOMP_RET_ALLOW | 1) == "ALLOW(data 0x1)");
    CHECK(action_name(0x12340000) == "0x12340000");
}
