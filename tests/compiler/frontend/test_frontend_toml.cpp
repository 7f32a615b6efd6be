// Unit tests for the TOML front-end: every field with its position, defaults, and every
// class of error with its exact message, position and rule id.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <pwd.h>
#include <sstream>
#include <unistd.h>

#include "frontend_toml.h"
#include "home_guard.h"
#include "parsed_policy.h"
#include "paths.h"

using namespace tartaros;

namespace {

constexpr const char *kPolicyPath = "/w/proj/policy.toml";

Parsed parse(const std::string &text, const std::string &path = kPolicyPath)
{
    HomeGuard home("/home/agent");
    Parsed parsed;
    parsed.policy = parse_toml_policy_text(text, path, parsed.diags);
    return parsed;
}

// The one diagnostic of a policy that must fail with exactly one error.
std::string only_error(const std::string &text)
{
    Parsed parsed = parse(text);
    CHECK_FALSE(parsed.policy);
    CHECK(parsed.diags.all().size() == 1);
    return summary(parsed.diags);
}

void check_at(const SourcePos &pos, uint32_t line, uint32_t col)
{
    CHECK(pos.file == kPolicyPath);
    CHECK(pos.line == line);
    CHECK(pos.col == col);
}

}  // namespace

TEST_CASE("toml: every field is parsed with its position")
{
    const Parsed parsed = parse(R"(version = 1
[filesystem]
read_scope = "granted"
read_allows = ["~/.cargo", "/opt/tools/"]
read_denies = ["~/.ssh", "~/.aws"]
writable_roots = ["."]
write_denies = [".git/hooks", "../shared/.git/config"]
materialize = true
private_tmp = true
[process]
isolate_pids = false
isolate_proc = false
[env]
inherit = true
passthrough = ["PATH", "HOME"]
set = { CI = "1", EDITOR = "true" }
)");
    REQUIRE(parsed.policy);
    CHECK(parsed.diags.all().empty());
    const Policy &p = *parsed.policy;
    CHECK(p.source_path == kPolicyPath);
    CHECK(p.version.value == 1);
    check_at(p.version.pos, 1, 11);

    CHECK(p.fs.read_scope.value == ReadScope::Granted);
    check_at(p.fs.read_scope.pos, 3, 14);
    REQUIRE(p.fs.read_allows.size() == 2);
    CHECK(p.fs.read_allows[0].value == "/home/agent/.cargo");
    check_at(p.fs.read_allows[0].pos, 4, 16);
    CHECK(p.fs.read_allows[1].value == "/opt/tools");
    check_at(p.fs.read_allows[1].pos, 4, 28);
    REQUIRE(p.fs.read_denies.size() == 2);
    CHECK(p.fs.read_denies[0].value == "/home/agent/.ssh");
    CHECK(p.fs.read_denies[1].value == "/home/agent/.aws");
    check_at(p.fs.read_denies[1].pos, 5, 26);
    REQUIRE(p.fs.writable_roots.size() == 1);
    CHECK(p.fs.writable_roots[0].value == "/w/proj");
    check_at(p.fs.writable_roots[0].pos, 6, 19);
    REQUIRE(p.fs.write_denies.size() == 2);
    CHECK(p.fs.write_denies[0].value == "/w/proj/.git/hooks");
    CHECK(p.fs.write_denies[1].value == "/w/shared/.git/config");
    check_at(p.fs.write_denies[1].pos, 7, 31);
    CHECK(p.fs.materialize.value);
    check_at(p.fs.materialize.pos, 8, 15);
    CHECK(p.fs.private_tmp.value);
    check_at(p.fs.private_tmp.pos, 9, 15);

    CHECK_FALSE(p.process.isolate_pids.value);
    check_at(p.process.isolate_pids.pos, 11, 16);
    CHECK_FALSE(p.process.isolate_proc.value);
    check_at(p.process.isolate_proc.pos, 12, 16);

    CHECK(p.env.inherit.value);
    check_at(p.env.inherit.pos, 14, 11);
    REQUIRE(p.env.passthrough.size() == 2);
    CHECK(p.env.passthrough[0].value == "PATH");
    check_at(p.env.passthrough[0].pos, 15, 16);
    CHECK(p.env.passthrough[1].value == "HOME");
    REQUIRE(p.env.set.size() == 2);
    CHECK(p.env.set[0].first.value == "CI");
    check_at(p.env.set[0].first.pos, 16, 9);
    CHECK(p.env.set[0].second.value == "1");
    check_at(p.env.set[0].second.pos, 16, 14);
    CHECK(p.env.set[1].first.value == "EDITOR");
    CHECK(p.env.set[1].second.value == "true");
}

TEST_CASE("toml: defaults when only the version is given")
{
    const Parsed parsed = parse("version = 1\n");
    REQUIRE(parsed.policy);
    const Policy &p = *parsed.policy;
    CHECK(p.fs.read_scope.value == ReadScope::All);
    CHECK(p.fs.read_scope.pos.line == 0);
    CHECK(p.fs.read_allows.empty());
    CHECK(p.fs.read_denies.empty());
    CHECK(p.fs.writable_roots.empty());
    CHECK(p.fs.write_denies.empty());
    CHECK_FALSE(p.fs.materialize.value);
    CHECK_FALSE(p.fs.private_tmp.value);
    CHECK(p.process.isolate_pids.value);
    CHECK(p.process.isolate_proc.value);
    CHECK_FALSE(p.env.inherit.value);
    CHECK(p.env.set.empty());
    REQUIRE(p.env.passthrough.size() == kDefaultPassthrough.size());
    for (size_t i = 0; i < kDefaultPassthrough.size(); ++i) {
        CHECK(p.env.passthrough[i].value == kDefaultPassthrough[i]);
        CHECK(p.env.passthrough[i].pos.line == 0);
    }
}

TEST_CASE("toml: a present passthrough holds exactly the names listed, even none")
{
    Parsed parsed = parse("version = 1\n[env]\npassthrough = []\n");
    REQUIRE(parsed.policy);
    CHECK(parsed.policy->env.passthrough.empty());
    parsed = parse("version = 1\n[env]\ninherit = false\n");
    REQUIRE(parsed.policy);
    CHECK(parsed.policy->env.passthrough.size() == kDefaultPassthrough.size());
}

TEST_CASE("toml: dotted keys and inline tables are the same tables")
{
    const Parsed parsed = parse("version = 1\nfilesystem.read_denies = ['/secret']\nenv = { inherit = true }\n");
    REQUIRE(parsed.policy);
    REQUIRE(parsed.policy->fs.read_denies.size() == 1);
    CHECK(parsed.policy->fs.read_denies[0].value == "/secret");
    check_at(parsed.policy->fs.read_denies[0].pos, 2, 27);
    CHECK(parsed.policy->env.inherit.value);
}

TEST_CASE("toml: env set keeps the order of the file")
{
    const Parsed parsed = parse("version = 1\n[env.set]\nZED = \"z\"\nALPHA = \"a\"\nMID = \"\"\n");
    REQUIRE(parsed.policy);
    REQUIRE(parsed.policy->env.set.size() == 3);
    CHECK(parsed.policy->env.set[0].first.value == "ZED");
    CHECK(parsed.policy->env.set[1].first.value == "ALPHA");
    CHECK(parsed.policy->env.set[2].first.value == "MID");
    CHECK(parsed.policy->env.set[2].second.value == "");
}

TEST_CASE("toml: relative paths resolve against the policy file's directory")
{
    char cwd[4096];
    REQUIRE(getcwd(cwd, sizeof cwd) != nullptr);
    const Parsed parsed = parse("version = 1\n[filesystem]\nwritable_roots = ['.', 'sub/../out']\n", "dir/p.toml");
    REQUIRE(parsed.policy);
    const std::string dir = normalize_absolute(std::string(cwd) + "/dir");
    CHECK(parsed.policy->source_path == dir + "/p.toml");
    REQUIRE(parsed.policy->fs.writable_roots.size() == 2);
    CHECK(parsed.policy->fs.writable_roots[0].value == dir);
    CHECK(parsed.policy->fs.writable_roots[1].value == dir + "/out");
    CHECK(parsed.policy->fs.writable_roots[0].pos.file == "dir/p.toml");
}

TEST_CASE("toml: missing or wrong version")
{
    CHECK(only_error("[filesystem]\nmaterialize = true\n") ==
          "1:1: error: missing 'version = 1' (the policy format version) at the top of the policy [missing-version]\n");
    CHECK(only_error("") ==
          "1:1: error: missing 'version = 1' (the policy format version) at the top of the policy [missing-version]\n");
    CHECK(only_error("version = 2\n") ==
          "1:11: error: policy version 2 is not supported: this compiler reads version 1 [unsupported-version]\n");
    CHECK(only_error("version = \"1\"\n") == "1:11: error: 'version' must be an integer, not a string [wrong-type]\n");
}

TEST_CASE("toml: unknown keys at every level, with did-you-mean")
{
    CHECK(only_error("version = 1\n[filesytem]\n") ==
          "2:2: error: unknown key 'filesytem'; did you mean 'filesystem'? [unknown-key]\n");
    CHECK(only_error("version = 1\ncolour = 'red'\n") == "2:1: error: unknown key 'colour' [unknown-key]\n");
    CHECK(only_error("version = 1\n[filesystem]\nread_deny = []\n") ==
          "3:1: error: unknown key 'read_deny' in [filesystem]; did you mean 'read_denies'? [unknown-key]\n");
    CHECK(only_error("version = 1\n[process]\nisolate_pid = true\n") ==
          "3:1: error: unknown key 'isolate_pid' in [process]; did you mean 'isolate_pids'? [unknown-key]\n");
    CHECK(only_error("version = 1\n[env.other.deep]\nx = 1\n") ==
          "2:6: error: unknown key 'other' in [env] [unknown-key]\n");
    CHECK(only_error("version = 1\n[env]\nset = { A = '1' }\npassthru = []\n") ==
          "4:1: error: unknown key 'passthru' in [env] [unknown-key]\n");
    CHECK(only_error("version = 1\nenv.inheritt = true\n") ==
          "2:5: error: unknown key 'inheritt' in [env]; did you mean 'inherit'? [unknown-key]\n");
}

TEST_CASE("toml: wrong types name the expected type")
{
    CHECK(only_error("version = 1\nfilesystem = 1\n") ==
          "2:14: error: 'filesystem' must be a table, not an integer [wrong-type]\n");
    CHECK(only_error("version = 1\n[[process]]\n") ==
          "2:1: error: 'process' must be a table, not an array [wrong-type]\n");
    CHECK(only_error("version = 1\n[filesystem]\nread_scope = 1\n") ==
          "3:14: error: 'read_scope' must be a string (\"all\" or \"granted\"), not an integer [wrong-type]\n");
    CHECK(only_error("version = 1\n[filesystem]\nmaterialize = \"yes\"\n") ==
          "3:15: error: 'materialize' must be a boolean (true or false), not a string [wrong-type]\n");
    CHECK(only_error("version = 1\n[filesystem]\nread_denies = \"~/.ssh\"\n") ==
          "3:15: error: 'read_denies' must be an array of paths, not a string [wrong-type]\n");
    CHECK(only_error("version = 1\n[filesystem]\nwrite_denies = [\".git\", 3.5]\n") ==
          "3:25: error: 'write_denies' must be an array of paths or { path, type } tables; element 2 is a float "
          "[wrong-type]\n");
    CHECK(only_error("version = 1\n[process]\nisolate_proc = 1979-05-27\n") ==
          "3:16: error: 'isolate_proc' must be a boolean (true or false), not a date [wrong-type]\n");
    CHECK(only_error("version = 1\n[env]\nset = [\"CI=1\"]\n") ==
          "3:7: error: 'set' must be a table of names to strings, like { CI = \"1\" }, not an array [wrong-type]\n");
    CHECK(only_error("version = 1\n[env]\nset = { CI = 1 }\n") ==
          "3:14: error: 'CI' must be a string, not an integer [wrong-type]\n");
    CHECK(only_error("version = 1\n[env]\npassthrough = [[\"PATH\"]]\n") ==
          "3:16: error: 'passthrough' must be an array of strings; element 1 is an array [wrong-type]\n");
}

TEST_CASE("toml: read_scope values")
{
    CHECK(only_error("version = 1\n[filesystem]\nread_scope = \"grantd\"\n") ==
          "3:14: error: 'read_scope' must be \"all\" or \"granted\", not \"grantd\"; did you mean \"granted\"? "
          "[invalid-value]\n");
    CHECK(only_error("version = 1\n[filesystem]\nread_scope = \"none\"\n") ==
          "3:14: error: 'read_scope' must be \"all\" or \"granted\", not \"none\" [invalid-value]\n");
    const Parsed parsed = parse("version = 1\n[filesystem]\nread_scope = \"all\"\n");
    REQUIRE(parsed.policy);
    CHECK(parsed.policy->fs.read_scope.value == ReadScope::All);
    CHECK(parsed.policy->fs.read_scope.pos.line == 3);
}

TEST_CASE("toml: the Linux refusals: glob fields and unix socket paths")
{
    CHECK(only_error("version = 1\n[filesystem]\nglob_read_denies = [\"~/.ssh/*\"]\n") ==
          "3:1: error: 'glob_read_denies' is not supported on Linux: TartarOS has no glob engine; list each path in "
          "read_denies [glob]\n");
    CHECK(only_error("version = 1\nglob_denies = [\"*.pem\"]\n") ==
          "2:1: error: 'glob_denies' is not supported on Linux: TartarOS has no glob engine; list each path in "
          "[filesystem] read_denies or write_denies [glob]\n");
    const std::string unix_refusal =
        "error: 'allow_unix_socket_paths' is not supported on Linux: unix sockets can only be denied all at once, "
        "with 'deny_unix = true' in [network] or '--deny-unix' [unsupported]\n";
    CHECK(only_error("version = 1\n[filesystem]\nallow_unix_socket_paths = []\n") == "3:1: " + unix_refusal);
    CHECK(only_error("version = 1\nallow_unix_socket_paths = [\"/run/x.sock\"]\n") == "2:1: " + unix_refusal);

    const Parsed parsed = parse("version = 1\n[network]\nallow_unix_socket_paths = [\"/run/docker.sock\"]\n");
    CHECK_FALSE(parsed.policy);
    CHECK(summary(parsed.diags) == "3:1: " + unix_refusal);
}

TEST_CASE("toml: harden_syscalls and deny_unix")
{
    Parsed parsed = parse("version = 1\n");
    REQUIRE(parsed.policy);
    CHECK(parsed.policy->process.harden_syscalls.value);
    CHECK(parsed.policy->process.harden_syscalls.pos.line == 0);
    CHECK_FALSE(parsed.policy->network.deny_unix.value);

    parsed = parse("version = 1\n[process]\nharden_syscalls = false\n[network]\ndeny_unix = true\n");
    REQUIRE(parsed.policy);
    CHECK_FALSE(parsed.policy->process.harden_syscalls.value);
    CHECK(parsed.policy->process.harden_syscalls.pos.line == 3);
    CHECK(parsed.policy->network.deny_unix.value);
    CHECK(parsed.policy->network.deny_unix.pos.line == 5);

    CHECK(only_error("version = 1\n[network]\ndeny_unix = \"yes\"\n") ==
          "3:13: error: 'deny_unix' must be a boolean (true or false), not a string [wrong-type]\n");
    CHECK(only_error("version = 1\n[network]\ndeny_unx = true\n") ==
          "3:1: error: unknown key 'deny_unx' in [network]; did you mean 'deny_unix'? [unknown-key]\n");
    CHECK(only_error("version = 1\n[process]\nharden_syscall = true\n") ==
          "3:1: error: unknown key 'harden_syscall' in [process]; did you mean 'harden_syscalls'? [unknown-key]\n");
}

TEST_CASE("toml: path refusals carry the element's position and the field's name")
{
    CHECK(only_error("version = 1\n[filesystem]\nread_denies = [\"~/.ssh\", \"~/.ssh/*.pem\"]\n") ==
          "3:26: error: read_denies: '~/.ssh/*.pem' contains the glob character '*'; globs are not supported on "
          "Linux (TartarOS has no glob engine): list each path [glob]\n");
    CHECK(only_error("version = 1\n[filesystem]\nwritable_roots = [\"\"]\n") ==
          "3:19: error: writable_roots: empty path [invalid-path]\n");
    CHECK(only_error("version = 1\n[filesystem]\nread_allows = [\"~bob/src\"]\n") ==
          "3:16: error: read_allows: '~bob/src': '~user' paths are not supported; write '~/...' or an absolute "
          "path [invalid-path]\n");
    CHECK(only_error("version = 1\n[filesystem]\nwrite_denies = [\"a\\u0000b\"]\n") ==
          "3:17: error: write_denies: 'a\\x00b' contains a NUL character [invalid-path]\n");
    CHECK(only_error("version = 1\n[filesystem]\nwrite_denies = [\"a\\nb\"]\n") ==
          "3:17: error: write_denies: 'a\\nb' contains a newline [invalid-path]\n");
}

TEST_CASE("toml: an empty $HOME is an error only where tilde is used")
{
    HomeGuard empty_home("");
    Diagnostics diags;
    CHECK(parse_toml_policy_text("version = 1\n[filesystem]\nread_denies = ['/etc/shadow']\n", kPolicyPath, diags));
    CHECK_FALSE(parse_toml_policy_text("version = 1\n[filesystem]\nread_denies = ['~/.ssh']\n", kPolicyPath, diags));
    CHECK(summary(diags) ==
          "3:16: error: read_denies: cannot expand '~' in '~/.ssh': $HOME is set but empty; set it "
          "to your home directory, or unset it to use the one in /etc/passwd [invalid-path]\n");
}

TEST_CASE("toml: tilde without $HOME is the home /etc/passwd gives the compiling uid")
{
    HomeGuard no_home(nullptr);
    const struct passwd *entry = getpwuid(getuid());
    REQUIRE(entry != nullptr);
    Diagnostics diags;
    const std::optional<Policy> policy =
        parse_toml_policy_text("version = 1\n[filesystem]\nread_denies = ['~/.ssh']\n", kPolicyPath, diags);
    REQUIRE(policy);
    REQUIRE(policy->fs.read_denies.size() == 1);
    CHECK(policy->fs.read_denies[0].value == normalize_absolute(std::string(entry->pw_dir) + "/.ssh"));
}

TEST_CASE("toml: duplicates are warnings and the later copy is dropped")
{
    const Parsed parsed = parse(R"(version = 1
[filesystem]
read_denies = ["~/.ssh",
               "/etc/shadow",
               "/home/agent/.ssh/",
               "/etc/shadow"]
[env]
passthrough = ["PATH", "TERM", "PATH"]
)");
    REQUIRE(parsed.policy);
    CHECK(
        summary(parsed.diags) ==
        "5:16: warning: '/home/agent/.ssh/' is already listed in 'read_denies' at line 3 (as '~/.ssh'); this copy "
        "is ignored [duplicate]\n"
        "6:16: warning: '/etc/shadow' is already listed in 'read_denies' at line 4; this copy is ignored [duplicate]\n"
        "8:32: warning: 'PATH' is already listed in 'passthrough' at line 8; this copy is ignored [duplicate]\n");
    REQUIRE(parsed.policy->fs.read_denies.size() == 2);
    CHECK(parsed.policy->fs.read_denies[0].value == "/home/agent/.ssh");
    CHECK(parsed.policy->fs.read_denies[0].pos.line == 3);
    CHECK(parsed.policy->fs.read_denies[1].value == "/etc/shadow");
    REQUIRE(parsed.policy->env.passthrough.size() == 2);
    CHECK(parsed.policy->env.passthrough[1].value == "TERM");
}

TEST_CASE("toml: environment variable names are checked")
{
    CHECK(only_error("version = 1\n[env]\npassthrough = [\"MY-VAR\"]\n") ==
          "3:16: error: 'passthrough': 'MY-VAR' is not a valid environment variable name (letters, digits and '_', "
          "not starting with a digit) [env-name]\n");
    CHECK(only_error("version = 1\n[env]\npassthrough = [\"\"]\n") ==
          "3:16: error: 'passthrough': '' is not a valid environment variable name (letters, digits and '_', not "
          "starting with a digit) [env-name]\n");
    CHECK(only_error("version = 1\n[env]\nset = { \"1X\" = \"a\" }\n") ==
          "3:9: error: 'set': '1X' is not a valid environment variable name (letters, digits and '_', not starting "
          "with a digit) [env-name]\n");
    CHECK(only_error("version = 1\n[env]\nset = { A = \"x\\u0000y\" }\n") ==
          "3:13: error: the value of 'A' contains a NUL character [invalid-value]\n");
    const Parsed parsed = parse("version = 1\n[env]\npassthrough = [\"_x9\", \"lower_case\"]\n");
    CHECK(parsed.policy);
}

TEST_CASE("toml: a syntax error is reported with toml++'s description and position")
{
    CHECK(only_error("version = 1\nx = \"é\" y\n") ==
          "2:9: error: Error while parsing key-value pair: expected a comment or whitespace, saw 'y' [toml-syntax]\n");
    CHECK(only_error("version = 1\n[filesystem]\n[filesystem]\n") ==
          "3:1: error: Error while parsing table header: cannot redefine existing table 'filesystem' [toml-syntax]\n");
}

TEST_CASE("toml: every error is reported, in the order of the file")
{
    const Parsed parsed = parse(R"(version = 3
[filesytem]
[filesystem]
read_scope = "some"
read_denies = ["/a/*", 7, "/ok"]
materialize = 1
[network]
[process]
timeout = "5 s"
[env]
set = { "A B" = "1" }
)");
    CHECK_FALSE(parsed.policy);
    CHECK(parsed.diags.error_count() == 8);
    CHECK(summary(parsed.diags) ==
          "1:11: error: policy version 3 is not supported: this compiler reads version 1 [unsupported-version]\n"
          "2:2: error: unknown key 'filesytem'; did you mean 'filesystem'? [unknown-key]\n"
          "4:14: error: 'read_scope' must be \"all\" or \"granted\", not \"some\" [invalid-value]\n"
          "5:16: error: read_denies: '/a/*' contains the glob character '*'; globs are not supported on Linux "
          "(TartarOS has no glob engine): list each path [glob]\n"
          "5:24: error: 'read_denies' must be an array of paths or { path, type } tables; element 2 is an integer "
          "[wrong-type]\n"
          "6:15: error: 'materialize' must be a boolean (true or false), not an integer [wrong-type]\n"
          "9:11: error: 'timeout': \"5 s\": no spaces in a duration; durations are like \"90s\", \"5m\", "
          "\"1h30m\", \"250ms\" (units d h m s ms us, largest first) [invalid-duration]\n"
          "11:9: error: 'set': 'A B' is not a valid environment variable name (letters, digits and '_', not "
          "starting with a digit) [env-name]\n");
}

TEST_CASE("toml: diagnostics print the parsed text's line with a caret")
{
    Parsed parsed = parse("version = 1\n  [filesytem]\n", "virtual/never-on-disk.toml");
    std::ostringstream out;
    parsed.diags.print(out);
    CHECK(out.str() ==
          "virtual/never-on-disk.toml:2:4: error: unknown key 'filesytem'; did you mean 'filesystem'? [unknown-key]\n"
          "  [filesytem]\n"
          "   ^\n");
}

TEST_CASE("toml: parse_toml_policy reads a file, and reports a file it cannot read")
{
    std::string dir = (std::filesystem::temp_directory_path() / "tartaros-toml-XXXXXX").string();
    REQUIRE(mkdtemp(dir.data()) != nullptr);
    std::ofstream(dir + "/p.toml") << "version = 1\n[filesystem]\nwritable_roots = ['ws']\n";

    Diagnostics diags;
    const std::optional<Policy> policy = parse_toml_policy(dir + "/p.toml", diags);
    REQUIRE(policy);
    CHECK(policy->source_path == dir + "/p.toml");
    REQUIRE(policy->fs.writable_roots.size() == 1);
    CHECK(policy->fs.writable_roots[0].value == dir + "/ws");

    CHECK_FALSE(parse_toml_policy(dir + "/missing.toml", diags));
    REQUIRE(diags.all().size() == 1);
    CHECK(diags.all()[0].message == "cannot read the policy: No such file or directory");
    CHECK(diags.all()[0].rule_id == "unreadable-policy");
    CHECK(diags.all()[0].pos.file == dir + "/missing.toml");
    std::filesystem::remove_all(dir);
}

TEST_CASE("toml: a policy with earlier diagnostics in the same collector still parses")
{
    Diagnostics diags;
    diags.error({"other.toml", 1, 1}, "unrelated", "x");
    HomeGuard home("/home/agent");
    CHECK(parse_toml_policy_text("version = 1\n", kPolicyPath, diags));
}

TEST_CASE("toml: a deny entry may declare its target a file for materialize")
{
    Parsed parsed = parse("version = 1\n[filesystem]\nwritable_roots = [\".\"]\n"
                          "write_denies = [\".git/hooks\", { path = \".git/config\", type = \"file\" },\n"
                          "                { path = \".git/info\", type = \"dir\" }]\n"
                          "read_denies = [{ path = \".env\", type = \"file\" }]\n");
    REQUIRE(parsed.policy);
    const FilesystemPolicy &fs = parsed.policy->fs;
    REQUIRE(fs.write_denies.size() == 3);
    CHECK(fs.write_denies[1].value == "/w/proj/.git/config");
    check_at(fs.write_denies[1].pos, 4, 31);
    CHECK(fs.file_targets == std::vector<std::string>{"/w/proj/.git/config", "/w/proj/.env"});
}

TEST_CASE("toml: malformed deny tables are refused with the key at fault")
{
    CHECK(only_error("version = 1\n[filesystem]\nwrite_denies = [{ pth = \"x\", path = \"y\" }]\n") ==
          "3:19: error: unknown key 'pth' in an entry of 'write_denies'; did you mean \"path\"? [unknown-key]\n");
    CHECK(only_error("version = 1\n[filesystem]\nwrite_denies = [{ type = \"file\" }]\n") ==
          "3:17: error: an entry of 'write_denies' needs path = \"...\" [wrong-type]\n");
    CHECK(only_error("version = 1\n[filesystem]\nread_denies = [{ path = \"x\", type = \"socket\" }]\n") ==
          "3:37: error: type must be \"file\" or \"dir\" [invalid-value]\n");
    CHECK(only_error("version = 1\n[filesystem]\nread_denies = [{ path = \"a*\" }]\n").find("[glob]") !=
          std::string::npos);
}
