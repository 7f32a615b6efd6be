// Unit tests for compiler/diagnostics: the printed format with source line and caret, the
// counts, and "did you mean" matching.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "diagnostics.h"

using namespace tartaros;

namespace {

std::string printed(const Diagnostics &diags)
{
    std::ostringstream out;
    diags.print(out);
    return out.str();
}

}  // namespace

TEST_CASE("diagnostics: error with source line and caret under the column")
{
    Diagnostics diags;
    diags.add_source("p.toml", "version = 1\n[filesytem]\nx = 1\n");
    diags.error({"p.toml", 2, 2}, "unknown key 'filesytem'; did you mean 'filesystem'?", "unknown-key");
    CHECK(printed(diags) ==
          "p.toml:2:2: error: unknown key 'filesytem'; did you mean 'filesystem'? [unknown-key]\n"
          "[filesytem]\n"
          " ^\n");
}

TEST_CASE("diagnostics: severities, line 0, no file, no rule")
{
    Diagnostics diags;
    diags.warning({"p.toml", 0, 0}, "defaulted", "default");
    diags.note({"", 3, 4}, "no file", "n");
    diags.error({"p.toml", 0, 0}, "no rule", "");
    CHECK(printed(diags) ==
          "p.toml: warning: defaulted [default]\n"
          "note: no file [n]\n"
          "p.toml: error: no rule\n");
    CHECK(diags.has_errors());
    CHECK(diags.error_count() == 1);
    CHECK(diags.warning_count() == 1);
}

TEST_CASE("diagnostics: counts without errors")
{
    Diagnostics diags;
    CHECK_FALSE(diags.has_errors());
    diags.warning({"f", 1, 1}, "w", "duplicate");
    CHECK_FALSE(diags.has_errors());
    CHECK(diags.error_count() == 0);
    CHECK(diags.all().size() == 1);
    CHECK(diags.all()[0].severity == Severity::Warning);
}

TEST_CASE("diagnostics: caret counts code points and keeps tabs")
{
    Diagnostics diags;
    diags.add_source("u.toml", "\tx = [\"é\", 3]\r\n");
    diags.error({"u.toml", 1, 12}, "element is an integer", "wrong-type");
    CHECK(printed(diags) ==
          "u.toml:1:12: error: element is an integer [wrong-type]\n"
          "\tx = [\"é\", 3]\n"
          "\t          ^\n");
}

TEST_CASE("diagnostics: control characters in the source line print as '?'")
{
    Diagnostics diags;
    diags.add_source("c.toml", "a = \"\x1b[31m\"\n");
    diags.error({"c.toml", 1, 5}, "m", "r");
    CHECK(printed(diags) == "c.toml:1:5: error: m [r]\na = \"?[31m\"\n    ^\n");
}

TEST_CASE("diagnostics: caret past the end of the line and lines past the end of the file")
{
    Diagnostics diags;
    diags.add_source("s.toml", "ab\n");
    diags.error({"s.toml", 1, 40}, "late", "r");
    diags.error({"s.toml", 5, 1}, "beyond", "r");
    CHECK(printed(diags) == "s.toml:1:40: error: late [r]\nab\n  ^\ns.toml:5:1: error: beyond [r]\n");
}

TEST_CASE("diagnostics: a secret is masked whole: spaces and ';' inside quotes, a bare word, triple quotes")
{
    Diagnostics diags;
    diags.add_source("s.tart", "é = \"pass; word\\\" x\", k = sk_bare_9f8e;\nv = \"\"\"ghp_triple\"\"\" # \"é\"\n");
    diags.error({"s.tart", 1, 5}, "quoted", "secret-in-policy");
    diags.error({"s.tart", 1, 27}, "bare", "secret-in-policy");
    diags.error({"s.tart", 2, 5}, "triple", "secret-in-policy");
    diags.redact("s.tart", 1, 5);
    diags.redact("s.tart", 1, 27);
    diags.redact("s.tart", 2, 5);
    const std::string text = printed(diags);
    for (const char *secret : {"pass", "word", "sk_bare", "9f8e", "ghp_triple"})
        CHECK(text.find(secret) == std::string::npos);
    CHECK(text.find("é = \"**************\", k = ************;\n    ^\n") != std::string::npos);
    CHECK(text.find("é = \"**************\", k = ************;\n                          ^\n") != std::string::npos);
    CHECK(text.find("v = \"\"\"**********\"\"\" # \"é\"\n    ^\n") != std::string::npos);
}

TEST_CASE("diagnostics: a long source line prints as its 200 characters around the column")
{
    // 1000 characters, each 'é' (two bytes) except an 'X' at column 500 and a 'Y' at column 3.
    std::string line;
    for (int col = 1; col <= 1000; ++col)
        line += col == 500 ? "X" : col == 3 ? "Y" : "é";
    Diagnostics diags;
    diags.add_source("l.tart", line + "\n");
    diags.error({"l.tart", 1, 500}, "middle", "r");
    diags.error({"l.tart", 1, 3}, "start", "r");
    const std::string out = printed(diags);
    std::istringstream lines(out);
    std::string header, part, caret;
    std::getline(lines, header);
    std::getline(lines, part);
    std::getline(lines, caret);
    CHECK(part.rfind("…", 0) == 0);  // cut before
    CHECK(part.size() >= 3);
    CHECK(part.compare(part.size() - 3, 3, "…") == 0);  // and after
    CHECK(caret == std::string(101, ' ') + "^");        // "…" and 100 characters, then the X
    CHECK(part.find('X') == std::string("…").size() + 100 * std::string("é").size());
    std::getline(lines, header);
    std::getline(lines, part);
    std::getline(lines, caret);
    CHECK(part.rfind("ééY", 0) == 0);  // not cut before
    CHECK(caret == "  ^");
    CHECK(out.size() < 1700);  // not the 2000 bytes of the line, twice
}

TEST_CASE("diagnostics: the source line is read from the file when not given, once")
{
    std::string dir = (std::filesystem::temp_directory_path() / "tartaros-diag-XXXXXX").string();
    REQUIRE(mkdtemp(dir.data()) != nullptr);
    const std::string file = dir + "/policy.toml";
    std::ofstream(file) << "version = 1\nread_scope = 7\n";

    Diagnostics diags;
    diags.error({file, 2, 14}, "first", "wrong-type");
    const std::string first = printed(diags);
    CHECK(first == file + ":2:14: error: first [wrong-type]\nread_scope = 7\n             ^\n");
    // Cached: a change to the file after the first print does not change what is shown.
    std::ofstream(file) << "changed\nchanged\n";
    CHECK(printed(diags) == first);
    std::filesystem::remove_all(dir);

    Diagnostics missing;
    missing.error({dir + "/gone.toml", 1, 1}, "m", "r");
    CHECK(printed(missing) == dir + "/gone.toml:1:1: error: m [r]\n");
}

TEST_CASE("diagnostics: closest_match finds typos within a small distance")
{
    const std::vector<std::string> top = {"version", "filesystem", "process", "env"};
    CHECK(closest_match("filesytem", top) == "filesystem");  // transposition
    CHECK(closest_match("filesystems", top) == "filesystem");
    CHECK(closest_match("proces", top) == "process");
    CHECK(closest_match("envv", top) == "env");
    CHECK(closest_match("verison", top) == "version");
    CHECK(closest_match("network", top) == "");
    CHECK(closest_match("", top) == "");
    CHECK(closest_match("x", {"y"}) == "");
    CHECK(closest_match("ab", {"cd"}) == "");  // a total rewrite is no typo
    CHECK(closest_match("se", {"set"}) == "set");

    const std::vector<std::string> fs = {"read_scope", "read_allows", "read_denies", "writable_roots", "write_denies"};
    CHECK(closest_match("read_deny", fs) == "read_denies");  // 3 edits, a third of the word
    CHECK(closest_match("writeable_roots", fs) == "writable_roots");
    CHECK(closest_match("read_alows", fs) == "read_allows");
    CHECK(closest_match("totally_different", fs) == "");
}

TEST_CASE("diagnostics: closest_match breaks ties by the smaller name, whatever the order")
{
    CHECK(closest_match("cat", {"hat", "bat"}) == "bat");
    CHECK(closest_match("cat", {"bat", "hat"}) == "bat");
    CHECK(closest_match("cat", {"hat", "cart", "bat"}) == "bat");
    CHECK(closest_match("cat", {"cats", "bat"}) == "bat");
}

TEST_CASE("diagnostics: a redacted secret prints as stars on every diagnostic of its line")
{
    Diagnostics diags;
    diags.add_source("s.toml", "version = 1\ntoken = \"ghp_abc123\", other = 'x9y8z7w6v5u4'\n");
    diags.error({"s.toml", 2, 1}, "unknown key 'token'", "unknown-key");
    diags.error({"s.toml", 2, 9}, "a secret", "secret-in-policy");
    diags.error({"s.toml", 2, 31}, "another", "secret-in-policy");
    diags.redact("s.toml", 2, 9);
    diags.redact("s.toml", 2, 31);
    std::ostringstream out;
    diags.print(out);
    const std::string text = out.str();
    CHECK(text.find("ghp_abc123") == std::string::npos);
    CHECK(text.find("x9y8z7w6v5u4") == std::string::npos);
    CHECK(text.find("token = \"**********\", other = '************'\n        ^\n") != std::string::npos);
    CHECK(text.find("'************'\n                              ^\n") != std::string::npos);
}
