// compiler/frontend/toml_schema.cpp — see toml_schema.h.
#include "toml_schema.h"

#include <algorithm>
#include <stdexcept>

#include "paths.h"
#include "policy_keys.h"

namespace tartaros {

const char *type_phrase(toml::node_type type)
{
    switch (type) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
    }
    return "nothing";
}

std::vector<TomlEntry> entries_in_source_order(const toml::table &table)
{
    std::vector<TomlEntry> entries;
    for (auto &&[key, node] : table)
        entries.push_back({&key, &node});
    std::stable_sort(entries.begin(), entries.end(), [](const TomlEntry &a, const TomlEntry &b) {
        return a.key->source().begin < b.key->source().begin;
    });
    return entries;
}

void PositionMap::add(uint32_t line, uint32_t col, const SourcePos &at, bool quoted_word)
{
    if (lines_.size() < line)
        lines_.resize(line);
    lines_[line - 1].push_back({col, at, quoted_word});
}

SourcePos PositionMap::map(const toml::source_position &position) const
{
    if (position.line == 0 || position.line > lines_.size())
        return {};
    const Segment *found = nullptr;
    for (const Segment &segment : lines_[position.line - 1]) {
        if (segment.col > position.column)
            break;
        found = &segment;
    }
    if (found == nullptr)
        return {};
    uint32_t past = static_cast<uint32_t>(position.column) - found->col;
    if (found->quoted_word && past > 0)
        --past;  // the document's opening quote is not in the .tart text
    SourcePos at = found->at;
    at.col += past;
    return at;
}

SourcePos TomlSchemaReader::pos(const toml::source_region &region) const
{
    if (map_ != nullptr && region.path != nullptr && *region.path == map_->document_path()) {
        SourcePos at = map_->map(region.begin);
        if (at.line != 0)
            return at;
        return {file_, 0, 0};
    }
    return {file_, static_cast<uint32_t>(region.begin.line), static_cast<uint32_t>(region.begin.column)};
}

void TomlSchemaReader::type_error(const toml::node &node, std::string_view name, std::string_view expected)
{
    diags_.error(pos(node.source()),
                 quoted(name) + " must be " + std::string(expected) + ", not " + type_phrase(node.type()),
                 "wrong-type");
}

void TomlSchemaReader::read_table(const toml::table &table, std::string_view section,
                                  const std::vector<TomlField> &fields, const std::vector<TomlRefused> &refused)
{
    std::vector<std::string> read;
    for (const TomlField &field : fields)
        read.emplace_back(field.name);
    std::vector<std::string> known = known_names(section);
    std::sort(read.begin(), read.end());
    std::sort(known.begin(), known.end());
    if (read != known)
        throw std::logic_error("the reader of " + std::string(policy_section(section).header) +
                               " and policy_keys.cpp disagree on its keys");
    for (const TomlEntry &entry : entries_in_source_order(table)) {
        const std::string_view name = entry.key->str();
        auto field = std::find_if(fields.begin(), fields.end(), [&](const TomlField &f) { return f.name == name; });
        if (field != fields.end()) {
            field->read(*entry.key, *entry.node);
            continue;
        }
        auto refusal =
            std::find_if(refused.begin(), refused.end(), [&](const TomlRefused &r) { return r.name == name; });
        if (refusal != refused.end()) {
            diags_.error(pos(entry.key->source()), refusal->message, std::string(refusal->rule_id));
            continue;
        }
        report_unknown(*entry.key, section);
    }
}

void TomlSchemaReader::report_unknown(const toml::key &key, std::string_view section)
{
    std::string message = "unknown key " + quoted(key.str());
    if (!section.empty())
        message += " in " + std::string(policy_section(section).header);
    const std::string suggestion = closest_match(std::string(key.str()), known_names(section));
    if (!suggestion.empty())
        message += "; did you mean " + quoted(suggestion) + "?";
    diags_.error(pos(key.source()), std::move(message), "unknown-key");
}

const toml::table *TomlSchemaReader::expect_table(const toml::key &key, const toml::node &node)
{
    const toml::table *table = node.as_table();
    if (table == nullptr)
        type_error(node, key.str(), "a table");
    return table;
}

void TomlSchemaReader::read_bool(const toml::key &key, const toml::node &node, Located<bool> &out)
{
    const toml::value<bool> *value = node.as_boolean();
    if (value == nullptr) {
        type_error(node, key.str(), "a boolean (true or false)");
        return;
    }
    out = {value->get(), pos(node.source())};
}

}  // namespace tartaros
