// compiler/model/policy_keys.cpp — the table of policy_keys.h. The columns type, default and
// doc are docs/policy.md's key reference as written there, in Markdown.
#include "policy_keys.h"

#include <stdexcept>

namespace tartaros {

namespace {

using S = KeyShape;
using R = KeyRole;

constexpr PolicySection kSections[] = {
    {"", "", ""},
    {"filesystem", "[filesystem]", ""},
    {"process", "[process]", ""},
    {"network", "[network]", ""},
    {"env", "[env]", ""},
    {"broker", "[broker]", "the credential broker ([broker.md](broker.md))"},
    {"broker.capability", "[[broker.capability]]", "one table per credential, 1–64"},
};

constexpr PolicyKey kKeys[] = {
    {"", "version", S::Scalar, R::None, "integer", "required", "must be `1`", "version = 1"},
    {"", "include", S::List, R::Path, "paths", "`[]`",
     "`.tart` files whose groups, settings and syscall rules add to this policy, relative to its "
     "directory (see [Policies in .tart](#policies-in-tart))",
     "include = [\"groups.tart\"]"},
    {"filesystem", "read_scope", S::Scalar, R::None, "`\"all\"` or `\"granted\"`", "`\"all\"`",
     "`all`: every path is readable (read-only) except `read_denies`. `granted`: only the list below "
     "is",
     "read_scope = \"granted\""},
    {"filesystem", "read_allows", S::List, R::Path, "paths", "`[]`",
     "readable. Under `granted`: extra trees (`~/.cargo`). Under `all`: re-opens a path inside a "
     "`read_deny`",
     "read_allows = [\"~/.cargo\", \"~/.rustup\"]"},
    {"filesystem", "read_denies", S::List, R::Path, "paths", "`[]`",
     "not readable; a directory's names are hidden too. An entry may be `{ path = \"...\", type = "
     "\"file\" }` (see [`materialize`](#materialize))",
     "read_denies = [\"~/.ssh\", { path = \"~/.netrc\", type = \"file\" }]"},
    {"filesystem", "writable_roots", S::List, R::Path, "paths", "`[]`",
     "readable and writable, with everything beneath. Must exist when the sandbox starts (else exit "
     "78)",
     "writable_roots = [\".\", \"~/.cache/pip\"]"},
    {"filesystem", "write_denies", S::List, R::Path, "paths", "`[]`",
     "read-only even inside a writable root; its ancestors up to the root cannot be renamed or "
     "removed. An entry may be `{ path = \"...\", type = \"file\" }` (see [`materialize`](#materialize)). "
     "A git directory's `hooks` protects git's `config`, `commondir`, `config.worktree` and "
     "`worktrees/` with it; a symlink directly in a denied directory protects its target (see "
     "[Paths](#paths))",
     "write_denies = [\".git/hooks\", { path = \".env\", type = \"file\" }]"},
    {"filesystem", "materialize", S::Scalar, R::None, "boolean", "`false`",
     "what happens to a deny target inside a writable root that is absent at start: see below", "materialize = true"},
    {"filesystem", "private_tmp", S::Scalar, R::None, "boolean", "`false`",
     "`true`: a private writable tmpfs on `/tmp`, discarded after the run, into which the writable "
     "roots and read allows beneath `/tmp` are bound from the host. `false`: the host's `/tmp`, see "
     "below",
     "private_tmp = true"},
    {"filesystem", "private_dirs", S::List, R::Path, "paths", "`[]`",
     "directories that each get an empty, writable, private tmpfs for the run, like the private "
     "`/tmp`: what the host has there is hidden, what the sandbox writes there is discarded after "
     "the run, and the sandbox's unix sockets may live there (`tartaros run --private-dir`). Each "
     "must be a directory when compiling; see [Private directories](#private-directories)",
     "private_dirs = [\"/var/tmp\"]"},
    {"process", "isolate_pids", S::Scalar, R::None, "boolean", "`true`",
     "private PID namespace: the command is PID 2 under a small init, host processes are invisible",
     "isolate_pids = true"},
    {"process", "isolate_proc", S::Scalar, R::None, "boolean", "`true`",
     "a fresh `/proc` of that namespace (needs `isolate_pids`; without it a warning says the host's "
     "`/proc` stays)",
     "isolate_proc = true"},
    {"process", "harden_syscalls", S::Scalar, R::None, "boolean", "`true`",
     "the seccomp hardening deny list of [seccomp.md](seccomp.md) (`tartaros run --seccomp-strict`). "
     "`false` keeps only the baseline",
     "harden_syscalls = true"},
    {"process", "max_processes", S::Scalar, R::None, "integer", "none",
     "tasks (threads count) the command and everything it starts may have at once, 1–4194304 "
     "(`--max-procs`): a fork past it fails with `EAGAIN`. cgroup `pids.max`, or `RLIMIT_NPROC` in "
     "the sandbox's user namespace where no cgroup can be made, see "
     "[enforcement.md](enforcement.md#resource-limits-and-lifecycle)",
     "max_processes = 512"},
    {"process", "memory_max", S::Scalar, R::None, "size", "none",
     "memory of the whole sandbox, e.g. `\"512M\"`, `\"2GiB\"` (K/M/G/T are powers of 1024), at least 1 "
     "MiB; swap is not extra. The kernel's OOM killer ends a process past it",
     "memory_max = \"2GiB\""},
    {"process", "cpu_max", S::Scalar, R::None, "CPUs", "none",
     "CPU time per wall-clock time of the whole sandbox: `0.5`, `2`, or `\"50%\"` (of one CPU); at "
     "least 0.01",
     "cpu_max = \"150%\""},
    {"process", "timeout", S::Scalar, R::None, "duration", "none",
     "wall clock from the start: `90`, `\"90s\"`, `\"5m\"`, `\"1h30m\"`. Then SIGTERM to the command, and "
     "SIGKILL to everything after `timeout_grace`; exit 137",
     "timeout = \"1h30m\""},
    {"process", "timeout_grace", S::Scalar, R::None, "duration", "`\"5s\"`", "only with `timeout`, at most 1 h",
     "timeout = \"30m\"\ntimeout_grace = \"10s\""},
    {"process", "rlimits", S::Table, R::None, "table", "`{ core = 0 }`",
     "resource limits of the command: `{ nofile = 1024, fsize = \"1G\", stack = \"8M\" }`; a value is an "
     "integer, a size (byte limits), `\"unlimited\"`, or `{ soft = X, hard = Y }`. Names: `cpu fsize "
     "data stack core nproc nofile memlock as locks sigpending msgqueue nice rtprio rttime`. Never "
     "raised above the launcher's own hard limit (lowered to it)",
     "rlimits = { nofile = 1024, fsize = \"1G\", core = 0 }"},
    {"network", "allow_domains", S::List, R::Domain, "names", "`[]`",
     "HTTP(S) through the egress proxy to these hosts: an exact name (`github.com`), an IP literal, "
     "or `*.suffix` (strict subdomains). `*`, `*.com`, `*.co.uk`, `*.github.io` (a public suffix, or "
     "one with public suffixes beneath it) are refused. `tartaros run --allow-domain`",
     "allow_domains = [\"github.com\", \"*.githubusercontent.com\"]"},
    {"network", "deny_domains", S::List, R::Domain, "names", "`[]`", "refused even when an allow pattern matches",
     "allow_domains = [\"*.example.com\"]\ndeny_domains = [\"login.example.com\"]"},
    {"network", "domain_ports", S::List, R::None, "ports", "`[443, 80]`", "destination ports the proxy may connect to",
     "domain_ports = [443]"},
    {"network", "hosts", S::Table, R::None, "table", "`{}`",
     "`{ \"name\" = \"address\" }`: the proxy resolves `name` only to `address`, and the internal-address "
     "rule does not apply to it",
     "allow_domains = [\"git.internal\"]\nhosts = { \"git.internal\" = \"10.0.0.5\" }"},
    {"network", "proxy_port", S::Scalar, R::None, "port", "`3128`",
     "where the proxy listens inside the sandbox, on 127.0.0.1", "proxy_port = 8080"},
    {"network", "local_ports", S::List, R::None, "ports", "`[]`",
     "the host's 127.0.0.1:PORT, reachable at 127.0.0.1:PORT inside (`tartaros run --port`): a "
     "database, a dev server on the host",
     "local_ports = [5432]"},
    {"network", "expose_ports", S::List, R::None, "ports", "`[]`",
     "127.0.0.1:PORT inside (the agent's dev server), reachable at the host's 127.0.0.1:PORT while "
     "the run lasts",
     "expose_ports = [3000]"},
    {"network", "deny_unix", S::Scalar, R::None, "boolean", "`false`",
     "refuse every `AF_UNIX` socket and socketpair (`tartaros run --deny-unix`)", "deny_unix = true"},
    {"env", "inherit", S::Scalar, R::None, "boolean", "`false`",
     "`true`: start from the launcher's whole environment. `false`: from nothing", "inherit = false"},
    {"env", "passthrough", S::List, R::None, "names",
     "`PATH HOME TERM LANG LC_ALL USER LOGNAME SHELL TZ` when the key is absent",
     "variables copied from the launcher (when set there)", "passthrough = [\"PATH\", \"HOME\", \"TERM\", \"LANG\"]"},
    {"env", "set", S::Table, R::None, "table of strings", "`{}`",
     "variables set, after the passthrough: `set = { CI = \"1\" }`", "set = { CI = \"1\", PIP_NO_INPUT = \"1\" }"},
    {"broker", "port", S::Scalar, R::None, "port", "`3129`",
     "where the broker listens inside the sandbox, on 127.0.0.1 (`TARTAROS_BROKER_URL`). `0` is "
     "refused: the URL is in the agent's environment before the run starts",
     "port = 3129"},
    {"broker", "auth_header", S::Scalar, R::None, "header name", "`\"X-Broker-Auth\"`",
     "the header that carries the broker's token", "auth_header = \"X-Broker-Auth\""},
    {"broker", "token_env", S::Scalar, R::None, "variable name", "none",
     "the launcher's variable that holds the token; unset: a random 256-bit token per run "
     "(recommended)",
     "token_env = \"AGENT_BROKER_TOKEN\""},
    {"broker", "allowed_hosts", S::List, R::Domain, "names", "required",
     "the only hosts the broker connects to: exact names, IP literals or `*.suffix`, checked like "
     "`allow_domains`; every capability's host must match one",
     "allowed_hosts = [\"api.github.com\", \"registry.npmjs.org\"]"},
    {"broker", "allow_internal", S::Scalar, R::None, "boolean", "`false`",
     "`true`: upstreams may resolve to loopback, private, link-local, CGNAT or ULA addresses",
     "allow_internal = false"},
    {"broker", "ca_file", S::Scalar, R::Path, "path", "none",
     "extra CA certificates (one PEM file) for the upstreams' TLS, besides the system store; relative "
     "to the policy's directory; must exist when compiling (`\"\"` = none)",
     "ca_file = \"corp-ca.pem\""},
    {"broker.capability", "name", S::Scalar, R::None, "string", "required",
     "the first path segment: `$TARTAROS_BROKER_URL/<name>/<path>`; 1–64 of `[A-Za-z0-9._-]`, unique",
     "name = \"github\""},
    {"broker.capability", "host", S::Scalar, R::None, "host[:port]", "required",
     "the upstream, always HTTPS: `api.github.com`, `git.example.com:8443`, `[2001:db8::1]:8443`; "
     "port 443 by default",
     "host = \"api.github.com\""},
    {"broker.capability", "header", S::Scalar, R::None, "header name", "`\"Authorization\"`",
     "the header the credential goes into; never one that frames or routes a request (`Host`, "
     "`Content-Length`, `Transfer-Encoding`, `Connection`, `Keep-Alive`, `TE`, `Trailer`, `Upgrade`, "
     "`Expect`, `Proxy-*`), nor `auth_header`",
     "header = \"Authorization\""},
    {"broker.capability", "value_env", S::Scalar, R::None, "variable name", "required",
     "the launcher's variable that holds the credential", "value_env = \"GITHUB_TOKEN\""},
    {"broker.capability", "value_format", S::Scalar, R::None, "string", "`\"{value}\"`",
     "the header's value, `{value}` exactly once: `\"Bearer {value}\"`", "value_format = \"Bearer {value}\""},
    {"broker.capability", "methods", S::List, R::None, "strings", "any",
     "allowed methods, upper case: `[\"GET\", \"POST\"]`", "methods = [\"GET\", \"POST\"]"},
    {"broker.capability", "path_prefixes", S::List, R::None, "paths", "any",
     "allowed paths: a prefix allows itself and what continues after a `/` (`/repos/a` allows "
     "`/repos/a/x`, not `/repos/ab`); one ending in `/` allows whatever starts with it",
     "path_prefixes = [\"/repos/acme/\"]"},
};

// A Markdown table row: an empty cell is written "| |", as docs/policy.md writes it.
std::string row(std::initializer_list<std::string_view> cells)
{
    std::string line = "|";
    for (std::string_view cell : cells)
        line += cell.empty() ? std::string(" |") : " " + std::string(cell) + " |";
    return line + "\n";
}

}  // namespace

std::span<const PolicySection> policy_sections()
{
    return kSections;
}

const PolicySection &policy_section(std::string_view section)
{
    for (const PolicySection &s : kSections)
        if (s.name == section)
            return s;
    throw std::logic_error("no policy section '" + std::string(section) + "' in policy_keys.cpp");
}

std::span<const PolicyKey> policy_keys()
{
    return kKeys;
}

std::vector<const PolicyKey *> section_keys(std::string_view section)
{
    std::vector<const PolicyKey *> keys;
    for (const PolicyKey &k : kKeys)
        if (k.section == section)
            keys.push_back(&k);
    return keys;
}

const PolicyKey *find_policy_key(std::string_view section, std::string_view name)
{
    for (const PolicyKey &k : kKeys)
        if (k.section == section && k.name == name)
            return &k;
    return nullptr;
}

std::vector<std::string> known_names(std::string_view section)
{
    std::vector<std::string> names;
    for (const PolicyKey *k : section_keys(section))
        names.emplace_back(k->name);
    const std::string prefix = section.empty() ? "" : std::string(section) + ".";
    for (const PolicySection &s : kSections) {
        const std::string_view name = s.name;
        if (!name.empty() && name.starts_with(prefix) && name.substr(prefix.size()).find('.') == std::string_view::npos)
            names.emplace_back(name.substr(prefix.size()));
    }
    return names;
}

std::string policy_key_reference()
{
    std::string table = row({"key", "type", "default", "meaning"}) + "|---|---|---|---|\n";
    for (const PolicySection &s : kSections) {
        if (!s.name.empty())
            table += row({"**`" + std::string(s.header) + "`**", "", "", s.doc});
        for (const PolicyKey *k : section_keys(s.name))
            table += row({"`" + std::string(k->name) + "`", k->type, k->default_text, k->doc});
    }
    return table;
}

}  // namespace tartaros
