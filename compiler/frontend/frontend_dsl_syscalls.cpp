// compiler/frontend/frontend_dsl_syscalls.cpp — see frontend_dsl_syscalls.h.
//
// Conditions test the low 32 bits of an argument (the kernel reads int
// arguments as 32 bits, so a test of the whole register could be dodged with the high word):
// every value is reduced to 32 bits here, a negative one modulo 2^32 (-100 is AT_FDCWD's
// 0xffffff9c), and one that does not fit either way is an error rather than a silent cut.
#include "frontend_dsl_syscalls.h"

#include <algorithm>

#include "paths.h"
#include "syscall_constants.h"
#include "syscall_table.h"
#include "toml_schema.h"

namespace tartaros::dsl {

namespace {

std::string with_suggestion(std::string message, const std::string &word, const std::vector<std::string> &known)
{
    const std::string suggestion = closest_match(word, known);
    if (!suggestion.empty())
        message += "; did you mean " + quoted(suggestion) + "?";
    return message;
}

const std::vector<std::string> &syscall_names()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const seccomp::SyscallEntry &entry : seccomp::syscall_table())
            out.emplace_back(entry.name);
        return out;
    }();
    return names;
}

class RuleLowerer {
public:
    explicit RuleLowerer(Diagnostics &diags) : diags_(diags) {}

    std::optional<SyscallDenyRule> rule(const DenyRule &rule);

private:
    std::optional<uint32_t> atom(const Atom &atom);
    std::optional<uint32_t> expr(const Expr &expr);
    std::optional<uint8_t> argument(const Name &arg);
    std::optional<SyscallCondition> condition(const Condition &condition);
    bool action(const DenyRule &rule, SyscallDenyRule &out);

    Diagnostics &diags_;
};

std::optional<uint32_t> RuleLowerer::atom(const Atom &atom)
{
    if (!atom.integer) {
        const std::optional<uint32_t> value = syscall_constant(atom.text);
        if (!value)
            diags_.error(atom.pos,
                         with_suggestion("unknown constant " + quoted(atom.text), atom.text, syscall_constant_names()),
                         "unknown-constant");
        return value;
    }
    const std::optional<IntegerValue> n = parse_integer(atom.text);
    const bool fits = n && (n->negative ? n->magnitude <= (uint64_t{1} << 31) : n->magnitude <= UINT32_MAX);
    if (!fits) {
        diags_.error(atom.pos,
                     quoted(atom.text) +
                         " is outside -2147483648..4294967295: a condition tests the low 32 bits "
                         "of an argument",
                     "syscall-condition");
        return std::nullopt;
    }
    return static_cast<uint32_t>(n->negative ? (uint64_t{1} << 32) - n->magnitude : n->magnitude);
}

// ATOM | ATOM ...: the bits of all of them.
std::optional<uint32_t> RuleLowerer::expr(const Expr &expr)
{
    uint32_t value = 0;
    bool ok = true;
    for (const Atom &a : expr.atoms) {
        const std::optional<uint32_t> bits = atom(a);
        if (bits)
            value |= *bits;
        ok = ok && bits;
    }
    if (!ok)
        return std::nullopt;
    return value;
}

std::optional<uint8_t> RuleLowerer::argument(const Name &arg)
{
    const std::string &text = arg.text;
    if (text.size() == 4 && text.starts_with("arg") && text[3] >= '0' && text[3] <= '5')
        return static_cast<uint8_t>(text[3] - '0');
    diags_.error(arg.pos, quoted(text) + " is not an argument: a condition tests arg0, arg1, arg2, arg3, arg4 or arg5",
                 "syscall-condition");
    return std::nullopt;
}

std::optional<SyscallCondition> RuleLowerer::condition(const Condition &condition)
{
    using Op = Condition::Op;
    using Kind = SyscallCondition::Kind;
    SyscallCondition out;
    out.pos = condition.arg.pos;
    const std::optional<uint8_t> arg = argument(condition.arg);
    bool ok = arg.has_value();
    out.arg = arg.value_or(0);
    for (const Expr &e : condition.values) {
        const std::optional<uint32_t> value = expr(e);
        if (value)
            out.values.push_back(*value);
        ok = ok && value;
    }
    std::optional<uint32_t> compared = 0;
    if (condition.compared) {
        compared = expr(*condition.compared);
        if (compared && *compared != 0) {
            diags_.error(condition.compared->atoms.front().pos,
                         "after a mask only '== 0' (no bit set) or '!= 0' (some bit set) can follow",
                         "syscall-condition");
            ok = false;
        }
        ok = ok && compared;
    }
    if (!ok)
        return std::nullopt;
    switch (condition.op) {
    case Op::Equal:
    case Op::In: out.kind = Kind::In; break;
    case Op::NotEqual:
    case Op::NotIn: out.kind = Kind::NotIn; break;
    case Op::Mask:
    case Op::MaskNotEqual: out.kind = Kind::AnyBit; break;
    case Op::MaskEqual: out.kind = Kind::NoBit; break;
    }
    if ((out.kind == Kind::AnyBit || out.kind == Kind::NoBit) && out.values.front() == 0) {
        diags_.error(condition.values.front().atoms.front().pos, "a mask of 0 tests no bit", "syscall-condition");
        return std::nullopt;
    }
    std::sort(out.values.begin(), out.values.end());
    out.values.erase(std::unique(out.values.begin(), out.values.end()), out.values.end());
    return out;
}

// `errno E` or `kill`; EPERM when the rule says neither.
bool RuleLowerer::action(const DenyRule &rule, SyscallDenyRule &out)
{
    out.kill = rule.kill;
    if (!rule.err)
        return true;
    const Atom &err = *rule.err;
    if (!err.integer) {
        const std::optional<uint16_t> number = errno_number(err.text);
        if (!number) {
            diags_.error(err.pos, with_suggestion("unknown errno " + quoted(err.text), err.text, errno_names()),
                         "syscall-action");
            return false;
        }
        out.err = *number;
        return true;
    }
    const std::optional<IntegerValue> n = parse_integer(err.text);
    if (!n || n->negative || n->magnitude < 1 || n->magnitude > 4095) {
        diags_.error(err.pos, "errno " + printable(err.text) + " is outside 1..4095", "syscall-action");
        return false;
    }
    out.err = static_cast<uint16_t>(n->magnitude);
    return true;
}

std::optional<SyscallDenyRule> RuleLowerer::rule(const DenyRule &rule)
{
    SyscallDenyRule out;
    out.pos = rule.pos;
    out.name = {rule.name.text, rule.name.pos};
    const std::optional<uint32_t> nr = seccomp::syscall_number(rule.name.text);
    bool ok = nr.has_value();
    if (!nr)
        diags_.error(
            rule.name.pos,
            with_suggestion("unknown syscall " + quoted(rule.name.text) + " (x86_64)", rule.name.text, syscall_names()),
            "unknown-syscall");
    out.nr = nr.value_or(0);
    std::vector<const SourcePos *> first_on(6, nullptr);
    for (const Condition &c : rule.when) {
        std::optional<SyscallCondition> condition = this->condition(c);
        if (!condition) {
            ok = false;
            continue;
        }
        if (const SourcePos *first = first_on[condition->arg]) {
            diags_.error(condition->pos,
                         "a second condition on " + quoted(c.arg.text) + " (the first is at " + position_text(*first) +
                             "): a rule tests each argument once; write one condition, such as " + c.arg.text +
                             " in {…}",
                         "syscall-condition");
            ok = false;
            continue;
        }
        first_on[condition->arg] = &c.arg.pos;
        out.when.push_back(std::move(*condition));
    }
    ok = action(rule, out) && ok;
    if (!ok)
        return std::nullopt;
    std::stable_sort(out.when.begin(), out.when.end(),
                     [](const SyscallCondition &a, const SyscallCondition &b) { return a.arg < b.arg; });
    return out;
}

}  // namespace

std::vector<SyscallDenyRule> lower_syscall_rules(const std::vector<SyscallsBlock> &blocks, Diagnostics &diags)
{
    std::vector<SyscallDenyRule> rules;
    RuleLowerer lowerer(diags);
    size_t count = 0;
    for (const SyscallsBlock &block : blocks) {
        for (const DenyRule &rule : block.rules) {
            if (++count == kMaxSyscallRules + 1)
                diags.error(rule.pos,
                            "more than " + std::to_string(kMaxSyscallRules) +
                                " syscall rules: the seccomp filter must stay within the kernel's 4096 instructions",
                            "syscall-rule-count");
            std::optional<SyscallDenyRule> lowered = lowerer.rule(rule);
            if (lowered && count <= kMaxSyscallRules)
                rules.push_back(std::move(*lowered));
        }
    }
    return rules;
}

}  // namespace tartaros::dsl
