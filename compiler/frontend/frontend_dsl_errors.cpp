// compiler/frontend/frontend_dsl_errors.cpp — see frontend_dsl_errors.h.
//
// The parser calls syntaxError in the rule where it stopped, with its state set to the point
// of the error, so getExpectedTokens() is what that point accepts. Each rule has its own
// wording; the expected set tells apart the points inside a rule (after the key of a setting,
// after one of its values, after a comma...).
#include "frontend_dsl_errors.h"

#include <TartParser.h>

#include "paths.h"

namespace tartaros::dsl {

namespace {

using P = TartParser;

const std::string kValue = "a value (a string, number, true/false, word, @group or file/dir \"…\")";
const std::string kGroupItem = "an item (a string, file/dir \"…\" or @group)";
const std::string kCondition = "a condition (argN == V, argN != V, argN in {V, ...}, argN not in {V, ...}, argN & V)";
const std::string kAtom = "a number or a constant name (such as AF_NETLINK)";
const std::string kStatement =
    "a statement (version, include, paths, domains, syscalls, or a block such as 'filesystem {')";

// The text of a word or name node, or "" when the parser has not got that far.
std::string text_of(antlr4::tree::ParseTree *node)
{
    return node == nullptr ? "" : printable(node->getText());
}

std::string quoted_text(const std::string &text)
{
    return "'" + text + "'";
}

// Where the parser stands: the rule's context, what it accepts next, and the token before
// the one it found. The expected set is the parser's state at the error; for a failed
// prediction (several alternatives, none fits) that state is where the prediction began, so
// the words then come from the token before.
struct Point {
    antlr4::ParserRuleContext *ctx;
    const antlr4::misc::IntervalSet &expected;
    const antlr4::Token *previous;  // null at the start of the file

    bool accepts(size_t type) const { return expected.contains(type); }
    // Every word is a keyword too, so a keyword "accepted" where a word is means nothing.
    bool accepts_keyword(size_t type) const { return accepts(type) && !accepts(P::WORD); }
    bool accepts_value() const { return accepts(P::STRING) && accepts(P::GROUP_REF) && accepts(P::LBRACE); }
    bool after(size_t type) const { return previous != nullptr && previous->getType() == type; }
    std::string previous_text() const { return previous == nullptr ? "" : printable(previous->getText()); }
};

// The nearest enclosing context of type Context, or null.
template <class Context>
Context *enclosing(antlr4::tree::ParseTree *node)
{
    for (; node != nullptr; node = node->parent)
        if (auto *found = dynamic_cast<Context *>(node))
            return found;
    return nullptr;
}

std::string setting_message(const Point &at, P::SettingContext *setting)
{
    const std::string key = quoted_text(text_of(setting->word()));
    if (text_of(setting->word()) == "capability")
        return "expected a capability block (capability NAME { host \"…\"; ... }) or ';' after the value of "
               "'capability'";
    if (at.accepts_value() && at.accepts(P::SEMI))
        return "expected " + kValue + " or ';' after " + key;
    if (at.accepts_value())
        return "expected " + kValue + " after ',' in " + key;
    if (at.accepts(P::SEMI))
        return "expected ';' after the value of " + key;
    return "expected " + kValue + " in " + key;
}

std::string group_message(const Point &at, P::GroupDefContext *group)
{
    const std::string name = quoted_text(text_of(group->word()));
    if (at.accepts(P::WORD))
        return "expected the group's name after '" + at.previous_text() + "'";
    if (at.accepts(P::ASSIGN))
        return "expected '=' after the group's name " + name;
    if (at.accepts(P::LBRACKET))
        return "expected '[' to start the items of group " + name;
    if (at.accepts(P::SEMI))
        return "expected ';' after the group " + name;
    if (at.accepts(P::RBRACKET) && at.accepts(P::COMMA))
        return "expected ',' or ']' after an item of group " + name;
    if (at.accepts(P::RBRACKET))
        return "expected " + kGroupItem + " or ']' in group " + name;
    return "expected " + kGroupItem + " in group " + name;
}

std::string block_message(const Point &at, P::BlockContext *block)
{
    const std::string name = quoted_text(text_of(block->WORD()));
    if (at.accepts(P::LBRACE) && !at.accepts(P::RBRACE))
        return "expected '{' after " + name;
    return "expected a setting (KEY VALUE, ...;) or '}' to end " + name;
}

std::string capability_message(const Point &at, P::CapabilityBlockContext *capability)
{
    if (at.after(P::KW_CAPABILITY))
        return "expected the capability's name after 'capability'";
    const std::string name = "'capability " + text_of(capability->name()) + "'";
    if (at.accepts(P::LBRACE) && !at.accepts(P::RBRACE))
        return "expected '{' after " + name;
    return "expected a setting (KEY VALUE, ...;) or '}' to end " + name;
}

std::string map_message(const Point &at, antlr4::ParserRuleContext *ctx)
{
    if (auto *entry = dynamic_cast<P::MapEntryContext *>(ctx); entry != nullptr && at.after(P::ASSIGN))
        return "expected " + kValue + " after '" + text_of(entry->name()) + " ='";
    if (at.accepts(P::ASSIGN))
        return "expected '=' after '" + at.previous_text() + "' in the map";
    if (at.accepts(P::RBRACE) && at.accepts(P::COMMA))
        return "expected ',' or '}' after an entry of the map";
    if (at.after(P::COMMA))
        return "expected NAME = VALUE after ',' in the map";
    return "expected NAME = VALUE or '}' in the map";
}

std::string deny_message(const Point &at, P::DenyRuleContext *rule)
{
    if (at.after(P::KW_DENY))
        return "expected a syscall's name after 'deny'";
    if (at.after(P::KW_WHEN) || at.after(P::KW_AND))
        return "expected " + kCondition + " after '" + at.previous_text() + "'";
    const std::string head = "'deny " + text_of(rule->word()) + "'";
    if (at.accepts_keyword(P::KW_AND))
        return "expected 'and', 'errno', 'kill' or ';' after a condition of " + head;
    if (at.accepts_keyword(P::KW_WHEN))
        return "expected 'when', 'errno', 'kill' or ';' after " + head;
    return "expected ';' after the action of " + head;
}

std::string condition_message(const Point &at, P::DenyRuleContext *rule)
{
    if (at.after(P::KW_WHEN) || at.after(P::KW_AND))
        return deny_message(at, rule);
    if (at.after(P::KW_NOT))
        return "expected 'in' after 'not'";
    if (at.after(P::KW_IN))
        return "expected '{' to start the set of values after 'in'";
    if (at.after(P::EQ) || at.after(P::NE) || at.after(P::AMP) || at.after(P::PIPE) || at.after(P::LBRACE) ||
        (at.after(P::COMMA) && at.accepts(P::INTEGER)))
        return "expected " + kAtom + " after '" + at.previous_text() + "'";
    if (at.accepts(P::RBRACE) && at.accepts(P::COMMA))
        return "expected ',' or '}' after a value of the set";
    if (at.accepts_keyword(P::KW_AND) || at.accepts(P::SEMI))
        return deny_message(at, rule);
    return "expected '==', '!=', 'in', 'not in' or '&' after '" + at.previous_text() + "'";
}

// What was expected, in words, at the point where the parser stopped: the nearest enclosing
// rule that has its own wording decides.
std::string expected_phrase(const Point &at)
{
    for (antlr4::tree::ParseTree *node = at.ctx; node != nullptr; node = node->parent) {
        auto *ctx = dynamic_cast<antlr4::ParserRuleContext *>(node);
        if (ctx == nullptr)
            continue;
        switch (ctx->getRuleIndex()) {
        case P::RulePolicy:
        case P::RuleStatement: return "expected " + kStatement;
        case P::RuleVersionStmt:
            return at.accepts(P::SEMI) ? "expected ';' after the version"
                                       : "expected the version number after 'version'";
        case P::RuleIncludeStmt:
            return at.accepts(P::STRING) ? "expected the included file's name, in quotes, after 'include'"
                                         : "expected ';' after the included file's name";
        case P::RuleGroupDef: return group_message(at, dynamic_cast<P::GroupDefContext *>(ctx));
        case P::RuleGroupItem: return "expected " + kGroupItem;
        case P::RuleTypedPath: return "expected a path in quotes after '" + at.previous_text() + "'";
        case P::RuleBlock: return block_message(at, dynamic_cast<P::BlockContext *>(ctx));
        case P::RuleCapabilityBlock: return capability_message(at, dynamic_cast<P::CapabilityBlockContext *>(ctx));
        case P::RuleSetting: return setting_message(at, dynamic_cast<P::SettingContext *>(ctx));
        case P::RuleInlineMap:
        case P::RuleMapEntry:
            // `capability { ... }` without a name reads as the setting `capability` with a map.
            if (auto *setting = enclosing<P::SettingContext>(ctx);
                setting != nullptr && text_of(setting->word()) == "capability" && setting->entry().size() == 1)
                return "expected the capability's name after 'capability' (capability NAME { ... })";
            return map_message(at, ctx);
        case P::RuleValue:
            if (dynamic_cast<P::VersionStmtContext *>(ctx->parent) != nullptr)
                continue;  // it words this one
            return "expected " + kValue;
        case P::RuleSyscallsBlock:
            return at.accepts(P::RBRACE) ? "expected a rule (deny NAME ...;) or '}' to end 'syscalls'"
                                         : "expected '{' after 'syscalls'";
        case P::RuleDenyRule: return deny_message(at, dynamic_cast<P::DenyRuleContext *>(ctx));
        case P::RuleCondition:
        case P::RuleExpr: return condition_message(at, enclosing<P::DenyRuleContext>(ctx));
        case P::RuleAction: return "expected an errno name (such as EPERM) or number after 'errno'";
        default: break;  // word, name, boolean, atom: their parent says what they are
        }
    }
    return "expected " + kStatement;
}

}  // namespace

std::string describe_token(const antlr4::Token *token)
{
    if (token == nullptr || token->getType() == antlr4::Token::EOF)
        return "the end of the file";
    std::string text = token->getText();
    constexpr size_t kShown = 40;
    if (text.size() > kShown) {
        size_t cut = kShown;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
            --cut;  // not inside a character
        text = text.substr(0, cut) + "…";
    }
    return quoted_text(printable(text));
}

void SyntaxErrorListener::syntaxError(antlr4::Recognizer *recognizer, antlr4::Token *offending, size_t line,
                                      size_t column, const std::string &message, std::exception_ptr)
{
    // Only the first: after it, ANTLR's recovery resynchronises where it can, and what it
    // reports next is often a consequence of the first error worded as if it were a new one.
    if (errors_++ > 0)
        return;
    const SourcePos pos{file_, static_cast<uint32_t>(line), static_cast<uint32_t>(column + 1)};
    auto *parser = dynamic_cast<antlr4::Parser *>(recognizer);
    if (parser == nullptr) {  // the lexer: unreachable while BAD_CHAR takes every character
        diags_.error(pos, "cannot read this: " + printable(message), "dsl-syntax");
        return;
    }
    const antlr4::Token *previous = nullptr;
    const size_t index = offending == nullptr ? 0 : offending->getTokenIndex();
    if (index > 0 && index < parser->getTokenStream()->size())  // a conjured token has no index
        previous = parser->getTokenStream()->get(index - 1);
    const antlr4::misc::IntervalSet expected = parser->getExpectedTokens();
    const Point at{parser->getContext(), expected, previous};
    diags_.error(pos, expected_phrase(at) + ", found " + describe_token(offending), "dsl-syntax");
}

}  // namespace tartaros::dsl
