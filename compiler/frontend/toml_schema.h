// compiler/frontend/toml_schema.h — what the TOML front-end's table readers share: a schema of known
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
#include "paths.h"
#include "policy.h"

namespace tartaros {

struct TomlEntry {
    const toml::key *key;
    const toml::node *node;
};

// A key of the table's section in policy_keys.h: its reader gets the key and its value.
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

std::vector<TomlEntry> entries_in_source_order(const toml::table &table);

// Where the text of a TOML document that the compiler wrote itself came from: the .tart
// front-end lowers its settings into such a document (frontend_dsl_lower.h) so that
// the table readers check them, and their positions must name the .tart tokens.
//
// The document is parsed with `document_path()` as its toml++ source path. Each of its lines
// holds segments, each starting at a column and standing for a token of a .tart file; a
// position maps to the segment at or before it on its line, moved right by as many columns
// as it lies past the segment's start (so a position inside a string stays inside it). A
// segment that stands for a bare word (written quoted in the document) maps its opening quote
// and first letter alike.
class PositionMap {
public:
    explicit PositionMap(std::string document_path = {}) : document_path_(std::move(document_path)) {}

    const std::string &document_path() const { return document_path_; }
    // Line `line` (1-based) from column `col` on stands for `at`; segments of a line are added
    // in column order. `quoted_word`: the text there is a bare word the document quotes.
    void add(uint32_t line, uint32_t col, const SourcePos &at, bool quoted_word = false);
    // The .tart position of `position`; line 0 when no segment covers it.
    SourcePos map(const toml::source_position &position) const;

private:
    struct Segment {
        uint32_t col;
        SourcePos at;
        bool quoted_word;
    };
    std::string document_path_;
    std::vector<std::vector<Segment>> lines_;  // index: line - 1
};

// The reporting half of a table reader: positions in `file`, diagnostics into `diags`. With a
// PositionMap, positions in the map's document are that document's sources (a .tart file).
class TomlSchemaReader {
public:
    TomlSchemaReader(std::string file, Diagnostics &diags, const PositionMap *map = nullptr)
        : file_(std::move(file)), diags_(diags), map_(map)
    {}

    SourcePos pos(const toml::source_region &region) const;
    Diagnostics &diags() { return diags_; }

    // "'name' must be EXPECTED, not a string" at the value.
    void type_error(const toml::node &node, std::string_view name, std::string_view expected);

    // Each key of `table`, the policy's table `section` (policy_keys.h), in source order: its
    // field's reader, its refusal, or "unknown key" with a "did you mean" from the section's
    // names. `fields` reads exactly known_names(section) (std::logic_error otherwise).
    void read_table(const toml::table &table, std::string_view section, const std::vector<TomlField> &fields,
                    const std::vector<TomlRefused> &refused);
    const toml::table *expect_table(const toml::key &key, const toml::node &node);
    void read_bool(const toml::key &key, const toml::node &node, Located<bool> &out);

protected:
    std::string file_;
    Diagnostics &diags_;
    const PositionMap *map_;

private:
    void report_unknown(const toml::key &key, std::string_view section);
};

}  // namespace tartaros
