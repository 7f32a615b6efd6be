// compiler/frontend/frontend_dsl_parse.cpp — see frontend_dsl_parse.h.
//
// Three steps: the text is checked as UTF-8 (ANTLR's input stream would throw on bytes that
// are not), the token stream is checked (the lexer turns every character it cannot use into
// BAD_CHAR or BAD_STRING, so this is the one place lexical errors are worded), and the parse
// tree, if the parser reported nothing, is copied into the syntax tree.
#include "frontend_dsl_parse.h"

#include <TartLexer.h>
#include <TartParser.h>

#include <cstdio>
#include <exception>

#include "frontend_dsl_errors.h"
#include "paths.h"

namespace tartaros::dsl {

namespace {

using P = TartParser;

// The length of the UTF-8 sequence starting at text[i], or 0 when it is not a valid one
// (overlong forms, surrogates and code points above U+10FFFF are not).
size_t utf8_length(const std::string &text, size_t i)
{
    const auto byte = [&](size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
    const unsigned lead = byte(i);
    if (lead < 0x80)
        return 1;
    const auto continuation = [&](size_t k) { return (byte(k) & 0xC0) == 0x80; };
    if (lead >= 0xC2 && lead <= 0xDF)
        return continuation(i + 1) ? 2 : 0;
    if (lead >= 0xE0 && lead <= 0xEF) {
        const unsigned second = byte(i + 1);
        if ((lead == 0xE0 && second < 0xA0) || (lead == 0xED && second > 0x9F))
            return 0;
        return continuation(i + 1) && continuation(i + 2) ? 3 : 0;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        const unsigned second = byte(i + 1);
        if ((lead == 0xF0 && second < 0x90) || (lead == 0xF4 && second > 0x8F))
            return 0;
        return continuation(i + 1) && continuation(i + 2) && continuation(i + 3) ? 4 : 0;
    }
    return 0;
}

// Reports the first byte that is not UTF-8; false then.
bool check_utf8(const std::string &text, const std::string &display, Diagnostics &diags)
{
    uint32_t line = 1, col = 1;
    for (size_t i = 0; i < text.size();) {
        const size_t length = utf8_length(text, i);
        if (length == 0) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(text[i]));
            diags.error({display, line, col},
                        std::string("the file is not UTF-8 text: byte ") + hex + " starts no UTF-8 character",
                        "dsl-syntax");
            return false;
        }
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
        i += length;
    }
    return true;
}

// Lexes the whole text and reports its first lexical error: a BAD_CHAR or BAD_STRING token,
// or nesting beyond kMaxNesting; false then. Tokens are fetched one at a time and the scan
// stops at that error, so a megabyte of stray bytes costs one token and one diagnostic,
// not a million of each (like a syntax error, what follows the first is rarely news).
// The stream is rewound for the parser.
bool check_tokens(antlr4::CommonTokenStream &tokens, const std::string &display, Diagnostics &diags)
{
    size_t depth = 0;
    for (antlr4::Token *token = tokens.LT(1); token->getType() != antlr4::Token::EOF;
         tokens.consume(), token = tokens.LT(1)) {
        const SourcePos at{display, static_cast<uint32_t>(token->getLine()),
                           static_cast<uint32_t>(token->getCharPositionInLine() + 1)};
        switch (token->getType()) {
        case P::BAD_CHAR: diags.error(at, "unexpected character " + describe_token(token), "dsl-syntax"); return false;
        case P::BAD_STRING: diags.error(at, "this string has no closing '\"' on its line", "dsl-syntax"); return false;
        case P::LBRACE:
        case P::LBRACKET:
            if (++depth > kMaxNesting) {
                diags.error(at, "braces nest deeper than " + std::to_string(kMaxNesting) + " levels", "dsl-syntax");
                return false;
            }
            break;
        case P::RBRACE:
        case P::RBRACKET:
            if (depth > 0)
                --depth;
            break;
        default: break;
        }
    }
    tokens.seek(0);
    return true;
}

// The parse tree (free of syntax errors) into the syntax tree.
class Builder {
public:
    Builder(const std::string &display, size_t file_index, Diagnostics &diags)
        : display_(display), file_index_(file_index), diags_(diags)
    {}

    File file(P::PolicyContext *policy);
    bool ok() const { return ok_; }

private:
    SourcePos at(const antlr4::Token *token) const
    {
        return {display_, static_cast<uint32_t>(token->getLine()),
                static_cast<uint32_t>(token->getCharPositionInLine() + 1)};
    }
    std::string string_of(antlr4::tree::TerminalNode *string);
    Name word(P::WordContext *word) const { return {word->getText(), at(word->getStart()), false}; }
    Name name(P::NameContext *name);
    Value value(P::ValueContext *value);
    Value typed_path(P::TypedPathContext *typed);
    Value group_item(P::GroupItemContext *item);
    Setting setting(P::SettingContext *setting);
    Statement statement(P::StatementContext *statement);
    Group group(P::GroupDefContext *group);
    Block block(P::BlockContext *block);
    SyscallsBlock syscalls(P::SyscallsBlockContext *syscalls);
    DenyRule deny(P::DenyRuleContext *rule);
    Condition condition(P::ConditionContext *condition);
    Expr expr(P::ExprContext *expr) const;
    Atom atom(P::AtomContext *atom) const;

    const std::string &display_;
    size_t file_index_;
    Diagnostics &diags_;
    bool ok_ = true;
};

File Builder::file(P::PolicyContext *policy)
{
    File out;
    for (P::StatementContext *statement : policy->statement())
        out.statements.push_back(this->statement(statement));
    return out;
}

Statement Builder::statement(P::StatementContext *statement)
{
    if (P::VersionStmtContext *version = statement->versionStmt())
        return Version{at(version->getStart()), value(version->value())};
    if (P::IncludeStmtContext *include = statement->includeStmt()) {
        antlr4::tree::TerminalNode *path = include->STRING();
        return Include{at(include->getStart()), Name{string_of(path), at(path->getSymbol()), true}};
    }
    if (P::GroupDefContext *group = statement->groupDef())
        return this->group(group);
    if (P::SyscallsBlockContext *syscalls = statement->syscallsBlock())
        return this->syscalls(syscalls);
    return block(statement->block());
}

std::string Builder::string_of(antlr4::tree::TerminalNode *string)
{
    const std::string text = string->getText();
    std::optional<std::string> decoded =
        decode_string(text.substr(1, text.size() - 2), at(string->getSymbol()), diags_);
    if (!decoded) {
        ok_ = false;
        return {};
    }
    return *decoded;
}

Name Builder::name(P::NameContext *name)
{
    if (P::WordContext *w = name->word())
        return word(w);
    antlr4::tree::TerminalNode *string = name->STRING();
    return {string_of(string), at(string->getSymbol()), true};
}

Value Builder::typed_path(P::TypedPathContext *typed)
{
    Value out;
    out.kind = Value::Kind::TypedPath;
    out.pos = at(typed->getStart());
    out.file = file_index_;
    out.flag = typed->kind->getType() == P::KW_FILE;
    out.text = string_of(typed->STRING());
    out.text_pos = at(typed->STRING()->getSymbol());
    return out;
}

Value Builder::value(P::ValueContext *value)
{
    Value out;
    out.pos = at(value->getStart());
    out.file = file_index_;
    if (antlr4::tree::TerminalNode *string = value->STRING()) {
        out.kind = Value::Kind::String;
        out.text = string_of(string);
    } else if (antlr4::tree::TerminalNode *integer = value->INTEGER()) {
        out.kind = Value::Kind::Integer;
        out.text = integer->getText();
    } else if (P::BooleanContext *boolean = value->boolean()) {
        out.kind = Value::Kind::Boolean;
        out.flag = boolean->getStart()->getType() == P::KW_TRUE;
    } else if (antlr4::tree::TerminalNode *ref = value->GROUP_REF()) {
        out.kind = Value::Kind::GroupRef;
        out.text = ref->getText().substr(1);
    } else if (P::TypedPathContext *typed = value->typedPath()) {
        out = typed_path(typed);
    } else if (P::InlineMapContext *map = value->inlineMap()) {
        out.kind = Value::Kind::Map;
        for (P::MapEntryContext *entry : map->mapEntry())
            out.map.push_back({name(entry->name()), this->value(entry->value())});
    } else {
        out.kind = Value::Kind::Word;
        out.text = value->word()->getText();
    }
    return out;
}

Value Builder::group_item(P::GroupItemContext *item)
{
    if (P::TypedPathContext *typed = item->typedPath())
        return typed_path(typed);
    Value out;
    out.pos = at(item->getStart());
    out.file = file_index_;
    if (antlr4::tree::TerminalNode *ref = item->GROUP_REF()) {
        out.kind = Value::Kind::GroupRef;
        out.text = ref->getText().substr(1);
    } else {
        out.kind = Value::Kind::String;
        out.text = string_of(item->STRING());
    }
    return out;
}

Group Builder::group(P::GroupDefContext *group)
{
    Group out{at(group->getStart()), group->kind->getType() == P::KW_PATHS, word(group->word()), {}};
    for (P::GroupItemContext *item : group->groupItem())
        out.items.push_back(group_item(item));
    return out;
}

Setting Builder::setting(P::SettingContext *setting)
{
    Setting out{word(setting->word()), {}};
    for (P::EntryContext *entry : setting->entry()) {
        std::optional<Name> entry_name;
        if (P::NameContext *n = entry->name())
            entry_name = name(n);
        out.entries.push_back({std::move(entry_name), value(entry->value())});
    }
    return out;
}

Block Builder::block(P::BlockContext *block)
{
    Block out;
    out.name = {block->WORD()->getText(), at(block->WORD()->getSymbol()), false};
    for (antlr4::tree::ParseTree *child : block->children) {
        if (auto *s = dynamic_cast<P::SettingContext *>(child)) {
            out.settings.push_back(setting(s));
        } else if (auto *c = dynamic_cast<P::CapabilityBlockContext *>(child)) {
            Capability capability{at(c->getStart()), name(c->name()), {}};
            for (P::SettingContext *s2 : c->setting())
                capability.settings.push_back(setting(s2));
            out.capabilities.push_back(std::move(capability));
        }
    }
    return out;
}

SyscallsBlock Builder::syscalls(P::SyscallsBlockContext *syscalls)
{
    SyscallsBlock out{at(syscalls->getStart()), {}};
    for (P::DenyRuleContext *rule : syscalls->denyRule())
        out.rules.push_back(deny(rule));
    return out;
}

DenyRule Builder::deny(P::DenyRuleContext *rule)
{
    DenyRule out;
    out.pos = at(rule->getStart());
    out.name = word(rule->word());
    for (P::ConditionContext *c : rule->condition())
        out.when.push_back(condition(c));
    if (P::ActionContext *action = rule->action()) {
        if (P::AtomContext *err = action->atom())
            out.err = atom(err);
        else
            out.kill = true;
    }
    return out;
}

Condition Builder::condition(P::ConditionContext *condition)
{
    Condition out;
    if (auto *compare = dynamic_cast<P::CompareConditionContext *>(condition)) {
        out.arg = word(compare->word());
        out.op = compare->op->getType() == P::EQ ? Condition::Op::Equal : Condition::Op::NotEqual;
        out.values.push_back(expr(compare->expr()));
    } else if (auto *set = dynamic_cast<P::SetConditionContext *>(condition)) {
        out.arg = word(set->word());
        out.op = set->negated != nullptr ? Condition::Op::NotIn : Condition::Op::In;
        for (P::ExprContext *e : set->expr())
            out.values.push_back(expr(e));
    } else {
        auto *mask = dynamic_cast<P::MaskConditionContext *>(condition);
        out.arg = word(mask->word());
        out.values.push_back(expr(mask->expr(0)));
        out.op = Condition::Op::Mask;
        if (mask->op != nullptr) {
            out.op = mask->op->getType() == P::EQ ? Condition::Op::MaskEqual : Condition::Op::MaskNotEqual;
            out.compared = expr(mask->expr(1));
        }
    }
    return out;
}

Expr Builder::expr(P::ExprContext *expr) const
{
    Expr out;
    for (P::AtomContext *a : expr->atom())
        out.atoms.push_back(atom(a));
    return out;
}

Atom Builder::atom(P::AtomContext *atom) const
{
    return {atom->INTEGER() != nullptr, atom->getText(), at(atom->getStart())};
}

// The hexadecimal digits of a \u or \U escape at content[i..], as a Unicode scalar value.
std::optional<uint32_t> escape_code_point(const std::string &content, size_t i, size_t digits)
{
    if (i + digits > content.size())
        return std::nullopt;
    uint32_t code = 0;
    for (size_t k = i; k < i + digits; ++k) {
        const char c = content[k];
        const int digit = c >= '0' && c <= '9' ? c - '0'
            : c >= 'a' && c <= 'f'             ? c - 'a' + 10
            : c >= 'A' && c <= 'F'             ? c - 'A' + 10
                                               : -1;
        if (digit < 0)
            return std::nullopt;
        code = code * 16 + static_cast<uint32_t>(digit);
    }
    if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
        return std::nullopt;
    return code;
}

void append_utf8(std::string &out, uint32_t code)
{
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

}  // namespace

std::optional<std::string> decode_string(const std::string &content, const SourcePos &at, Diagnostics &diags)
{
    std::string out;
    uint32_t col = at.col + 1;  // of content[i]
    for (size_t i = 0; i < content.size(); ++col) {
        const unsigned char c = static_cast<unsigned char>(content[i]);
        const SourcePos here{at.file, at.line, col};
        if (c != '\\') {
            if ((c < 0x20 && c != '\t') || c == 0x7F) {
                char code[8];
                std::snprintf(code, sizeof code, "%04X", c);
                diags.error(here,
                            std::string("a control character (U+") + code + ") in a string: write it as \\u" + code,
                            "dsl-syntax");
                return std::nullopt;
            }
            const size_t length = (c & 0x80) == 0 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
            out.append(content, i, length);
            i += length;
            continue;
        }
        const char kind = i + 1 < content.size() ? content[i + 1] : '\0';
        static const std::string kSimple = "btnfr\"\\";
        static const std::string kDecoded = "\b\t\n\f\r\"\\";
        if (const size_t simple = kSimple.find(kind); kind != '\0' && simple != std::string::npos) {
            out += kDecoded[simple];
            i += 2;
            ++col;
            continue;
        }
        const size_t digits = kind == 'u' ? 4 : kind == 'U' ? 8 : 0;
        const std::optional<uint32_t> code = digits == 0 ? std::nullopt : escape_code_point(content, i + 2, digits);
        if (!code) {
            diags.error(here,
                        digits == 0 ? "invalid escape '\\" + printable(std::string(1, kind)) +
                                "' in a string: the escapes are \\\" \\\\ \\b \\t \\n \\f \\r \\uXXXX "
                                "\\UXXXXXXXX"
                                    : std::string("invalid escape in a string: \\") + kind + " takes " +
                                std::to_string(digits) +
                                " hexadecimal digits naming a Unicode character (a backslash is \\\\)",
                        "dsl-syntax");
            return std::nullopt;
        }
        append_utf8(out, *code);
        i += 2 + digits;
        col += static_cast<uint32_t>(1 + digits);
    }
    return out;
}

std::optional<IntegerValue> parse_integer(const std::string &text)
{
    IntegerValue out;
    size_t i = 0;
    if (i < text.size() && text[i] == '-') {
        out.negative = true;
        ++i;
    }
    unsigned base = 10;
    if (text.size() > i + 1 && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
        base = 16;
        i += 2;
    }
    if (i >= text.size())
        return std::nullopt;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        const unsigned digit = c >= '0' && c <= '9' ? static_cast<unsigned>(c - '0')
            : c >= 'a' && c <= 'f'                  ? static_cast<unsigned>(c - 'a' + 10)
            : c >= 'A' && c <= 'F'                  ? static_cast<unsigned>(c - 'A' + 10)
                                                    : base;
        if (digit >= base)
            return std::nullopt;
        if (out.magnitude > (UINT64_MAX - digit) / base)
            return std::nullopt;
        out.magnitude = out.magnitude * base + digit;
    }
    return out;
}

std::optional<File> parse_tart_file(const std::string &text, const std::string &display, size_t file_index,
                                    Diagnostics &diags)
{
    if (!check_utf8(text, display, diags))
        return std::nullopt;
    try {
        antlr4::ANTLRInputStream input(text);
        TartLexer lexer(&input);
        SyntaxErrorListener listener(display, diags);
        lexer.removeErrorListeners();
        lexer.addErrorListener(&listener);
        antlr4::CommonTokenStream tokens(&lexer);
        if (!check_tokens(tokens, display, diags) || listener.errors() > 0)
            return std::nullopt;
        TartParser parser(&tokens);
        parser.removeErrorListeners();
        parser.addErrorListener(&listener);
        P::PolicyContext *tree = parser.policy();
        if (listener.errors() > 0)
            return std::nullopt;
        Builder builder(display, file_index, diags);
        File file = builder.file(tree);
        if (!builder.ok())
            return std::nullopt;
        return file;
    } catch (const std::exception &e) {
        // The runtime throws on its own internal errors only; report rather than crash.
        diags.error({display, 0, 0}, std::string("internal error while parsing: ") + e.what(), "dsl-syntax");
        return std::nullopt;
    }
}

}  // namespace tartaros::dsl
