// compiler/lint/lint_report.cpp — see lint_report.h.
#include "lint_report.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "json_text.h"

namespace tartaros {

namespace {

const char *severity_word(Severity severity)
{
    switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
    }
    return "error";
}

// The file a diagnostic is about: its own position's, else the linted file's (a check that
// knows no position still belongs to the file it ran on).
const std::string &file_of(const LintedFile &linted, const Diagnostic &d)
{
    return d.pos.file.empty() ? linted.file : d.pos.file;
}

// Column as Diagnostics::print shows it: at least 1 on a line, 0 without one.
uint32_t column_of(const Diagnostic &d)
{
    return d.pos.line == 0 ? 0 : std::max<uint32_t>(d.pos.col, 1);
}

// Calls `visit(linted, diagnostic)` for every reported diagnostic, in report order.
template <class Visit>
void for_each_finding(std::span<const LintedFile> files, Visit visit)
{
    for (const LintedFile &linted : files)
        for (const Diagnostic &d : linted.diags.all())
            if (d.severity != Severity::Note)
                visit(linted, d);
}

bool is_unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~';
}

// SARIF's helpUri wants an absolute URI; a rule id is [a-z0-9-], a valid fragment as is.
std::string help_uri(std::string_view docs_url, std::string_view id)
{
    return std::string(docs_url) + "docs/lint-rules.md#" + std::string(id);
}

void write_sarif_rules(std::span<const LintRule> rules, std::string_view docs_url, std::ostream &out)
{
    out << "          \"rules\": [";
    for (size_t i = 0; i < rules.size(); ++i) {
        const LintRule &rule = rules[i];
        out << (i == 0 ? "\n" : ",\n") << "            {\"id\": " << quote(rule.id)
            << ", \"shortDescription\": {\"text\": " << quote(rule.summary) << "}"
            << ", \"defaultConfiguration\": {\"level\": " << quote(severity_word(rule.severity)) << "}"
            << ", \"helpUri\": " << quote(help_uri(docs_url, rule.id)) << "}";
    }
    out << (rules.empty() ? "]\n" : "\n          ]\n");
}

void write_sarif_result(const LintedFile &linted, const Diagnostic &d, const std::map<std::string_view, size_t> &index,
                        std::ostream &out)
{
    out << "        {";
    if (!d.rule_id.empty()) {
        out << "\"ruleId\": " << quote(d.rule_id) << ", ";
        if (const auto found = index.find(d.rule_id); found != index.end())
            out << "\"ruleIndex\": " << found->second << ", ";
    }
    out << "\"level\": " << quote(severity_word(d.severity)) << ", \"message\": {\"text\": " << quote(d.message)
        << "}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": "
        << quote(path_to_uri(file_of(linted, d))) << "}";
    if (d.pos.line > 0)
        out << ", \"region\": {\"startLine\": " << d.pos.line << ", \"startColumn\": " << column_of(d) << "}";
    out << "}}]}";
}

}  // namespace

LintCounts count_lint_findings(std::span<const LintedFile> files)
{
    LintCounts counts;
    counts.files = files.size();
    for (const LintedFile &linted : files) {
        counts.errors += linted.diags.error_count();
        counts.warnings += linted.diags.warning_count();
    }
    return counts;
}

void render_lint_text(std::span<const LintedFile> files, std::ostream &out)
{
    for (const LintedFile &linted : files)
        linted.diags.print(out, false);
    const LintCounts c = count_lint_findings(files);
    out << c.files << (c.files == 1 ? " file, " : " files, ") << c.errors << (c.errors == 1 ? " error, " : " errors, ")
        << c.warnings << (c.warnings == 1 ? " warning\n" : " warnings\n");
}

void render_lint_json(std::span<const LintedFile> files, std::ostream &out)
{
    const LintCounts c = count_lint_findings(files);
    out << "{\n  \"tool\": \"tartaros\",\n  \"version\": " << quote(TARTAROS_VERSION) << ",\n  \"files\": " << c.files
        << ",\n  \"errors\": " << c.errors << ",\n  \"warnings\": " << c.warnings << ",\n  \"diagnostics\": [";
    bool first = true;
    for_each_finding(files, [&](const LintedFile &linted, const Diagnostic &d) {
        out << (first ? "\n" : ",\n") << "    {\"file\": " << quote(file_of(linted, d)) << ", \"line\": " << d.pos.line
            << ", \"column\": " << column_of(d) << ", \"severity\": " << quote(severity_word(d.severity))
            << ", \"rule\": " << quote(d.rule_id) << ", \"message\": " << quote(d.message) << "}";
        first = false;
    });
    out << (first ? "]\n}\n" : "\n  ]\n}\n");
}

void render_lint_sarif(std::span<const LintedFile> files, std::span<const LintRule> rules, std::string_view docs_url,
                       std::ostream &out)
{
    std::map<std::string_view, size_t> index;
    for (size_t i = 0; i < rules.size(); ++i)
        index.emplace(rules[i].id, i);
    out << "{\n"
           "  \"$schema\": "
           "\"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json\",\n"
           "  \"version\": \"2.1.0\",\n"
           "  \"runs\": [\n"
           "    {\n"
           "      \"tool\": {\n"
           "        \"driver\": {\n"
           "          \"name\": \"tartaros\",\n"
           "          \"version\": "
        << quote(TARTAROS_VERSION) << ",\n          \"informationUri\": " << quote(docs_url) << ",\n";
    write_sarif_rules(rules, docs_url, out);
    out << "        }\n      },\n      \"results\": [";
    bool first = true;
    for_each_finding(files, [&](const LintedFile &linted, const Diagnostic &d) {
        out << (first ? "\n" : ",\n");
        write_sarif_result(linted, d, index, out);
        first = false;
    });
    out << (first ? "]\n" : "\n      ]\n") << "    }\n  ]\n}\n";
}

std::string path_to_uri(std::string_view path)
{
    std::string uri = path.starts_with('/') ? "file://" : "";
    for (const char ch : path) {
        const auto c = static_cast<unsigned char>(ch);
        if (is_unreserved(c) || c == '/') {
            uri += ch;
        } else {
            char escaped[4];
            std::snprintf(escaped, sizeof escaped, "%%%02X", c);
            uri += escaped;
        }
    }
    return uri;
}

}  // namespace tartaros
