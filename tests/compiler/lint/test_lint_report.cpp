// Unit tests for compiler/lint_report: the text, JSON and SARIF renderings of a lint run,
// above all the escaping of quotes, control characters, non-ASCII and invalid UTF-8 in
// messages and paths, and SARIF's optional parts (region, ruleIndex).
#include <doctest/doctest.h>

#include <sstream>
#include <vector>

#include "json_checker.h"
#include "lint_report.h"

using namespace tartaros;

namespace {

// A file with one error, one warning and one note (never reported).
LintedFile sample(const std::string &file)
{
    LintedFile linted{file, {}};
    linted.diags.add_source(file, "version = 1\nwritable_roots = [\"/a/*\"]\n");
    linted.diags.error({file, 2, 20}, "writable_roots: '/a/*' contains the glob character '*'", "glob");
    linted.diags.warning({file, 0, 0}, "whole file", "duplicate");
    linted.diags.note({file, 1, 1}, "a fact, not a problem", "mount-only");
    return linted;
}

const std::vector<LintRule> kRules = {
    {"glob", Severity::Error, "a glob in a path"},
    {"duplicate", Severity::Warning, "a path \"listed\" twice"},
};

std::string text_of(const std::vector<LintedFile> &files)
{
    std::ostringstream out;
    render_lint_text(files, out);
    return out.str();
}

std::string json_of(const std::vector<LintedFile> &files)
{
    std::ostringstream out;
    render_lint_json(files, out);
    return out.str();
}

std::string sarif_of(const std::vector<LintedFile> &files)
{
    std::ostringstream out;
    render_lint_sarif(files, kRules, "file:///src/tartaros/", out);
    return out.str();
}

bool contains(const std::string &haystack, const std::string &needle)
{
    return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("lint text: each file's diagnostics without notes and the summary")
{
    const std::vector<LintedFile> files = {sample("a.toml"), LintedFile{"clean.toml", {}}};
    CHECK(text_of(files) ==
          "a.toml:2:20: error: writable_roots: '/a/*' contains the glob character '*' [glob]\n"
          "writable_roots = [\"/a/*\"]\n"
          "                   ^\n"
          "a.toml: warning: whole file [duplicate]\n"
          "2 files, 1 error, 1 warning\n");
    CHECK(text_of({LintedFile{"c.toml", {}}}) == "1 file, 0 errors, 0 warnings\n");
}

TEST_CASE("lint counts: errors and warnings of every file and no notes")
{
    const std::vector<LintedFile> files = {sample("a.toml"), sample("b.toml"), LintedFile{"c.toml", {}}};
    const LintCounts counts = count_lint_findings(files);
    CHECK(counts.files == 3);
    CHECK(counts.errors == 2);
    CHECK(counts.warnings == 2);
}

TEST_CASE("lint json: one document with the counts and every finding")
{
    const std::string json = json_of({sample("a.toml")});
    CHECK(test::JsonChecker(json).document());
    CHECK(contains(json, "\"files\": 1,\n  \"errors\": 1,\n  \"warnings\": 1,\n"));
    CHECK(contains(json,
                   "{\"file\": \"a.toml\", \"line\": 2, \"column\": 20, \"severity\": \"error\", "
                   "\"rule\": \"glob\", \"message\": \"writable_roots: '/a/*' contains the glob character '*'\"}"));
    CHECK(contains(json,
                   "{\"file\": \"a.toml\", \"line\": 0, \"column\": 0, \"severity\": \"warning\", "
                   "\"rule\": \"duplicate\", \"message\": \"whole file\"}"));
    CHECK_FALSE(contains(json, "mount-only"));
}

TEST_CASE("lint json: no findings is an empty array")
{
    const std::string json = json_of({LintedFile{"c.toml", {}}});
    CHECK(test::JsonChecker(json).document());
    CHECK(contains(json, "\"diagnostics\": []\n}\n"));
}

TEST_CASE("lint json: quotes and control characters and non-ASCII in messages and paths")
{
    LintedFile linted{"dir \"x\"/p\\é.toml", {}};
    linted.diags.error({linted.file, 1, 1}, "say \"hi\"\tnow\n\x01\x1f\x7f caf\xc3\xa9 \xe2\x82\xac", "r");
    linted.diags.error({linted.file, 1, 2}, "bad byte \xff here", "r");
    const std::string json = json_of({linted});
    CHECK(test::JsonChecker(json).document());
    CHECK(contains(json, "\"file\": \"dir \\\"x\\\"/p\\\\\xc3\xa9.toml\""));
    CHECK(contains(json, "\"message\": \"say \\\"hi\\\"\\tnow\\n\\u0001\\u001f\\u007f caf\xc3\xa9 \xe2\x82\xac\""));
    CHECK(contains(json, "\"message\": \"bad byte \\ufffd here\""));
}

TEST_CASE("lint json: a diagnostic without a file position belongs to the linted file")
{
    LintedFile linted{"p.toml", {}};
    linted.diags.error({"", 0, 0}, "no position", "verify");
    CHECK(contains(json_of({linted}), "{\"file\": \"p.toml\", \"line\": 0, \"column\": 0,"));
}

TEST_CASE("lint sarif: the driver and its rules from the registry")
{
    const std::string sarif = sarif_of({sample("a.toml")});
    CHECK(test::JsonChecker(sarif).document());
    CHECK(contains(sarif, "\"version\": \"2.1.0\""));
    CHECK(contains(sarif, "\"$schema\": \"https://docs.oasis-open.org/sarif/sarif/v2.1.0/"));
    CHECK(contains(sarif, "\"name\": \"tartaros\""));
    CHECK(contains(sarif, "\"informationUri\": \"file:///src/tartaros/\""));
    CHECK(contains(sarif,
                   "{\"id\": \"glob\", \"shortDescription\": {\"text\": \"a glob in a path\"}, "
                   "\"defaultConfiguration\": {\"level\": \"error\"}, "
                   "\"helpUri\": \"file:///src/tartaros/docs/lint-rules.md#glob\"}"));
    CHECK(contains(sarif,
                   "{\"text\": \"a path \\\"listed\\\" twice\"}, "
                   "\"defaultConfiguration\": {\"level\": \"warning\"}"));
}

TEST_CASE("lint sarif: results with ruleIndex and a region only on a line")
{
    LintedFile linted = sample("a.toml");
    linted.diags.error({"a.toml", 3, 0}, "unregistered rule", "not-in-registry");
    linted.diags.warning({"a.toml", 4, 5}, "no rule id", "");
    const std::string sarif = sarif_of({linted});
    CHECK(test::JsonChecker(sarif).document());
    CHECK(contains(sarif,
                   "{\"ruleId\": \"glob\", \"ruleIndex\": 0, \"level\": \"error\", \"message\": {\"text\": "
                   "\"writable_roots: '/a/*' contains the glob character '*'\"}, \"locations\": "
                   "[{\"physicalLocation\": {\"artifactLocation\": {\"uri\": \"a.toml\"}, "
                   "\"region\": {\"startLine\": 2, \"startColumn\": 20}}}]}"));
    CHECK(contains(sarif,
                   "{\"ruleId\": \"duplicate\", \"ruleIndex\": 1, \"level\": \"warning\", \"message\": "
                   "{\"text\": \"whole file\"}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": "
                   "{\"uri\": \"a.toml\"}}}]}"));
    CHECK(contains(sarif, "{\"ruleId\": \"not-in-registry\", \"level\": \"error\""));
    CHECK(contains(sarif, "\"region\": {\"startLine\": 3, \"startColumn\": 1}"));
    CHECK(contains(sarif, "{\"level\": \"warning\", \"message\": {\"text\": \"no rule id\"}"));
    CHECK_FALSE(contains(sarif, "mount-only"));
}

TEST_CASE("lint sarif: no findings and no rules still make a valid log")
{
    std::ostringstream out;
    render_lint_sarif(std::vector<LintedFile>{LintedFile{"c.toml", {}}}, {}, "file:///x/", out);
    CHECK(test::JsonChecker(out.str()).document());
    CHECK(contains(out.str(), "\"rules\": []"));
    CHECK(contains(out.str(), "\"results\": []"));
}

TEST_CASE("lint sarif: escaped messages and percent-encoded artifact paths")
{
    LintedFile linted{"my dir/\"q\"#1?\xc3\xa9.toml", {}};
    linted.diags.error({linted.file, 1, 1}, "a \"quoted\" \x02 value \xc3\xa9", "glob");
    const std::string sarif = sarif_of({linted});
    CHECK(test::JsonChecker(sarif).document());
    CHECK(contains(sarif, "\"uri\": \"my%20dir/%22q%22%231%3F%C3%A9.toml\""));
    CHECK(contains(sarif, "\"text\": \"a \\\"quoted\\\" \\u0002 value \xc3\xa9\""));
}

TEST_CASE("lint path_to_uri: unreserved bytes stay and absolute paths become file URIs")
{
    CHECK(path_to_uri("policies/agent.tartaros.toml") == "policies/agent.tartaros.toml");
    CHECK(path_to_uri("./a-b_c~d.toml") == "./a-b_c~d.toml");
    CHECK(path_to_uri("/home/me/p.toml") == "file:///home/me/p.toml");
    CHECK(path_to_uri("a:b.toml") == "a%3Ab.toml");
    CHECK(path_to_uri("100%.toml") == "100%25.toml");
    CHECK(path_to_uri("back\\slash") == "back%5Cslash");
    CHECK(path_to_uri("bad\xff") == "bad%FF");
}
