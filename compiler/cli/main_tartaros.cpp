// tartaros: the flag command line (`tartaros run`) and the compiler's subcommands in one
// binary. Argument handling and calls only: `run` is run_command.h (what the flags mean is
// flags_policy.h, the plan cache plan_cache.h), the pipeline is compile_driver.h, `compile`
// is tartaros-compile (compile_command.h), the enforcement is tartaros-exec, started next to
// this binary on the plan in a sealed memfd.
// Every refusal exits 78 with a first stderr line that starts "tartaros:".

#include <algorithm>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli_docs.h"
#include "cli_options.h"
#include "compile_command.h"
#include "compile_driver.h"
#include "flags_policy.h"
#include "lint.h"
#include "paths.h"
#include "run_command.h"
#include "tartaros_version.h"

namespace {

using namespace tartaros;

using Args = std::span<const std::string>;

int usage_error(std::string_view command, const std::string &what)
{
    const std::string help = command.empty() ? "tartaros --help" : "tartaros " + std::string(command) + " --help";
    return print_refusal("usage: " + what + " (see " + help + ")");
}

bool wants_help(Args args)
{
    for (const std::string &arg : args) {
        if (arg == "--")
            return false;
        if (arg == "--help" || arg == "-h")
            return true;
    }
    return false;
}

void print_subcommand_usage(std::string_view name)
{
    for (const Subcommand &s : subcommands())
        if (s.name == name)
            std::cout << "usage: tartaros " << s.name << ' ' << s.synopsis << "\n\n" << s.summary << '\n';
}

// --- the compiler's subcommands -------------------------------------------------------------

int explain(Args args)
{
    std::string plan;
    bool json = false;
    bool summary = false;
    for (const std::string &arg : args) {
        if (arg == "--json")
            json = true;
        else if (arg == "--summary")
            summary = true;
        else if (arg.size() > 1 && arg.front() == '-')
            return usage_error("explain", "unknown option '" + printable(arg) + "'");
        else if (!plan.empty())
            return usage_error("explain", "expected exactly one PLAN.bin");
        else
            plan = arg;
    }
    if (plan.empty())
        return usage_error("explain", "expected exactly one PLAN.bin");
    if (json && summary)
        return usage_error("explain", "--summary is text only; drop --json");
    return explain_plan_file(plan, json, summary);
}

int verify(Args args)
{
    if (args.size() != 1)
        return usage_error("verify", "expected exactly one PLAN.bin");
    if (args[0].size() > 1 && args[0].front() == '-')
        return usage_error("verify", "unknown option '" + printable(args[0]) + "'");
    return verify_plan_file(args[0]);
}

int print_policy_command(Args args)
{
    if (args.size() != 1)
        return usage_error("print-policy", "expected exactly one POLICY");
    if (args[0].size() > 1 && args[0].front() == '-')
        return usage_error("print-policy", "unknown option '" + printable(args[0]) + "'");
    return print_policy_file(args[0]);
}

// Every check of `tartaros compile` and the lint rules on each file (lint.h); nothing is written.
int lint(Args args)
{
    LintOptions options;
    std::vector<std::string> files;
    if (const Failure failure = parse_lint_arguments(args, options, files))
        return usage_error("lint", *failure);
    return run_lint(files, options, std::cout);
}

int completion(Args args)
{
    if (args.size() != 1)
        return usage_error("completion", "expected bash or zsh");
    if (args[0] == "bash")
        print_bash_completion(std::cout);
    else if (args[0] == "zsh")
        print_zsh_completion(std::cout);
    else
        return usage_error("completion", "unknown shell '" + printable(args[0]) + "': expected bash or zsh");
    return kExitOk;
}

int man(Args args)
{
    if (args.size() > 1)
        return usage_error("man", "unexpected argument '" + printable(args[1]) + "'");
    const std::string page = args.empty() ? "tartaros" : args[0];
    if (!print_man_page(std::cout, page)) {
        std::string pages;
        for (std::string_view name : man_pages())
            pages += (pages.empty() ? "" : ", ") + std::string(name);
        return usage_error("man", "no page '" + printable(page) + "': expected one of " + pages);
    }
    return kExitOk;
}

int dispatch(const std::string &command, Args args)
{
    if (command == "run")
        return run_command(args);
    if (command == "compile")
        return compile_command(args, "tartaros compile");
    if (wants_help(args)) {
        print_subcommand_usage(command);
        return kExitOk;
    }
    if (command == "explain")
        return explain(args);
    if (command == "verify")
        return verify(args);
    if (command == "print-policy")
        return print_policy_command(args);
    if (command == "lint")
        return lint(args);
    if (command == "completion")
        return completion(args);
    return man(args);  // main() let only the names of subcommands() through
}

}  // namespace

int main(int argc, char **argv)
{
    const std::vector<std::string> words(argv + (argc > 0 ? 1 : 0), argv + argc);
    if (words.empty())
        return usage_error("",
                           "missing a command: run, compile, explain, verify, print-policy, lint, completion or man");
    const std::string &command = words.front();
    if (command == "--help" || command == "-h" || command == "help") {
        print_main_help(std::cout);
        return kExitOk;
    }
    if (command == "--version") {
        std::cout << "tartaros " << TARTAROS_VERSION_LINE << '\n';
        return kExitOk;
    }
    std::vector<std::string> names;
    for (const Subcommand &s : subcommands())
        names.emplace_back(s.name);
    if (std::find(names.begin(), names.end(), command) == names.end()) {
        const std::string suggestion = closest_match(command, names);
        return usage_error("",
                           "unknown command '" + printable(command) + "'" +
                               (suggestion.empty() ? "" : "; did you mean '" + suggestion + "'?"));
    }
    const int code = dispatch(command, Args(words).subspan(1));
    std::cout.flush();
    return std::cout ? code : print_refusal("cannot write to standard output");
}
