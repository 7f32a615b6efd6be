// compiler/frontend/frontend_broker.h — the TOML front-end's [broker] table and its
// [[broker.capability]] entries (the credential broker), into BrokerPolicy (policy.h, whose
// invariants this establishes).
//
// Two passes. read_broker_table checks the table on its own: every key's type, range and
// syntax, required keys, unique capability names, capability hosts against allowed_hosts,
// headers against each other. check_broker_against_policy then checks it against the rest of
// the policy once the whole document is read: ports against [network], the secret-holding
// variables against [env] (a token_env or value_env copied into the agent's environment
// would hand it the secret), the variables the broker sets against [env], and filesystem
// rules against the credentials directory (TP_CREDENTIALS_DIR, the compiler's own).
//
// Every error is at the value that causes it (a missing key: at the table) and says what to
// write instead. A value that looks like a secret where a variable's *name* belongs
// (token_env = "ghp_…") and the keys 'token' and 'value' (a secret written in the policy)
// are errors with rule id secret-in-policy, and their text is redacted from the source lines
// diagnostics print.
#pragma once

#include <optional>
#include <string>

#include <toml++/toml.h>

#include "diagnostics.h"
#include "policy.h"
#include "toml_schema.h"

namespace tartaros {

// Reads `table` into `broker`; `base_dir` (the policy's directory) and `home` resolve ca_file
// as any policy path.
void read_broker_table(TomlSchemaReader &reader, const toml::table &table, const std::string &base_dir,
                       const std::optional<std::string> &home, BrokerPolicy &broker);

// The checks of policy.broker (when set) that need [network], [env] and [filesystem].
void check_broker_against_policy(const Policy &policy, Diagnostics &diags);

}  // namespace tartaros
