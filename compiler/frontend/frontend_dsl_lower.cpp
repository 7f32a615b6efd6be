// compiler/frontend/frontend_dsl_lower.cpp — see frontend_dsl_lower.h.
//
// Two steps per table (a block, or one capability): its statements are gathered by key in the
// order keys first appear (a Slot per key), then each slot is written according to its key's
// shape in policy_keys.h: a list appends every statement's entries; a table merges their
// NAME = VALUE entries; anything else is one statement's value. Keys the table does not know
// are written as one value too, and the table readers report them ("unknown key ... did you
// mean").
#include "frontend_dsl_lower.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string_view>
#include <utility>

#include "paths.h"
#include "policy_keys.h"
#include "secret_detector.h"

namespace tartaros::dsl {

namespace {

size_t code_points(std::string_view text)
{
    return static_cast<size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The document's text, line by line, with the map of where each piece came from.
class Writer {
public:
    explicit Writer(PositionMap &map) : map_(map) {}

    void mark(const SourcePos &at, bool quoted_word = false) { map_.add(line_, col_, at, quoted_word); }
    void put(std::string_view text)
    {
        text_ += text;
        col_ += static_cast<uint32_t>(code_points(text));
    }
    void end_line()
    {
        text_ += '\n';
        ++line_;
        col_ = 1;
    }
    std::string take() { return std::move(text_); }

private:
    PositionMap &map_;
    std::string text_;
    uint32_t line_ = 1;
    uint32_t col_ = 1;
};

// Every statement of one key in one table, in order.
struct Slot {
    const PolicyKey *info;  // null: a key the table does not know
    std::vector<const Setting *> statements;
};

// A setting's entry once groups are expanded: its name (null: a plain value) and value.
struct Item {
    const Name *name;
    const Value *value;
};

class Lowerer {
public:
    Lowerer(const Program &program, const Groups &groups, PositionMap &map, Diagnostics &diags)
        : program_(program), groups_(groups), out_(map), diags_(diags)
    {}

    void versions(bool root_is_tart, const std::optional<RootVersion> &toml_root);
    void blocks();
    std::string take() { return out_.take(); }

private:
    std::vector<std::pair<const PolicySection *, std::vector<const Block *>>> gather_blocks();
    void block(const PolicySection &info, const std::vector<const Block *> &blocks);
    void table(std::string_view section, const std::vector<const Setting *> &settings);
    void capability(const Capability &capability);
    void slot(const Slot &slot);
    void list(const Slot &slot);
    void entries_table(const Slot &slot);
    void one_value(const Slot &slot);
    std::vector<Item> expand(const Slot &slot, const Setting &setting);
    bool group_fits(const Slot &slot, const Group &group, const Value &ref);
    void value(const Value &value, bool path);
    void item(const Item &item, bool path);
    void array(const Name &key, const std::vector<Item> &items, bool path);
    void map(const Value &map, bool path);
    std::string path_text(const Value &value, const std::string &text) const;
    bool valid(const Value &value);

    const Program &program_;
    const Groups &groups_;
    Writer out_;
    Diagnostics &diags_;
};

// `version = V` from the policy file's first version statement; the others must agree.
void Lowerer::versions(bool root_is_tart, const std::optional<RootVersion> &toml_root)
{
    const VersionAt *root = nullptr;
    std::map<size_t, const VersionAt *> first_in_file;
    for (const VersionAt &v : program_.versions) {
        const auto [first, inserted] = first_in_file.emplace(v.file, &v);
        if (!inserted) {
            diags_.error(v.version.pos,
                         "'version' is already set at " + position_text(first->second->version.pos) +
                             "; a file states its version once",
                         "duplicate-setting");
            continue;
        }
        if (root_is_tart && v.file == 0)
            root = &v;
    }
    if (root != nullptr && valid(root->version.value)) {
        out_.mark(root->version.pos);
        out_.put("version = ");
        value(root->version.value, false);
        out_.end_line();
    }
    std::optional<RootVersion> policy = toml_root;
    if (root != nullptr && root->version.value.kind == Value::Kind::Integer) {
        const std::optional<IntegerValue> n = parse_integer(root->version.value.text);
        if (n && !n->negative && n->magnitude <= INT64_MAX)
            policy = RootVersion{static_cast<int64_t>(n->magnitude), root->version.value.pos};
    }
    if (!policy)
        return;  // the policy's own version is missing or wrong: the table readers say so
    for (const auto &[file, v] : first_in_file) {
        if (v == root)
            continue;
        const Value &said = v->version.value;
        const std::optional<IntegerValue> n =
            said.kind == Value::Kind::Integer ? parse_integer(said.text) : std::nullopt;
        if (n && !n->negative && n->magnitude == static_cast<uint64_t>(policy->value))
            continue;
        diags_.error(said.pos,
                     "this file says version " + printable(said.kind == Value::Kind::Integer ? said.text : "…") +
                         " but the policy is version " + std::to_string(policy->value) + " (" +
                         position_text(policy->pos) +
                         "); an included file may repeat the policy's version, not change it",
                     "unsupported-version");
    }
}

// The blocks of every file gathered by name, in the order names first appear; an unknown
// name is reported (with a "did you mean") and its block left out.
std::vector<std::pair<const PolicySection *, std::vector<const Block *>>> Lowerer::gather_blocks()
{
    // A block is a table of the top level: [broker.capability] is written as capabilities.
    std::vector<const PolicySection *> known;
    for (const PolicySection &s : policy_sections())
        if (!s.name.empty() && s.name.find('.') == std::string_view::npos)
            known.push_back(&s);
    std::vector<std::pair<const PolicySection *, std::vector<const Block *>>> out;
    for (const Block &block : program_.blocks) {
        const auto info = std::find_if(known.begin(), known.end(),
                                       [&](const PolicySection *s) { return s->name == block.name.text; });
        if (info == known.end()) {
            std::vector<std::string> names;
            for (const PolicySection *s : known)
                names.emplace_back(s->name);
            std::string message = "unknown block " + quoted(block.name.text);
            const std::string suggestion = closest_match(block.name.text, names);
            if (!suggestion.empty())
                message += "; did you mean " + quoted(suggestion) + "?";
            diags_.error(block.name.pos,
                         message + " (the blocks are filesystem, network, process, env, broker and syscalls)",
                         "unknown-key");
            continue;
        }
        auto same = std::find_if(out.begin(), out.end(), [&](const auto &b) { return b.first == *info; });
        if (same == out.end())
            same = out.insert(out.end(), {*info, {}});
        same->second.push_back(&block);
    }
    return out;
}

void Lowerer::blocks()
{
    for (const auto &[info, blocks] : gather_blocks())
        block(*info, blocks);
}

// `[NAME]` with the settings of every block of that name; for broker, its capabilities after.
void Lowerer::block(const PolicySection &info, const std::vector<const Block *> &blocks)
{
    const bool broker = info.name == "broker";
    out_.mark(blocks.front()->name.pos);
    out_.put("[" + std::string(info.name) + "]");
    out_.end_line();
    std::vector<const Setting *> settings;
    for (const Block *block : blocks) {
        for (const Setting &setting : block->settings) {
            if (broker && setting.key.text == "capability") {
                diags_.error(setting.key.pos,
                             "a capability is a block of its own: capability NAME { host \"…\"; value_env …; }",
                             "dsl-syntax");
                continue;
            }
            settings.push_back(&setting);
        }
        if (!broker && !block->capabilities.empty())
            diags_.error(block->capabilities.front().pos,
                         "'capability NAME { ... }' belongs in the 'broker' block, not in " + quoted(info.name),
                         "dsl-syntax");
    }
    table(info.name, settings);
    if (!broker)
        return;
    for (const Block *block : blocks)
        for (const Capability &c : block->capabilities)
            capability(c);
}

// The settings of one table gathered into slots, then written slot by slot.
void Lowerer::table(std::string_view section, const std::vector<const Setting *> &settings)
{
    std::vector<Slot> slots;
    std::map<std::string_view, size_t> index;
    for (const Setting *setting : settings) {
        const auto [at, inserted] = index.emplace(setting->key.text, slots.size());
        if (inserted)
            slots.push_back({find_policy_key(section, setting->key.text), {}});
        slots[at->second].statements.push_back(setting);
    }
    for (const Slot &s : slots)
        slot(s);
}

void Lowerer::capability(const Capability &capability)
{
    out_.mark(capability.pos);
    out_.put("[[broker.capability]]");
    out_.end_line();
    out_.mark(capability.pos);
    out_.put("name = ");
    out_.mark(capability.name.pos, !capability.name.quoted);
    out_.put(toml_string(capability.name.text));
    out_.end_line();
    std::vector<const Setting *> settings;
    for (const Setting &setting : capability.settings) {
        if (setting.key.text == "name") {
            diags_.error(setting.key.pos,
                         "'name' is already set by 'capability " + printable(capability.name.text) + "' at " +
                             position_text(capability.name.pos),
                         "duplicate-setting");
            continue;
        }
        settings.push_back(&setting);
    }
    table("broker.capability", settings);
}

void Lowerer::slot(const Slot &slot)
{
    const KeyShape shape = slot.info == nullptr ? KeyShape::Scalar : slot.info->shape;
    switch (shape) {
    case KeyShape::List: list(slot); break;
    case KeyShape::Table: entries_table(slot); break;
    case KeyShape::Scalar: one_value(slot); break;
    }
}

// `KEY = [` one line per entry of every statement `]`.
void Lowerer::list(const Slot &slot)
{
    const Name &key = slot.statements.front()->key;
    std::vector<Item> items;
    for (const Setting *setting : slot.statements) {
        const std::vector<Item> more = expand(slot, *setting);
        items.insert(items.end(), more.begin(), more.end());
        if (items.size() > kMaxGroupEntries) {
            diags_.error(setting->key.pos,
                         quoted(key.text) + " holds more than " + std::to_string(kMaxGroupEntries) +
                             " entries once its groups are expanded",
                         "group-size");
            items.resize(kMaxGroupEntries);
            break;
        }
    }
    const bool path = slot.info != nullptr && slot.info->role == KeyRole::Path;
    out_.mark(key.pos);
    out_.put(key.text + " = ");
    array(key, items, path);
}

// `KEY."NAME" = VALUE` for each entry of every statement; a NAME once.
void Lowerer::entries_table(const Slot &slot)
{
    const Name &key = slot.statements.front()->key;
    std::map<std::string, SourcePos> seen;
    bool any = false;
    for (const Setting *setting : slot.statements) {
        for (const Entry &entry : setting->entries) {
            if (!entry.name) {
                diags_.error(entry.value.pos,
                             quoted(key.text) + " takes NAME = VALUE entries, such as " + key.text +
                                 (key.text == "hosts" ? " \"db.internal\" = \"10.0.0.5\"" : " NAME = \"…\""),
                             "wrong-type");
                continue;
            }
            const auto [first, inserted] = seen.emplace(entry.name->text, entry.name->pos);
            if (!inserted) {
                diags_.error(entry.name->pos,
                             quoted(entry.name->text) + " is already set in " + quoted(key.text) + " at " +
                                 position_text(first->second),
                             "duplicate-setting");
                continue;
            }
            if (!valid(entry.value))
                continue;
            any = true;
            out_.mark(setting->key.pos);
            out_.put(key.text + ".");
            out_.mark(entry.name->pos, !entry.name->quoted);
            out_.put(toml_string(entry.name->text) + " = ");
            value(entry.value, false);
            out_.end_line();
        }
    }
    if (any)
        return;
    out_.mark(key.pos);
    out_.put(key.text + " = {}");
    out_.end_line();
}

// `KEY = VALUE` from the first statement; no entry is `[]`, several are an array (the table
// readers then say which type the key takes).
void Lowerer::one_value(const Slot &slot)
{
    const Setting &first = *slot.statements.front();
    for (size_t i = 1; i < slot.statements.size(); ++i)
        diags_.error(slot.statements[i]->key.pos,
                     quoted(first.key.text) + " is already set at " + position_text(first.key.pos) +
                         "; a key that takes one value is set once in the whole policy (lists append, tables merge)",
                     "duplicate-setting");
    const std::vector<Item> items = expand(slot, first);
    if (items.empty() && !first.entries.empty())
        return;  // every entry had an error (reported)
    const bool path = slot.info != nullptr && slot.info->role == KeyRole::Path;
    out_.mark(first.key.pos);
    out_.put(first.key.text + " = ");
    if (items.size() == 1) {
        item(items.front(), path);
        out_.end_line();
        return;
    }
    array(first.key, items, path);
}

// After `KEY = `: `[` (mapped to the first item, or to the key when there is none), one line
// per item, and `]` (mapped to the key).
void Lowerer::array(const Name &key, const std::vector<Item> &items, bool path)
{
    out_.mark(items.empty() ? key.pos : items.front().value->pos);
    out_.put("[");
    out_.end_line();
    for (const Item &i : items) {
        item(i, path);
        out_.put(",");
        out_.end_line();
    }
    out_.mark(key.pos);
    out_.put("]");
    out_.end_line();
}

// Whether group `group` may stand in `slot`'s key: its kind of value, or a key the DSL does
// not know (the table readers report the key itself).
bool Lowerer::group_fits(const Slot &slot, const Group &group, const Value &ref)
{
    if (slot.info == nullptr)
        return true;
    if ((group.paths && slot.info->role == KeyRole::Path) || (!group.paths && slot.info->role == KeyRole::Domain))
        return true;
    const std::string key(slot.info->name);
    diags_.error(ref.pos,
                 "'@" + ref.text + "' is a " + (group.paths ? "paths" : "domains") + " group (" +
                     position_text(group.name.pos) + "); " + quoted(key) +
                     (slot.info->role == KeyRole::None
                          ? " takes no group"
                          : std::string(" takes ") + (slot.info->role == KeyRole::Path ? "paths" : "domains")),
                 "group-kind");
    return false;
}

std::vector<Item> Lowerer::expand(const Slot &slot, const Setting &setting)
{
    std::vector<Item> items;
    for (const Entry &entry : setting.entries) {
        if (entry.name || entry.value.kind != Value::Kind::GroupRef) {
            if (valid(entry.value))
                items.push_back({entry.name ? &*entry.name : nullptr, &entry.value});
            continue;
        }
        const Group *group = groups_.find(entry.value.text);
        if (group == nullptr) {
            groups_.report_unknown(entry.value);
            continue;
        }
        if (!group_fits(slot, *group, entry.value))
            continue;
        const std::optional<std::vector<const Value *>> &expansion = groups_.expansion(*group);
        if (!expansion)
            continue;  // reported with the group
        for (const Value *v : *expansion)
            items.push_back({nullptr, v});
    }
    return items;
}

// A list element or a key's one value: a plain value, or `{ "NAME" = VALUE }` for NAME = VALUE.
void Lowerer::item(const Item &item, bool path)
{
    if (item.name == nullptr) {
        value(*item.value, path);
        return;
    }
    out_.mark(item.name->pos);
    out_.put("{ ");
    out_.mark(item.name->pos, !item.name->quoted);
    out_.put(toml_string(item.name->text) + " = ");
    value(*item.value, path && item.name->text == "path");
    out_.put(" }");
}

// A relative path written in an included file, as the policy file's directory sees it.
std::string Lowerer::path_text(const Value &value, const std::string &text) const
{
    if (text.empty() || text.front() == '/' || text.front() == '~')
        return text;
    return program_.files[value.file].prefix + text;
}

// Reports what in `value` no document can hold: a group where no list can stand (inside a
// map, as a NAME = VALUE entry's value, as the version), an integer beyond 64 bits, a map entry
// named twice. The caller then leaves the whole value out, so the table readers do not
// report a consequence of it (an empty path, a missing entry) as a second error.
bool Lowerer::valid(const Value &value)
{
    switch (value.kind) {
    case Value::Kind::GroupRef:
        diags_.error(value.pos,
                     "'@" + value.text +
                         "' cannot stand here: a group stands for entries of a list, such as "
                         "read_denies @secrets or allow_domains @registries",
                     "group-kind");
        return false;
    case Value::Kind::Integer: {
        const std::optional<IntegerValue> n = parse_integer(value.text);
        if (n && n->magnitude <= (n->negative ? uint64_t{1} << 63 : uint64_t{INT64_MAX}))
            return true;
        diags_.error(value.pos, quoted(value.text) + " does not fit in a 64-bit integer", "invalid-value");
        return false;
    }
    case Value::Kind::Map: {
        bool ok = true;
        std::map<std::string, SourcePos> seen;
        for (const MapEntry &entry : value.map) {
            const auto [earlier, inserted] = seen.emplace(entry.name.text, entry.name.pos);
            if (!inserted) {
                diags_.error(entry.name.pos,
                             quoted(entry.name.text) + " appears twice in this map (first at " +
                                 position_text(earlier->second) + ")",
                             "duplicate-setting");
                ok = false;
            }
            ok = valid(entry.value) && ok;
        }
        return ok;
    }
    default: return true;
    }
}

void Lowerer::value(const Value &value, bool path)
{
    switch (value.kind) {
    case Value::Kind::String:
    case Value::Kind::Word:
        // A secret written as a bare word (token_env ghp_…) is hidden from printed source
        // lines here: the table readers' own redaction points one column off a quote-less word.
        if (value.kind == Value::Kind::Word && !find_secrets_in_text(value.text).empty())
            diags_.redact(value.pos.file, value.pos.line, value.pos.col);
        out_.mark(value.pos, value.kind == Value::Kind::Word);
        out_.put(toml_string(path ? path_text(value, value.text) : value.text));
        return;
    case Value::Kind::Integer: {  // valid(): it fits
        const IntegerValue n = *parse_integer(value.text);
        out_.mark(value.pos);
        out_.put(n.negative ? "-" + std::to_string(n.magnitude) : std::to_string(n.magnitude));
        return;
    }
    case Value::Kind::Boolean:
        out_.mark(value.pos);
        out_.put(value.flag ? "true" : "false");
        return;
    case Value::Kind::TypedPath:
        out_.mark(value.pos);
        out_.put("{ path = ");
        out_.mark(value.text_pos);
        out_.put(toml_string(path ? path_text(value, value.text) : value.text));
        out_.mark(value.pos);
        out_.put(std::string(", type = ") + (value.flag ? "\"file\" }" : "\"dir\" }"));
        return;
    case Value::Kind::Map: map(value, path); return;
    case Value::Kind::GroupRef: return;  // valid() refused it
    }
}

// `{ "NAME" = VALUE, ... }` on one line (valid(): each NAME once); in a path key, the entry
// `path` is a path.
void Lowerer::map(const Value &map, bool path)
{
    out_.mark(map.pos);
    out_.put(map.map.empty() ? "{" : "{ ");
    for (size_t i = 0; i < map.map.size(); ++i) {
        const MapEntry &entry = map.map[i];
        if (i > 0)
            out_.put(", ");
        out_.mark(entry.name.pos, !entry.name.quoted);
        out_.put(toml_string(entry.name.text) + " = ");
        value(entry.value, path && entry.name.text == "path");
    }
    out_.put(map.map.empty() ? "}" : " }");
}

}  // namespace

// A TOML basic string for toml++ to read back: a tab stays (TOML allows it) and other control
// bytes are \uXXXX; print_policy's tart_string differs as it writes what the .tart lexer reads.
std::string toml_string(const std::string &text)
{
    std::string out = "\"";
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if ((byte < 0x20 && c != '\t') || byte == 0x7F) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\u%04X", byte);
            out += escape;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

LoweredDocument lower_settings(const Program &program, const Groups &groups, const std::string &document_path,
                               const std::optional<RootVersion> &toml_root_version, bool root_is_tart,
                               Diagnostics &diags)
{
    LoweredDocument out{"", PositionMap(document_path)};
    Lowerer lowerer(program, groups, out.map, diags);
    lowerer.versions(root_is_tart, toml_root_version);
    lowerer.blocks();
    out.text = lowerer.take();
    return out;
}

}  // namespace tartaros::dsl
