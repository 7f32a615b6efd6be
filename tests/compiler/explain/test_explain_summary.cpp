// Tests of compiler/explain/explain_summary: a compiled plan on one screen (a line per concern,
// lists cut after six names with the count of the rest), and the refusal of an invalid plan.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "explain_summary.h"
#include "fake_host.h"
#include "frontend_toml.h"
#include "parsed_policy.h"
#include "verify.h"

using namespace tartaros;

namespace {

std::string summary_of(const std::string &toml)
{
    Parsed parsed;
    parsed.policy = parse_toml_policy_text(toml, "/w/p.toml", parsed.diags);
    REQUIRE_MESSAGE(parsed.policy, summary(parsed.diags));
    FakeHost host;
    host.kinds["/w"] = HostKind::Directory;
    LowerOptions options{"", &host};
    options.plan_cache_dir = "";
    const std::vector<uint8_t> plan = lower_policy(*parsed.policy, options, parsed.diags);
    REQUIRE_MESSAGE(!plan.empty(), summary(parsed.diags));
    std::ostringstream out;
    std::string err;
    REQUIRE(explain_plan_summary(plan, out, err));
    return out.str();
}

bool has_line(const std::string &text, const std::string &line)
{
    return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("explain --summary: a line per concern, lists cut after six names")
{
    const std::string text = summary_of(R"(version = 1
[filesystem]
read_denies = ["/w/a", "/w/b", "/w/c", "/w/d", "/w/e", "/w/f", "/w/g", "/w/h"]
writable_roots = ["/w"]
write_denies = ["/w/.vscode"]
[network]
allow_domains = ["example.com", "*.example.org"]
deny_domains = ["bad.example.com"]
local_ports = [5432]
[process]
max_processes = 64
timeout = "10m"
[env]
passthrough = ["PATH"]
set = { A = "1" }
)");
    CAPTURE(text);
    CHECK(text.find("plan of /w/p.toml (version 1, tartaros-compile ") == 0);
    CHECK(has_line(text, "read:     everything, read-only, but 8 hidden: /w/a, /w/b, /w/c, /w/d, /w/e, /w/f, +2 more"));
    CHECK(has_line(text, "write:    1 writable roots: /w"));
    CHECK(text.find("          read-only inside them: /w/.vscode; and ") != std::string::npos);
    CHECK(
        has_line(text, "network:  HTTP(S) through the proxy at 127.0.0.1:3128 to 2 names: example.com, *.example.org"));
    CHECK(has_line(text, "          never: bad.example.com"));
    CHECK(has_line(text, "          host ports reachable inside: 5432; exposed to the host: none"));
    CHECK(text.find("syscalls: ") != std::string::npos);
    CHECK(text.find("; max 64 tasks; timeout 600 s\n") != std::string::npos);
    CHECK(text.find("env:      built from nothing: ") != std::string::npos);
    size_t lines = 0;
    for (char c : text)
        lines += c == '\n';
    CHECK(lines <= 14);  // one screen, whatever the policy's size
}

TEST_CASE("explain --summary: no network, a granted read scope")
{
    const std::string text =
        summary_of("version = 1\n[filesystem]\nread_scope = \"granted\"\nread_allows = [\"/w\"]\n");
    CAPTURE(text);
    CHECK(text.find("read:     only the system paths and ") != std::string::npos);
    CHECK(has_line(text, "network:  none: a private namespace with loopback only"));
}

TEST_CASE("explain --summary: an invalid plan is refused with the reader's reason")
{
    std::ostringstream out;
    std::string err;
    CHECK_FALSE(explain_plan_summary({1, 2, 3}, out, err));
    CHECK_FALSE(err.empty());
    CHECK(out.str().empty());
}
