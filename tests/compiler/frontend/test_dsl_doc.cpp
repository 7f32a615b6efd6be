// docs/dsl.md says what the compiler does: every example on the page is run.
//  - a ```tart block whose first line is `# file NAME` is a file later examples include;
//  - a ```tart block followed by a ```toml block: both read as the same policy (the same
//    printout and the same model, policy_dump.h);
//  - a ```tart block followed by a ```text block: reading it fails with exactly that output
//    (the file is named policy.tart);
//  - any other ```tart block reads without an error;
//  - the ```antlr block is grammar/Tart.g4 from its `grammar` line on.
#include <doctest/doctest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend.h"
#include "paths.h"
#include "policy_dump.h"
#include "print_policy.h"

namespace tartaros {

namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = TARTAROS_SOURCE_DIR;

struct Fence {
    std::string lang;
    std::string text;  // every line, each ending in '\n'
    size_t line = 0;   // of the opening ```
};

std::vector<Fence> fences_of(const std::string &markdown)
{
    std::vector<Fence> out;
    std::istringstream in(markdown);
    std::string line;
    bool open = false;
    for (size_t number = 1; std::getline(in, line); ++number) {
        if (line.starts_with("```")) {
            if (!open)
                out.push_back({line.substr(3), "", number});
            open = !open;
        } else if (open) {
            out.back().text += line + "\n";
        }
    }
    REQUIRE_MESSAGE(!open, "an unclosed ``` fence");
    return out;
}

std::string read_text(const fs::path &path)
{
    std::string text, err;
    REQUIRE_MESSAGE(read_file(path.string(), text, err), path << ": " << err);
    return text;
}

// A fresh directory for the page's files, removed at the end.
struct TempDir {
    TempDir()
    {
        std::string name = (fs::temp_directory_path() / "tartaros-dsl-doc.XXXXXX").string();
        REQUIRE(mkdtemp(name.data()) != nullptr);
        path = name;
    }
    ~TempDir() { fs::remove_all(path); }
    fs::path path;
};

std::optional<Policy> parse(const std::string &text, const std::string &display, std::string &diagnostics)
{
    Diagnostics diags;
    std::optional<Policy> policy = parse_policy_text(text, display, diags);
    std::ostringstream out;
    diags.print(out);
    diagnostics = out.str();
    return policy;
}

void check_same_policy(const Fence &tart, const Fence &toml, const fs::path &dir)
{
    std::string tart_diags, toml_diags;
    const std::optional<Policy> a = parse(tart.text, (dir / "policy.tart").string(), tart_diags);
    const std::optional<Policy> b = parse(toml.text, (dir / "policy.toml").string(), toml_diags);
    REQUIRE_MESSAGE(a.has_value(), tart_diags);
    REQUIRE_MESSAGE(b.has_value(), toml_diags);
    CHECK(print_policy(*a) == print_policy(*b));
    CHECK(test::dump_policy(*a) == test::dump_policy(*b));
}

void check_error(const Fence &tart, const Fence &expected)
{
    std::string diagnostics;
    const std::optional<Policy> policy = parse(tart.text, "policy.tart", diagnostics);
    CHECK_FALSE(policy.has_value());
    CHECK(diagnostics == expected.text);
}

}  // namespace

TEST_CASE("docs/dsl.md: every example reads as the page says")
{
    const std::vector<Fence> fences = fences_of(read_text(kSourceDir / "docs" / "dsl.md"));
    const TempDir dir;
    size_t pairs = 0, errors = 0, alone = 0;
    for (size_t i = 0; i < fences.size(); ++i) {
        const Fence &fence = fences[i];
        if (fence.lang != "tart")
            continue;
        CAPTURE(fence.line);
        if (fence.text.starts_with("# file ")) {
            const std::string name = fence.text.substr(7, fence.text.find('\n') - 7);
            std::ofstream(dir.path / name) << fence.text;
            continue;
        }
        const std::string next = i + 1 < fences.size() ? fences[i + 1].lang : "";
        if (next == "toml") {
            check_same_policy(fence, fences[++i], dir.path);
            ++pairs;
        } else if (next == "text") {
            check_error(fence, fences[++i]);
            ++errors;
        } else {
            std::string diagnostics;
            CHECK_MESSAGE(parse(fence.text, (dir.path / "policy.tart").string(), diagnostics).has_value(), diagnostics);
            ++alone;
        }
    }
    // The page has an example of each construct and of its errors: a page that lost them
    // fails here, not silently.
    CHECK(pairs >= 12);
    CHECK(errors >= 20);
    CHECK(alone >= 1);
}

TEST_CASE("docs/dsl.md: its grammar is grammar/Tart.g4")
{
    const std::string grammar = read_text(kSourceDir / "grammar" / "Tart.g4");
    const size_t start = grammar.find("grammar Tart;");
    REQUIRE(start != std::string::npos);
    size_t copies = 0;
    for (const Fence &fence : fences_of(read_text(kSourceDir / "docs" / "dsl.md"))) {
        if (fence.lang != "antlr")
            continue;
        ++copies;
        CHECK(fence.text == grammar.substr(start));
    }
    CHECK(copies == 1);
}

}  // namespace tartaros
