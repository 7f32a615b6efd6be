// compiler/frontend/frontend_dsl_ast.h — the .tart front-end's syntax tree: one file's statements as
// written, with the position of every token that a message may point at.
//
// frontend_dsl_parse.cpp builds it from ANTLR's parse tree (grammar/Tart.g4), so nothing
// after parsing depends on ANTLR. Strings are already decoded (TOML basic-string escapes);
// integers are kept as written, because their range depends on where they are used (a setting
// takes 64 bits, a syscall condition 32).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "policy.h"

namespace tartaros::dsl {

// A word or a string naming something (a key, a group, a map entry, a capability).
struct Name {
    std::string text;  // decoded
    SourcePos pos;     // its first character (the quote of a string)
    bool quoted = false;
};

struct MapEntry;

struct Value {
    enum class Kind { String, Integer, Boolean, Word, GroupRef, TypedPath, Map };
    Kind kind = Kind::String;
    SourcePos pos;    // the value's first token
    size_t file = 0;  // the index of the file that writes it (relative paths resolve there)
    // String, Word: the text (decoded); Integer: as written; GroupRef: the group's name, without
    // '@'; TypedPath: the path (decoded).
    std::string text;
    bool flag = false;          // Boolean: its value; TypedPath: `file` (true) or `dir` (false)
    SourcePos text_pos;         // TypedPath: the path's string
    std::vector<MapEntry> map;  // Map: its entries, in order
};

struct MapEntry {
    Name name;
    Value value;
};

// `[NAME =] VALUE` in a setting.
struct Entry {
    std::optional<Name> name;
    Value value;
};

// `KEY ENTRY, ENTRY, ... ;`
struct Setting {
    Name key;
    std::vector<Entry> entries;
};

// `capability NAME { SETTING* }` (broker only).
struct Capability {
    SourcePos pos;  // 'capability'
    Name name;
    std::vector<Setting> settings;
};

// `NAME { ... }`: a block of settings (filesystem, network, process, env, broker).
struct Block {
    Name name;
    std::vector<Setting> settings;
    std::vector<Capability> capabilities;
};

// `paths NAME = [ITEM, ...];` / `domains NAME = [...];` — items are String, TypedPath and
// GroupRef values.
struct Group {
    SourcePos pos;  // 'paths' or 'domains'
    bool paths = true;
    Name name;
    std::vector<Value> items;
};

// An integer or a constant name in a syscall condition or errno.
struct Atom {
    bool integer = false;
    std::string text;  // as written
    SourcePos pos;
};

// `ATOM | ATOM ...`
struct Expr {
    std::vector<Atom> atoms;
};

struct Condition {
    enum class Op { Equal, NotEqual, In, NotIn, Mask, MaskEqual, MaskNotEqual };
    Name arg;  // argN
    Op op = Op::Equal;
    std::vector<Expr> values;      // Equal/NotEqual/Mask*: one; In/NotIn: the set
    std::optional<Expr> compared;  // MaskEqual/MaskNotEqual: the right-hand side (must be 0)
};

// `deny NAME [when COND (and COND)*] [errno E | kill];`
struct DenyRule {
    SourcePos pos;  // 'deny'
    Name name;
    std::vector<Condition> when;
    bool kill = false;
    std::optional<Atom> err;  // `errno E`
};

// `version VALUE;`
struct Version {
    SourcePos pos;  // 'version'
    Value value;
};

// `include "PATH";`
struct Include {
    SourcePos pos;  // 'include'
    Name path;
};

// `syscalls { DENY* }`
struct SyscallsBlock {
    SourcePos pos;
    std::vector<DenyRule> rules;
};

using Statement = std::variant<Version, Include, Group, Block, SyscallsBlock>;

// One file's statements, in order.
struct File {
    std::vector<Statement> statements;
};

// An integer as written, or nullopt when it does not fit 64 bits of magnitude.
struct IntegerValue {
    bool negative = false;
    uint64_t magnitude = 0;
};
std::optional<IntegerValue> parse_integer(const std::string &text);

}  // namespace tartaros::dsl
