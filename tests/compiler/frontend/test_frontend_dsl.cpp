// Unit tests for the .tart front-end's policies: every setting reaches the model with its .tart
// position, blocks add up, includes and groups resolve (with their errors), a TOML policy
// includes .tart files, Policy::sources, and lint on a .tart policy.
#include <doctest/doctest.h>

#include <sstream>

#include "lint.h"
#include "test_frontend_dsl_fixture.h"

using namespace tartaros;
using namespace tartaros::test;

namespace {

constexpr const char *kPolicy = "/w/proj/policy.tart";

void check_at(const SourcePos &pos, const std::string &file, uint32_t line, uint32_t col)
{
    CHECK(pos.file == file);
    CHECK(pos.line == line);
    CHECK(pos.col == col);
}

// The one diagnostic of a policy that must fail with exactly one error.
std::string only_error(const std::string &text)
{
    Parsed parsed = parse_text(text, kPolicy);
    CHECK_FALSE(parsed.policy);
    CHECK(parsed.diags.all().size() == 1);
    return summary(parsed.diags);
}

}  // namespace

TEST_CASE("dsl: settings reach the model with the positions of their .tart tokens")
{
    const Parsed parsed = parse_text("version 1;\n"
                                     "filesystem {\n"
                                     "    read_scope granted;\n"
                                     "    read_denies \"~/.ssh\", file \"~/.netrc\";\n"
                                     "    writable_roots \".\";\n"
                                     "    materialize true;\n"
                                     "}\n"
                                     "network { allow_domains \"pypi.org\"; hosts \"db.internal\" = \"10.0.0.5\"; }\n"
                                     "process { timeout \"5m\"; rlimits nofile = { soft = 10, hard = 20 }; }\n"
                                     "env { passthrough PATH; set CI = \"1\"; }\n",
                                     kPolicy);
    REQUIRE(parsed.policy);
    CHECK(parsed.diags.all().empty());
    const Policy &p = *parsed.policy;
    check_at(p.version.pos, kPolicy, 1, 9);
    CHECK(p.fs.read_scope.value == ReadScope::Granted);
    check_at(p.fs.read_scope.pos, kPolicy, 3, 16);  // a bare word, at its first letter
    REQUIRE(p.fs.read_denies.size() == 2);
    CHECK(p.fs.read_denies[0].value == "/home/agent/.ssh");
    check_at(p.fs.read_denies[0].pos, kPolicy, 4, 17);
    CHECK(p.fs.read_denies[1].value == "/home/agent/.netrc");
    check_at(p.fs.read_denies[1].pos, kPolicy, 4, 27);  // `file`
    CHECK(p.fs.file_targets == std::vector<std::string>{"/home/agent/.netrc"});
    REQUIRE(p.fs.writable_roots.size() == 1);
    CHECK(p.fs.writable_roots[0].value == "/w/proj");
    CHECK(p.fs.materialize.value);
    check_at(p.fs.materialize.pos, kPolicy, 6, 17);
    REQUIRE(p.network.hosts.size() == 1);
    check_at(p.network.hosts[0].first.pos, kPolicy, 8, 43);
    check_at(p.network.hosts[0].second.pos, kPolicy, 8, 59);
    REQUIRE(p.process.timeout);
    CHECK(p.process.timeout->value == 300000);
    check_at(p.process.timeout->pos, kPolicy, 9, 19);
    REQUIRE(p.process.rlimits.size() == 1);
    CHECK(p.process.rlimits[0].soft == 10);
    CHECK(p.process.rlimits[0].hard == 20);
    check_at(p.process.rlimits[0].pos, kPolicy, 9, 33);
    REQUIRE(p.env.passthrough.size() == 1);
    check_at(p.env.passthrough[0].pos, kPolicy, 10, 19);
    REQUIRE(p.env.set.size() == 1);
    check_at(p.env.set[0].first.pos, kPolicy, 10, 29);
    check_at(p.env.set[0].second.pos, kPolicy, 10, 34);
    CHECK(p.syscalls.rules.empty());
    REQUIRE(p.sources.size() == 1);
    CHECK(p.sources[0].display == kPolicy);
    CHECK(p.sources[0].absolute == kPolicy);
    CHECK(p.source_path == kPolicy);
}

TEST_CASE("dsl: defaults stay defaults, as in TOML")
{
    const Parsed parsed = parse_text("version 1;\n", kPolicy);
    REQUIRE(parsed.policy);
    const Policy &p = *parsed.policy;
    CHECK(p.fs.read_scope.pos.line == 0);
    CHECK(p.env.passthrough.size() == kDefaultPassthrough.size());
    CHECK(p.env.passthrough[0].pos.line == 0);
    CHECK_FALSE(p.broker);
    CHECK(p.network.proxy_port.pos.line == 0);
}

TEST_CASE("dsl: blocks add up, lists append, tables merge, one value is set once")
{
    const Parsed parsed = parse_text("version 1;\n"
                                     "env { passthrough PATH; set A = \"1\"; }\n"
                                     "filesystem { read_denies \"/a\"; }\n"
                                     "env { passthrough HOME; set B = \"2\"; inherit false; }\n"
                                     "filesystem { read_denies \"/b\"; read_denies; }\n",
                                     kPolicy);
    REQUIRE(parsed.policy);
    const Policy &p = *parsed.policy;
    REQUIRE(p.env.passthrough.size() == 2);
    CHECK(p.env.passthrough[1].value == "HOME");
    REQUIRE(p.env.set.size() == 2);
    CHECK(p.env.set[1].first.value == "B");
    REQUIRE(p.fs.read_denies.size() == 2);
    check_at(p.fs.read_denies[1].pos, kPolicy, 5, 26);

    CHECK(only_error("version 1;\nprocess { timeout \"5m\"; }\nprocess { timeout \"6m\"; }\n") ==
          "3:11: error: 'timeout' is already set at /w/proj/policy.tart:2:11; a key that takes one value is set "
          "once in the whole policy (lists append, tables merge) [duplicate-setting]\n");
    CHECK(only_error("version 1;\nenv { set A = \"1\"; }\nenv { set B = \"2\", A = \"3\"; }\n") ==
          "3:20: error: 'A' is already set in 'set' at /w/proj/policy.tart:2:11 [duplicate-setting]\n");
    CHECK(only_error("version 1;\nversion 1;\n") ==
          "2:1: error: 'version' is already set at /w/proj/policy.tart:1:1; a file states its version once "
          "[duplicate-setting]\n");
}

TEST_CASE("dsl: the TOML front-end's checks and messages, at the .tart tokens")
{
    CHECK(only_error("version 1;\nnetwork {\n  deny_unx true;\n}\n") ==
          "3:3: error: unknown key 'deny_unx' in [network]; did you mean 'deny_unix'? [unknown-key]\n");
    CHECK(only_error("version 1;\nfilesystem { materialize yes; }\n") ==
          "2:26: error: 'materialize' must be a boolean (true or false), not a string [wrong-type]\n");
    CHECK(only_error("version 1;\nfilesystem { materialize true, false; }\n") ==
          "2:26: error: 'materialize' must be a boolean (true or false), not an array [wrong-type]\n");
    CHECK(only_error("version 2;\n") ==
          "1:9: error: policy version 2 is not supported: this compiler reads version 1 [unsupported-version]\n");
    CHECK(only_error("filesystem { }\n") ==
          "1:1: error: missing 'version 1;' (the policy format version) at the top of the policy "
          "[missing-version]\n");
    CHECK(only_error("version 1;\nnetwork { proxy_port 0x10000; }\n") ==
          "2:22: error: 'proxy_port': 65536 is not a port number (1 to 65535) [invalid-port]\n");
    CHECK(only_error("version 1;\nfilesytem { }\n") ==
          "2:1: error: unknown block 'filesytem'; did you mean 'filesystem'? (the blocks are filesystem, network, "
          "process, env, broker and syscalls) [unknown-key]\n");
    CHECK(only_error("version 1;\nenv { set \"CI=1\"; }\n") ==
          "2:11: error: 'set' takes NAME = VALUE entries, such as set NAME = \"…\" [wrong-type]\n");
    CHECK(only_error("version 1;\nprocess { max_processes -9223372036854775809; }\n") ==
          "2:25: error: '-9223372036854775809' does not fit in a 64-bit integer [invalid-value]\n");
}

TEST_CASE("dsl: a printed diagnostic shows the .tart line, and a secret bare word is hidden")
{
    Parsed parsed = parse_text("version 1;\nbroker {\n  token_env ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789;\n}\n",
                               "virtual/p.tart");
    CHECK_FALSE(parsed.policy);
    const std::string out = printed(parsed.diags);
    CHECK(out.find("ghp_aBcDeF") == std::string::npos);
    CHECK(out.find("virtual/p.tart:3:") != std::string::npos);
    CHECK(out.find("[secret-in-policy]") != std::string::npos);
}

TEST_CASE("dsl: capabilities are broker's [[broker.capability]] tables")
{
    const Parsed parsed =
        parse_text("version 1;\n"
                   "broker {\n"
                   "  allowed_hosts \"api.github.com\";\n"
                   "  capability github { host \"api.github.com\"; value_env GITHUB_TOKEN; methods GET; }\n"
                   "}\n"
                   "broker { capability \"b.2\" { host \"api.github.com\"; value_env B_TOKEN; } }\n",
                   kPolicy);
    REQUIRE(parsed.policy);
    REQUIRE(parsed.policy->broker);
    const BrokerPolicy &broker = *parsed.policy->broker;
    check_at(broker.pos, kPolicy, 2, 1);
    REQUIRE(broker.capabilities.size() == 2);
    CHECK(broker.capabilities[0].name.value == "github");
    check_at(broker.capabilities[0].name.pos, kPolicy, 4, 14);
    CHECK(broker.capabilities[1].name.value == "b.2");
    CHECK(broker.capabilities[0].methods.size() == 1);

    CHECK(only_error("version 1;\nbroker { allowed_hosts \"a.com\";\n"
                     "capability x { name \"y\"; host \"a.com\"; value_env X; } }\n") ==
          "3:16: error: 'name' is already set by 'capability x' at /w/proj/policy.tart:3:12 [duplicate-setting]\n");
    CHECK(only_error("version 1;\nenv { capability x { host \"a\"; } }\n") ==
          "2:7: error: 'capability NAME { ... }' belongs in the 'broker' block, not in 'env' [dsl-syntax]\n");
}

TEST_CASE("dsl: groups expand in place, in order, before or after their definition")
{
    const Parsed parsed = parse_text("version 1;\n"
                                     "filesystem { writable_roots \".\"; read_denies @all, \"/z\"; }\n"
                                     "paths all = [@some, \"/c\", file \"/d\"];\n"
                                     "paths some = [\"/a\", \"/b\"];\n"
                                     "domains reg = [\"pypi.org\"];\n"
                                     "domains more = [@reg, \"github.com\"];\n"
                                     "network { allow_domains @more; deny_domains @reg; }\n",
                                     kPolicy);
    REQUIRE(parsed.policy);
    const Policy &p = *parsed.policy;
    REQUIRE(p.fs.read_denies.size() == 5);
    CHECK(p.fs.read_denies[0].value == "/a");
    check_at(p.fs.read_denies[0].pos, kPolicy, 4, 15);  // the item, in the group that holds it
    CHECK(p.fs.read_denies[2].value == "/c");
    CHECK(p.fs.read_denies[3].value == "/d");
    CHECK(p.fs.read_denies[4].value == "/z");
    CHECK(p.fs.file_targets == std::vector<std::string>{"/d"});
    REQUIRE(p.network.allow_domains.size() == 2);
    CHECK(p.network.allow_domains[1].value == "github.com");
}

TEST_CASE("dsl: group errors name both places")
{
    CHECK(only_error("version 1;\npaths a = [\"/a\"];\ndomains a = [\"b.com\"];\n") ==
          "3:9: error: group 'a' is already defined at /w/proj/policy.tart:2:7; group names are unique in the "
          "whole policy [duplicate-group]\n");
    CHECK(only_error("version 1;\npaths secrets = [\"/a\"];\nfilesystem { read_denies @secret; }\n") ==
          "3:26: error: unknown group '@secret'; did you mean '@secrets'? [unknown-group]\n");
    CHECK(only_error("version 1;\ndomains d = [\"b.com\"];\nfilesystem { read_allows @d; }\n") ==
          "3:26: error: '@d' is a domains group (/w/proj/policy.tart:2:9); 'read_allows' takes paths [group-kind]\n");
    CHECK(only_error("version 1;\npaths p = [\"/a\"];\nnetwork { allow_domains @p; }\n") ==
          "3:25: error: '@p' is a paths group (/w/proj/policy.tart:2:7); 'allow_domains' takes domains "
          "[group-kind]\n");
    CHECK(only_error("version 1;\npaths p = [\"/a\"];\nenv { set A = @p; }\n") ==
          "3:15: error: '@p' cannot stand here: a group stands for entries of a list, such as read_denies "
          "@secrets or allow_domains @registries [group-kind]\n");
    CHECK(only_error("version 1;\npaths a = [@b];\npaths b = [@c];\npaths c = [@a];\n") ==
          "4:12: error: group 'a' (/w/proj/policy.tart:2:7) reaches itself: @a → @b → @c → @a [group-cycle]\n");
    CHECK(only_error("version 1;\npaths a = [@a];\n") ==
          "2:12: error: group 'a' (/w/proj/policy.tart:2:7) reaches itself: @a → @a [group-cycle]\n");
    // A group that uses a failed group fails silently: one error, not one per use.
    CHECK(only_error("version 1;\npaths a = [@nope];\npaths b = [@a];\nfilesystem { read_denies @b, @a; }\n") ==
          "2:12: error: unknown group '@nope' [unknown-group]\n");
}

TEST_CASE("dsl: a long chain of groups expands without recursion, and doubling is capped")
{
    std::string text = "version 1;\npaths g0 = [\"/a\"];\n";
    for (int i = 1; i <= 20000; ++i)
        text += "paths g" + std::to_string(i) + " = [@g" + std::to_string(i - 1) + "];\n";
    text += "filesystem { read_denies @g20000; }\n";
    const Parsed chain = parse_text(text, kPolicy);
    REQUIRE(chain.policy);
    REQUIRE(chain.policy->fs.read_denies.size() == 1);

    std::string doubling = "version 1;\npaths g0 = [\"/a\"];\n";
    for (int i = 1; i <= 40; ++i)
        doubling +=
            "paths g" + std::to_string(i) + " = [@g" + std::to_string(i - 1) + ", @g" + std::to_string(i - 1) + "];\n";
    CHECK(only_error(doubling) == "15:7: error: group 'g13' expands to more than 4096 entries [group-size]\n");
}

TEST_CASE("dsl: included files add their statements where the include stands")
{
    PolicyDir dir;
    dir.write("common.tart", "version 1;\nenv { passthrough HOME; }\n");
    dir.write("rules/secrets.tart", "include \"more.tart\";\npaths secrets = [\"keys\", \"~/.ssh\"];\n");
    dir.write("rules/more.tart", "filesystem { read_denies \"local\"; }\nsyscalls { deny kcmp; }\n");
    const Parsed parsed = parse_file(dir, "policy.tart",
                                     "version 1;\nenv { passthrough PATH; }\ninclude \"common.tart\";\n"
                                     "include \"rules/secrets.tart\";\n"
                                     "filesystem { read_denies @secrets; }\nsyscalls { deny ptrace; }\n");
    REQUIRE(parsed.policy);
    const Policy &p = *parsed.policy;
    REQUIRE(p.env.passthrough.size() == 2);
    CHECK(p.env.passthrough[0].value == "PATH");
    CHECK(p.env.passthrough[1].value == "HOME");
    check_at(p.env.passthrough[1].pos, dir.path + "/common.tart", 2, 19);
    REQUIRE(p.fs.read_denies.size() == 3);
    CHECK(p.fs.read_denies[0].value == dir.path + "/rules/local");  // relative to its own file
    check_at(p.fs.read_denies[0].pos, dir.path + "/rules/more.tart", 1, 26);
    CHECK(p.fs.read_denies[1].value == dir.path + "/rules/keys");
    CHECK(p.fs.read_denies[2].value == "/home/agent/.ssh");
    REQUIRE(p.syscalls.rules.size() == 2);
    CHECK(p.syscalls.rules[0].name.value == "kcmp");  // reading order: the include's rule first
    check_at(p.syscalls.rules[0].pos, dir.path + "/rules/more.tart", 2, 12);
    CHECK(p.syscalls.rules[1].name.value == "ptrace");
    REQUIRE(p.sources.size() == 4);
    CHECK(p.sources[0].display == dir.path + "/policy.tart");
    CHECK(p.sources[1].display == dir.path + "/common.tart");
    CHECK(p.sources[2].display == dir.path + "/rules/secrets.tart");
    CHECK(p.sources[3].display == dir.path + "/rules/more.tart");
    CHECK(p.sources[3].absolute == dir.path + "/rules/more.tart");
}

TEST_CASE("dsl: include errors name the include and the file")
{
    PolicyDir dir;
    dir.write("a.tart", "include \"b.tart\";\n");
    dir.write("b.tart", "include \"policy.tart\";\n");
    dir.write("c.tart", "env { passthrough HOME; }\n");
    const std::string policy = dir.path + "/policy.tart";
    Parsed parsed = parse_file(dir, "policy.tart",
                               "version 1;\ninclude \"a.tart\";\ninclude \"c.tart\";\ninclude \"./c.tart\";\n"
                               "include \"missing.tart\";\ninclude \"x.toml\";\n");
    CHECK_FALSE(parsed.policy);
    const std::vector<Diagnostic> &d = parsed.diags.all();
    REQUIRE(d.size() == 4);
    check_at(d[0].pos, dir.path + "/b.tart", 1, 9);
    CHECK(d[0].rule_id == "include-cycle");
    CHECK(d[0].message ==
          "this include returns to '" + policy + "', which is still being read: an include cycle (" + policy + " → " +
              dir.path + "/a.tart → " + dir.path + "/b.tart → " + policy + ")");
    check_at(d[1].pos, policy, 4, 9);
    CHECK(d[1].message ==
          "'./c.tart' names a file already included at " + policy +
              ":3:1; a file is included once (its settings would be made twice)");
    CHECK(d[1].rule_id == "include-duplicate");
    CHECK(d[2].message == "cannot read the included file 'missing.tart': No such file or directory");
    CHECK(d[2].rule_id == "unreadable-policy");
    CHECK(d[3].rule_id == "invalid-value");
}

TEST_CASE("dsl: an included file may repeat the policy's version, not change it")
{
    PolicyDir dir;
    dir.write("same.tart", "version 1;\n");
    dir.write("v2.tart", "version 2;\n");
    CHECK(parse_file(dir, "ok.tart", "version 1;\ninclude \"same.tart\";\n").policy);
    Parsed parsed = parse_file(dir, "policy.tart", "version 1;\ninclude \"v2.tart\";\n");
    CHECK_FALSE(parsed.policy);
    REQUIRE(parsed.diags.all().size() == 1);
    check_at(parsed.diags.all()[0].pos, dir.path + "/v2.tart", 1, 9);
    CHECK(parsed.diags.all()[0].message ==
          "this file says version 2 but the policy is version 1 (" + dir.path +
              "/policy.tart:1:9); an included file may repeat the policy's "
              "version, not change it");
    Parsed from_toml = parse_file(dir, "policy.toml", "version = 1\ninclude = [\"v2.tart\"]\n");
    REQUIRE(from_toml.diags.all().size() == 1);
    CHECK(from_toml.diags.all()[0].rule_id == "unsupported-version");
}

TEST_CASE("dsl: a message naming an earlier value names its file when it is another")
{
    PolicyDir dir;
    dir.write("common.tart", "version 1;\nnetwork { allow_domains \"github.com\"; proxy_port 3130; }\n");
    Parsed parsed =
        parse_file(dir, "policy.tart",
                   "version 1;\ninclude \"common.tart\";\n"
                   "network { allow_domains \"pypi.org\", \"github.com\", \"pypi.org\"; local_ports 3130; }\n");
    std::vector<std::string> messages;
    for (const Diagnostic &d : parsed.diags.all())
        messages.push_back(d.message);
    CHECK(
        messages ==
        std::vector<std::string>{
            "'github.com' is already listed in 'allow_domains' at " + dir.path + "/common.tart:2; this copy is ignored",
            "'pypi.org' is already listed in 'allow_domains' at line 3; this copy is ignored",
            "port 3130 in 'local_ports' is the proxy's own port inside the sandbox ('proxy_port' at " + dir.path +
                "/common.tart:2)",
        });
}

TEST_CASE("dsl: a TOML policy includes .tart files, their settings merge into its own")
{
    PolicyDir dir;
    dir.write("rules/r.tart",
              "version 1;\npaths more = [\"key\"];\nfilesystem { read_denies @more; }\n"
              "env { set B = \"2\"; }\nsyscalls { deny kcmp errno ENOSYS; }\n");
    const Parsed parsed = parse_file(dir, "policy.toml",
                                     "version = 1\ninclude = [\"rules/r.tart\"]\n[filesystem]\nread_denies = [\"/a\"]\n"
                                     "[env]\nset = { A = \"1\" }\n");
    REQUIRE(parsed.policy);
    const Policy &p = *parsed.policy;
    REQUIRE(p.fs.read_denies.size() == 2);
    CHECK(p.fs.read_denies[0].value == "/a");
    check_at(p.fs.read_denies[0].pos, dir.path + "/policy.toml", 4, 16);
    CHECK(p.fs.read_denies[1].value == dir.path + "/rules/key");
    check_at(p.fs.read_denies[1].pos, dir.path + "/rules/r.tart", 2, 15);
    REQUIRE(p.env.set.size() == 2);
    REQUIRE(p.syscalls.rules.size() == 1);
    CHECK(p.syscalls.rules[0].err == 38);
    REQUIRE(p.sources.size() == 2);
    CHECK(p.sources[1].display == dir.path + "/rules/r.tart");

    Parsed clash =
        parse_file(dir, "clash.toml", "version = 1\ninclude = [\"rules/r.tart\"]\n[env]\nset = { B = \"3\" }\n");
    CHECK_FALSE(clash.policy);
    REQUIRE(clash.diags.all().size() == 1);
    check_at(clash.diags.all()[0].pos, dir.path + "/rules/r.tart", 4, 11);
    CHECK(clash.diags.all()[0].message ==
          "'B' is already set at " + dir.path +
              "/clash.toml:4:9; a key that takes one value is set once in the whole "
              "policy (lists append, tables merge)");
}

TEST_CASE("dsl: a TOML policy without include is unchanged, and lists itself as its source")
{
    const Parsed parsed = parse_text("version = 1\n", "/w/p.toml");
    REQUIRE(parsed.policy);
    REQUIRE(parsed.policy->sources.size() == 1);
    CHECK(parsed.policy->sources[0].display == "/w/p.toml");
    CHECK(parse_text("version = 1\ninclude = \"x.tart\"\n", "/w/p.toml").diags.all().at(0).rule_id == "wrong-type");
}

TEST_CASE("dsl: lint reads a .tart policy: rules on its lowered TOML at .tart positions, secrets in comments")
{
    PolicyDir dir;
    const std::string file = dir.write("p.tart",
                                       "version 1;\n"
                                       "# token: ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n"
                                       "filesystem { writable_roots \".\"; read_denies \"../outside\"; }\n");
    DslHome home;
    std::ostringstream out;
    const int rc = run_lint({file}, LintOptions{}, out);
    CHECK(rc == kExitLintFindings);
    const std::string report = out.str();
    CHECK(report.find(file + ":2:10: error: this looks like a GitHub token") != std::string::npos);
    CHECK(report.find("ghp_aBcDeF") == std::string::npos);
    CHECK(report.find(file + ":3:46: warning: read_denies: '../outside' leaves the policy's directory") !=
          std::string::npos);
}

TEST_CASE("dsl: lint of a TOML policy checks the paths its included .tart files write, once each")
{
    PolicyDir dir;
    dir.write("rules/r.tart", "version 1;\nfilesystem { read_denies \"../inside\", \"../../outside\"; }\n");
    const std::string file = dir.write("p.toml",
                                       "version = 1\ninclude = [\"rules/r.tart\"]\n"
                                       "[filesystem]\nread_denies = [\"../up\"]\n");
    DslHome home;
    std::ostringstream out;
    CHECK(run_lint({file}, LintOptions{}, out) == 0);  // warnings only
    const std::string report = out.str();
    const std::string leaves = "warning: read_denies: ";
    CHECK(report.find(file + ":4:16: " + leaves + "'../up' leaves") != std::string::npos);
    // Relative to the directory of the file that writes it (named as joined to it): rules/../inside stays.
    CHECK(report.find(dir.path + "/rules/r.tart:2:39: " + leaves + "'rules/../../outside' leaves") !=
          std::string::npos);
    CHECK(report.find("inside'") == std::string::npos);
    CHECK(report.find("0 errors, 2 warnings") != std::string::npos);
}
