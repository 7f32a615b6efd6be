// compiler/cli/flags_policy.h — `tartaros run`'s flags into the policy model, merged with the
// policy of its --config file by the merge rules below (which --help, the man page and
// docs/tartaros-run.md print).
//
// After apply_flags returns no refusal, the policy keeps every invariant of policy.h: flag
// paths are resolved (against the current directory), checked and normalised by the
// front-end's own functions (resolve_policy_path, check_domain_pattern, is_env_name), and
// no list holds a duplicate. A value that came from a flag is located at
// SourcePos{"--flag", 0, 0}: line 0, because a plan's origins are lines of its one policy
// file, and a flag is none (--explain shows it as "(default)").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli_options.h"
#include "policy.h"

namespace tartaros {

// The merge rules, one paragraph each, in the words the help and the docs use.
std::span<const std::string_view> merge_rules();

struct FlagContext {
    std::string cwd;                  // absolute: relative flag paths resolve against it
    std::optional<std::string> home;  // $HOME, for "~" in a flag's path
};

// The policy of a run without --config: version 1, every default, the default passthrough.
Policy default_flags_policy();

// Applies `flags` in order onto `policy` (the --config file's, or default_flags_policy()).
// Returns every refusal, one line each without the "tartaros: " prefix, in flag order; the
// policy is meaningless when any is returned. A conflict names both sources:
// "--max-procs 64 conflicts with max_processes = 32 at policy.toml:7:17; say it in one place".
std::vector<std::string> apply_flags(Policy &policy, const std::vector<FlagUse> &flags, const FlagContext &context);

}  // namespace tartaros
