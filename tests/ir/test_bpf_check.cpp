// Unit tests of the structural BPF check (ir/bpf_check.h): a program using every accepted
// opcode passes; for each rule of the header, programs that break exactly that rule (one
// instruction of the valid program changed) are refused with a message naming the
// instruction. Programs are written with the kernel's macros and constants.
#include <doctest/doctest.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "bpf_check.h"

namespace {

using Prog = std::vector<tp_bpf_insn>;

// The valid program and the positions the tests change.
struct Base {
    Prog prog;
    uint32_t slot = 0;       // a plain `ld [args[0].hi]`, free to replace with anything
    uint32_t jump = 0;       // `jeq #39, 0, 1`
    uint32_t ret = 0;        // `ret ERRNO(EPERM)`
    uint32_t arch_kill = 0;  // the KILL_PROCESS the architecture check jumps to
};

tp_bpf_insn stmt(uint32_t code, uint32_t k)
{
    return BPF_STMT(static_cast<uint16_t>(code), k);
}
tp_bpf_insn jump(uint32_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
    return BPF_JUMP(static_cast<uint16_t>(code), k, jt, jf);
}

Base base()
{
    Base b;
    Prog &p = b.prog;
    p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
    p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 0));  // jf set below
    p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
    b.jump = static_cast<uint32_t>(p.size());
    p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, 39, 0, 1));
    b.ret = static_cast<uint32_t>(p.size());
    p.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1));
    b.slot = static_cast<uint32_t>(p.size());
    p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args) + 4));
    p.push_back(stmt(BPF_LDX | BPF_W | BPF_IMM, 3));
    const std::pair<uint32_t, uint32_t> alu_k[] = {{BPF_ADD, 1},  {BPF_SUB, 1},  {BPF_MUL, 3},    {BPF_DIV, 2},
                                                   {BPF_MOD, 5},  {BPF_OR, 1},   {BPF_AND, 0xff}, {BPF_XOR, 2},
                                                   {BPF_LSH, 31}, {BPF_RSH, 31}, {BPF_NEG, 0}};
    for (auto [op, k] : alu_k)
        p.push_back(stmt(BPF_ALU | op | BPF_K, k));
    for (uint32_t op : {BPF_ADD, BPF_SUB, BPF_MUL, BPF_OR, BPF_AND, BPF_XOR, BPF_LSH, BPF_RSH})
        p.push_back(stmt(BPF_ALU | op | BPF_X, 0));
    p.push_back(stmt(BPF_MISC | BPF_TAX, 0));
    p.push_back(stmt(BPF_MISC | BPF_TXA, 0));
    for (uint32_t op : {BPF_JGT, BPF_JGE, BPF_JSET})
        p.push_back(jump(BPF_JMP | op | BPF_K, 1, 0, 0));
    for (uint32_t op : {BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET})
        p.push_back(jump(BPF_JMP | op | BPF_X, 0, 0, 0));
    p.push_back(stmt(BPF_JMP | BPF_JA, 0));
    p.push_back(stmt(BPF_LD | BPF_IMM, 0));
    p.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    p.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_THREAD));
    p.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 4095));
    b.arch_kill = static_cast<uint32_t>(p.size());
    p.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    p[1].jf = static_cast<uint8_t>(b.arch_kill - 2);
    return b;
}

std::string hex(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", v);
    return buf;
}

// tp_bpf_check's verdict: "" when accepted, else its message.
std::string check(const Prog &p)
{
    char err[256] = "";
    const int rc = tp_bpf_check(p.data(), static_cast<uint32_t>(p.size()), err, sizeof err);
    if (rc == 0)
        return "";
    return std::string("refused: ") + err;
}

// Asserts that `p` is refused with a one-line message naming instruction `i`.
void refused_at(const Prog &p, uint32_t i)
{
    const std::string verdict = check(p);
    INFO("verdict: ", verdict);
    CHECK(verdict.find("instruction " + std::to_string(i) + ":") != std::string::npos);
    CHECK(verdict.find('\n') == std::string::npos);
}

void refused_in_slot(uint32_t code, uint32_t k)
{
    Base b = base();
    b.prog[b.slot] = stmt(code, k);
    INFO("code ", hex(code), " k ", hex(k));
    refused_at(b.prog, b.slot);
}

}  // namespace

TEST_CASE("bpf_check: a program with every accepted opcode passes, and so does the longest one")
{
    CHECK(check(base().prog) == "");
    Base b = base();
    b.prog.insert(b.prog.begin() + b.slot, TP_BPF_MAXINSNS - b.prog.size(), stmt(BPF_LD | BPF_IMM, 0));
    b.prog[1].jf = 0;  // the kill moved beyond a byte's reach; the ret at 2 + 0 is not a kill
    b.prog[2] = stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    REQUIRE(b.prog.size() == TP_BPF_MAXINSNS);
    CHECK(check(b.prog) == "");
}

TEST_CASE("bpf_check: length: empty and beyond 4096 instructions are refused")
{
    CHECK(check({}).find("empty") != std::string::npos);
    Base b = base();
    b.prog.insert(b.prog.begin() + b.slot, TP_BPF_MAXINSNS + 1 - b.prog.size(), stmt(BPF_LD | BPF_IMM, 0));
    b.prog[1].jf = 0;
    b.prog[2] = stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    CHECK(check(b.prog).find("4097") != std::string::npos);
}

TEST_CASE("bpf_check: opcodes outside the accepted set are refused")
{
    const uint32_t codes[] = {
        BPF_LD | BPF_H | BPF_ABS,
        BPF_LD | BPF_B | BPF_ABS,
        BPF_LD | BPF_W | BPF_IND,
        BPF_LD | BPF_W | BPF_MEM,
        BPF_LD | BPF_W | BPF_LEN,
        BPF_LDX | BPF_W | BPF_MEM,
        BPF_LDX | BPF_W | BPF_LEN,
        BPF_LDX | BPF_B | BPF_MSH,
        BPF_LDX | BPF_W | BPF_ABS,
        BPF_ST,
        BPF_STX,
        BPF_ALU | BPF_DIV | BPF_X,
        BPF_ALU | BPF_MOD | BPF_X,
        BPF_ALU | BPF_NEG | BPF_X,
        BPF_ALU | 0xb0 | BPF_K,
        BPF_ALU | 0xf0 | BPF_X,
        BPF_JMP | 0x50 | BPF_K,
        BPF_JMP | 0xe0 | BPF_X,
        BPF_JMP | BPF_JA | BPF_X,
        BPF_RET | BPF_A,
        BPF_RET | BPF_X,
        BPF_MISC | 0x20,
        BPF_MISC | BPF_TAX | 0x08,
    };
    for (uint32_t code : codes)
        refused_in_slot(code, 1);
}

TEST_CASE("bpf_check: opcodes with bits beyond the low byte are refused (the kernel does)")
{
    // The kernel looks the whole 16-bit code up in its table of allowed codes
    // (net/core/filter.c chk_code_allowed): on this machine's 6.18 kernel, codes 0x100,
    // 0x104 and 0x8005 fail to load with EINVAL.
    for (uint32_t code : {0x100u | BPF_LD | BPF_IMM, 0x100u | BPF_ALU | BPF_ADD | BPF_K, 0x8000u | BPF_JMP | BPF_JA,
                          0x100u | BPF_RET | BPF_K})
        refused_in_slot(code, 1);
}

TEST_CASE("bpf_check: loads outside seccomp_data or unaligned are refused")
{
    for (uint32_t k : {64u, 68u, 0xfffffffcu, 2u, 17u, 63u})
        refused_in_slot(BPF_LD | BPF_W | BPF_ABS, k);
    Base b = base();
    b.prog[b.slot] = stmt(BPF_LD | BPF_W | BPF_ABS, 60);  // args[5].hi, the last word
    CHECK(check(b.prog) == "");
}

TEST_CASE("bpf_check: jumps beyond the end are refused, to the last instruction accepted")
{
    Base b = base();
    const uint32_t last = static_cast<uint32_t>(b.prog.size()) - 1;
    const uint8_t to_last = static_cast<uint8_t>(last - b.jump - 1);
    for (auto [jt, jf] : {std::pair{to_last, uint8_t{0}}, std::pair{uint8_t{0}, to_last}}) {
        Prog p = b.prog;
        p[b.jump].jt = jt;
        p[b.jump].jf = jf;
        CHECK(check(p) == "");
        p[b.jump].jt = static_cast<uint8_t>(jt == 0 ? 0 : jt + 1);
        p[b.jump].jf = static_cast<uint8_t>(jf == 0 ? 0 : jf + 1);
        refused_at(p, b.jump);
    }
    Prog p = b.prog;
    p[b.slot] = stmt(BPF_JMP | BPF_JA, last - b.slot - 1);
    CHECK(check(p) == "");
    for (uint32_t k : {last - b.slot, 0xffffffffu, 0xffffffffu - b.slot}) {
        p[b.slot] = stmt(BPF_JMP | BPF_JA, k);
        refused_at(p, b.slot);
    }
}

TEST_CASE("bpf_check: constant shifts of 32 or more and division by constant 0 are refused")
{
    for (uint32_t op : {BPF_LSH, BPF_RSH})
        for (uint32_t k : {32u, 33u, 0xffffffffu})
            refused_in_slot(BPF_ALU | op | BPF_K, k);
    refused_in_slot(BPF_ALU | BPF_DIV | BPF_K, 0);
    refused_in_slot(BPF_ALU | BPF_MOD | BPF_K, 0);
}

TEST_CASE("bpf_check: the last instruction must be a return")
{
    Base b = base();
    b.prog.push_back(stmt(BPF_LD | BPF_IMM, 0));
    refused_at(b.prog, static_cast<uint32_t>(b.prog.size()) - 1);
    b.prog.back() = stmt(BPF_MISC | BPF_TAX, 0);
    refused_at(b.prog, static_cast<uint32_t>(b.prog.size()) - 1);
}

TEST_CASE("bpf_check: returns other than KILL_PROCESS, KILL_THREAD, ERRNO(1..4095), ALLOW are refused")
{
    for (uint32_t k : {uint32_t{SECCOMP_RET_TRAP}, uint32_t{SECCOMP_RET_TRACE}, uint32_t{SECCOMP_RET_LOG},
                       uint32_t{SECCOMP_RET_USER_NOTIF}, uint32_t{SECCOMP_RET_ERRNO}, SECCOMP_RET_ERRNO | 4096u,
                       SECCOMP_RET_ERRNO | 0xffffu, SECCOMP_RET_ALLOW | 1u, SECCOMP_RET_KILL_PROCESS | 1u,
                       SECCOMP_RET_KILL_THREAD | 1u, 0xffff0000u, 0x7ffe0000u}) {
        Base b = base();
        b.prog[b.ret] = stmt(BPF_RET | BPF_K, k);
        INFO("return ", hex(k));
        refused_at(b.prog, b.ret);
    }
}

TEST_CASE("bpf_check: the architecture must be checked first, a foreign one killing the process")
{
    Base b = base();
    Prog p = b.prog;
    p[0] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr));
    refused_at(p, 0);
    p[0] = stmt(BPF_LD | BPF_IMM, AUDIT_ARCH_X86_64);
    refused_at(p, 0);

    const tp_bpf_insn wrong_compares[] = {
        jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, p[1].jf),
        jump(BPF_JMP | BPF_JGE | BPF_K, AUDIT_ARCH_X86_64, 0, p[1].jf),
        jump(BPF_JMP | BPF_JEQ | BPF_X, AUDIT_ARCH_X86_64, 0, p[1].jf),
        jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, p[1].jf),
    };
    for (const tp_bpf_insn &cmp : wrong_compares) {
        p = b.prog;
        p[1] = cmp;
        refused_at(p, 1);
    }
    for (uint32_t action : {SECCOMP_RET_KILL_THREAD, SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | 1u}) {
        p = b.prog;
        p[b.arch_kill] = stmt(BPF_RET | BPF_K, action);
        refused_at(p, 1);
    }
    p = b.prog;
    p[1].jf = static_cast<uint8_t>(b.slot - 2);  // a load, not a return
    refused_at(p, 1);
    CHECK(check({stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
                 stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)}) != "");
}
