// compiler/lint/lint.cpp — see lint.h.
#include "lint.h"

#include <optional>

#include "diagnostics.h"
#include "frontend.h"
#include "lint_report.h"
#include "lint_rules.h"
#include "lint_rules_parts.h"
#include "paths.h"
#include "verify.h"

namespace tartaros {

namespace {

// Where SARIF's rule documentation links point: the build sets it (compiler/CMakeLists.txt).
constexpr std::string_view kDocsUrl = TARTAROS_DOCS_URL;

std::optional<LintFormat> format_named(std::string_view name)
{
    if (name == "text")
        return LintFormat::Text;
    if (name == "json")
        return LintFormat::Json;
    if (name == "sarif")
        return LintFormat::Sarif;
    return std::nullopt;
}

Failure set_format(std::string_view name, LintOptions &options)
{
    const std::optional<LintFormat> format = format_named(name);
    if (!format)
        return "unknown format '" + printable(name) + "': expected text, json or sarif";
    options.format = *format;
    return std::nullopt;
}

// The lint rules of .tart files read TOML, so they run on the document the files' settings
// were lowered to (`rules`, given it and its name), and what they find there is moved to the
// .tart tokens it came from.
template <class Rules>
void lint_lowered(const PolicyTexts &texts, Diagnostics &diags, Rules rules)
{
    const std::string &document = texts.map.document_path();
    Diagnostics found;
    rules(texts.lowered, document, found);
    for (const Diagnostic &d : found.all()) {
        SourcePos pos = d.pos;
        if (pos.file == document)
            pos = texts.map.map(toml::source_position{pos.line, pos.col});
        switch (d.severity) {
        case Severity::Error: diags.error(pos, d.message, d.rule_id); break;
        case Severity::Warning: diags.warning(pos, d.message, d.rule_id); break;
        case Severity::Note: diags.note(pos, d.message, d.rule_id); break;
        }
        if (d.rule_id == "secret-in-policy")
            diags.redact(pos.file, pos.line, pos.col);
    }
}

// Every check a compile runs, then the lint rules; nothing is written. The text of every file
// the policy includes is searched for secrets too (comments are not in any document).
Diagnostics lint_text(const std::string &text, const std::string &file)
{
    Diagnostics diags;
    PolicyTexts texts;
    const std::optional<Policy> policy = parse_policy_text(text, file, diags, &texts);
    if (policy)
        lower_policy(*policy, LowerOptions{}, diags);
    const bool tart = is_tart_path(file);
    if (!tart)
        lint_policy_rules(text, file, policy ? &*policy : nullptr, diags);
    if (policy && !texts.lowered.empty())  // a .tart policy, or a TOML one that includes .tart files
        lint_lowered(texts, diags, [&](const std::string &document, const std::string &name, Diagnostics &found) {
            if (tart)
                lint_policy_rules(document, name, &*policy, found);
            else
                lint_written_paths(document, name, *policy, found);
        });
    for (size_t i = tart ? 0 : 1; i < texts.files.size(); ++i)
        lint_secret_rules(texts.files[i].text, texts.files[i].file.display, nullptr, diags);
    return diags;
}

}  // namespace

Failure parse_lint_arguments(std::span<const std::string> args, LintOptions &options, std::vector<std::string> &files)
{
    bool options_end = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &arg = args[i];
        if (options_end || arg.size() < 2 || arg.front() != '-') {
            files.push_back(arg);
        } else if (arg == "--") {
            options_end = true;
        } else if (arg == "--werror") {
            options.werror = true;
        } else if (arg == "--format") {
            if (i + 1 >= args.size())
                return "--format needs text, json or sarif";
            if (Failure failure = set_format(args[++i], options))
                return failure;
        } else if (arg.starts_with("--format=")) {
            if (Failure failure = set_format(std::string_view(arg).substr(9), options))
                return failure;
        } else {
            return "unknown option '" + printable(arg) + "'";
        }
    }
    if (files.empty())
        return "expected at least one POLICY.toml or POLICY.tart";
    return std::nullopt;
}

int run_lint(const std::vector<std::string> &files, const LintOptions &options, std::ostream &out)
{
    std::vector<std::string> texts(files.size());
    bool unreadable = false;
    for (size_t i = 0; i < files.size(); ++i) {
        std::string err;
        if (read_file(files[i], texts[i], err))
            continue;
        print_refusal("cannot read " + files[i] + ": " + err);
        unreadable = true;
    }
    if (unreadable)
        return kExitRefusal;

    std::vector<LintedFile> linted;
    linted.reserve(files.size());
    for (size_t i = 0; i < files.size(); ++i)
        linted.push_back({files[i], lint_text(texts[i], files[i])});

    switch (options.format) {
    case LintFormat::Text: render_lint_text(linted, out); break;
    case LintFormat::Json: render_lint_json(linted, out); break;
    case LintFormat::Sarif: render_lint_sarif(linted, lint_rule_registry(), kDocsUrl, out); break;
    }
    const LintCounts counts = count_lint_findings(linted);
    const bool failed = counts.errors > 0 || (options.werror && counts.warnings > 0);
    return failed ? kExitLintFindings : kExitOk;
}

}  // namespace tartaros
