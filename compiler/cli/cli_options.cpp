// compiler/cli/cli_options.cpp — the option table of `tartaros run`, the subcommands, and the
// parser that reads a command line against them. See cli_options.h.
#include "cli_options.h"

#include <algorithm>
#include <array>
#include <vector>

namespace tartaros {

namespace {

using enum ValueKind;

#define TARTAROS_RUN_ROW(flag, name, kind, metavar, field, help)                                                       \
    RunOption{RunFlag::flag, name, kind, metavar, field, help},
constexpr std::array kRunOptions = {TARTAROS_RUN_OPTIONS(TARTAROS_RUN_ROW)};
#undef TARTAROS_RUN_ROW
static_assert(kRunOptions.size() == TR_FLAG_COUNT);

constexpr std::array kSubcommands = {
    Subcommand{"run", "[--strict] [FLAGS] [--config POLICY] [--log FILE] [--no-cache] -- CMD [ARGS...]",
               "run CMD in a sandbox made from the flags and the policy file, compiled in memory or taken "
               "from the plan cache"},
    Subcommand{"compile", "POLICY -o PLAN.bin [-v]",
               "check, lower and verify a policy, and write the plan atomically; tartaros-compile is this "
               "command, with --explain, --verify, --print-policy and --lint too (tartaros compile --help)"},
    Subcommand{"explain", "PLAN.bin [--json | --summary]",
               "print every step of a plan, in order, with its policy line; --summary: one screen, a line per "
               "concern"},
    Subcommand{"verify", "PLAN.bin",
               "check a plan without its policy: the enforcer's validating reader, then its seccomp filter run "
               "in the BPF interpreter against the rules the plan states; one line 'ok', or a refusal"},
    Subcommand{"print-policy", "POLICY",
               "print a policy (TOML or .tart) as the compiler holds it, as .tart text: paths absolute, "
               "groups expanded, the defaults it leaves alone as comments"},
    Subcommand{"lint", "[--format text|json|sarif] [--werror] POLICY...",
               "every check of the compiler and the lint rules on each file, without writing a plan: exit 0 "
               "clean, 1 on errors (or warnings with --werror); reports as text, JSON or SARIF 2.1.0"},
    Subcommand{"completion", "bash|zsh", "print the shell completion script"},
    Subcommand{"man", "[PAGE]",
               "print a manual page (roff): PAGE is tartaros (the default), tartaros-compile, tartaros-exec or "
               "tartaros-policy, the policy file's every key (section 5)"},
};

// What is wrong with `args` as tr_parse_run found it, in words.
std::string failure_text(tr_parse_error error, std::span<const std::string> args, int at)
{
    const std::string &arg = at < static_cast<int>(args.size()) ? args[static_cast<size_t>(at)] : "";
    const std::string name = arg.substr(0, arg.find('='));
    tr_flag found{};
    int takes_value = 0;
    const RunFlag flag =
        tr_find_option(name.data(), name.size(), &found, &takes_value) ? static_cast<RunFlag>(found) : RunFlag::Help;
    switch (error) {
    case TR_OK: break;
    case TR_UNKNOWN_OPTION: return "unknown option '" + name + "'";
    case TR_UNEXPECTED_WORD: return "unexpected '" + arg + "' before --: the command goes after --";
    case TR_TAKES_NO_VALUE: return std::string(run_option(flag).name) + " takes no value";
    case TR_NEEDS_VALUE:
        return std::string(run_option(flag).name) + " needs a " + std::string(run_option(flag).metavar);
    case TR_LOG_TWICE: return "--log is given twice";
    case TR_CONFIG_TWICE: return "--config is given twice; merge the files into one";
    case TR_MISSING_SEPARATOR: return "missing -- CMD [ARGS...]: the command goes after --";
    case TR_MISSING_COMMAND: return "missing the command after --";
    }
    return "";
}

}  // namespace

std::span<const RunOption> run_options()
{
    return kRunOptions;
}

const RunOption &run_option(RunFlag flag)
{
    return *std::find_if(kRunOptions.begin(), kRunOptions.end(), [&](const RunOption &o) { return o.flag == flag; });
}

std::span<const Subcommand> subcommands()
{
    return kSubcommands;
}

Failure parse_run_command_line(std::span<const std::string> args, RunCommandLine &out)
{
    std::vector<const char *> argv;
    for (const std::string &arg : args)
        argv.push_back(arg.c_str());
    std::vector<tr_flag_use> flags(args.size());
    tr_run_line line{};
    line.flags = flags.data();
    int at = 0;
    if (const tr_parse_error error = tr_parse_run(static_cast<int>(argv.size()), argv.data(), &line, &at))
        return failure_text(error, args, at);
    out.help = line.help != 0;
    out.strict = line.strict != 0;
    out.no_cache = line.no_cache != 0;
    out.log = line.log != nullptr ? line.log : "";
    out.config = line.config != nullptr ? line.config : "";
    for (size_t i = 0; i < line.flag_count; ++i)
        out.flags.push_back({static_cast<RunFlag>(line.flags[i].flag), line.flags[i].value});
    if (!out.help)
        out.command.assign(args.begin() + line.command, args.end());
    return std::nullopt;
}

}  // namespace tartaros
