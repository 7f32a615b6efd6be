// The printer alone (compiler/print_policy.h), on hand-built models: the exact text of each
// block, the value forms, quoting and escaping, and that provenance never shows. Reading the
// printout back is test_dsl_equivalence.cpp's.
#include <doctest/doctest.h>

#include "print_policy.h"

namespace tartaros {

namespace {

// A value the policy set (any line will do: the printer only asks whether there is one).
template <class T>
Located<T> set(T value, uint32_t line = 1)
{
    return {std::move(value), {"p.tart", line, 1}};
}

// What a front-end returns for a policy of `version 1;` alone: passthrough holds the
// defaults, each with line 0.
Policy empty_policy()
{
    Policy p;
    p.version = set<int64_t>(1);
    for (const std::string &name : kDefaultPassthrough)
        p.env.passthrough.push_back({name, {}});
    return p;
}

// The lines of `text` from the one equal to `first` up to and including the next "}" at the
// same indentation, so a test can pin one block.
std::string block(const std::string &text, const std::string &first)
{
    const size_t start = text.find("\n" + first + "\n");
    REQUIRE_MESSAGE(start != std::string::npos, text);
    const std::string indent = first.substr(0, first.find_first_not_of(' '));
    const size_t end = text.find("\n" + indent + "}\n", start + 1);
    REQUIRE(end != std::string::npos);
    return text.substr(start + 1, end + indent.size() + 2 - start);  // through "}\n"
}

}  // namespace

TEST_CASE("print_policy: a policy that sets nothing shows every default as a comment")
{
    CHECK(print_policy(empty_policy()) ==
          "# The normalised policy (tartaros-compile --print-policy): paths absolute, values as the\n"
          "# compiler holds them. A line starting with '#' is a default this policy does not set.\n"
          "version 1;\n"
          "\n"
          "filesystem {\n"
          "    # read_scope all; (default)\n"
          "    # read_allows (default: none)\n"
          "    # read_denies (default: none)\n"
          "    # writable_roots (default: none)\n"
          "    # write_denies (default: none)\n"
          "    # materialize false; (default)\n"
          "    # private_tmp false; (default)\n"
          "    # private_dirs (default: none)\n"
          "}\n"
          "\n"
          "network {\n"
          "    # allow_domains (default: none: no proxy)\n"
          "    # deny_domains (default: none)\n"
          "    # domain_ports 443, 80; (default)\n"
          "    # hosts (default: none)\n"
          "    # proxy_port 3128; (default)\n"
          "    # local_ports (default: none)\n"
          "    # expose_ports (default: none)\n"
          "    # deny_unix false; (default)\n"
          "}\n"
          "\n"
          "process {\n"
          "    # isolate_pids true; (default)\n"
          "    # isolate_proc true; (default)\n"
          "    # harden_syscalls true; (default)\n"
          "    # max_processes (default: no limit)\n"
          "    # memory_max (default: no limit)\n"
          "    # cpu_max (default: no limit)\n"
          "    # timeout (default: none)\n"
          "    # timeout_grace (default: \"5s\", with a timeout)\n"
          "    # rlimits core = 0; (default)\n"
          "}\n"
          "\n"
          "env {\n"
          "    # inherit false; (default)\n"
          "    # passthrough PATH, HOME, TERM, LANG, LC_ALL, USER, LOGNAME, SHELL, TZ; (default)\n"
          "    # set (default: none)\n"
          "}\n"
          "\n"
          "# broker { } (default: none, no credential broker)\n"
          "\n"
          "# syscalls { } (default: no rules of the policy's own; the built-in lists apply)\n");
}

TEST_CASE("print_policy: each setting is one statement, a longer list one element per line")
{
    Policy p = empty_policy();
    p.fs.read_scope = set(ReadScope::Granted);
    p.fs.read_allows = {set<std::string>("/home/u/.gitconfig")};
    p.fs.read_denies = {set<std::string>("/home/u/.ssh"), set<std::string>("/home/u/.netrc")};
    p.fs.writable_roots = {set<std::string>("/home/u/proj")};
    p.fs.write_denies = {set<std::string>("/home/u/proj/.git/hooks"), set<std::string>("/home/u/proj/.git/config")};
    p.fs.file_targets = {"/home/u/.netrc", "/home/u/proj/.git/config"};
    p.fs.materialize = set(true);
    p.fs.private_tmp = set(false);
    p.fs.private_dirs = {set<std::string>("/home/u/proj/.sockets")};
    CHECK(block(print_policy(p), "filesystem {") ==
          "filesystem {\n"
          "    read_scope granted;\n"
          "    read_allows \"/home/u/.gitconfig\";\n"
          "    read_denies\n"
          "        \"/home/u/.ssh\",\n"
          "        file \"/home/u/.netrc\";\n"
          "    writable_roots \"/home/u/proj\";\n"
          "    write_denies\n"
          "        \"/home/u/proj/.git/hooks\",\n"
          "        file \"/home/u/proj/.git/config\";\n"
          "    materialize true;\n"
          "    private_tmp false;\n"
          "    private_dirs \"/home/u/proj/.sockets\";\n"
          "}\n");
}

TEST_CASE("print_policy: network, with the default domain ports only when the policy has none")
{
    Policy p = empty_policy();
    p.network.allow_domains = {set<std::string>("github.com"), set<std::string>("*.githubusercontent.com")};
    p.network.deny_domains = {set<std::string>("gist.github.com")};
    p.network.domain_ports = {set<uint16_t>(443)};
    p.network.hosts = {{set<std::string>("db.internal"), set<std::string>("10.0.0.5")}};
    p.network.proxy_port = set<uint16_t>(8080);
    p.network.local_ports = {set<uint16_t>(5432), set<uint16_t>(6379)};
    p.network.expose_ports = {set<uint16_t>(3000)};
    p.network.deny_unix = set(true);
    CHECK(block(print_policy(p), "network {") ==
          "network {\n"
          "    allow_domains\n"
          "        \"github.com\",\n"
          "        \"*.githubusercontent.com\";\n"
          "    deny_domains \"gist.github.com\";\n"
          "    domain_ports 443;\n"
          "    hosts \"db.internal\" = \"10.0.0.5\";\n"
          "    proxy_port 8080;\n"
          "    local_ports\n"
          "        5432,\n"
          "        6379;\n"
          "    expose_ports 3000;\n"
          "    deny_unix true;\n"
          "}\n");
}

TEST_CASE("print_policy: limits in the units people write them in")
{
    Policy p = empty_policy();
    p.process.isolate_pids = set(false);
    p.process.max_processes = set<uint64_t>(512);
    p.process.memory_max = set<uint64_t>(4ull << 30);
    p.process.cpu_max = set<uint32_t>(12345);  // 0.12345 CPU: a quota no integer of CPUs gives
    p.process.timeout = set<uint64_t>(5400000);
    p.process.timeout_grace = set<uint64_t>(1500);
    p.process.rlimits = {{7, 4096, 65536, {"p.tart", 1, 1}},
                         {1, 16ull << 30, 16ull << 30, {"p.tart", 1, 1}},
                         {3, 1000, kRlimUnlimited, {"p.tart", 1, 1}},
                         {0, 60, 60, {"p.tart", 1, 1}}};
    CHECK(block(print_policy(p), "process {") ==
          "process {\n"
          "    isolate_pids false;\n"
          "    # isolate_proc true; (default)\n"
          "    # harden_syscalls true; (default)\n"
          "    max_processes 512;\n"
          "    memory_max \"4G\";\n"
          "    cpu_max \"12.345%\";\n"
          "    timeout \"1h30m\";\n"
          "    timeout_grace \"1s500ms\";\n"
          "    rlimits\n"
          "        nofile = { soft = 4096, hard = 65536 },\n"
          "        fsize = \"16G\",\n"
          "        stack = { soft = 1000, hard = \"unlimited\" },\n"
          "        cpu = 60;\n"
          "    # rlimits core = 0; (default)\n"
          "}\n");

    p.process.memory_max = set<uint64_t>((1ull << 20) + 1);  // no unit fits: bytes
    p.process.cpu_max = set<uint32_t>(200000);               // whole CPUs: an integer
    p.process.timeout_grace.reset();                         // the default grace, with a timeout
    p.process.rlimits = {{4, 0, 0, {"p.tart", 1, 1}}};
    const std::string text = block(print_policy(p), "process {");
    CHECK(text.find("    memory_max 1048577;\n") != std::string::npos);
    CHECK(text.find("    cpu_max 2;\n") != std::string::npos);
    CHECK(text.find("    # timeout_grace \"5s\"; (default)\n") != std::string::npos);
    CHECK(text.find("    rlimits core = 0;\n") != std::string::npos);
    CHECK(text.find("# rlimits core = 0; (default)") == std::string::npos);
}

TEST_CASE("print_policy: env, passthrough set to nothing, names that are keywords")
{
    Policy p = empty_policy();
    p.env.inherit = set(true);
    p.env.passthrough.clear();
    p.env.set = {{set<std::string>("CI"), set<std::string>("1")}, {set<std::string>("in"), set<std::string>("a\"b")}};
    CHECK(block(print_policy(p), "env {") ==
          "env {\n"
          "    inherit true;\n"
          "    passthrough;\n"
          "    set\n"
          "        CI = \"1\",\n"
          "        \"in\" = \"a\\\"b\";\n"
          "}\n");

    p.env.passthrough = {set<std::string>("PATH")};
    CHECK(block(print_policy(p), "env {").find("    passthrough PATH;\n") != std::string::npos);
}

TEST_CASE("print_policy: the broker and its capabilities, ports in the host")
{
    Policy p = empty_policy();
    BrokerPolicy &b = p.broker.emplace();
    b.auth_header = set<std::string>("X-Auth");
    b.token_env = set<std::string>("BROKER_TOKEN");
    b.allowed_hosts = {set<std::string>("api.github.com"), set<std::string>("*.example.com")};
    b.allow_internal = set(false);
    b.ca_file = set<std::string>("/etc/ssl/extra.pem");
    BrokerCapability github;
    github.name = set<std::string>("github");
    github.host = set<std::string>("api.github.com");
    github.value_env = set<std::string>("GITHUB_TOKEN");
    github.value_format = set<std::string>("Bearer {value}");
    github.methods = {set<std::string>("GET")};
    BrokerCapability git;
    git.name = set<std::string>("git.v6");
    git.host = set<std::string>("2001:db8::1");
    git.port = set<uint16_t>(8443);
    git.header = set<std::string>("Authorization");
    git.value_env = set<std::string>("GIT_TOKEN");
    git.path_prefixes = {set<std::string>("/a/"), set<std::string>("/b")};
    b.capabilities = {github, git};
    CHECK(block(print_policy(p), "broker {") ==
          "broker {\n"
          "    # port 3129; (default)\n"
          "    auth_header \"X-Auth\";\n"
          "    token_env BROKER_TOKEN;\n"
          "    allowed_hosts\n"
          "        \"api.github.com\",\n"
          "        \"*.example.com\";\n"
          "    allow_internal false;\n"
          "    ca_file \"/etc/ssl/extra.pem\";\n"
          "    capability github {\n"
          "        host \"api.github.com\";\n"
          "        # header \"Authorization\"; (default)\n"
          "        value_env GITHUB_TOKEN;\n"
          "        value_format \"Bearer {value}\";\n"
          "        methods GET;\n"
          "        # path_prefixes (default: any)\n"
          "    }\n"
          "    capability \"git.v6\" {\n"
          "        host \"[2001:db8::1]:8443\";\n"
          "        header \"Authorization\";\n"
          "        value_env GIT_TOKEN;\n"
          "        # value_format \"{value}\"; (default)\n"
          "        # methods (default: any)\n"
          "        path_prefixes\n"
          "            \"/a/\",\n"
          "            \"/b\";\n"
          "    }\n"
          "}\n");
}

TEST_CASE("print_policy: syscall rules with their conditions, masks in hex")
{
    using Kind = SyscallCondition::Kind;
    auto condition = [](Kind kind, uint8_t arg, std::vector<uint32_t> values) {
        return SyscallCondition{kind, arg, std::move(values), {"p.tart", 1, 1}};
    };
    auto rule = [](std::string name, uint32_t nr, std::vector<SyscallCondition> when, bool kill, uint16_t err) {
        SyscallDenyRule r;
        r.pos = {"p.tart", 1, 1};
        r.name = set(std::move(name));
        r.nr = nr;
        r.when = std::move(when);
        r.kill = kill;
        r.err = err;
        return r;
    };
    Policy p = empty_policy();
    p.syscalls.rules = {
        rule("socket", 41, {condition(Kind::In, 0, {16}), condition(Kind::NotIn, 2, {0})}, false, 1),
        rule("ioctl", 16, {condition(Kind::In, 1, {0x5412, 0x541c})}, false, 1),
        rule("personality", 135, {condition(Kind::NotIn, 0, {0, 0xffffffff})}, false, 22),
        rule("clone", 56, {condition(Kind::AnyBit, 0, {0x10000000 | 0x40000000})}, false, 1),
        rule("mprotect", 10, {condition(Kind::NoBit, 2, {4})}, true, 1),
        rule("openat", 257, {condition(Kind::In, 0, {0xffffff9c}), condition(Kind::In, 2, {4095})}, false, 4095),
        rule("kill", 62, {}, false, 13),
        rule("kcmp", 312, {}, false, 38),
    };
    CHECK(block(print_policy(p), "syscalls {") ==
          "syscalls {\n"
          "    deny socket when arg0 == 16 and arg2 != 0 errno EPERM;\n"
          "    deny ioctl when arg1 in {0x5412, 0x541c} errno EPERM;\n"
          "    deny personality when arg0 not in {0, 0xffffffff} errno EINVAL;\n"
          "    deny clone when arg0 & 0x50000000 errno EPERM;\n"
          "    deny mprotect when arg2 & 0x4 == 0 kill;\n"
          "    deny openat when arg0 == 0xffffff9c and arg2 == 4095 errno 4095;\n"
          "    deny kill errno EACCES;\n"
          "    deny kcmp errno ENOSYS;\n"
          "}\n");
}

TEST_CASE("print_policy: provenance does not show")
{
    Policy a = empty_policy();
    a.fs.read_denies = {set<std::string>("/x", 3)};
    a.network.proxy_port = set<uint16_t>(9000, 7);
    Policy b = a;
    b.source_path = "/elsewhere/p.toml";
    b.sources = {{"p.toml", "/elsewhere/p.toml"}};
    b.fs.read_denies.front().pos = {"other.tart", 40, 9};
    b.network.proxy_port.pos = {"p.toml", 2, 14};
    CHECK(print_policy(a) == print_policy(b));
    // ...but whether a value was set does: the same number, once set and once the default.
    b.network.proxy_port = {3128, {}};
    a.network.proxy_port = set<uint16_t>(3128);
    CHECK(print_policy(a) != print_policy(b));
}

TEST_CASE("tart_string escapes what a TOML basic string must")
{
    CHECK(tart_string("plain /path") == "\"plain /path\"");
    CHECK(tart_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
    CHECK(tart_string("l1\nl2\tx\ry") == "\"l1\\nl2\\tx\\ry\"");
    CHECK(tart_string(std::string("nul\0bel\x07"
                                  "del\x7f",
                                  12)) == "\"nul\\u0000bel\\u0007del\\u007F\"");
    CHECK(tart_string("caf\xc3\xa9 \xe2\x9c\x93") == "\"caf\xc3\xa9 \xe2\x9c\x93\"");  // UTF-8 as is
    CHECK(tart_string("") == "\"\"");
}

TEST_CASE("tart_word leaves plain words bare and quotes the rest")
{
    for (const char *bare : {"PATH", "all", "granted", "GET", "_x1", "GITHUB_TOKEN", "filesystemx"})
        CHECK_MESSAGE(tart_word(bare) == bare, bare);
    for (const char *quoted :
         {"true",    "false",   "file",  "dir",     "in",   "not",         "and",        "kill",     "errno",
          "version", "include", "paths", "domains", "deny", "when",        "capability", "syscalls", "env",
          "1abc",    "X-Auth",  "a.b",   "a b",     "",     "caf\xc3\xa9", "@group"})
        CHECK_MESSAGE(tart_word(quoted) == tart_string(quoted), quoted);
}

}  // namespace tartaros
