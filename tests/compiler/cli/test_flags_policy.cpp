// Unit tests of `tartaros run`'s flags (compiler/flags_policy, compiler/cli_options): every
// flag into its policy field, the merge with a --config file (lists add up in order,
// duplicates dropped, a switch against the file's false, --max-procs against the file's
// max_processes, the --read-deny / idiom against read_scope = "all", --env NAME=VALUE against
// the file's set), relative and `~` paths, globs and every other refused value with its exact
// message, and the parser.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cli_options.h"
#include "flags_policy.h"
#include "frontend_toml.h"
#include "parsed_policy.h"
#include "verify.h"

using namespace tartaros;

namespace {

constexpr const char *kPolicyPath = "/w/proj/policy.toml";
const FlagContext kContext{"/w/cwd", "/home/me"};

// The policy of `toml` (which must parse cleanly) with `flags` applied; fails the test on
// any refusal.
Policy merged(const std::string &toml, const std::vector<FlagUse> &flags)
{
    Parsed parsed;
    parsed.policy = parse_toml_policy_text(toml, kPolicyPath, parsed.diags);
    REQUIRE_MESSAGE(parsed.policy, summary(parsed.diags));
    const std::vector<std::string> refusals = apply_flags(*parsed.policy, flags, kContext);
    REQUIRE_MESSAGE(refusals.empty(), refusals.front());
    return *parsed.policy;
}

Policy flags_only(const std::vector<FlagUse> &flags)
{
    Policy policy = default_flags_policy();
    const std::vector<std::string> refusals = apply_flags(policy, flags, kContext);
    REQUIRE_MESSAGE(refusals.empty(), refusals.front());
    return policy;
}

// Every refusal of `flags` over `toml` ("" = no file), joined by newlines.
std::string refusals_of(const std::string &toml, const std::vector<FlagUse> &flags)
{
    Policy policy = default_flags_policy();
    if (!toml.empty()) {
        Diagnostics diags;
        std::optional<Policy> parsed = parse_toml_policy_text(toml, kPolicyPath, diags);
        REQUIRE_MESSAGE(parsed, summary(diags));
        policy = *parsed;
    }
    std::string out;
    for (const std::string &line : apply_flags(policy, flags, kContext))
        out += line + "\n";
    return out;
}

template <class T>
std::vector<T> values(const std::vector<Located<T>> &list)
{
    std::vector<T> out;
    for (const Located<T> &item : list)
        out.push_back(item.value);
    return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("flags: each path flag fills its list at the flag's position")
{
    const Policy p = flags_only({{RunFlag::Write, "/w/a"},
                                 {RunFlag::ReadDeny, "/w/b"},
                                 {RunFlag::ReadAllow, "/w/c"},
                                 {RunFlag::WriteDeny, "/w/a/d"},
                                 {RunFlag::PrivateDir, "/w/a/.sockets"}});
    CHECK(values(p.fs.writable_roots) == Strings{"/w/a"});
    CHECK(values(p.fs.read_denies) == Strings{"/w/b"});
    CHECK(values(p.fs.read_allows) == Strings{"/w/c"});
    CHECK(values(p.fs.write_denies) == Strings{"/w/a/d"});
    CHECK(p.fs.read_scope.value == ReadScope::All);
    CHECK(p.fs.writable_roots.front().pos.file == "--write");
    CHECK(p.fs.writable_roots.front().pos.line == 0);
    CHECK(p.fs.write_denies.front().pos.file == "--write-deny");
    CHECK(values(p.fs.private_dirs) == Strings{"/w/a/.sockets"});
    CHECK(p.fs.private_dirs.front().pos.file == "--private-dir");
    CHECK(p.source_path.empty());
    CHECK(p.version.value == 1);
}

TEST_CASE("flags: relative paths resolve against the current directory and tilde is HOME")
{
    const Policy p = flags_only({{RunFlag::Write, "ws"},
                                 {RunFlag::Write, "../up/./x/"},
                                 {RunFlag::ReadDeny, "~/.ssh"},
                                 {RunFlag::WriteDeny, "~"},
                                 {RunFlag::PrivateDir, "ws/.sockets/"},
                                 {RunFlag::PrivateDir, "~/.cache/tool"}});
    CHECK(values(p.fs.writable_roots) == Strings{"/w/cwd/ws", "/w/up/x"});
    CHECK(values(p.fs.private_dirs) == Strings{"/w/cwd/ws/.sockets", "/home/me/.cache/tool"});
    CHECK(values(p.fs.read_denies) == Strings{"/home/me/.ssh"});
    CHECK(values(p.fs.write_denies) == Strings{"/home/me"});
}

TEST_CASE("flags: relative flag paths do not follow the config file's directory")
{
    const Policy p = merged("version = 1\n[filesystem]\nwritable_roots = [\"ws\"]\n", {{RunFlag::Write, "ws"}});
    CHECK(values(p.fs.writable_roots) == Strings{"/w/proj/ws", "/w/cwd/ws"});
}

TEST_CASE("flags: a glob in any path flag is refused naming the flag")
{
    for (RunFlag flag :
         {RunFlag::Write, RunFlag::ReadDeny, RunFlag::ReadAllow, RunFlag::WriteDeny, RunFlag::PrivateDir}) {
        const std::string name(run_option(flag).name);
        for (const char *glob : {"/w/*.pem", "/w/a?", "/w/[ab]", "/w/{a,b}"}) {
            const std::string got = refusals_of("", {{flag, glob}});
            CHECK(got.starts_with(name + ": '" + glob + "' contains the glob character"));
            CHECK(got.find("globs are not supported on Linux") != std::string::npos);
        }
    }
    CHECK(refusals_of("", {{RunFlag::ReadDeny, "/w/*.pem"}}) ==
          "--read-deny: '/w/*.pem' contains the glob character '*'; globs are not supported on Linux (TartarOS has "
          "no glob engine): list each path\n");
}

TEST_CASE("flags: other bad paths are refused naming the flag")
{
    CHECK(refusals_of("", {{RunFlag::Write, "~root/x"}}) ==
          "--write: '~root/x': '~user' paths are not supported; write '~/...' or an absolute path\n");
    CHECK(refusals_of("", {{RunFlag::ReadAllow, "/a\nb"}}) == "--read-allow: '/a\\nb' contains a newline\n");
}

TEST_CASE("flags: read-deny of the root is read_scope granted")
{
    const Policy p =
        flags_only({{RunFlag::ReadDeny, "/"}, {RunFlag::ReadAllow, "/opt/tools"}, {RunFlag::Write, "/w/p"}});
    CHECK(p.fs.read_scope.value == ReadScope::Granted);
    CHECK(p.fs.read_scope.pos.file == "--read-deny");
    CHECK(p.fs.read_denies.empty());
    CHECK(values(p.fs.read_allows) == Strings{"/opt/tools"});
    // The root however written: relative, with dots, twice.
    const Policy q = flags_only({{RunFlag::ReadDeny, "../../.."}, {RunFlag::ReadDeny, "//./"}});
    CHECK(q.fs.read_scope.value == ReadScope::Granted);
    CHECK(q.fs.read_denies.empty());
}

TEST_CASE("flags: the --read-deny / idiom lists the system paths the scope grants already")
{
    std::vector<FlagUse> flags = {{RunFlag::ReadDeny, "/"}, {RunFlag::Write, "/w/p"}};
    for (const char *path : {"/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/dev", "/proc", "/w/p"})
        flags.push_back({RunFlag::ReadAllow, path});
    const Policy p = flags_only(flags);
    CHECK(p.fs.read_scope.value == ReadScope::Granted);
    Diagnostics diags;
    CHECK_FALSE(lower_policy(p, LowerOptions{}, diags).empty());
    CHECK_MESSAGE(!diags.has_errors(), summary(diags));
}

TEST_CASE("flags: read-deny of the root against the file's read_scope")
{
    CHECK(refusals_of("version = 1\n[filesystem]\nread_scope = \"all\"\n", {{RunFlag::ReadDeny, "/"}}) ==
          "--read-deny / conflicts with read_scope = \"all\" at /w/proj/policy.toml:3:14; say it in one place\n");
    const Policy p = merged("version = 1\n[filesystem]\nread_scope = \"granted\"\n", {{RunFlag::ReadDeny, "/"}});
    CHECK(p.fs.read_scope.value == ReadScope::Granted);
    CHECK(p.fs.read_scope.pos.line == 3);
}

TEST_CASE("flags: lists add up with the file first and duplicates dropped")
{
    const Policy p =
        merged("version = 1\n[filesystem]\nwritable_roots = [\"/w/a\", \"/w/b\"]\nread_denies = [\"/w/s\"]\n"
               "private_dirs = [\"/w/a/.s\"]\n"
               "[network]\nlocal_ports = [5432]\nallow_domains = [\"github.com\"]\n",
               {{RunFlag::Write, "/w/c"},
                {RunFlag::Write, "/w/a"},
                {RunFlag::Write, "/w/c/."},
                {RunFlag::Write, "/w/d"},
                {RunFlag::ReadDeny, "/w/s/"},
                {RunFlag::Port, "5432"},
                {RunFlag::Port, "6379"},
                {RunFlag::Port, "6379"},
                {RunFlag::AllowDomain, "GitHub.COM."},
                {RunFlag::AllowDomain, "pypi.org"},
                {RunFlag::PrivateDir, "/w/a/.s"},
                {RunFlag::PrivateDir, "/w/c/.s"}});
    CHECK(values(p.fs.writable_roots) == Strings{"/w/a", "/w/b", "/w/c", "/w/d"});
    CHECK(values(p.fs.private_dirs) == Strings{"/w/a/.s", "/w/c/.s"});
    CHECK(p.fs.private_dirs[0].pos.line == 5);
    CHECK(p.fs.writable_roots[0].pos.line == 3);
    CHECK(p.fs.writable_roots[2].pos.file == "--write");
    CHECK(values(p.fs.read_denies) == Strings{"/w/s"});
    CHECK(values(p.network.local_ports) == std::vector<uint16_t>{5432, 6379});
    CHECK(values(p.network.allow_domains) == Strings{"github.com", "pypi.org"});
}

namespace {

struct Switch {
    RunFlag flag;
    std::string table;
    std::string key;
    std::function<const Located<bool> &(const Policy &)> field;
};

const std::vector<Switch> &switches()
{
    static const std::vector<Switch> all = {
        {RunFlag::IsolatePids, "process", "isolate_pids", [](const Policy &p) -> auto &{return p.process.isolate_pids;
}
}  // namespace
, {RunFlag::IsolateProc, "process", "isolate_proc", [](const Policy &p) -> auto &{return p.process.isolate_proc;
}
}
, {RunFlag::SeccompStrict, "process", "harden_syscalls", [](const Policy &p) -> auto &{return p.process.harden_syscalls;
}
}
, {RunFlag::Materialize, "filesystem", "materialize", [](const Policy &p) -> auto &{return p.fs.materialize;
}
}
, {RunFlag::InheritEnv, "env", "inherit", [](const Policy &p) -> auto &{return p.env.inherit;
}
}
, {RunFlag::PrivateTmp, "filesystem", "private_tmp", [](const Policy &p) -> auto &{return p.fs.private_tmp;
}
}
, {RunFlag::DenyUnix, "network", "deny_unix", [](const Policy &p) -> auto &{return p.network.deny_unix;
}
}
,
}
;
return all;
}

}  // namespace

TEST_CASE("flags: each switch sets its key to true at the flag's position")
{
    for (const Switch &sw : switches()) {
        const std::string name(run_option(sw.flag).name);
        const Policy p = flags_only({{sw.flag, ""}});
        CHECK_MESSAGE(sw.field(p).value, name);
        CHECK(sw.field(p).pos.file == name);
    }
}

TEST_CASE("flags: a switch against the file's false is a conflict naming both")
{
    for (const Switch &sw : switches()) {
        const std::string name(run_option(sw.flag).name);
        const std::string toml = "version = 1\n[" + sw.table + "]\n" + sw.key + " = false\n";
        const std::string col = std::to_string(sw.key.size() + 4);
        CHECK(refusals_of(toml, {{sw.flag, ""}}) ==
              name + " conflicts with " + sw.key + " = false at /w/proj/policy.toml:3:" + col +
                  "; say it in one place\n");
    }
}

TEST_CASE("flags: a switch the file sets true is no conflict and keeps the file's position")
{
    for (const Switch &sw : switches()) {
        const std::string toml = "version = 1\n[" + sw.table + "]\n" + sw.key + " = true\n";
        const Policy p = merged(toml, {{sw.flag, ""}, {sw.flag, ""}});
        CHECK_MESSAGE(sw.field(p).value, sw.key);
        CHECK(sw.field(p).pos.line == 3);
    }
}

TEST_CASE("flags: max-procs sets max_processes and conflicts name both sources")
{
    const Policy p = flags_only({{RunFlag::MaxProcs, "64"}, {RunFlag::MaxProcs, "64"}});
    REQUIRE(p.process.max_processes);
    CHECK(p.process.max_processes->value == 64);
    CHECK(p.process.max_processes->pos.file == "--max-procs");
    const std::string toml = "version = 1\n[process]\nisolate_pids = true\nmax_processes = 32\n";
    CHECK(refusals_of(toml, {{RunFlag::MaxProcs, "64"}}) ==
          "--max-procs 64 conflicts with max_processes = 32 at /w/proj/policy.toml:4:17; say it in one place\n");
    CHECK(merged(toml, {{RunFlag::MaxProcs, "32"}}).process.max_processes->pos.line == 4);
    CHECK(refusals_of("", {{RunFlag::MaxProcs, "8"}, {RunFlag::MaxProcs, "16"}}) ==
          "--max-procs 16 conflicts with --max-procs 8; say it once\n");
}

TEST_CASE("flags: max-procs values out of range are refused")
{
    const std::string tail =
        "' is out of range: at least 1 (the command itself), at most 4194304 (the kernel's PID limit)\n";
    for (const char *bad : {"0", "4194305", "-1", "+5", "8x", " 8", "99999999999999999999999", "0x10"})
        CHECK(refusals_of("", {{RunFlag::MaxProcs, bad}}) == "--max-procs: '" + std::string(bad) + tail);
    CHECK(flags_only({{RunFlag::MaxProcs, "4194304"}}).process.max_processes->value == 4194304);
    CHECK(flags_only({{RunFlag::MaxProcs, "1"}}).process.max_processes->value == 1);
}

TEST_CASE("flags: port values and port conflicts")
{
    for (const char *bad : {"0", "65536", "-1", "http", "80 ", ""})
        CHECK(refusals_of("", {{RunFlag::Port, bad}}) ==
              "--port: '" + std::string(bad) + "' is not a port number (1 to 65535)\n");
    CHECK(values(flags_only({{RunFlag::Port, "1"}, {RunFlag::Port, "65535"}}).network.local_ports) ==
          std::vector<uint16_t>{1, 65535});
    CHECK(refusals_of("version = 1\n[network]\nexpose_ports = [3000]\n", {{RunFlag::Port, "3000"}}) ==
          "--port 3000 conflicts with expose_ports = [3000] at /w/proj/policy.toml:3:17: a port is relayed either out "
          "of the sandbox or into it, not both\n");
    CHECK(refusals_of("", {{RunFlag::Port, "3128"}}) ==
          "--port 3128 is the proxy's own port inside the sandbox (the default proxy_port); choose another "
          "proxy_port in the --config file\n");
    CHECK(refusals_of("version = 1\n[network]\nproxy_port = 8888\n", {{RunFlag::Port, "8888"}}) ==
          "--port 8888 is the proxy's own port inside the sandbox (proxy_port at /w/proj/policy.toml:3:14); choose "
          "another proxy_port in the --config file\n");
    const Policy moved = merged("version = 1\n[network]\nproxy_port = 8888\n", {{RunFlag::Port, "3128"}});
    CHECK(values(moved.network.local_ports) == std::vector<uint16_t>{3128});
}

TEST_CASE("flags: allow-domain uses the front-end's normalisation and refusals")
{
    const Policy p = flags_only({{RunFlag::AllowDomain, "*.Example.ORG"}, {RunFlag::AllowDomain, "127.0.0.1"}});
    CHECK(values(p.network.allow_domains) == Strings{"*.example.org", "127.0.0.1"});
    CHECK(refusals_of("", {{RunFlag::AllowDomain, "*.com"}}) ==
          "--allow-domain: '*.com' is too broad: it matches every name in the top-level domain 'com'\n");
    CHECK(refusals_of("", {{RunFlag::AllowDomain, "*"}}).starts_with("--allow-domain: "));
    CHECK(refusals_of("", {{RunFlag::AllowDomain, "https://github.com/"}}).starts_with("--allow-domain: "));
    CHECK(refusals_of("", {{RunFlag::AllowDomain, "github.com:443"}}).starts_with("--allow-domain: "));
}

TEST_CASE("flags: env adds to the default passthrough or to the file's list")
{
    const Policy p = flags_only({{RunFlag::Env, "CARGO_HOME"}, {RunFlag::Env, "PATH"}, {RunFlag::Env, "CARGO_HOME"}});
    Strings want(kDefaultPassthrough.begin(), kDefaultPassthrough.end());
    want.push_back("CARGO_HOME");
    CHECK(values(p.env.passthrough) == want);
    CHECK(p.env.passthrough.back().pos.file == "--env");
    const Policy q =
        merged("version = 1\n[env]\npassthrough = [\"FOO\"]\n", {{RunFlag::Env, "BAR"}, {RunFlag::Env, "FOO"}});
    CHECK(values(q.env.passthrough) == Strings{"FOO", "BAR"});
    for (const char *bad : {"A-B", "1X", "A B", ""})
        CHECK(refusals_of("", {{RunFlag::Env, bad}}) ==
              "--env: '" + std::string(bad) +
                  "' is not a valid environment variable name (letters, digits and '_', not starting with a digit)\n");
}

namespace {

using EnvSets = std::vector<std::pair<std::string, std::string>>;

EnvSets sets(const Policy &p)
{
    EnvSets out;
    for (const auto &[name, value] : p.env.set)
        out.push_back({name.value, value.value});
    return out;
}

}  // namespace

TEST_CASE("flags: env NAME=VALUE sets NAME; the value may hold '=' or be empty")
{
    const Policy p = flags_only({{RunFlag::Env, "FOO=bar"},
                                 {RunFlag::Env, "URL=https://example.org/?a=b&c==d"},
                                 {RunFlag::Env, "EMPTY="},
                                 {RunFlag::Env, "MSG=two words\nand a line"},
                                 {RunFlag::Env, "FOO=bar"},
                                 {RunFlag::Env, "PATH=/opt/bin"}});
    CHECK(sets(p) ==
          EnvSets{{"FOO", "bar"},
                  {"URL", "https://example.org/?a=b&c==d"},
                  {"EMPTY", ""},
                  {"MSG", "two words\nand a line"},
                  {"PATH", "/opt/bin"}});
    CHECK(p.env.set.front().first.pos.file == "--env");
    CHECK(p.env.set.front().second.pos.line == 0);
    // Pass-through is untouched: the set of PATH wins over its pass-through in the plan.
    CHECK(values(p.env.passthrough) == Strings(kDefaultPassthrough.begin(), kDefaultPassthrough.end()));
    const Policy q = merged("version = 1\n[env]\nset = { CI = \"1\" }\n", {{RunFlag::Env, "FOO=bar"}});
    CHECK(sets(q) == EnvSets{{"CI", "1"}, {"FOO", "bar"}});
}

TEST_CASE("flags: env NAME=VALUE checks the name alone and never repeats the value")
{
    const std::string tail =
        "' is not a valid environment variable name (letters, digits and '_', not starting with a digit)\n";
    CHECK(refusals_of("", {{RunFlag::Env, "A-B=hunter2"}}) == "--env: 'A-B" + tail);
    CHECK(refusals_of("", {{RunFlag::Env, "1X=a=b"}}) == "--env: '1X" + tail);
    CHECK(refusals_of("", {{RunFlag::Env, "=value"}}) == "--env: '" + tail);
    CHECK(refusals_of("", {{RunFlag::Env, std::string("FOO=a\0b", 7)}}) ==
          "--env FOO=...: the value contains a NUL character\n");
}

TEST_CASE("flags: env NAME=VALUE takes any value but NUL, the caller's choice to put on a command line")
{
    const std::string token = "ghp_" + std::string("a1B2c3D4e5F6g7H8i9J0") + "kLmNoPqRsTuVwXyZ12";
    const Policy p = flags_only({{RunFlag::Env, "GH=" + token}, {RunFlag::Env, "RUSTFLAGS=-C target-cpu=native"}});
    CHECK(p.env.set.size() == 2);
}

TEST_CASE("flags: env NAME=VALUE against the file's set and another flag")
{
    const std::string file = "version = 1\n[env]\nset = { FOO = \"a\" }\n";
    CHECK(refusals_of(file, {{RunFlag::Env, "FOO=b"}}) ==
          "--env FOO=... conflicts with another value of FOO in [env] set at /w/proj/policy.toml:3:15; say it in one "
          "place\n");
    const Policy same = merged(file, {{RunFlag::Env, "FOO=a"}});
    REQUIRE(same.env.set.size() == 1);
    CHECK(same.env.set.front().second.pos.line == 3);
    CHECK(refusals_of("", {{RunFlag::Env, "FOO=a"}, {RunFlag::Env, "FOO=b"}, {RunFlag::Env, "FOO=a=b"}}) ==
          "--env FOO=... conflicts with an earlier --env FOO=... of another value; say it once\n"
          "--env FOO=... conflicts with an earlier --env FOO=... of another value; say it once\n");
    // A pass-through and a set of one name are no conflict, as in a policy file.
    const Policy both = merged("version = 1\n[env]\npassthrough = [\"FOO\"]\n", {{RunFlag::Env, "FOO=b"}});
    CHECK(values(both.env.passthrough) == Strings{"FOO"});
    CHECK(sets(both) == EnvSets{{"FOO", "b"}});
}

TEST_CASE("flags: the broker of the config file keeps its port, its secrets and its credentials directory")
{
    const std::string file = "version = 1\n[broker]\nallowed_hosts = [\"api.github.com\"]\ntoken_env = \"BT\"\n"
                             "[[broker.capability]]\nname = \"gh\"\nhost = \"api.github.com\"\n"
                             "value_env = \"GITHUB_TOKEN\"\n";
    CHECK(refusals_of(file, {{RunFlag::Port, "3129"}}) ==
          "--port 3129 is the credential broker's own port inside the sandbox (the default [broker] port at "
          "/w/proj/policy.toml:2:1); choose another port in the --config file\n");
    CHECK(refusals_of(file, {{RunFlag::Env, "GITHUB_TOKEN"}, {RunFlag::Env, "BT"}}) ==
          "--env GITHUB_TOKEN would hand the agent a secret of the credential broker (/w/proj/policy.toml:8:13); "
          "the broker reads it from this environment itself\n"
          "--env BT would hand the agent a secret of the credential broker (/w/proj/policy.toml:4:13); the broker "
          "reads it from this environment itself\n");
    CHECK(refusals_of(file, {{RunFlag::Env, "CREDENTIALS_DIRECTORY"}}) ==
          "--env CREDENTIALS_DIRECTORY: the credential broker ([broker] at /w/proj/policy.toml:2:1) sets it for the "
          "agent\n");
    // NAME=VALUE: the same variables, the value not repeated.
    CHECK(refusals_of(file,
                      {{RunFlag::Env, "GITHUB_TOKEN=x"},
                       {RunFlag::Env, "BT=y"},
                       {RunFlag::Env, "TARTAROS_BROKER_URL=http://127.0.0.1:9/"},
                       {RunFlag::Env, "CREDENTIALS_DIRECTORY=/tmp"}}) ==
          "--env GITHUB_TOKEN=... would hand the agent a secret of the credential broker (/w/proj/policy.toml:8:13); "
          "the broker reads it from this environment itself\n"
          "--env BT=... would hand the agent a secret of the credential broker (/w/proj/policy.toml:4:13); the broker "
          "reads it from this environment itself\n"
          "--env TARTAROS_BROKER_URL=...: the credential broker ([broker] at /w/proj/policy.toml:2:1) sets it for the "
          "agent\n"
          "--env CREDENTIALS_DIRECTORY=...: the credential broker ([broker] at /w/proj/policy.toml:2:1) sets it for "
          "the agent\n");
    CHECK(refusals_of(
              file,
              {{RunFlag::ReadDeny, "/run/credentials/tartaros/x"}, {RunFlag::Write, "/run/credentials/tartaros"}}) ==
          "--read-deny /run/credentials/tartaros/x lies in the credential broker's directory "
          "/run/credentials/tartaros ([broker] at /w/proj/policy.toml:2:1), which the sandbox makes for its token "
          "alone\n"
          "--write /run/credentials/tartaros lies in the credential broker's directory /run/credentials/tartaros "
          "([broker] at /w/proj/policy.toml:2:1), which the sandbox makes for its token alone\n");
    // Without a broker all of them are ordinary.
    CHECK(refusals_of("",
                      {{RunFlag::Port, "3129"},
                       {RunFlag::Env, "GITHUB_TOKEN"},
                       {RunFlag::Env, "CREDENTIALS_DIRECTORY=/c"},
                       {RunFlag::ReadDeny, "/run/credentials/tartaros"}}) == "");
    const Policy p = merged(file, {{RunFlag::Port, "5432"}, {RunFlag::Env, "CI"}});
    REQUIRE(p.broker);
    CHECK(values(p.network.local_ports) == std::vector<uint16_t>{5432});
}

TEST_CASE("flags: port flags stop at the listeners the sandbox can hand over")
{
    std::vector<FlagUse> ports;
    for (int i = 0; i < 64; i++)
        ports.push_back({RunFlag::Port, std::to_string(10000 + i)});
    CHECK(refusals_of("", ports) == "");
    ports.push_back({RunFlag::AllowDomain, "github.com"});
    ports.insert(ports.begin(), {RunFlag::AllowDomain, "github.com"});
    CHECK(refusals_of("", ports) ==
          "--port 10063: the sandbox hands the proxy at most 64 listeners, and the local ports, the proxy and the "
          "broker take them all\n");
}

TEST_CASE("flags: every refusal is reported in flag order")
{
    CHECK(refusals_of("version = 1\n[process]\nmax_processes = 4\n[filesystem]\nprivate_tmp = false\n",
                      {{RunFlag::Write, "/w/*"},
                       {RunFlag::PrivateTmp, ""},
                       {RunFlag::Write, "/w/ok"},
                       {RunFlag::MaxProcs, "5"}}) ==
          "--write: '/w/*' contains the glob character '*'; globs are not supported on Linux (TartarOS has no glob "
          "engine): list each path\n"
          "--private-tmp conflicts with private_tmp = false at /w/proj/policy.toml:5:15; say it in one place\n"
          "--max-procs 5 conflicts with max_processes = 4 at /w/proj/policy.toml:3:17; say it in one place\n");
}

TEST_CASE("flags: every policy row of the option table is applied by a test here")
{
    // The flags the cases above check; a new row of the table must be added to them.
    const std::vector<RunFlag> tested = {
        RunFlag::Write,         RunFlag::ReadDeny,    RunFlag::ReadAllow,   RunFlag::WriteDeny,
        RunFlag::Port,          RunFlag::AllowDomain, RunFlag::IsolatePids, RunFlag::IsolateProc,
        RunFlag::SeccompStrict, RunFlag::Materialize, RunFlag::MaxProcs,    RunFlag::InheritEnv,
        RunFlag::Env,           RunFlag::PrivateTmp,  RunFlag::DenyUnix,    RunFlag::PrivateDir};
    size_t policy_rows = 0;
    for (const RunOption &o : run_options()) {
        if (o.field.empty())
            continue;
        ++policy_rows;
        CHECK_MESSAGE(std::find(tested.begin(), tested.end(), o.flag) != tested.end(), o.name);
    }
    CHECK(policy_rows == tested.size());
}

TEST_CASE("flags: a policy from every flag at once lowers and verifies")
{
    const Policy p = flags_only({{RunFlag::Write, "/w/p"},
                                 {RunFlag::ReadDeny, "/w/p/secret"},
                                 {RunFlag::ReadAllow, "/w/p/secret/ok"},
                                 {RunFlag::WriteDeny, "/w/p/.git/hooks"},
                                 {RunFlag::Port, "5432"},
                                 {RunFlag::AllowDomain, "github.com"},
                                 {RunFlag::IsolatePids, ""},
                                 {RunFlag::IsolateProc, ""},
                                 {RunFlag::SeccompStrict, ""},
                                 {RunFlag::Materialize, ""},
                                 {RunFlag::MaxProcs, "64"},
                                 {RunFlag::InheritEnv, ""},
                                 {RunFlag::Env, "CARGO_HOME"},
                                 {RunFlag::Env, "CI=1"},
                                 {RunFlag::PrivateTmp, ""},
                                 {RunFlag::DenyUnix, ""}});
    Diagnostics diags;
    CHECK_FALSE(lower_policy(p, LowerOptions{}, diags).empty());
    CHECK_MESSAGE(!diags.has_errors(), summary(diags));
}

TEST_CASE("flags: the option table is consistent")
{
    std::map<std::string_view, int> seen;
    for (const RunOption &o : run_options()) {
        CHECK(o.name.starts_with("--"));
        CHECK(++seen[o.name] == 1);
        CHECK(o.metavar.empty() == (o.kind == ValueKind::None));
        CHECK_FALSE(o.help.empty());
        CHECK(&run_option(o.flag) == &o);
        if (!o.field.empty())
            CHECK(o.field.starts_with("["));
    }
    CHECK(seen.size() == static_cast<size_t>(RunFlag::Help) + 1);
}

TEST_CASE("cli: run's command line splits launcher options flags and the command")
{
    const Strings args = {"--strict",    "--write", "ws", "--port=5432", "--log", "/l/log",   "--config=p.toml",
                          "--read-deny", "-x",      "--", "sh",          "-c",    "--write x"};
    RunCommandLine line;
    CHECK(parse_run_command_line(args, line) == std::nullopt);
    CHECK(line.strict);
    CHECK(line.log == "/l/log");
    CHECK(line.config == "p.toml");
    REQUIRE(line.flags.size() == 3);
    CHECK(line.flags[0].flag == RunFlag::Write);
    CHECK(line.flags[0].value == "ws");
    CHECK(line.flags[1].flag == RunFlag::Port);
    CHECK(line.flags[1].value == "5432");
    CHECK(line.flags[2].value == "-x");
    CHECK(line.command == Strings{"sh", "-c", "--write x"});
}

TEST_CASE("cli: run's usage errors")
{
    const std::vector<std::pair<Strings, Failure>> cases = {
        {{"--", "true"}, std::nullopt},
        {{"true"}, "unexpected 'true' before --: the command goes after --"},
        {{"--write"}, "--write needs a PATH"},
        {{"--write", "--", "true"}, "--write needs a PATH"},
        {{"--write=", "--", "true"}, "--write needs a PATH"},
        {{"--strict=yes", "--", "true"}, "--strict takes no value"},
        {{"--nope", "--", "true"}, "unknown option '--nope'"},
        {{"-w", "--", "true"}, "unknown option '-w'"},
        {{"--config", "a", "--config", "b", "--", "true"}, "--config is given twice; merge the files into one"},
        {{"--log", "a", "--log", "b", "--", "true"}, "--log is given twice"},
        {{"--strict"}, "missing -- CMD [ARGS...]: the command goes after --"},
        {{"--strict", "--"}, "missing the command after --"},
        {{"--help"}, std::nullopt},
        {{"--write", "x", "-h"}, std::nullopt},
    };
    for (const auto &[args, want] : cases) {
        RunCommandLine line;
        CHECK(parse_run_command_line(args, line) == want);
    }
}

TEST_CASE("cli: --env keeps NAME=VALUE whole in both spellings")
{
    const Strings args = {"--env", "A=b=c", "--env=B=", "--env=C", "--", "true"};
    RunCommandLine line;
    CHECK(parse_run_command_line(args, line) == std::nullopt);
    REQUIRE(line.flags.size() == 3);
    CHECK(line.flags[0].value == "A=b=c");
    CHECK(line.flags[1].value == "B=");
    CHECK(line.flags[2].value == "C");
}
