// compiler/lint/lint_rules.cpp — the rule registry, lint_policy_rules, and the secret rule's
// reporting (the detector is secret_detector.cpp).
#include "lint_rules.h"

#include <algorithm>

#include "lint_rules_parts.h"
#include "secret_detector.h"
#include "toml_schema.h"

namespace tartaros {

const std::vector<LintRule> &lint_rule_registry()
{
    static const std::vector<LintRule> rules = {
        // The TOML front-end (frontend_toml.cpp, toml_schema.cpp, frontend_process.cpp,
        // paths.cpp, domains.cpp, units.cpp).
        {"toml-syntax", Severity::Error, "the file is not valid TOML"},
        {"unreadable-policy", Severity::Error, "the policy file cannot be read"},
        {"unresolvable-policy-dir", Severity::Error,
         "the policy's directory cannot be found because the current directory is gone"},
        {"missing-version", Severity::Error, "the policy has no 'version = 1'"},
        {"unsupported-version", Severity::Error, "the policy's version is not one this compiler reads"},
        {"unknown-key", Severity::Error, "a key this version does not know, with a \"did you mean\""},
        {"wrong-type", Severity::Error, "a value of the wrong type (a string where a list is expected...)"},
        {"invalid-value", Severity::Error, "a value outside the ones a key accepts"},
        {"unsupported", Severity::Error, "a key or section this version or Linux does not support"},
        {"glob", Severity::Error, "a glob in a path, or a glob list: Linux has no glob engine here"},
        {"invalid-path", Severity::Error, "a path that cannot be used: empty, '~user', too long, NUL or newline"},
        {"duplicate", Severity::Warning, "the same entry twice in one list; the later copy is ignored"},
        {"domain-syntax", Severity::Error, "a domain with a scheme, path or port, or not a host name"},
        {"domain-too-broad", Severity::Error, "a domain pattern anyone can register names under ('*', '*.com')"},
        {"host-address", Severity::Error, "a 'hosts' address that is not an IP address"},
        {"invalid-port", Severity::Error, "a port outside 1-65535"},
        {"port-conflict", Severity::Error, "a port both relayed out and exposed, or the proxy's or broker's own port"},
        {"listener-count", Severity::Error,
         "more local_ports than the sandbox can hand over with the proxy and broker"},
        {"env-name", Severity::Error, "not a valid environment variable name"},
        {"limit-range", Severity::Error, "a process limit outside the range the kernel accepts"},
        {"invalid-size", Severity::Error, "not a size such as \"512M\" or \"2GiB\""},
        {"invalid-duration", Severity::Error, "not a duration such as \"90s\" or \"1h30m\""},
        {"invalid-cpu", Severity::Error, "not a CPU amount such as 0.5, 2 or \"50%\""},
        {"invalid-rlimit", Severity::Error, "not a resource limit value"},
        {"rlimit-order", Severity::Error, "a resource limit whose soft value is above its hard value"},
        {"timeout-grace", Severity::Error, "'timeout_grace' without 'timeout'"},
        {"missing-key", Severity::Error, "a key the table needs is absent or empty ([broker] allowed_hosts...)"},
        {"header-name", Severity::Error, "not an HTTP header name"},
        {"header-reserved", Severity::Error, "a header the broker controls (Host, Content-Length, Proxy-*...)"},
        {"header-conflict", Severity::Error, "a capability's header is the broker's auth_header"},
        {"capability-name", Severity::Error, "a capability name that is not 1-64 of [A-Za-z0-9._-]"},
        {"capability-duplicate", Severity::Error, "two capabilities with the same name"},
        {"capability-count", Severity::Error, "a [broker] without capabilities, or with more than 64"},
        {"capability-host", Severity::Error, "a capability host that is not a host name or IP address"},
        {"capability-host-not-allowed", Severity::Error,
         "a capability host that [broker] allowed_hosts does not match"},
        {"value-format", Severity::Error, "a value_format without {value} exactly once, or not printable ASCII"},
        {"http-method", Severity::Error, "not an upper-case HTTP method"},
        {"path-prefix", Severity::Error, "a path prefix that cannot match a request's path"},
        {"ca-file", Severity::Error, "a ca_file that is not an existing regular file"},
        {"broker-env-exposed", Severity::Error,
         "a variable holding a broker secret that [env] would also hand to the agent"},
        {"broker-env-reserved", Severity::Error, "[env] names a variable the broker sets"},
        {"credentials-dir", Severity::Error, "a filesystem rule that takes the broker's credentials directory"},
        {"broker-env-stripped", Severity::Note, "inherit = true with a broker: its variables are removed all the same"},
        // The .tart front-end (frontend_dsl*.cpp); its settings' values are checked by the
        // TOML front-end's readers, under the ids above.
        {"dsl-syntax", Severity::Error,
         "a .tart file that does not parse: a character, string or statement out of place"},
        {"duplicate-setting", Severity::Error,
         "a key that takes one value, or a table entry, set twice in the policy (its included files too)"},
        {"include-cycle", Severity::Error, "a file that includes itself, directly or through other files"},
        {"include-duplicate", Severity::Error, "the same file included twice"},
        {"duplicate-group", Severity::Error, "two groups with one name"},
        {"unknown-group", Severity::Error, "@name of no group, with a \"did you mean\""},
        {"group-kind", Severity::Error, "a paths group where domains go or the reverse, or a group where no list can"},
        {"group-cycle", Severity::Error, "a group that contains itself, directly or through other groups"},
        {"group-size", Severity::Error, "a group or a list that expands to more than 4096 entries"},
        {"unknown-syscall", Severity::Error, "a syscall rule naming no x86_64 syscall, with a \"did you mean\""},
        {"unknown-constant", Severity::Error,
         "a syscall condition naming an unknown constant, with a \"did you mean\""},
        {"syscall-condition", Severity::Error,
         "a syscall condition the filter cannot test: argument, 32-bit range, mask, two on one argument"},
        {"syscall-action", Severity::Error, "a syscall rule's errno that is not 1-4095 or an errno name"},
        {"syscall-rule-count", Severity::Error, "more syscall rules than the filter can hold (256)"},
        // The lowering and the verifier (lower*.cpp, verify*.cpp).
        {"write-deny-outside-roots", Severity::Warning,
         "a write deny outside every writable root: it is read-only already"},
        {"symlink-in-path", Severity::Warning, "a deny written through a symlink: only the mount layer enforces it"},
        {"mount-only", Severity::Note, "a deny inside a writable root rests on the mount layer alone"},
        {"private-tmp-hides", Severity::Note, "a deny beneath /tmp that the private /tmp makes moot"},
        {"private-dir", Severity::Error,
         "a private dir that cannot be placed, or a rule that lies in one (its content is the run's own)"},
        {"git-files-protected", Severity::Note,
         "a write-denied git hooks directory: git's config, commondir, config.worktree and worktrees/ are too"},
        {"symlink-target-protected", Severity::Note,
         "a symlink in a write-denied directory leads into a writable root: its target is write-denied too"},
        {"proxy-key-unused", Severity::Warning, "a proxy setting while allow_domains is empty"},
        {"plan-size", Severity::Error, "the plan would exceed the format's limits"},
        {"seccomp-build", Severity::Error, "libseccomp could not build the filter"},
        {"plan-verification", Severity::Error, "internal error: the compiled plan failed its own verification"},
        // The lint rules (lint_rules*.cpp).
        {"secret-in-policy", Severity::Error, "a token, key or password written in the policy"},
        {"path-leaves-policy-dir", Severity::Warning, "a relative path that climbs out of the policy's directory"},
        {"path-allowed-and-denied", Severity::Warning,
         "the same path allowed and denied: the deny wins and the allow does nothing"},
        {"allow-no-effect", Severity::Warning, "a read allow or writable root that grants nothing new"},
        {"writable-root-too-broad", Severity::Error, "a writable root that holds '/' or the home directory"},
        {"plan-writable", Severity::Error, "a plan next to the policy that the sandbox could rewrite"},
        {"policy-writable", Severity::Error, "the policy file inside a writable root, through a symlink"},
        {"shell-paths-denied", Severity::Warning, "a read deny that hides what a shell needs to start"},
        {"domain-allowed-and-denied", Severity::Warning,
         "an allowed domain that a deny covers whole: it allows nothing"},
        {"local-ports-with-domains", Severity::Warning,
         "local_ports with allow_domains: relayed services bypass the proxy's rules"},
        {"max-processes-too-low", Severity::Warning, "max_processes too low to run a shell"},
        {"harden-syscalls-off", Severity::Warning, "harden_syscalls = false: the seccomp hardening is off"},
        {"env-inherit", Severity::Warning, "inherit = true passes the launcher's whole environment, tokens too"},
        {"broker-allow-internal", Severity::Warning,
         "allow_internal = true with an upstream reached by name: DNS can aim a credential inside"},
        {"capability-unrestricted", Severity::Warning,
         "a capability without methods or path_prefixes: the agent gets the whole credential"},
        {"allowed-host-unused", Severity::Warning, "an allowed_hosts entry that matches no capability's host"},
        // The syscall rules of a .tart policy (syscall_rule_checks.cpp, run by the lowering).
        {"syscall-rule-breaks-start", Severity::Error,
         "a syscall rule on execve, exit, exit_group, rt_sigreturn or restart_syscall: no run could work"},
        {"syscall-rule-shadowed", Severity::Warning,
         "a syscall rule that never applies: a built-in rule or an earlier rule decides every call it covers"},
    };
    return rules;
}

namespace {

// The line and column (code points, as toml++ and the caret count them) of byte `offset`.
SourcePos position_of(const std::string &text, size_t offset, const std::string &file)
{
    uint32_t line = 1, col = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
            ++col;
        }
    }
    return {file, line, col};
}

bool comes_before_or_at(const toml::source_position &a, const SourcePos &b)
{
    return a.line != b.line ? a.line < b.line : a.column <= b.col;
}

bool within(const toml::source_region &region, const SourcePos &pos)
{
    return comes_before_or_at(region.begin, pos) && !comes_before_or_at(region.end, pos);
}

std::string secret_message(std::string_view what)
{
    return "this looks like " + std::string(what) +
        ": anyone who can read this file or its history has it; revoke it, delete it here, and pass it at "
        "run time from the launcher's environment: through the credential broker ([broker] token_env and a "
        "capability's value_env), which keeps it out of the sandbox, or [env] passthrough";
}

struct Finding {
    SourcePos pos;
    std::string what;
};

// Every string under a key that names a secret, wherever it is in the document (unknown
// keys and [env] set included), unless a text match already points inside it.
void find_named_secrets(const toml::node &node, const std::string &file, const std::vector<Finding> &in_text,
                        std::vector<Finding> &out)
{
    auto visit = [&](std::string_view key, const toml::node &value) {
        if (const toml::value<std::string> *text = value.as_string()) {
            if (key.empty() || !names_a_secret(key) || !looks_like_secret_value(text->get()))
                return;
            const toml::source_region &region = value.source();
            if (std::any_of(in_text.begin(), in_text.end(), [&](const Finding &f) { return within(region, f.pos); }))
                return;
            out.push_back({{file, static_cast<uint32_t>(region.begin.line), static_cast<uint32_t>(region.begin.column)},
                           "a secret (its key " + quoted(key) + " says so)"});
            return;
        }
        find_named_secrets(value, file, in_text, out);
    };
    if (const toml::table *table = node.as_table()) {
        for (auto &&[key, value] : *table)
            visit(key.str(), value);
    } else if (const toml::array *array = node.as_array()) {
        for (const toml::node &element : *array)
            visit("", element);
    }
}

std::optional<toml::table> parse_document(const std::string &text, const std::string &file)
{
    try {
        return toml::parse(text, file);
    } catch (const toml::parse_error &) {
        return std::nullopt;  // the front-end has reported it
    }
}

}  // namespace

void lint_secret_rules(const std::string &text, const std::string &file, const toml::table *document,
                       Diagnostics &diags)
{
    std::vector<Finding> findings;
    for (const SecretMatch &m : find_secrets_in_text(text))
        findings.push_back({position_of(text, m.offset, file), m.what});
    if (document != nullptr) {
        std::vector<Finding> named;
        find_named_secrets(*document, file, findings, named);
        findings.insert(findings.end(), named.begin(), named.end());
    }
    std::stable_sort(findings.begin(), findings.end(), [](const Finding &a, const Finding &b) {
        return a.pos.line != b.pos.line ? a.pos.line < b.pos.line : a.pos.col < b.pos.col;
    });
    const std::vector<Diagnostic> earlier = diags.all();
    for (const Finding &f : findings) {
        const bool reported = std::any_of(earlier.begin(), earlier.end(), [&](const Diagnostic &d) {
            return d.rule_id == "secret-in-policy" && d.pos.file == f.pos.file && d.pos.line == f.pos.line;
        });
        if (reported)
            continue;
        diags.error(f.pos, secret_message(f.what), "secret-in-policy");
        diags.redact(f.pos.file, f.pos.line, f.pos.col);
    }
}

void lint_written_paths(const std::string &text, const std::string &file, const Policy &policy, Diagnostics &diags)
{
    const std::optional<toml::table> document = parse_document(text, file);
    if (document && !policy.source_path.empty())
        check_paths_leave_directory(policy, file, *document, diags);
}

void lint_policy_rules(const std::string &text, const std::string &file, const Policy *policy, Diagnostics &diags)
{
    const std::optional<toml::table> document = parse_document(text, file);
    lint_secret_rules(text, file, document ? &*document : nullptr, diags);
    if (policy == nullptr || !document)
        return;
    lint_filesystem_rules(*policy, file, *document, diags);
    lint_network_process_env_rules(*policy, diags);
    lint_broker_rules(*policy, diags);
}

}  // namespace tartaros
