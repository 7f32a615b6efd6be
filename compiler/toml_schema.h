// compiler/toml_schema.h — what the TOML front-end's table readers share: a schema of known
// and refused keys per table, positions, and the type errors every table reports alike.
//
// Keys are visited in source order (toml++ iterates tables in key order), so diagnostics
// come out in the order of the file. Used by frontend_toml.cpp (the document, [filesystem],
// [network], [env]), frontend_process.cpp ([process]) and frontend_broker.cpp ([broker]).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "diagnostics.h"
#include "policy.h"

namespace tartaros {

struct TomlEntry {
    const toml::key *key;
    const toml::node *node;
};

// A key the schema knows: its reader gets the key and its value.
struct TomlField {
    std::string_view name;
    std::function<void(const toml::key &, const toml::node &)> read;
};

// A key recognised but refused, with its own message.
struct TomlRefused {
    std::string_view name;
    std::string message;
    std::string_view rule_id;
};

// "a string", "an integer", ... for type errors.
const char *type_phrase(toml::node_type type);

// 'text' with control characters escaped, as diagnostics quote keys.
std::string quoted(std::string_view text);

std::vector<TomlEntry> entries_in_source_order(const toml::table &table);

// The reporting half of a table reader: positions in `file`, diagnostics into `diags`.
class TomlSchemaReader {
public:
    TomlSchemaReader(std::string file, Diagnostics &diags) : file_(std::move(file)), diags_(diags) {}

    SourcePos pos(const toml::source_region &region) const
    {
        return {file_, static_cast<uint32_t>(region.begin.line), static_cast<uint32_t>(region.begin.column)};
    }
    Diagnostics &diags() { return diags_; }

    // "'name' must be EXPECTED, not a string" at the value.
    void type_error(const toml::node &node, std::string_view name, std::string_view expected);

    // Each key of `table` in source order: its field's reader, its refusal, or "unknown key"
    // with a "did you mean" from the fields.
    void read_table(const toml::table &table, std::string_view table_name, const std::vector<TomlField> &fields,
                    const std::vector<TomlRefused> &refused);
    const toml::table *expect_table(const toml::key &key, const toml::node &node);
    void read_bool(const toml::key &key, const toml::node &node, Located<bool> &out);

protected:
    std::string file_;
    Diagnostics &diags_;

private:
    void report_unknown(const toml::key &key, std::string_view table_name, const std::vector<TomlField> &fields);
};

}  // namespace tartaros
