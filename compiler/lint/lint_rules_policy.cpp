// compiler/lint/lint_rules_policy.cpp — the lint rules on [network], [process] and [env]
// (docs/lint-rules.md).
#include <algorithm>

#include "lint_rules_parts.h"
#include "names.h"
#include "toml_schema.h"

namespace tartaros {

namespace {

// Whether deny pattern `deny` matches every name allow pattern `allow` matches (both
// normalised: an exact name, an IP literal, or "*.suffix").
bool deny_covers(const std::string &deny, const std::string &allow)
{
    if (deny == allow)
        return true;
    if (!allow.starts_with("*."))
        return tproxy::pattern_matches(deny, allow);
    // "*.t" is covered by "*.s" when t is s or a subdomain of it.
    return deny.starts_with("*.") && tproxy::pattern_matches(deny, allow.substr(2));
}

void check_domains(const NetworkPolicy &network, Diagnostics &diags)
{
    for (const Located<std::string> &allow : network.allow_domains) {
        auto deny = std::find_if(network.deny_domains.begin(), network.deny_domains.end(),
                                 [&](const Located<std::string> &d) { return deny_covers(d.value, allow.value); });
        if (deny == network.deny_domains.end())
            continue;
        diags.warning(allow.pos,
                      "allow_domains: " + quoted(allow.value) + " is denied whole by " + quoted(deny->value) +
                          " in deny_domains (" + line_of(deny->pos, allow.pos) +
                          "): a deny wins, so this entry allows nothing; remove one of the two",
                      "domain-allowed-and-denied");
    }
}

void check_local_ports(const NetworkPolicy &network, Diagnostics &diags)
{
    if (network.local_ports.empty() || network.allow_domains.empty())
        return;
    diags.warning(network.local_ports.front().pos,
                  "local_ports together with allow_domains (" +
                      line_of(network.allow_domains.front().pos, network.local_ports.front().pos) +
                      "): the relayed host services are reached directly, not through the proxy, so neither its "
                      "allow-list nor its internal-address rule covers what they connect to for the agent, and "
                      "what the agent reads from them can leave through the allowed domains; relay only services "
                      "that make no connections for their clients, or use two policies",
                  "local-ports-with-domains");
}

// A shell and a pipeline of two commands are three tasks; a command substitution in it adds
// a fourth. Threads count as tasks too.
constexpr uint64_t kShellTasks = 4;

void check_process(const ProcessPolicy &process, Diagnostics &diags)
{
    if (process.max_processes && process.max_processes->value < kShellTasks) {
        const std::string limit = std::to_string(process.max_processes->value);
        diags.warning(process.max_processes->pos,
                      "max_processes = " + limit +
                          " cannot run a shell: the shell and each command of a pipeline are a task each ('a | b' "
                          "needs 3), a command substitution one more, and threads count too, so forks fail with "
                          "EAGAIN; allow at least " +
                          std::to_string(kShellTasks) + ", and 64 or more for builds and test suites",
                      "max-processes-too-low");
    }
    if (!process.harden_syscalls.value)
        diags.warning(process.harden_syscalls.pos,
                      "harden_syscalls = false keeps only the baseline filter: ptrace, bpf, userfaultfd, keyctl, "
                      "mount, new namespaces (where a process regains every capability) and TIOCSTI into your "
                      "terminal become available to the agent; remove the line unless a tool needs one of them",
                      "harden-syscalls-off");
}

void check_env(const EnvPolicy &env, Diagnostics &diags)
{
    if (!env.inherit.value)
        return;
    diags.warning(env.inherit.pos,
                  "inherit = true copies the launcher's whole environment into the sandbox, tokens included "
                  "(GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, NPM_TOKEN...); set inherit = false and list what the "
                  "agent needs in passthrough",
                  "env-inherit");
}

}  // namespace

void lint_network_process_env_rules(const Policy &policy, Diagnostics &diags)
{
    check_domains(policy.network, diags);
    check_local_ports(policy.network, diags);
    check_process(policy.process, diags);
    check_env(policy.env, diags);
}

}  // namespace tartaros
