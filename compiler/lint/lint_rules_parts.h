// compiler/lint/lint_rules_parts.h — the groups of lint rules lint_policy_rules runs (internal to
// lint_rules*.cpp; lint_rules.h is the interface).
#pragma once

#include <string>

#include <toml++/toml.h>

#include "diagnostics.h"
#include "policy.h"

namespace tartaros {

// secret-in-policy, over the raw text and, when it parsed, the TOML document's keys; a line
// the front-end already reported under that id (a secret written as a broker's variable
// name, or under the refused keys 'token' and 'value') is not reported twice.
void lint_secret_rules(const std::string &text, const std::string &file, const toml::table *document,
                       Diagnostics &diags);

// path-leaves-policy-dir (needs the paths as written: `document`), path-allowed-and-denied,
// allow-no-effect, shell-paths-denied, writable-root-too-broad, plan-writable, policy-writable.
void lint_filesystem_rules(const Policy &policy, const std::string &file, const toml::table &document,
                           Diagnostics &diags);

// path-leaves-policy-dir alone (lint_filesystem_rules runs it).
void check_paths_leave_directory(const Policy &policy, const std::string &file, const toml::table &document,
                                 Diagnostics &diags);

// domain-allowed-and-denied, local-ports-with-domains, max-processes-too-low,
// harden-syscalls-off, env-inherit.
void lint_network_process_env_rules(const Policy &policy, Diagnostics &diags);

// broker-allow-internal, capability-unrestricted, allowed-host-unused.
void lint_broker_rules(const Policy &policy, Diagnostics &diags);

}  // namespace tartaros
