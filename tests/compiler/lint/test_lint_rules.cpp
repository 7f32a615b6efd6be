// Unit tests of compiler/lint_rules: the secret detector (what it must find and what it must
// leave alone), each lint rule on small policies (reported and not reported, with positions),
// and the registry every reported rule id must be in with its severity.
#include <doctest/doctest.h>

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend_toml.h"
#include "home_guard.h"
#include "lint_rules.h"
#include "paths.h"
#include "secret_detector.h"

using namespace tartaros;

namespace {

// A directory of its own under the build tree (not /tmp, which policies hide), removed after.
struct TempDir {
    std::string path;
    TempDir()
    {
        std::string pattern = std::string(TARTAROS_BINARY_DIR) + "/lint-rules-XXXXXX";
        REQUIRE(mkdtemp(pattern.data()) != nullptr);
        path = std::filesystem::canonical(pattern).string();  // messages name real paths
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string write(const std::string &name, const std::string &content) const
    {
        const std::string file = path + "/" + name;
        std::ofstream(file, std::ios::binary) << content;
        return file;
    }
};

// The front-end, then the lint rules, on `text` as the policy file `file`. Every diagnostic
// must carry a registered rule id with the registry's severity.
Diagnostics lint(const std::string &text, const std::string &file = "/opt/project/agent.toml")
{
    Diagnostics diags;
    const std::optional<Policy> policy = parse_toml_policy_text(text, file, diags);
    lint_policy_rules(text, file, policy ? &*policy : nullptr, diags);
    for (const Diagnostic &d : diags.all()) {
        const auto &rules = lint_rule_registry();
        auto rule = std::find_if(rules.begin(), rules.end(), [&](const LintRule &r) { return r.id == d.rule_id; });
        REQUIRE_MESSAGE(rule != rules.end(), d.rule_id);
        CHECK_MESSAGE(rule->severity == d.severity, d.rule_id);
    }
    return diags;
}

// "line:col message" of each diagnostic with rule id `id`.
std::vector<std::string> found(const Diagnostics &diags, const std::string &id)
{
    std::vector<std::string> out;
    for (const Diagnostic &d : diags.all())
        if (d.rule_id == id)
            out.push_back(std::to_string(d.pos.line) + ":" + std::to_string(d.pos.col) + " " + d.message);
    return out;
}

size_t count(const Diagnostics &diags, const std::string &id)
{
    return found(diags, id).size();
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

std::vector<std::string> kinds_in(const std::string &text)
{
    std::vector<std::string> out;
    for (const SecretMatch &m : find_secrets_in_text(text))
        out.push_back(m.what);
    return out;
}

}  // namespace

// --- the secret detector ----------------------------------------------------------------------

TEST_CASE("secrets: token formats are found and named")
{
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"ghp_0000EXAMPLE0000EXAMPLE0000EXAMPLE0000", "a GitHub token"},
        {"gho_16C7e42F292c6912E7710c838347Ae178B4a", "a GitHub OAuth token"},
        {"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ",
         "a GitHub fine-grained token"},
        {"glpat-xxxxExample-0123456789", "a GitLab token"},
        {"xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "a Slack token"},
        {"sk-ant-api03-Example0123456789-abcdefghijklmnop", "an Anthropic API key"},
        {"sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "an OpenAI-style API key"},
        {"AKIAIOSFODNN7EXAMPLE", "an AWS access key id"},
        {"ASIAIOSFODNN7EXAMPLE", "an AWS temporary access key id"},
        {"AIzaSyA-Example0123456789abcdefghijklmn", "a Google API key"},
        {"npm_0123456789abcdefghijklmnopqrstuvwxyz", "an npm token"},
        {"hf_ExampleExampleExampleExampleExample", "a Hugging Face token"},
        {"sk_live_0123456789abcdefghijklmn", "a Stripe secret key"},
        {"pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACKlsz", "a PyPI token"},
    };
    for (const auto &[token, what] : cases) {
        CAPTURE(token);
        const std::vector<SecretMatch> matches = find_secrets_in_text("x = \"" + token + "\"\n");
        REQUIRE(matches.size() == 1);
        CHECK(matches[0].what == what);
        CHECK(matches[0].offset == 5);
    }
}

TEST_CASE("secrets: JWTs and private keys and passwords in URLs")
{
    const std::string jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6ImFnZW50In0."
                            "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    CHECK(kinds_in("token = \"" + jwt + "\"") == std::vector<std::string>{"a JSON Web Token"});
    CHECK(kinds_in("# -----BEGIN OPENSSH PRIVATE KEY-----\n") == std::vector<std::string>{"a private key"});
    CHECK(kinds_in("-----BEGIN RSA PRIVATE KEY-----") == std::vector<std::string>{"a private key"});
    CHECK(kinds_in("-----BEGIN CERTIFICATE-----").empty());
    CHECK(kinds_in("-----BEGIN PUBLIC KEY-----").empty());
    const std::string url = "DATABASE_URL = \"postgres://app:s3cret@localhost/app\"";
    const std::vector<SecretMatch> matches = find_secrets_in_text(url);
    REQUIRE(matches.size() == 1);
    CHECK(matches[0].what == "a password in a URL");
    CHECK(url.substr(matches[0].offset, 6) == "s3cret");
}

TEST_CASE("secrets: URLs without a password are not secrets")
{
    CHECK(kinds_in("\"https://github.com/org/repo\"").empty());
    CHECK(kinds_in("\"ssh://git@github.com/org/repo\"").empty());
    CHECK(kinds_in("\"http://127.0.0.1:3128\"").empty());
    CHECK(kinds_in("\"https://user:${TOKEN}@host/x\"").empty());
    CHECK(kinds_in("\"https://user:$TOKEN@host/x\"").empty());
    CHECK(kinds_in("\"https://user:<password>@host/x\"").empty());
    CHECK(kinds_in("\"https://host:8080/a@b\"").empty());
}

TEST_CASE("secrets: long random strings are found")
{
    for (const std::string random :
         {"u8jzPde0IgxLd6GncfBAepfJ", "Bd0Kh8oOOL8dKLzdocJ2isAjIhKtJ0Rl", "gLKOmxgJTeKdNnFRIBXuDL7DxtpYlSXpfKtHF4vU",
          "CsMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rESQedUStPKR0CsTy4Qwb8DwkNh",
          "/B5vk0J+y8j+KVXlzY5G3I7Ut8J2TSpaTXZ3Bvhd", "hpACSta9o0Ab6cjLzMk19s0fYSJq4VM4rho0AE0zug0k",
          "q8ZtR3vN1xK7pL2mW9sB4dF6hJ0cY5gT=="}) {
        CAPTURE(random);
        CHECK(kinds_in("value = \"" + random + "\"") == std::vector<std::string>{"a long random string"});
    }
}

TEST_CASE("secrets: paths and domains and identifiers and digests are not secrets")
{
    for (const std::string text : {"/usr/lib/jvm/java-17-openjdk-amd64/bin",
                                   "~/Library/Caches/JetBrains/IntelliJIdea2023.2",
                                   "/home/User1/Projects/MyApp2024/Build/Debug/Win64",
                                   "/mnt/Data2024/Projects/MyApp3/Build",
                                   "/Users/JohnSmith2/Documents/GitHub/MyRepo42/src/main/java/com/Example/App2",
                                   "/nix/store/7y8bfq4zq6j4gv0dp06l3p8lhkqm9pcv-gcc-12.3.0/bin",
                                   "~/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib",
                                   "*.githubusercontent.com",
                                   "files.pythonhosted.org",
                                   "DefaultAzureCredentialTokenProvider2",
                                   "DefaultTimeoutStartSec=90s",
                                   "CARGO_REGISTRIES_CRATES_IO_PROTOCOL",
                                   "TOKENIZERS_PARALLELISM",
                                   "DigiCert_Global_Root_G3",
                                   "D-TRUST_Root_Class_3_CA_2_EV_2009",
                                   "G1HeapRegionTypeChange",
                                   "x86_64-unknown-linux-gnu",
                                   "123e4567-e89b-12d3-a456-426614174000",
                                   "5D4F7A2B-1C3E-4F5A-9B8C-7D6E5F4A3B2C",
                                   "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                                   "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
                                   "da39a3ee5e6b4b0d3255bfef95601890afd80709",
                                   "sk-learn-intelex-extension-2023",
                                   "sk-abcdefghijklmnopqrstuvwxyz",
                                   "AKIA is the prefix of an AWS key id",
                                   "ghp_short",
                                   "xoxb-1"}) {
        CAPTURE(text);
        CHECK(kinds_in("x = \"" + text + "\" # " + text + "\n").empty());
    }
}

TEST_CASE("secrets: the examples and the lint docs and corpus hold none outside their secret sections")
{
    const std::string root = TARTAROS_SOURCE_DIR;
    std::vector<std::string> files = {root + "/examples/agent.toml", root + "/examples/strict.toml"};
    for (const auto &entry : std::filesystem::directory_iterator(root + "/tests/compiler/golden/lint"))
        if (entry.path().extension() == ".toml" && entry.path().stem() != "secret-in-policy")
            files.push_back(entry.path().string());
    for (const std::string &file : files) {
        CAPTURE(file);
        std::string text, err;
        REQUIRE(read_file(file, text, err));
        CHECK(kinds_in(text).empty());
    }
    // docs/lint-rules.md shows the formats, and a bad example, in its secret-in-policy section only.
    std::string docs, err;
    REQUIRE(read_file(root + "/docs/lint-rules.md", docs, err));
    const size_t begin = docs.find("\n### secret-in-policy\n");
    const size_t end = docs.find("\n### ", begin + 1);
    REQUIRE(begin != std::string::npos);
    for (const SecretMatch &m : find_secrets_in_text(docs)) {
        CAPTURE(m.what);
        CHECK((m.offset > begin && m.offset < end));
    }
}

TEST_CASE("secrets: key names that say they hold a secret")
{
    for (const char *name : {"password", "DB_PASSWORD", "PGPASSWORD", "api_key", "apiKey", "GITHUB_TOKEN", "HF_TOKEN",
                             "client_secret", "AWS_SECRET_ACCESS_KEY", "private-key", "authToken", "passphrase"})
        CHECK_MESSAGE(names_a_secret(name), name);
    for (const char *name : {"token_env", "value_env", "auth_header", "TOKENIZERS_PARALLELISM", "max_tokens", "key",
                             "PATH", "SSH_AUTH_SOCK", "secret_file", "GIT_ASKPASS", "key_id", "PWD"})
        CHECK_FALSE_MESSAGE(names_a_secret(name), name);
    CHECK(looks_like_secret_value("hunter2hunter2"));
    CHECK(looks_like_secret_value("correct-horse-battery"));
    CHECK_FALSE(looks_like_secret_value("short"));
    CHECK_FALSE(looks_like_secret_value("$GITHUB_TOKEN"));
    CHECK_FALSE(looks_like_secret_value("${GITHUB_TOKEN}"));
    CHECK_FALSE(looks_like_secret_value("GITHUB_TOKEN"));
    CHECK_FALSE(looks_like_secret_value("/run/secrets/db"));
    CHECK_FALSE(looks_like_secret_value("~/.config/token"));
    CHECK_FALSE(looks_like_secret_value("see the docs"));
}

// --- secret-in-policy --------------------------------------------------------------------------

TEST_CASE("secret-in-policy: values and unknown keys and comments and columns after UTF-8")
{
    const Diagnostics diags = lint("version = 1\n"
                                   "# clé: AKIAIOSFODNN7EXAMPLE\n"
                                   "password = \"hunter2hunter2\"\n"
                                   "[env]\n"
                                   "set = { NPM_TOKEN = \"npm_0123456789abcdefghijklmnopqrstuvwxyz\", CI = \"1\" }\n");
    const std::vector<std::string> secrets = found(diags, "secret-in-policy");
    REQUIRE(secrets.size() == 3);
    CHECK(secrets[0].starts_with("2:8 this looks like an AWS access key id: "));
    CHECK(secrets[1].starts_with("3:12 this looks like a secret (its key 'password' says so): "));
    CHECK(secrets[2].starts_with("5:22 this looks like an npm token: "));
    CHECK(contains(secrets[0], "revoke it"));
    CHECK(contains(secrets[0], "[env] passthrough"));
    CHECK(contains(secrets[0], "[broker] token_env and a capability's value_env"));
    CHECK_FALSE(contains(secrets[0], "AKIAIOSFODNN7EXAMPLE"));  // the message never repeats the secret
    CHECK(count(diags, "unknown-key") == 1);
}

TEST_CASE("secret-in-policy: a file that is not TOML is still searched")
{
    const Diagnostics diags = lint("version = 1\n[env\nset = { T = \"ghp_0000EXAMPLE0000EXAMPLE0000EXAMPLE0000\" }\n");
    CHECK(count(diags, "toml-syntax") == 1);
    const std::vector<std::string> secrets = found(diags, "secret-in-policy");
    REQUIRE(secrets.size() == 1);
    CHECK(secrets[0].starts_with("3:14 this looks like a GitHub token: "));
    CHECK(diags.all().size() == 2);
}

TEST_CASE("secret-in-policy: references and ordinary settings are not secrets")
{
    const Diagnostics diags = lint("version = 1\n[env]\npassthrough = [\"PATH\", \"GITHUB_TOKEN\"]\n"
                                   "set = { GH_TOKEN_FILE = \"/run/secrets/gh\", TOKENIZERS_PARALLELISM = \"false\","
                                   " API_KEY = \"$API_KEY\" }\n");
    CHECK(count(diags, "secret-in-policy") == 0);
}

// --- path rules ---------------------------------------------------------------------------------

TEST_CASE("path-leaves-policy-dir: only relative paths that end outside the policy's directory")
{
    HomeGuard home("/home/lint");
    const Diagnostics diags = lint("version = 1\n[filesystem]\n"
                                   "writable_roots = [\".\", \"../shared\", \"a/../b\", \"~/..\", \"/srv\"]\n"
                                   "write_denies = [{ path = \"../../etc\", type = \"dir\" }]\n");
    const std::vector<std::string> leaves = found(diags, "path-leaves-policy-dir");
    REQUIRE(leaves.size() == 2);
    CHECK(leaves[0].starts_with("3:24 writable_roots: '../shared' leaves the policy's directory: "));
    CHECK(contains(leaves[0], "so it names /opt/shared here"));
    CHECK(leaves[1].starts_with("4:26 write_denies: '../../etc' leaves"));
}

TEST_CASE("path-allowed-and-denied: the same path allowed and denied")
{
    HomeGuard home("/home/lint");
    const Diagnostics diags = lint("version = 1\n[filesystem]\n"
                                   "read_allows = [\"~/.config\", \"/etc/ssl\"]\n"
                                   "read_denies = [\"~/.config\", \"/srv/hidden\"]\n"
                                   "writable_roots = [\".\", \"dist\", \"/srv/hidden\"]\n"
                                   "write_denies = [\"dist\", \"/etc/ssl\"]\n");
    const std::vector<std::string> clashes = found(diags, "path-allowed-and-denied");
    REQUIRE(clashes.size() == 3);
    CHECK(clashes[0] ==
          "3:16 read_allows: '/home/lint/.config' is also in read_denies (line 4): at the same path "
          "the deny wins, so the allow does nothing; remove one of the two");
    CHECK(contains(clashes[1], "writable_roots: '/opt/project/dist' is also in write_denies (line 6)"));
    CHECK(contains(clashes[1], "so this writable root is read-only"));
    CHECK(contains(clashes[2], "'/srv/hidden' is also in read_denies (line 4)"));
    CHECK(contains(clashes[2], "so this writable root is hidden"));
    CHECK(count(diags, "allow-no-effect") == 1);  // /etc/ssl under "all": readable already, read-only by the deny
}

TEST_CASE("allow-no-effect: allows that grant nothing new")
{
    HomeGuard home("/home/lint");
    SUBCASE("read_scope all")
    {
        const Diagnostics diags =
            lint("version = 1\n[filesystem]\n"
                 "read_denies = [\"~/.ssh\"]\n"
                 "read_allows = [\"~/.cargo\", \"~/.ssh/config\", \"/run/postgresql\", \"/tmp/x\"]\n");
        const std::vector<std::string> none = found(diags, "allow-no-effect");
        REQUIRE(none.size() == 2);  // the host's /tmp is part of "all"; /run is hidden unless named
        CHECK(none[0] ==
              "4:16 read_allows: '/home/lint/.cargo' does nothing: read_scope = \"all\" makes every path "
              "readable, and read_allows only re-opens a path inside a read deny; remove it");
        CHECK(contains(none[1], "read_allows: '/tmp/x' does nothing: read_scope = \"all\" makes every path readable"));
    }
    SUBCASE("read_scope granted")
    {
        const Diagnostics diags = lint("version = 1\n[filesystem]\nread_scope = \"granted\"\n"
                                       "read_allows = [\"/usr/share\", \"~/.cargo\", \"/opt/project/src\"]\n"
                                       "writable_roots = [\".\"]\n");
        const std::vector<std::string> none = found(diags, "allow-no-effect");
        REQUIRE(none.size() == 2);
        CHECK(contains(none[0], "'/usr/share' does nothing: read_scope = \"granted\" already grants /usr"));
        CHECK(contains(none[1],
                       "'/opt/project/src' does nothing: it is already writable in the writable root "
                       "'/opt/project' (line 5)"));
    }
    SUBCASE("writable roots")
    {
        const Diagnostics diags = lint("version = 1\n[filesystem]\nprivate_tmp = true\n"
                                       "writable_roots = [\".\", \"src\", \"out/keep\", \"/tmp/work\"]\n"
                                       "write_denies = [\"out\"]\n");
        const std::vector<std::string> none = found(diags, "allow-no-effect");
        REQUIRE(none.size() == 1);  // out/keep re-opens a write deny; /tmp/work binds the host's into the private /tmp
        CHECK(contains(none[0], "4:24 writable_roots: '/opt/project/src' does nothing"));
    }
    SUBCASE("a read allow under a write deny")
    {
        const Diagnostics diags = lint("version = 1\n[filesystem]\nwritable_roots = [\".\"]\n"
                                       "write_denies = [\"vendor\"]\nread_allows = [\"vendor/lib\"]\n");
        CHECK(found(diags, "allow-no-effect") ==
              std::vector<std::string>{"5:16 read_allows: '/opt/project/vendor/lib' does nothing: it is already "
                                       "readable in the writable root '/opt/project' (line 3); remove it"});
    }
    SUBCASE("a read allow in the private /tmp binds the host's path in")
    {
        const Diagnostics diags = lint("version = 1\n[filesystem]\nprivate_tmp = true\nread_allows = [\"/tmp/x\"]\n");
        CHECK(found(diags, "allow-no-effect").empty());
    }
}

TEST_CASE("writable-root-too-broad: the root directory and the home directory")
{
    {
        HomeGuard home("/home/lint");
        const Diagnostics diags = lint("version = 1\n[filesystem]\nwritable_roots = [\"/\", \"~\", \"/home\", "
                                       "\"~/src/p\", \"/opt/project\"]\n");
        const std::vector<std::string> broad = found(diags, "writable-root-too-broad");
        REQUIRE(broad.size() == 3);
        CHECK(contains(broad[0], "'/' makes the whole filesystem writable: "));
        CHECK(contains(broad[1], "'/home/lint' holds your home directory (/home/lint): "));
        CHECK(contains(broad[2], "'/home' holds your home directory"));
        CHECK(contains(broad[2], "~/.bashrc"));
    }
    {
        HomeGuard home("/");  // containers: no home directory to protect, "/" still too broad
        const Diagnostics diags = lint("version = 1\n[filesystem]\nwritable_roots = [\"/home\", \"/\"]\n");
        CHECK(count(diags, "writable-root-too-broad") == 1);
    }
}

TEST_CASE("shell-paths-denied: a deny that hides what a shell needs")
{
    const Diagnostics granted = lint("version = 1\n[filesystem]\nread_scope = \"granted\"\n"
                                     "read_denies = [\"/usr/lib\", \"/usr/lib/ssl/private\", \"/etc/shadow\"]\n");
    CHECK(found(granted, "shell-paths-denied") ==
          std::vector<std::string>{"4:16 read_denies: '/usr/lib' hides /usr/lib, the libraries (and /lib on "
                                   "merged-/usr systems): no shell and no dynamically linked command can start in "
                                   "this sandbox; deny something narrower"});
    const Diagnostics all = lint("version = 1\n[filesystem]\nread_denies = [\"/usr\", \"/dev\", \"/bin/sh\"]\n");
    const std::vector<std::string> hidden = found(all, "shell-paths-denied");
    REQUIRE(hidden.size() == 3);
    CHECK(contains(hidden[0], "'/usr' hides /usr/bin, the commands"));
    CHECK(contains(hidden[1], "'/dev' hides /dev/null, which shells and most tools open"));
    CHECK(contains(hidden[2], "'/bin/sh' hides /bin/sh, the shell"));
    const Diagnostics reopened =
        lint("version = 1\n[filesystem]\nread_denies = [\"/usr\"]\nread_allows = [\"/usr/bin\", "
             "\"/usr/lib\"]\n");
    CHECK(count(reopened, "shell-paths-denied") == 0);
}

// --- plan-writable, policy-writable ---------------------------------------------------------

TEST_CASE("plan-writable: a plan next to the policy inside a writable root")
{
    TempDir dir;
    const std::string plan = std::string("TARTPLAN") + std::string(24, '\0');
    dir.write("agent.plan", plan);
    dir.write("firmware.bin", "not a plan at all");
    dir.write("short.plan", "TART");
    REQUIRE(symlink("agent.plan", (dir.path + "/link.bin").c_str()) == 0);
    const std::string policy = dir.path + "/agent.toml";
    const std::string text = "version = 1\n[filesystem]\nwritable_roots = [\".\"]\n";
    const std::vector<std::string> plans = found(lint(text, policy), "plan-writable");
    REQUIRE(plans.size() == 2);
    CHECK(plans[0].starts_with("3:19 'agent.plan' next to this policy is a TartarOS plan inside the writable root '" +
                               dir.path + "', and no deny covers it: "));
    CHECK(contains(plans[0], "add { path = \"agent.plan\", type = \"file\" } to write_denies"));
    CHECK(plans[1].starts_with("3:19 'link.bin' next to this policy"));
    CHECK(count(lint(text + "write_denies = [\"agent.plan\", \"link.bin\"]\n", policy), "plan-writable") == 0);
    CHECK(count(lint(text + "read_denies = [\"agent.plan\", \"link.bin\"]\n", policy), "plan-writable") == 0);
    CHECK(count(lint("version = 1\n", policy), "plan-writable") == 0);
}

TEST_CASE("policy-writable: a policy in a writable root only by its real path")
{
    TempDir dir;
    REQUIRE(std::filesystem::create_directory(dir.path + "/real"));
    REQUIRE(symlink("real", (dir.path + "/link").c_str()) == 0);
    dir.write("real/agent.toml", "");
    const std::string through_link = dir.path + "/link/agent.toml";
    const std::string root = "version = 1\n[filesystem]\nwritable_roots = [\"" + dir.path + "/real\"]\n";
    const std::vector<std::string> writable = found(lint(root, through_link), "policy-writable");
    REQUIRE(writable.size() == 1);
    CHECK(writable[0] ==
          "3:19 this policy file lies in the writable root '" + dir.path + "/real' by its real path " + dir.path +
              "/real/agent.toml, not by the path it was named by (" + through_link +
              "), so the compiler's automatic write deny misses it: an agent in this sandbox could "
              "rewrite its own policy; name the policy by its real path, or add '" +
              dir.path + "/real/agent.toml' to write_denies");
    CHECK(count(lint(root + "write_denies = [\"" + dir.path + "/real/agent.toml\"]\n", through_link),
                "policy-writable") == 0);
    CHECK(count(lint(root, dir.path + "/real/agent.toml"), "policy-writable") == 0);  // the implied write deny
    CHECK(count(lint("version = 1\n[filesystem]\nwritable_roots = [\"" + dir.path + "/link\"]\n", through_link),
                "policy-writable") == 0);
}

TEST_CASE("policy-writable: an included file in a writable root only by its real path")
{
    TempDir dir;
    REQUIRE(std::filesystem::create_directory(dir.path + "/real"));
    REQUIRE(symlink("real", (dir.path + "/link").c_str()) == 0);
    dir.write("real/rules.tart", "version 1;\n");
    const std::string policy_file = dir.write("agent.toml", "");
    const std::string text = "version = 1\n[filesystem]\nwritable_roots = [\"" + dir.path + "/real\"]\n";
    // The lint of a policy whose sources list `included` (as the front-ends set them).
    auto lint_including = [&](const std::string &included, const std::string &extra = "") {
        Diagnostics diags;
        std::optional<Policy> policy = parse_toml_policy_text(text + extra, policy_file, diags);
        REQUIRE(policy);
        policy->sources = {{policy_file, policy_file}, {"link/rules.tart", included}};
        lint_policy_rules(text + extra, policy_file, &*policy, diags);
        return found(diags, "policy-writable");
    };
    const std::vector<std::string> writable = lint_including(dir.path + "/link/rules.tart");
    REQUIRE(writable.size() == 1);
    CHECK(writable[0] ==
          "3:19 the file 'link/rules.tart' this policy includes lies in the writable root '" + dir.path +
              "/real' by its real path " + dir.path + "/real/rules.tart, not by the path it was named by (" + dir.path +
              "/link/rules.tart), so the compiler's automatic write deny misses it: an agent in this "
              "sandbox could rewrite its own policy; include it by its real path, or add '" +
              dir.path + "/real/rules.tart' to write_denies");
    CHECK(lint_including(dir.path + "/real/rules.tart").empty());  // the implied write deny
    CHECK(lint_including(dir.path + "/link/rules.tart", "write_denies = [\"" + dir.path + "/real/rules.tart\"]\n")
              .empty());
}

// --- network, process, env -------------------------------------------------------------------

TEST_CASE("domain-allowed-and-denied: an allow a deny covers whole")
{
    const Diagnostics diags =
        lint("version = 1\n[network]\n"
             "allow_domains = [\"github.com\", \"gist.github.com\", \"*.api.github.com\", "
             "\"*.pypi.org\", \"example.org\", \"*.npmjs.org\"]\n"
             "deny_domains = [\"*.github.com\", \"files.pypi.org\", \"example.org\", \"*.npmjs.org\"]\n");
    const std::vector<std::string> dead = found(diags, "domain-allowed-and-denied");
    REQUIRE(dead.size() == 4);
    CHECK(dead[0] ==
          "3:32 allow_domains: 'gist.github.com' is denied whole by '*.github.com' in deny_domains "
          "(line 4): a deny wins, so this entry allows nothing; remove one of the two");
    CHECK(contains(dead[1], "'*.api.github.com' is denied whole by '*.github.com'"));
    CHECK(contains(dead[2], "'example.org' is denied whole by 'example.org'"));
    CHECK(contains(dead[3], "'*.npmjs.org' is denied whole by '*.npmjs.org'"));
}

TEST_CASE("local-ports-with-domains: both relayed ports and the proxy")
{
    const Diagnostics both =
        lint("version = 1\n[network]\nallow_domains = [\"pypi.org\"]\nlocal_ports = [5432, 6379]\n");
    const std::vector<std::string> found_both = found(both, "local-ports-with-domains");
    REQUIRE(found_both.size() == 1);
    CHECK(found_both[0].starts_with("4:16 local_ports together with allow_domains (line 3): "));
    CHECK(count(lint("version = 1\n[network]\nlocal_ports = [5432]\n"), "local-ports-with-domains") == 0);
    CHECK(count(lint("version = 1\n[network]\nallow_domains = [\"pypi.org\"]\nexpose_ports = [8000]\n"),
                "local-ports-with-domains") == 0);
}

TEST_CASE("max-processes-too-low: below what a shell pipeline needs")
{
    const std::vector<std::string> low =
        found(lint("version = 1\n[process]\nmax_processes = 3\n"), "max-processes-too-low");
    REQUIRE(low.size() == 1);
    CHECK(low[0].starts_with("3:17 max_processes = 3 cannot run a shell: "));
    CHECK(contains(low[0], "allow at least 4"));
    CHECK(count(lint("version = 1\n[process]\nmax_processes = 4\n"), "max-processes-too-low") == 0);
    CHECK(count(lint("version = 1\n"), "max-processes-too-low") == 0);
}

TEST_CASE("harden-syscalls-off and env-inherit: at the value that says so")
{
    CHECK(found(lint("version = 1\n[process]\nharden_syscalls = false\n"), "harden-syscalls-off").size() == 1);
    CHECK(found(lint("version = 1\n[process]\nharden_syscalls = false\n"), "harden-syscalls-off")[0].starts_with(
        "3:19 "));
    CHECK(count(lint("version = 1\n[process]\nharden_syscalls = true\n"), "harden-syscalls-off") == 0);
    const std::vector<std::string> inherit = found(lint("version = 1\n[env]\ninherit = true\n"), "env-inherit");
    REQUIRE(inherit.size() == 1);
    CHECK(inherit[0].starts_with("3:11 inherit = true copies the launcher's whole environment"));
    CHECK(count(lint("version = 1\n[env]\ninherit = false\n"), "env-inherit") == 0);
}

namespace {

// A [broker] with one capability; `extra` goes into the [broker] table, `cap` into the capability.
std::string broker_policy(const std::string &extra, const std::string &cap,
                          const std::string &hosts = "\"api.github.com\"")
{
    return "version = 1\n[broker]\nallowed_hosts = [" + hosts + "]\n" + extra +
        "[[broker.capability]]\nname = \"gh\"\nhost = \"api.github.com\"\nvalue_env = \"GITHUB_TOKEN\"\n" + cap;
}

}  // namespace

TEST_CASE("broker-allow-internal: only when an upstream is reached by name")
{
    const std::vector<std::string> internal =
        found(lint(broker_policy("allow_internal = true\n", "methods = [\"GET\"]\n")), "broker-allow-internal");
    REQUIRE(internal.size() == 1);
    CHECK(internal[0].starts_with("4:18 allow_internal = true lets every capability's upstream resolve to loopback"));
    CHECK(contains(internal[0], "whoever answers DNS for 'api.github.com'"));
    CHECK(count(lint(broker_policy("allow_internal = false\n", "methods = [\"GET\"]\n")), "broker-allow-internal") ==
          0);
    // An upstream written as an address: no name for DNS to redirect.
    const std::string literal =
        "version = 1\n[broker]\nallowed_hosts = [\"10.0.0.5\"]\nallow_internal = true\n"
        "[[broker.capability]]\nname = \"ci\"\nhost = \"10.0.0.5:8443\"\nvalue_env = \"CI_TOKEN\"\n"
        "methods = [\"GET\"]\n";
    const Diagnostics diags = lint(literal);
    CHECK(count(diags, "broker-allow-internal") == 0);
    CHECK(diags.all().empty());
}

TEST_CASE("capability-unrestricted: no methods, with or without path prefixes")
{
    const std::vector<std::string> open = found(lint(broker_policy("", "")), "capability-unrestricted");
    REQUIRE(open.size() == 1);
    CHECK(open[0].starts_with("5:8 capability 'gh' limits neither methods nor path_prefixes: "));
    CHECK(count(lint(broker_policy("", "methods = [\"GET\"]\n")), "capability-unrestricted") == 0);
    const std::vector<std::string> any_method =
        found(lint(broker_policy("", "path_prefixes = [\"/repos/a/\"]\n")), "capability-unrestricted");
    REQUIRE(any_method.size() == 1);
    CHECK(any_method[0].starts_with("5:8 capability 'gh' lists path_prefixes but no methods: "));
    CHECK(contains(any_method[0], "the broker refuses TRACE, TRACK and CONNECT anyway"));
}

TEST_CASE("allowed-host-unused: an allowed host no capability uses")
{
    const std::vector<std::string> unused =
        found(lint(broker_policy("", "methods = [\"GET\"]\n", "\"*.github.com\", \"registry.npmjs.org\"")),
              "allowed-host-unused");
    REQUIRE(unused.size() == 1);
    CHECK(unused[0] ==
          "3:34 allowed_hosts: 'registry.npmjs.org' matches no capability's host: the broker only "
          "connects to those, so it allows nothing; remove it or fix the capability's host");
}

TEST_CASE("secret-in-policy: a secret the broker's front-end reports is not reported again")
{
    const Diagnostics diags =
        lint(broker_policy("", "methods = [\"GET\"]\nvalue = \"ghp_0000EXAMPLE0000EXAMPLE0000EXAMPLE0000\"\n"));
    const std::vector<std::string> secrets = found(diags, "secret-in-policy");
    REQUIRE(secrets.size() == 1);
    CHECK(secrets[0].starts_with("9:1 'value' would write the secret in the policy"));
    const Diagnostics named = lint("version = 1\n[broker]\nallowed_hosts = [\"api.github.com\"]\n"
                                   "token_env = \"ghp_0000EXAMPLE0000EXAMPLE0000EXAMPLE0000\"\n" +
                                   std::string("[[broker.capability]]\nname = \"gh\"\nhost = \"api.github.com\"\n"
                                               "value_env = \"GITHUB_TOKEN\"\n"));
    REQUIRE(found(named, "secret-in-policy").size() == 1);
    CHECK(found(named, "secret-in-policy")[0].starts_with("4:14 'token_env' names the launcher's variable"));
}

TEST_CASE("lint rules: a policy the front-end refuses gets only the text rules")
{
    HomeGuard home("/home/lint");
    const Diagnostics diags = lint("version = 1\n[filesystem]\nwritable_roots = [\"~\"]\nbogus = 1\n"
                                   "[process]\nharden_syscalls = false\n");
    CHECK(count(diags, "unknown-key") == 1);
    CHECK(count(diags, "writable-root-too-broad") == 0);
    CHECK(count(diags, "harden-syscalls-off") == 0);
}

TEST_CASE("lint rules: the examples are clean")
{
    for (const char *name : {"agent.toml", "strict.toml", "broker.toml"}) {
        const std::string file = std::string(TARTAROS_SOURCE_DIR) + "/examples/" + name;
        std::string text, err;
        REQUIRE(read_file(file, text, err));
        CHECK_MESSAGE(lint(text, file).all().empty(), name);
    }
}

// --- the registry ----------------------------------------------------------------------------

TEST_CASE("registry: unique kebab-case ids with a summary each")
{
    std::set<std::string_view> ids;
    for (const LintRule &rule : lint_rule_registry()) {
        CAPTURE(rule.id);
        CHECK(ids.insert(rule.id).second);
        CHECK(!rule.id.empty());
        CHECK(std::all_of(rule.id.begin(), rule.id.end(),
                          [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }));
        CHECK(rule.id.front() != '-');
        CHECK(rule.id.back() != '-');
        CHECK(rule.id.find("--") == std::string_view::npos);
        CHECK(!rule.summary.empty());
    }
}
