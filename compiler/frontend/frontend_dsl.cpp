// compiler/frontend/frontend_dsl.cpp — see frontend_dsl.h: the front-end's two entries, a .tart policy
// and a TOML policy's `include` key, over the steps of frontend_dsl_*.h.
#include "frontend_dsl.h"

#include <algorithm>
#include <utility>

#include "frontend_dsl_lower.h"
#include "frontend_dsl_resolve.h"
#include "frontend_dsl_syscalls.h"
#include "frontend_toml.h"
#include "paths.h"

namespace tartaros {

namespace {

using namespace dsl;

// The toml++ source path of the document a policy's settings are lowered into: only compared
// (TomlSchemaReader::pos), never opened.
std::string lowered_document_path(const std::string &display_path)
{
    return display_path + " (lowered to TOML)";
}

// The lowered text parsed. It is TOML by construction; if it ever is not, that is reported as
// an error of the policy (at the .tart token) instead of a crash.
std::optional<toml::table> parse_lowered(const LoweredDocument &document, const std::string &display_path,
                                         Diagnostics &diags)
{
    try {
        return toml::parse(document.text, document.map.document_path());
    } catch (const toml::parse_error &e) {
        SourcePos at = document.map.map(e.source().begin);
        if (at.line == 0)
            at = {display_path, 0, 0};
        diags.error(at, "internal error: this does not lower to TOML: " + std::string(e.description()), "dsl-syntax");
        return std::nullopt;
    }
}

// The lowered document of an included file merged into a TOML policy's: lists append, tables
// merge, anything else set in both is duplicate-setting (at the .tart key, naming the TOML one).
class Merger {
public:
    Merger(const std::string &toml_file, const PositionMap &map, Diagnostics &diags)
        : toml_file_(toml_file), map_(map), diags_(diags)
    {}

    void merge(toml::table &into, toml::table &from)
    {
        std::vector<std::pair<const toml::key *, toml::node *>> entries;
        for (auto &&[key, node] : from)
            entries.push_back({&key, &node});
        std::stable_sort(entries.begin(), entries.end(), [](const auto &a, const auto &b) {
            return a.first->source().begin < b.first->source().begin;
        });
        for (auto &[key, node] : entries) {
            toml::node *existing = into.get(key->str());
            if (existing == nullptr) {
                into.insert(*key, std::move(*node));
            } else if (existing->is_table() && node->is_table()) {
                merge(*existing->as_table(), *node->as_table());
            } else if (existing->is_array() && node->is_array()) {
                for (toml::node &element : *node->as_array())
                    existing->as_array()->push_back(std::move(element));
            } else {
                const toml::source_position &first = into.find(key->str())->first.source().begin;
                diags_.error(map_.map(key->source().begin),
                             quoted(key->str()) + " is already set at " +
                                 position_text({toml_file_, static_cast<uint32_t>(first.line),
                                                static_cast<uint32_t>(first.column)}) +
                                 "; a key that takes one value is set once in the whole policy (lists append, "
                                 "tables merge)",
                             "duplicate-setting");
            }
        }
    }

private:
    const std::string &toml_file_;
    const PositionMap &map_;
    Diagnostics &diags_;
};

SourcePos toml_pos(const std::string &file, const toml::node &node)
{
    return {file, static_cast<uint32_t>(node.source().begin.line), static_cast<uint32_t>(node.source().begin.column)};
}

// The strings of `include = [...]`, each at its position; type errors reported.
std::vector<Name> include_names(const toml::node &include, const std::string &file, Diagnostics &diags)
{
    std::vector<Name> names;
    const toml::array *array = include.as_array();
    if (array == nullptr) {
        diags.error(toml_pos(file, include),
                    std::string("'include' must be an array of .tart file names, not ") + type_phrase(include.type()),
                    "wrong-type");
        return names;
    }
    for (size_t i = 0; i < array->size(); ++i) {
        const toml::node &element = *array->get(i);
        if (const toml::value<std::string> *text = element.as_string()) {
            names.push_back({text->get(), toml_pos(file, element), true});
            continue;
        }
        diags.error(toml_pos(file, element),
                    "'include' must be an array of strings; element " + std::to_string(i + 1) + " is " +
                        type_phrase(element.type()),
                    "wrong-type");
    }
    return names;
}

void keep_texts(const Program &program, size_t first, PolicyTexts *texts)
{
    if (texts == nullptr)
        return;
    for (size_t i = first; i < program.files.size(); ++i)
        texts->files.push_back({program.files[i].file, program.files[i].text});
}

}  // namespace

std::optional<Policy> parse_dsl_policy_text(const std::string &text, const std::string &display_path,
                                            Diagnostics &diags)
{
    return parse_dsl_policy_text(text, display_path, diags, nullptr);
}

std::optional<Policy> parse_dsl_policy_text(const std::string &text, const std::string &display_path,
                                            Diagnostics &diags, PolicyTexts *texts)
{
    const std::optional<std::string> source_path = absolute_path(display_path);
    if (!source_path) {
        diags.error({display_path, 0, 0}, "cannot resolve the policy's directory: the current directory is gone",
                    "unresolvable-policy-dir");
        return std::nullopt;
    }
    const size_t errors_before = diags.error_count();
    Loader loader(diags, policy_home());
    loader.load_root(text, {display_path, *source_path});
    const Program &program = loader.program();
    keep_texts(program, 0, texts);
    if (!loader.ok())
        return std::nullopt;  // a file is missing or did not parse: the rest would mislead

    const Groups groups(program.groups, diags);
    LoweredDocument document =
        lower_settings(program, groups, lowered_document_path(display_path), std::nullopt, true, diags);
    std::vector<SyscallDenyRule> rules = lower_syscall_rules(program.syscalls, diags);
    const std::optional<toml::table> root = parse_lowered(document, display_path, diags);
    if (!root)
        return std::nullopt;

    Policy policy;
    policy.source_path = *source_path;
    for (const SourceText &file : program.files)
        policy.sources.push_back(file.file);
    read_policy_document(*root, display_path, &document.map, policy, diags);
    policy.syscalls.rules = std::move(rules);
    if (texts != nullptr) {
        texts->lowered = std::move(document.text);
        texts->map = std::move(document.map);
    }
    if (diags.error_count() > errors_before)
        return std::nullopt;
    return policy;
}

void include_tart_files(toml::table &root, Policy &policy, PositionMap &map, Diagnostics &diags, PolicyTexts *texts)
{
    const toml::node *include = root.get("include");
    if (include == nullptr)
        return;
    const SourceFile policy_file = policy.sources.front();  // a copy: sources grows below
    const std::vector<Name> names = include_names(*include, policy_file.display, diags);
    Loader loader(diags, policy_home());
    loader.load_includes(policy_file, names);
    const Program &program = loader.program();
    keep_texts(program, 1, texts);
    if (!loader.ok())
        return;

    std::optional<RootVersion> version;
    if (const toml::value<int64_t> *number = root["version"].as_integer())
        version = RootVersion{number->get(), toml_pos(policy_file.display, *number)};
    const Groups groups(program.groups, diags);
    LoweredDocument document =
        lower_settings(program, groups, lowered_document_path(policy_file.display), version, false, diags);
    std::vector<SyscallDenyRule> rules = lower_syscall_rules(program.syscalls, diags);
    std::optional<toml::table> lowered = parse_lowered(document, policy_file.display, diags);
    if (!lowered)
        return;
    Merger(policy_file.display, document.map, diags).merge(root, *lowered);
    for (size_t i = 1; i < program.files.size(); ++i)
        policy.sources.push_back(program.files[i].file);
    for (SyscallDenyRule &rule : rules)
        policy.syscalls.rules.push_back(std::move(rule));
    if (texts != nullptr) {
        texts->lowered = document.text;
        texts->map = document.map;
    }
    map = std::move(document.map);
}

}  // namespace tartaros
