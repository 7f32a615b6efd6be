// compiler/model/policy_keys.h — every key a policy may set, in one table: its name, its type
// and default as docs/policy.md gives them, what a .tart group may stand for in it, its
// meaning and an example. The TOML readers take the keys they know from it (toml_schema.h), the .tart
// lowering how to merge a key's statements, print_policy the order it prints them in, the lint
// rules the path lists; docs/policy.md's key reference is this table (test_policy_keys.cpp), and
// so is the man page tartaros-policy(5) (`tartaros man tartaros-policy`, cli_docs.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tartaros {

// How the statements of one key in a .tart block merge into its TOML value.
enum class KeyShape : uint8_t {
    Scalar,  // one value: a second statement is a duplicate
    List,    // every statement's entries appended
    Table,   // every statement's NAME = VALUE entries merged
};

// What a .tart group may stand for in a key's value.
enum class KeyRole : uint8_t { None, Path, Domain };

// A table of the policy: "" is the top level; a nested table is named by its path.
struct PolicySection {
    std::string_view name;    // "", "filesystem", ..., "broker.capability"
    std::string_view header;  // as TOML writes it: "[filesystem]", "[[broker.capability]]"
    std::string_view doc;     // docs/policy.md's meaning column (Markdown), "" for none
};

struct PolicyKey {
    std::string_view section;  // PolicySection::name
    std::string_view name;
    KeyShape shape;
    KeyRole role;
    std::string_view type;  // docs/policy.md's columns, in Markdown
    std::string_view default_text;
    std::string_view doc;
    // TOML lines under the section's header that set the key (and what it needs beside it,
    // e.g. `timeout` for `timeout_grace`); each is accepted by the front-end (a unit test).
    std::string_view example;
};

// In docs/policy.md's order: the top level first.
std::span<const PolicySection> policy_sections();
const PolicySection &policy_section(std::string_view section);  // std::logic_error for a name not in the table

// Every key, grouped by section in policy_sections()'s order.
std::span<const PolicyKey> policy_keys();
std::vector<const PolicyKey *> section_keys(std::string_view section);
const PolicyKey *find_policy_key(std::string_view section, std::string_view name);  // null when unknown

// What a table of `section` may hold: its keys, then the tables nested directly in it ("filesystem"
// at the top level, "capability" in [broker]).
std::vector<std::string> known_names(std::string_view section);

// docs/policy.md's key reference: the Markdown table, one line per row, from its header row on.
std::string policy_key_reference();

}  // namespace tartaros
