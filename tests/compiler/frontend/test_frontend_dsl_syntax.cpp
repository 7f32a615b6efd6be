// Unit tests for reading .tart text: the lexer's and parser's errors in words (one per file,
// or every lexical one), strings with TOML's escapes, UTF-8, nesting, integers, and the map
// from the lowered TOML document back to .tart positions.
#include <doctest/doctest.h>

#include <toml++/toml.h>

#include "frontend_dsl_lower.h"
#include "frontend_dsl_parse.h"
#include "test_frontend_dsl_fixture.h"

using namespace tartaros;
using namespace tartaros::test;

namespace {

// The diagnostics of `text` as `line:col: severity: message [rule]` lines; the text must fail.
std::string errors_of(const std::string &text)
{
    Parsed parsed = parse_text(text, "/w/p.tart");
    CHECK_FALSE(parsed.policy);
    return summary(parsed.diags);
}

std::string syntax(const std::string &message, uint32_t line, uint32_t col)
{
    return std::to_string(line) + ":" + std::to_string(col) + ": error: " + message + " [dsl-syntax]\n";
}

}  // namespace

TEST_CASE("dsl syntax: the parser's first error, in words, at the token found")
{
    const std::string value = "a value (a string, number, true/false, word, @group or file/dir \"…\")";
    CHECK(errors_of("version 1;\nfilesystem {\n  read_denies \"a\", \"b\"\n}\n") ==
          syntax("expected ';' after the value of 'read_denies', found '}'", 4, 1));
    CHECK(errors_of("version 1;\nfilesystem { read_denies \"a\",; }\n") ==
          syntax("expected " + value + " after ',' in 'read_denies', found ';'", 2, 30));
    CHECK(errors_of("version 1;\nfilesystem { read_denies }\n") ==
          syntax("expected " + value + " or ';' after 'read_denies', found '}'", 2, 26));
    // Only the first: the parser's recovery would report `materialize` as a value of read_denies.
    CHECK(errors_of("version 1;\nfilesystem { read_denies \"a\",;\n materialize true\n private_tmp true; }\n") ==
          syntax("expected " + value + " after ',' in 'read_denies', found ';'", 2, 30));
    CHECK(errors_of("version 1;\n}\n") ==
          syntax("expected a statement (version, include, paths, domains, syscalls, or a block such as "
                 "'filesystem {'), found '}'",
                 2, 1));
    CHECK(errors_of("version 1\nfilesystem { }\n") ==
          syntax("expected ';' after the version, found 'filesystem'", 2, 1));
    CHECK(errors_of("version 1;\ninclude x;\n") ==
          syntax("expected the included file's name, in quotes, after 'include', found 'x'", 2, 9));
    CHECK(errors_of("version 1;\npaths = [];\n") == syntax("expected the group's name after 'paths', found '='", 2, 7));
    CHECK(errors_of("version 1;\npaths p [];\n") == syntax("expected '=' after the group's name 'p', found '['", 2, 9));
    CHECK(errors_of("version 1;\ndomains d = [\"a\" \"b\"];\n") ==
          syntax("expected ',' or ']' after an item of group 'd', found '\"b\"'", 2, 18));
    CHECK(errors_of("version 1;\nfilesystem materialize;\n") ==
          syntax("expected '{' after 'filesystem', found 'materialize'", 2, 12));
    CHECK(errors_of("version 1;\nfilesystem { materialize true;") ==
          syntax("expected a setting (KEY VALUE, ...;) or '}' to end 'filesystem', found the end of the file", 2, 31));
    CHECK(errors_of("version 1;\nprocess { rlimits n = { soft = 1 hard = 2 }; }\n") ==
          syntax("expected ',' or '}' after an entry of the map, found 'hard'", 2, 34));
    CHECK(errors_of("version 1;\nbroker { capability { host \"a\"; } }\n") ==
          syntax("expected the capability's name after 'capability' (capability NAME { ... }), found '\"a\"'", 2, 28));
    CHECK(errors_of("version 1;\nfilesystem { write_denies file 3; }\n") ==
          syntax("expected ';' after the value of 'write_denies', found '3'", 2, 32));
}

TEST_CASE("dsl syntax: syscall rules' errors in words")
{
    const std::string condition =
        "a condition (argN == V, argN != V, argN in {V, ...}, argN not in {V, ...}, argN & V)";
    const std::string atom = "a number or a constant name (such as AF_NETLINK)";
    auto rule = [](const std::string &text) { return errors_of("version 1;\nsyscalls {\n" + text + "\n}\n"); };
    CHECK(rule("deny;") == syntax("expected a syscall's name after 'deny', found ';'", 3, 5));
    CHECK(rule("deny kcmp arg0 == 1;") ==
          syntax("expected 'when', 'errno', 'kill' or ';' after 'deny kcmp', found 'arg0'", 3, 11));
    CHECK(rule("deny kcmp when;") == syntax("expected " + condition + " after 'when', found ';'", 3, 15));
    CHECK(rule("deny kcmp when arg0 = 1;") ==
          syntax("expected '==', '!=', 'in', 'not in' or '&' after 'arg0', found '='", 3, 21));
    CHECK(rule("deny kcmp when arg0 not {1};") == syntax("expected 'in' after 'not', found '{'", 3, 25));
    CHECK(rule("deny kcmp when arg0 in 1;") ==
          syntax("expected '{' to start the set of values after 'in', found '1'", 3, 24));
    CHECK(rule("deny kcmp when arg0 in {1 2};") ==
          syntax("expected ',' or '}' after a value of the set, found '2'", 3, 27));
    CHECK(rule("deny kcmp when arg0 == 1 |;") == syntax("expected " + atom + " after '|', found ';'", 3, 27));
    CHECK(rule("deny kcmp when arg0 == 1 and;") == syntax("expected " + condition + " after 'and', found ';'", 3, 29));
    CHECK(rule("deny kcmp when arg0 == 1 2;") ==
          syntax("expected 'and', 'errno', 'kill' or ';' after a condition of 'deny kcmp', found '2'", 3, 26));
    CHECK(rule("deny kcmp errno;") ==
          syntax("expected an errno name (such as EPERM) or number after 'errno', found ';'", 3, 16));
    CHECK(rule("deny kcmp kill errno;") ==
          syntax("expected ';' after the action of 'deny kcmp', found 'errno'", 3, 16));
    CHECK(rule("kcmp;") == syntax("expected a rule (deny NAME ...;) or '}' to end 'syscalls', found 'kcmp'", 3, 1));
}

TEST_CASE("dsl syntax: keywords are words where a word or a name is expected")
{
    Parsed parsed = parse_text("version 1;\nenv { passthrough version, deny, kill, in; set true = \"x\"; }\n"
                               "syscalls { deny kill kill; }\n",
                               "/w/p.tart");
    REQUIRE(parsed.policy);
    REQUIRE(parsed.policy->env.passthrough.size() == 4);
    CHECK(parsed.policy->env.passthrough[3].value == "in");
    CHECK(parsed.policy->env.set[0].first.value == "true");
    REQUIRE(parsed.policy->syscalls.rules.size() == 1);
    CHECK(parsed.policy->syscalls.rules[0].name.value == "kill");
    CHECK(parsed.policy->syscalls.rules[0].kill);
    CHECK(errors_of("version 1;\nsyscalls { deny when when arg0 == 1; }\n") ==
          "2:17: error: unknown syscall 'when' (x86_64); did you mean 'open'? [unknown-syscall]\n");
}

TEST_CASE("dsl syntax: the first lexical error is reported, and the parser does not run")
{
    // Whatever follows: a later bad character, an unclosed string, a syntax error.
    CHECK(errors_of("version 1; $\nfilesystem { read_denies \"a; }\n%\n") == syntax("unexpected character '$'", 1, 12));
    CHECK(errors_of("version 1;\nfilesystem { read_denies \"a; }\n%\n") ==
          syntax("this string has no closing '\"' on its line", 2, 26));
    CHECK(errors_of("version 1 filesystem { } %") == syntax("unexpected character '%'", 1, 26));
    // A megabyte of stray bytes is one error, not a million.
    CHECK(errors_of("version 1;\n" + std::string(size_t{1} << 20, '\0')) ==
          syntax("unexpected character '\\x00'", 2, 1));
    CHECK(errors_of("version 1;\nenv { set A = \"a\\qb\"; }\n") ==
          syntax("invalid escape '\\q' in a string: the escapes are \\\" \\\\ \\b \\t \\n \\f \\r \\uXXXX \\UXXXXXXXX",
                 2, 17));
    CHECK(errors_of("version 1;\nenv { set A = \"\\uD800\"; }\n") ==
          syntax("invalid escape in a string: \\u takes 4 hexadecimal digits naming a Unicode character (a "
                 "backslash is \\\\)",
                 2, 16));
    CHECK(errors_of("version 1;\nenv { set A = \"x\ty\x01\"; }\n") ==
          syntax("a control character (U+0001) in a string: write it as \\u0001", 2, 19));
    CHECK(errors_of("version 1;\n# caf\xe9\n") ==
          syntax("the file is not UTF-8 text: byte 0xe9 starts no UTF-8 character", 2, 6));
    CHECK(errors_of("\xed\xa0\x80") ==  // a UTF-16 surrogate is not UTF-8
          syntax("the file is not UTF-8 text: byte 0xed starts no UTF-8 character", 1, 1));
    CHECK(errors_of(std::string("version 1;\0", 11)) == syntax("unexpected character '\\x00'", 1, 11));
}

TEST_CASE("dsl syntax: nesting is capped below what could exhaust the parser's stack")
{
    std::string deep = "version 1;\nprocess { rlimits core = ";
    for (int i = 0; i < 100000; ++i)
        deep += "{ a = ";
    CHECK(errors_of(deep) == syntax("braces nest deeper than 32 levels", 2, 26 + 6 * 31));
    std::string fine = "version 1;\nenv { x y = ";
    for (int i = 0; i < 31; ++i)
        fine += "{ a = ";
    fine += "1";
    for (int i = 0; i < 31; ++i)
        fine += " }";
    fine += "; }\n";
    CHECK(errors_of(fine) == "2:7: error: unknown key 'x' in [env] [unknown-key]\n");
}

TEST_CASE("dsl syntax: strings decode TOML's escapes, non-ASCII text counts one column a character")
{
    Diagnostics diags;
    const SourcePos at{"f.tart", 1, 1};
    CHECK(dsl::decode_string("a\\tb\\\"c\\\\d\\u00e9\\U0001F600\\n", at, diags) ==
          "a\tb\"c\\d\xc3\xa9\xf0\x9f\x98\x80\n");
    CHECK(dsl::decode_string("", at, diags) == "");
    CHECK(diags.all().empty());
    CHECK_FALSE(dsl::decode_string("\xc3\xa9\\x", at, diags));
    REQUIRE(diags.all().size() == 1);
    CHECK(diags.all()[0].pos.col == 3);  // the quote, é, then the backslash
    CHECK_FALSE(dsl::decode_string("\\U00110000", at, diags));
    CHECK_FALSE(dsl::decode_string("\\u12", at, diags));
}

TEST_CASE("dsl syntax: integers as written, decimal or hexadecimal, within 64 bits of magnitude")
{
    CHECK(dsl::parse_integer("0")->magnitude == 0);
    CHECK(dsl::parse_integer("0x7fffFFFF")->magnitude == 0x7fffffff);
    CHECK(dsl::parse_integer("-100")->negative);
    CHECK(dsl::parse_integer("18446744073709551615")->magnitude == UINT64_MAX);
    CHECK_FALSE(dsl::parse_integer("18446744073709551616"));
    CHECK_FALSE(dsl::parse_integer("0x1ffffffffffffffff"));
    CHECK_FALSE(dsl::parse_integer("-"));
    CHECK_FALSE(dsl::parse_integer("0x"));
}

TEST_CASE("dsl syntax: toml_string writes any text as a TOML string that reads back the same")
{
    const std::string text = std::string("a\"b\\c\td\ne\x01\x7f", 12) + std::string(1, '\0') + "é";
    const std::string toml_text = "k = " + dsl::toml_string(text) + "\n";
    const toml::table table = toml::parse(toml_text);
    CHECK(table["k"].value<std::string>() == text);
    CHECK(dsl::toml_string("plain ~/.ssh") == "\"plain ~/.ssh\"");  // as written: columns stay put
}

TEST_CASE("dsl syntax: the position map moves each place of the lowered document to its token")
{
    PositionMap map("doc");
    map.add(1, 1, {"a.tart", 3, 5});
    map.add(1, 10, {"a.tart", 3, 20}, true);  // a bare word, quoted in the document
    map.add(2, 1, {"b.tart", 7, 2});
    auto at = [&](uint32_t line, uint32_t col) { return map.map(toml::source_position{line, col}); };
    CHECK(at(1, 1).col == 5);
    CHECK(at(1, 4).col == 8);
    CHECK(at(1, 10).col == 20);  // the quote
    CHECK(at(1, 11).col == 20);  // the word's first letter
    CHECK(at(1, 13).col == 22);
    CHECK(at(2, 5).file == "b.tart");
    CHECK(at(2, 5).line == 7);
    CHECK(at(3, 1).line == 0);  // beyond the document
    PositionMap empty_line("doc");
    empty_line.add(1, 5, {"a.tart", 1, 1});
    CHECK(empty_line.map(toml::source_position{1, 2}).line == 0);  // before any segment
}
