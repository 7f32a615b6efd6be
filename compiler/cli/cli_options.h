// compiler/cli/cli_options.h — the `tartaros` command line as data: the option table of
// `tartaros run` (one row per flag: its name, the kind of value it takes, the policy field it
// sets, its help), made from THE table in shared/run_line.h, and the subcommands. The parser
// (shared/run_line.h's, which the `tartaros` launcher runs too), --help, the bash and zsh
// completions and the man page (cli_docs.h) all read these tables, so a flag exists
// everywhere or nowhere.
//
// Invariants: every RunFlag value has exactly one row in kRunOptions; names are unique and
// start with "--"; a row has a metavar exactly when its kind is not ValueKind::None; a row
// that sets a policy field names it as "[table] key" (launcher options name none).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "run_line.h"

namespace tartaros {

// The flags of shared/run_line.h's table, numbered as there (tr_flag).
enum class RunFlag {
#define TARTAROS_RUN_FLAG(flag, name, kind, metavar, field, help) flag,
    TARTAROS_RUN_OPTIONS(TARTAROS_RUN_FLAG)
#undef TARTAROS_RUN_FLAG
};

// What follows a flag; completions use it to offer files, directories or variable names.
enum class ValueKind {
    None,     // a switch
    Path,     // a file or directory the policy names (relative: to the current directory)
    File,     // a file the launcher reads or writes
    Port,     // 1..65535
    Count,    // a positive integer
    Domain,   // a host name, an IP literal or *.suffix
    EnvName,  // an environment variable name
};

struct RunOption {
    RunFlag flag;
    std::string_view name;  // "--write"
    ValueKind kind;
    std::string_view metavar;  // "PATH"; "" for a switch
    std::string_view field;    // "[filesystem] writable_roots"; "" for launcher options
    std::string_view help;     // one sentence, no trailing period
};

std::span<const RunOption> run_options();
const RunOption &run_option(RunFlag flag);

struct Subcommand {
    std::string_view name;
    std::string_view synopsis;  // the arguments after "tartaros NAME"
    std::string_view summary;
};

std::span<const Subcommand> subcommands();

// One flag as given, in command-line order: the policy flags and their values as written.
struct FlagUse {
    RunFlag flag;
    std::string value;  // "" for a switch
};

// `tartaros run ARGS`, parsed. The launcher's own options (--strict, --log, --config, --help)
// are taken out of `flags`; what remains sets the policy.
struct RunCommandLine {
    bool help = false;
    bool strict = false;
    std::string log;     // "" = none
    std::string config;  // "" = none
    bool no_cache = false;
    std::vector<FlagUse> flags;
    std::vector<std::string> command;  // after "--", at least one word
};

// Parses the arguments after "run". Returns what is wrong, if anything (a usage error: an unknown
// flag, a missing value, a second --config or --log, no "--" or no command). Accepts
// "--flag VALUE" and "--flag=VALUE". Values are not checked here (flags_policy.h does).
Failure parse_run_command_line(std::span<const std::string> args, RunCommandLine &out);

}  // namespace tartaros
