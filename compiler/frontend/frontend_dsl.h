// compiler/frontend/frontend_dsl.h — the .tart front-end: a policy in the DSL (grammar/Tart.g4,
// docs/dsl.md) into the policy model.
//
// The pipeline, one concern per file: each file is parsed into a syntax tree
// (frontend_dsl_parse.h, with syntax errors in words: frontend_dsl_errors.h); the files it
// includes are read and its groups resolved (frontend_dsl_resolve.h); its settings are written
// as one TOML document (frontend_dsl_lower.h) that the TOML front-end's table readers read
// exactly as they read a TOML policy, positions mapped back to the .tart tokens, so every check
// and message on a value is theirs; its syscall rules go straight into Policy::syscalls
// (frontend_dsl_syscalls.h). Policy::sources lists every file read, the policy file first.
//
// A TOML policy includes .tart files with a top-level `include = ["rules.tart", ...]`: the
// same reading, and the lowered document merged into the TOML one (lists append, tables merge,
// a key set in both is duplicate-setting).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "diagnostics.h"
#include "policy.h"
#include "toml_schema.h"

namespace tartaros {

// What lint needs besides the model: every file read with its text (the policy file first),
// and for a .tart policy the TOML document its settings became, with the map of its positions.
struct PolicyTexts {
    struct File {
        SourceFile file;
        std::string text;
    };
    std::vector<File> files;
    std::string lowered;  // "" for a TOML policy that includes no .tart file
    PositionMap map;
};

// Parses and checks the .tart policy `text`; `display_path` names it in diagnostics and its
// directory is the base of its relative paths and includes. Every problem is reported (each
// file's syntax errors; then, if every file parsed, all the others). Nullopt on any error.
std::optional<Policy> parse_dsl_policy_text(const std::string &text, const std::string &display_path,
                                            Diagnostics &diags);
// The same, leaving in `texts` (when not null) what lint needs.
std::optional<Policy> parse_dsl_policy_text(const std::string &text, const std::string &display_path,
                                            Diagnostics &diags, PolicyTexts *texts);

// The `include` key of the TOML document `root` (policy.sources[0] is its file): reads the
// .tart files it names and merges their settings into `root` (their positions through `map`,
// which must outlive the reading of `root`), their syscall rules into policy.syscalls and the
// files into policy.sources. Nothing happens without the key.
void include_tart_files(toml::table &root, Policy &policy, PositionMap &map, Diagnostics &diags, PolicyTexts *texts);

}  // namespace tartaros
