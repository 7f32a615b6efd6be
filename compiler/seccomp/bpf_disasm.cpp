// compiler/seccomp/bpf_disasm.cpp — seccomp BPF as text (bpf_disasm.h).
//
// The disassembler prints any program, valid or not (test failure messages show mutants and
// damaged plans), so an opcode outside the accepted set is printed raw, never refused.
#include "bpf_disasm.h"

#include <string.h>

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "bpf_check.h"
#include "syscall_table.h"

namespace tartaros::seccomp {

namespace {

// SECCOMP_RET_* actions the checker refuses but a damaged program may still hold.
constexpr uint32_t kRetTrap = 0x00030000u;
constexpr uint32_t kRetUserNotif = 0x7fc00000u;
constexpr uint32_t kRetTrace = 0x7ff00000u;
constexpr uint32_t kRetLog = 0x7ffc0000u;

// Column where the "; ..." comment of a jump starts.
constexpr size_t kCommentColumn = 25;

std::string hex(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", v);
    return buf;
}

// The seccomp_data field at byte offset `k`: "nr", "arch", "ip.lo", "args[1].hi", ...
std::string field_name(uint32_t k)
{
    if (k == TP_SD_NR)
        return "nr";
    if (k == TP_SD_ARCH)
        return "arch";
    if (k == TP_SD_IP || k == TP_SD_IP + 4)
        return k == TP_SD_IP ? "ip.lo" : "ip.hi";
    if (k >= TP_SD_ARGS && k < TP_SD_SIZE && k % 4 == 0)
        return "args[" + std::to_string((k - TP_SD_ARGS) / 8) + ((k % 8) == 0 ? "].lo" : "].hi");
    return hex(k);
}

std::string_view alu_mnemonic(uint32_t op)
{
    switch (op) {
    case TP_BPF_ADD: return "add";
    case TP_BPF_SUB: return "sub";
    case TP_BPF_MUL: return "mul";
    case TP_BPF_DIV: return "div";
    case TP_BPF_MOD: return "mod";
    case TP_BPF_OR: return "or";
    case TP_BPF_AND: return "and";
    case TP_BPF_XOR: return "xor";
    case TP_BPF_LSH: return "lsh";
    case TP_BPF_RSH: return "rsh";
    case TP_BPF_NEG: return "neg";
    default: return "";
    }
}

std::string_view jump_mnemonic(uint32_t op)
{
    switch (op) {
    case TP_BPF_JEQ: return "jeq";
    case TP_BPF_JGT: return "jgt";
    case TP_BPF_JGE: return "jge";
    case TP_BPF_JSET: return "jset";
    default: return "";
    }
}

std::string raw(const tp_bpf_insn &in)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "unknown code=0x%04x jt=%u jf=%u k=0x%x", in.code, in.jt, in.jf, in.k);
    return buf;
}

std::string pad_to_comment(std::string text)
{
    text.resize(std::max(text.size() + 1, kCommentColumn), ' ');
    return text;
}

// A conditional jump; `a_is_nr` says the last load put the syscall number in A.
std::string conditional(const tp_bpf_insn &in, size_t i, bool a_is_nr)
{
    const uint32_t op = TP_BPF_OP(in.code);
    const bool by_x = TP_BPF_SRC(in.code) == TP_BPF_X;
    std::string text = std::string(jump_mnemonic(op)) + (by_x ? " x" : " #" + hex(in.k));
    text = pad_to_comment(std::move(text)) + "; true " + std::to_string(i + 1 + in.jt) + ", false " +
        std::to_string(i + 1 + in.jf);
    if (a_is_nr && !by_x && op != TP_BPF_JSET) {
        const std::string_view name = syscall_name(in.k);
        if (!name.empty())
            text += " (" + std::string(name) + ")";
    }
    return text;
}

std::string instruction(const tp_bpf_insn &in, size_t i, bool a_is_nr)
{
    const uint32_t code = in.code;
    switch (code) {
    case TP_BPF_LD | TP_BPF_W | TP_BPF_ABS: return "ld [" + field_name(in.k) + "]";
    case TP_BPF_LD | TP_BPF_IMM: return "ld #" + hex(in.k);
    case TP_BPF_LDX | TP_BPF_IMM: return "ldx #" + hex(in.k);
    case TP_BPF_JMP | TP_BPF_JA: return "ja " + std::to_string(i + 1 + uint64_t{in.k});
    case TP_BPF_RET | TP_BPF_K: return "ret " + action_name(in.k);
    case TP_BPF_RET | TP_BPF_A: return "ret a";
    case TP_BPF_MISC | TP_BPF_TAX: return "tax";
    case TP_BPF_MISC | TP_BPF_TXA: return "txa";
    case TP_BPF_ALU | TP_BPF_NEG: return "neg";
    default: break;
    }
    if (TP_BPF_CLASS(code) == TP_BPF_ALU && code <= 0xff && !alu_mnemonic(TP_BPF_OP(code)).empty())
        return std::string(alu_mnemonic(TP_BPF_OP(code))) + (TP_BPF_SRC(code) == TP_BPF_X ? " x" : " #" + hex(in.k));
    if (TP_BPF_CLASS(code) == TP_BPF_JMP && code <= 0xff && !jump_mnemonic(TP_BPF_OP(code)).empty())
        return conditional(in, i, a_is_nr);
    return raw(in);
}

// Whether A holds the syscall number after `in`, given whether it did before. Follows the
// program in order, as a reader does: an accurate data flow would need the jump graph.
bool a_holds_nr_after(const tp_bpf_insn &in, bool before)
{
    switch (TP_BPF_CLASS(in.code)) {
    case TP_BPF_LD: return in.code == (TP_BPF_LD | TP_BPF_W | TP_BPF_ABS) && in.k == TP_SD_NR;
    case TP_BPF_ALU: return false;
    case TP_BPF_MISC: return TP_BPF_MISCOP(in.code) == TP_BPF_TXA ? false : before;
    default: return before;
    }
}

}  // namespace

std::string action_name(uint32_t ret)
{
    const uint32_t data = ret & TP_RET_DATA;
    const std::string suffix = data != 0 ? "(data " + hex(data) + ")" : "";
    switch (ret & TP_RET_ACTION_FULL) {
    case TP_RET_KILL_PROCESS: return "KILL_PROCESS" + suffix;
    case TP_RET_KILL_THREAD: return "KILL_THREAD" + suffix;
    case TP_RET_ALLOW: return "ALLOW" + suffix;
    case kRetTrap: return "TRAP" + suffix;
    case kRetUserNotif: return "USER_NOTIF" + suffix;
    case kRetLog: return "LOG" + suffix;
    case kRetTrace: return "TRACE(" + std::to_string(data) + ")";
    case TP_RET_ERRNO: {
        const char *name = strerrorname_np(static_cast<int>(data));
        return "ERRNO(" + (name != nullptr ? std::string(name) : std::to_string(data)) + ")";
    }
    default: return hex(ret);
    }
}

std::string disassemble(std::span<const tp_bpf_insn> prog)
{
    std::string out;
    bool a_is_nr = false;
    for (size_t i = 0; i < prog.size(); i++) {
        char index[32];
        std::snprintf(index, sizeof index, "%6zu: ", i);
        out += index + instruction(prog[i], i, a_is_nr) + "\n";
        a_is_nr = a_holds_nr_after(prog[i], a_is_nr);
    }
    return out;
}

}  // namespace tartaros::seccomp
