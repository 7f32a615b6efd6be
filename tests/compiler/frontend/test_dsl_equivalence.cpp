// The two front-ends and the printer against each other, on the shipped examples and the DSL's
// golden policies:
//  - every examples/X.toml with an examples/X.tart: both parse; print_policy of both is the
//    same text; their plans are byte-identical once provenance is set aside (every position
//    with a line moved to one place, the same source file);
//  - round trip: for every example and every good golden policy (either language), parsing
//    the printout gives the same values and the same settings set (policy_dump.h), and
//    printing that again gives the same text (a fixed point).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "frontend.h"
#include "paths.h"
#include "policy_dump.h"
#include "print_policy.h"
#include "verify.h"

namespace tartaros {

namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = TARTAROS_SOURCE_DIR;

std::string diagnostics_text(const Diagnostics &diags)
{
    std::ostringstream out;
    diags.print(out);
    return out.str();
}

// The policy in `text`, named `display` (its directory is the base of relative paths); a
// failed parse fails the test with the diagnostics.
Policy parse_text(const std::string &text, const std::string &display)
{
    Diagnostics diags;
    std::optional<Policy> policy = parse_policy_text(text, display, diags);
    REQUIRE_MESSAGE(policy.has_value(), display << " does not parse:\n" << diagnostics_text(diags) << "\n" << text);
    return *policy;
}

Policy parse_file(const fs::path &path)
{
    std::string text, err;
    REQUIRE_MESSAGE(read_file(path.string(), text, err), path << ": " << err);
    return parse_text(text, path.string());
}

// Files named *.`ext` directly in `dir`, sorted (so failures come in a stable order).
std::vector<fs::path> files_in(const fs::path &dir, const std::string &ext)
{
    std::vector<fs::path> out;
    if (!fs::is_directory(dir))
        return out;
    for (const fs::directory_entry &entry : fs::directory_iterator(dir))
        if (entry.is_regular_file() && entry.path().extension() == ext)
            out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
}

// --- provenance set aside ---------------------------------------------------------------------

void flatten(SourcePos &pos)
{
    pos = pos.line != 0 ? SourcePos{"policy", 1, 1} : SourcePos{};
}

template <class T>
void flatten(Located<T> &value)
{
    flatten(value.pos);
}

template <class T>
void flatten(std::vector<Located<T>> &list)
{
    for (Located<T> &item : list)
        flatten(item);
}

template <class T>
void flatten(std::optional<Located<T>> &value)
{
    if (value)
        flatten(*value);
}

void flatten(std::vector<std::pair<Located<std::string>, Located<std::string>>> &pairs)
{
    for (auto &[name, value] : pairs) {
        flatten(name);
        flatten(value);
    }
}

void flatten(BrokerPolicy &b)
{
    flatten(b.pos);
    flatten(b.port);
    flatten(b.auth_header);
    flatten(b.token_env);
    flatten(b.allowed_hosts);
    flatten(b.allow_internal);
    flatten(b.ca_file);
    for (BrokerCapability &cap : b.capabilities) {
        flatten(cap.pos);
        flatten(cap.name);
        flatten(cap.host);
        flatten(cap.port);
        flatten(cap.header);
        flatten(cap.value_env);
        flatten(cap.value_format);
        flatten(cap.methods);
        flatten(cap.path_prefixes);
    }
}

// `p` as if read from `source` with every position at one place: what is left to differ
// between two front-ends' models is what the policy means.
Policy without_provenance(Policy p, const std::string &source)
{
    p.source_path = source;
    p.sources = {{source, source}};
    flatten(p.version);
    flatten(p.fs.read_scope);
    flatten(p.fs.read_allows);
    flatten(p.fs.read_denies);
    flatten(p.fs.writable_roots);
    flatten(p.fs.write_denies);
    flatten(p.fs.materialize);
    flatten(p.fs.private_tmp);
    flatten(p.process.isolate_pids);
    flatten(p.process.isolate_proc);
    flatten(p.process.harden_syscalls);
    flatten(p.process.max_processes);
    flatten(p.process.memory_max);
    flatten(p.process.cpu_max);
    flatten(p.process.timeout);
    flatten(p.process.timeout_grace);
    for (RlimitSetting &limit : p.process.rlimits)
        flatten(limit.pos);
    flatten(p.network.deny_unix);
    flatten(p.network.allow_domains);
    flatten(p.network.deny_domains);
    flatten(p.network.local_ports);
    flatten(p.network.expose_ports);
    flatten(p.network.domain_ports);
    flatten(p.network.hosts);
    flatten(p.network.proxy_port);
    flatten(p.env.inherit);
    flatten(p.env.passthrough);
    flatten(p.env.set);
    if (p.broker)
        flatten(*p.broker);
    for (SyscallDenyRule &rule : p.syscalls.rules) {
        flatten(rule.pos);
        flatten(rule.name);
        for (SyscallCondition &c : rule.when)
            flatten(c.pos);
    }
    return p;
}

std::vector<uint8_t> plan_of(const Policy &policy)
{
    Diagnostics diags;
    std::vector<uint8_t> plan = lower_policy(policy, LowerOptions{}, diags);
    REQUIRE_MESSAGE(!plan.empty(), diagnostics_text(diags));
    return plan;
}

// The examples written in both languages: X.toml and X.tart.
std::vector<std::string> twin_examples()
{
    std::vector<std::string> names;
    for (const fs::path &toml : files_in(kSourceDir / "examples", ".toml")) {
        fs::path tart = toml;
        tart.replace_extension(".tart");
        if (fs::exists(tart))
            names.push_back(toml.stem().string());
    }
    return names;
}

// parse(print(p)) has p's values and settings, and prints the same text.
void check_round_trip(const Policy &policy, const fs::path &origin)
{
    const std::string printed = print_policy(policy);
    const fs::path display = origin.parent_path() / "printed.tart";
    const Policy again = parse_text(printed, display.string());
    CHECK_MESSAGE(test::dump_policy(again) == test::dump_policy(policy), origin << ":\n" << printed);
    CHECK_MESSAGE(print_policy(again) == printed, origin);
}

}  // namespace

TEST_CASE("every example written in both languages: the same policy, the same plan")
{
    const std::vector<std::string> twins = twin_examples();
    REQUIRE(twins.size() >= 3);  // agent, broker, strict
    for (const std::string &name : twins) {
        CAPTURE(name);
        const fs::path toml = kSourceDir / "examples" / (name + ".toml");
        const fs::path tart = kSourceDir / "examples" / (name + ".tart");
        const Policy from_toml = parse_file(toml);
        const Policy from_tart = parse_file(tart);
        CHECK(print_policy(from_tart) == print_policy(from_toml));
        CHECK(test::dump_policy(from_tart) == test::dump_policy(from_toml));
        CHECK(from_tart.sources.front().absolute == tart.string());
        CHECK(plan_of(without_provenance(from_tart, toml.string())) ==
              plan_of(without_provenance(from_toml, toml.string())));
    }
}

TEST_CASE("the comparison sees a difference: a .tart twin that means one thing more")
{
    const fs::path toml = kSourceDir / "examples" / "agent.toml";
    const fs::path tart = kSourceDir / "examples" / "agent.tart";
    std::string text, err;
    REQUIRE(read_file(tart.string(), text, err));
    const Policy from_toml = parse_file(toml);
    const Policy changed = parse_text(text + "process { max_processes 512; }\n", tart.string());
    CHECK(print_policy(changed) != print_policy(from_toml));
    CHECK(plan_of(without_provenance(changed, toml.string())) != plan_of(without_provenance(from_toml, toml.string())));
    // A setting written at its default value is still a setting: both the printout and the
    // model say so, though the plan is the same.
    const Policy explicit_default = parse_text(text + "network { proxy_port 3128; }\n", tart.string());
    CHECK(print_policy(explicit_default) != print_policy(from_toml));
    CHECK(test::dump_policy(explicit_default) != test::dump_policy(from_toml));
}

TEST_CASE("round trip: every example reads back from its printout")
{
    std::vector<fs::path> files = files_in(kSourceDir / "examples", ".tart");
    const std::vector<fs::path> tomls = files_in(kSourceDir / "examples", ".toml");
    files.insert(files.end(), tomls.begin(), tomls.end());
    REQUIRE(files.size() >= 7);
    for (const fs::path &file : files) {
        CAPTURE(file);
        check_round_trip(parse_file(file), file);
    }
}

// tests/compiler/golden/dsl/good: every case (a name starting with '_' is a file the others include),
// the TOML twins included.
TEST_CASE("round trip: every good golden policy reads back from its printout")
{
    const fs::path dir = kSourceDir / "tests" / "compiler" / "golden" / "dsl" / "good";
    std::vector<fs::path> files = files_in(dir, ".tart");
    const std::vector<fs::path> tomls = files_in(dir, ".toml");
    files.insert(files.end(), tomls.begin(), tomls.end());
    std::erase_if(files, [](const fs::path &file) { return file.filename().string().starts_with("_"); });
    REQUIRE(files.size() >= 10);
    for (const fs::path &file : files) {
        CAPTURE(file);
        check_round_trip(parse_file(file), file);
    }
}

// Every construct and the values whose printed form differs most from how they were written:
// escapes, keywords as names, units that only bytes or percentages express, masks, negative
// syscall values.
TEST_CASE("round trip: every construct, and values that print differently from their source")
{
    const std::string ca_file = (kSourceDir / "README.md").string();  // any regular file
    const std::string tart = R"(version 1;
paths quoted = ["/tmp/a b", file "/tmp/\"q\"", "/tmp/caf\u00e9"];
paths all = [@quoted, "/tmp/tab\there"];
domains hosts = ["example.com", "*.example.org"];
filesystem {
    read_scope granted;
    read_allows "/opt/tools";
    read_denies @all;
    writable_roots "/tmp/w";
    write_denies dir "/tmp/w/d", file "/tmp/w/f";
    materialize false;
}
network {
    allow_domains @hosts;
    deny_domains "bad.example.org";
    local_ports 5432;
    expose_ports 3000, 3001;
    domain_ports 443, 8443;
    hosts "db.internal" = "10.0.0.5", "v6.internal" = "2001:db8::1";
    proxy_port 3130;
    deny_unix true;
}
process {
    isolate_pids false;
    isolate_proc false;
    harden_syscalls false;
    max_processes 64;
    memory_max 1048577;
    cpu_max "12.345%";
    timeout 90;
    timeout_grace "1500ms";
    rlimits core = "unlimited", stack = { soft = "8M", hard = "unlimited" }, cpu = 60, rttime = 500000, nice = 0;
}
env {
    inherit true;
    passthrough;
    set in = "a\"b\\c\nd", EMPTY = "", UTF = "caf\u00e9";
}
broker {
    port 4000;
    auth_header "X-Auth";
    token_env BROKER_TOKEN;
    allowed_hosts "api.example.com", "*.example.net";
    allow_internal true;
    ca_file ")" +
        ca_file + R"(";
    capability "a.b-c" {
        host "git.example.net:8443";
        header "X-Token";
        value_env TOKEN_A;
        value_format "token {value}";
        methods GET, POST;
        path_prefixes "/x/", "/y";
    }
    capability plain { host "api.example.com"; value_env TOKEN_B; }
}
syscalls {
    deny socket when arg0 == AF_INET6 and arg1 in {SOCK_RAW, SOCK_RAW | SOCK_CLOEXEC} errno EACCES;
    deny ioctl when arg1 == 0x5423;
    deny personality when arg0 not in {0, 0xffffffff, 8} errno EINVAL;
    deny mprotect when arg2 & PROT_EXEC == 0 kill;
    deny mmap when arg2 & PROT_EXEC | PROT_WRITE != 0 and arg3 & MAP_SHARED;
    deny openat when arg0 == -100 and arg2 & O_TMPFILE errno 4095;
    deny kill;
}
)";
    const fs::path tart_path = kSourceDir / "tests" / "unit" / "every-construct.tart";
    check_round_trip(parse_text(tart, tart_path.string()), tart_path);

    const std::string toml = R"(version = 1
[filesystem]
read_denies = ["relative/x", { path = "~/.netrc", type = "file" }]
[process]
cpu_max = 0.5
memory_max = "1.5G"
timeout = "1h30m"
rlimits = { as = "1.5G", nofile = 1024 }
[env]
set = { "LC_ALL" = "C" }
)";
    const fs::path toml_path = kSourceDir / "tests" / "unit" / "every-construct.toml";
    check_round_trip(parse_text(toml, toml_path.string()), toml_path);
}

}  // namespace tartaros
