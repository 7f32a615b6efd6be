// The one parser of `tartaros run`'s command line, as the launcher calls it (C arrays, indices
// into argv); the compiler's wrapper is tested with its messages in tests/compiler/cli.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "run_line.h"

namespace {

struct Parsed {
    tr_parse_error error;
    int at;
    tr_run_line line;
    std::vector<tr_flag_use> flags;
};

Parsed parse(std::vector<const char *> args)
{
    Parsed p{};
    p.flags.resize(args.size() + 1);
    p.line.flags = p.flags.data();
    p.error = tr_parse_run(static_cast<int>(args.size()), args.data(), &p.line, &p.at);
    return p;
}

}  // namespace

TEST_CASE("run line: launcher options come out, policy flags stay in order, the command follows --")
{
    const Parsed p = parse({"--write", ".", "--strict", "--read-deny=secret", "--log", "l.jsonl", "--config=a.toml",
                            "--deny-unix", "--", "cmd", "--write"});
    REQUIRE(p.error == TR_OK);
    CHECK(p.line.strict == 1);
    CHECK(std::string(p.line.log) == "l.jsonl");
    CHECK(std::string(p.line.config) == "a.toml");
    REQUIRE(p.line.flag_count == 3);
    CHECK(p.line.flags[0].flag == TR_Write);
    CHECK(std::string(p.line.flags[0].value) == ".");
    CHECK(p.line.flags[1].flag == TR_ReadDeny);
    CHECK(std::string(p.line.flags[1].value) == "secret");
    CHECK(p.line.flags[2].flag == TR_DenyUnix);
    CHECK(std::string(p.line.flags[2].value).empty());
    CHECK(p.line.command == 9);
}

TEST_CASE("run line: the first -- ends the options, never a value")
{
    Parsed p = parse({"--write", "--", "x"});
    CHECK(p.error == TR_NEEDS_VALUE);
    CHECK(p.at == 0);
    p = parse({"--env", "--", "--", "x"});
    CHECK(p.error == TR_NEEDS_VALUE);
    p = parse({"--env=--", "--", "x"});  // the value of --env=... is the rest of its word
    REQUIRE(p.error == TR_OK);
    CHECK(std::string(p.line.flags[0].value) == "--");
    CHECK(p.line.command == 2);
}

TEST_CASE("run line: each error names the word at fault")
{
    Parsed p = parse({"--write", ".", "--nope", "--", "x"});
    CHECK(p.error == TR_UNKNOWN_OPTION);
    CHECK(p.at == 2);
    p = parse({"cmd", "--", "x"});
    CHECK(p.error == TR_UNEXPECTED_WORD);
    CHECK(p.at == 0);
    p = parse({"--strict=yes", "--", "x"});
    CHECK(p.error == TR_TAKES_NO_VALUE);
    p = parse({"--write="});
    CHECK(p.error == TR_NEEDS_VALUE);
    p = parse({"--log", "a", "--log=b", "--", "x"});
    CHECK(p.error == TR_LOG_TWICE);
    CHECK(p.at == 2);
    p = parse({"--config", "a", "--config", "b", "--", "x"});
    CHECK(p.error == TR_CONFIG_TWICE);
    CHECK(p.at == 2);
    p = parse({"--write", "."});
    CHECK(p.error == TR_MISSING_SEPARATOR);
    CHECK(p.at == 2);
    p = parse({"--write", ".", "--"});
    CHECK(p.error == TR_MISSING_COMMAND);
    CHECK(p.at == 3);
}

TEST_CASE("run line: --help and -h need no command; a name is matched whole")
{
    CHECK(parse({"--help"}).error == TR_OK);
    CHECK(parse({"--write", ".", "-h"}).line.help == 1);
    tr_flag flag{};
    int takes_value = -1;
    CHECK(tr_find_option("--write", 7, &flag, &takes_value) == 1);
    CHECK(flag == TR_Write);
    CHECK(takes_value == 1);
    CHECK(tr_find_option("--writ", 6, &flag, &takes_value) == 0);
    CHECK(tr_find_option("--write-deny", 12, &flag, &takes_value) == 1);
    CHECK(flag == TR_WriteDeny);
    CHECK(tr_find_option("--no-cache", 10, &flag, &takes_value) == 1);
    CHECK(takes_value == 0);
}
