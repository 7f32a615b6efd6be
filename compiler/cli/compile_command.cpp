// compiler/cli/compile_command.cpp — see compile_command.h. Argument parsing and calls only;
// every refusal exits 78 with a first line `tartaros: ...`.
#include "compile_command.h"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "compile_driver.h"
#include "diagnostics.h"
#include "lint.h"
#include "lower.h"
#include "paths.h"
#include "plan_reader.h"
#include "tartaros_version.h"
#include "verify.h"

namespace tartaros {

namespace {

using Args = std::span<const std::string>;

// Follows the usage lines, which name the program.
constexpr std::string_view kHelp =
    "Compiles a TartarOS policy into a verified plan for tartaros-exec, or prints any plan,\n"
    "every step in execution order with the policy line that caused it. POLICY is a\n"
    "TOML policy, or a .tart one (docs/dsl.md).\n"
    "\n"
    "  -o, --output PLAN  where to write the plan (replaced atomically, mode 0644)\n"
    "  --explain PLAN     print PLAN as text\n"
    "  --json             with --explain: print JSON instead\n"
    "  --summary          with --explain: one screen, a line per concern (read, write,\n"
    "                     network, syscalls, process, env) with the first names of each\n"
    "  --verify PLAN      check that PLAN is exactly what its policy (the one it names, or\n"
    "                     POLICY) compiles to now: byte-identical and verified\n"
    "  --print-policy POLICY\n"
    "                     print POLICY as the compiler holds it, as .tart text: paths\n"
    "                     absolute, every setting it makes, the defaults it leaves as\n"
    "                     comments; reading the printout back gives the same policy\n"
    "  -v, --verbose      also print notes (e.g. which denies only the mount layer enforces)\n"
    "  --lint POLICY...   every check of a compile and the lint rules on each file, writing\n"
    "                     nothing (docs/lint.md); errors and warnings on stdout\n"
    "  --format F         with --lint: text (default: file:line:col: severity: message\n"
    "                     [rule-id], source line, caret), json or sarif (SARIF 2.1.0)\n"
    "  --werror           with --lint: warnings fail too\n"
    "\n"
    "Exit status: 0 done (--lint: clean); 1 --lint found errors (or warnings with\n"
    "--werror); 78 refused (invalid policy or plan, unreadable file, bad usage), with a\n"
    "first line on stderr that starts with 'tartaros:'.\n";

struct Options {
    bool help = false;
    bool version = false;
    bool explain = false;
    bool verify = false;
    bool print_policy = false;
    bool json = false;
    bool summary = false;
    bool verbose = false;
    std::vector<std::string> inputs;
    std::string output;
};

// Fills `options`; what is wrong with the command line, if anything.
Failure parse_arguments(Args args, Options &options)
{
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        if (arg == "-h" || arg == "--help") {
            options.help = true;
        } else if (arg == "--version") {
            options.version = true;
        } else if (arg == "--explain") {
            options.explain = true;
        } else if (arg == "--verify") {
            options.verify = true;
        } else if (arg == "--print-policy") {
            options.print_policy = true;
        } else if (arg == "--json") {
            options.json = true;
        } else if (arg == "--summary") {
            options.summary = true;
        } else if (arg == "-v" || arg == "--verbose") {
            options.verbose = true;
        } else if (arg == "-o" || arg == "--output") {
            if (i + 1 >= args.size())
                return std::string(arg) + " needs a file name";
            if (!options.output.empty())
                return "only one -o is allowed";
            options.output = args[++i];
            if (options.output.empty())
                return std::string(arg) + " needs a file name";
        } else if (arg.size() > 1 && arg.front() == '-') {
            return "unknown option '" + printable(arg) + "'";
        } else {
            options.inputs.emplace_back(arg);
        }
    }
    if (options.help || options.version)
        return std::nullopt;
    if (options.print_policy) {
        if (options.explain || options.verify || options.json || options.summary || options.verbose ||
            !options.output.empty())
            return "--print-policy takes only POLICY";
        if (options.inputs.size() != 1)
            return "--print-policy takes exactly one POLICY";
        return std::nullopt;
    }
    if (options.verify) {
        if (options.explain || options.json || options.summary || !options.output.empty())
            return "--verify takes only PLAN.bin [POLICY]";
        if (options.inputs.empty() || options.inputs.size() > 2)
            return "--verify takes PLAN.bin [POLICY]";
        return std::nullopt;
    }
    if (options.inputs.size() != 1)
        return options.explain ? "--explain takes exactly one PLAN.bin" : "expected exactly one POLICY";
    if (options.explain && !options.output.empty())
        return "--explain does not write a file; drop -o";
    if (!options.explain && (options.json || options.summary))
        return options.json ? "--json goes with --explain" : "--summary goes with --explain";
    if (options.json && options.summary)
        return "--summary is text only; drop --json";
    if (!options.explain && options.output.empty())
        return "missing -o PLAN.bin";
    return std::nullopt;
}

// The policy a plan names in its META section ("" when it names none).
std::string policy_named_by(const std::vector<uint8_t> &plan)
{
    std::vector<uint64_t> aligned((plan.size() + 7) / 8);
    if (!plan.empty())
        std::copy(plan.begin(), plan.end(), reinterpret_cast<uint8_t *>(aligned.data()));
    tp_plan view{};
    char err[256];
    if (tp_plan_open(reinterpret_cast<const uint8_t *>(aligned.data()), static_cast<uint32_t>(plan.size()), &view, err,
                     sizeof err) != 0 ||
        view.meta == nullptr)
        return "";
    return tp_plan_str(&view, view.meta->policy_path);
}

// --verify: the plan on disk must be byte for byte what the policy compiles to now, which
// also means it passed the verifier. When it differs, say whether it still implements the
// policy (the host or the compiler changed) or not (the policy changed, or the plan did).
int verify(const std::string &plan_path, std::string policy_path)
{
    std::string text, err;
    if (!read_file(plan_path, text, err))
        return print_refusal("cannot read " + plan_path + ": " + err);
    const std::vector<uint8_t> plan(text.begin(), text.end());
    if (policy_path.empty())
        policy_path = policy_named_by(plan);
    if (policy_path.empty())
        return print_refusal(plan_path + ": invalid plan, or it names no policy; give POLICY");
    Diagnostics diags;
    const std::optional<Policy> policy = load_policy_file(policy_path, diags);
    if (!policy)
        return kExitRefusal;
    const std::optional<std::string> absolute_plan = absolute_path(plan_path);
    if (!absolute_plan)
        return print_refusal("cannot resolve " + plan_path + ": the current directory is gone");
    const std::vector<uint8_t> fresh = compile_policy(*policy, *absolute_plan, policy_path, diags);
    if (fresh.empty())
        return kExitRefusal;
    if (fresh == plan) {
        std::cout << plan_path << ": verified: byte-identical to a fresh, verified compile of " << policy_path << '\n';
        return kExitOk;
    }
    const Failure failure = verify_plan(plan, *policy, LowerOptions{*absolute_plan});
    if (!failure)
        return print_refusal(plan_path + ": differs from a fresh compile of " + policy_path +
                             " but still implements it (the host or the compiler changed); recompile");
    return print_refusal(plan_path + ": does not implement " + policy_path + ": " + *failure + "; recompile");
}

// --lint anywhere before "--" makes the rest of the command line lint's own (lint.h).
bool wants_lint(Args args)
{
    for (const std::string &arg : args) {
        if (arg == "--")
            return false;
        if (arg == "--lint")
            return true;
    }
    return false;
}

int lint(Args args, std::string_view program)
{
    std::vector<std::string> lint_args;
    bool options_end = false, lint_taken = false;
    for (const std::string &arg : args) {
        if (!options_end && (arg == "-h" || arg == "--help")) {
            print_compile_help(std::cout, program);
            return kExitOk;
        }
        options_end = options_end || arg == "--";
        if (arg == "--lint" && !options_end && !lint_taken)
            lint_taken = true;
        else
            lint_args.push_back(arg);
    }
    LintOptions options;
    std::vector<std::string> files;
    if (const Failure failure = parse_lint_arguments(lint_args, options, files))
        return compile_usage_error(program, "--lint: " + *failure);
    return run_lint(files, options, std::cout);
}

}  // namespace

void print_compile_help(std::ostream &out, std::string_view program)
{
    const std::string indent(std::string_view("usage: ").size(), ' ');
    out << "usage: " << program << " POLICY -o PLAN.bin\n"
        << indent << program << " --explain PLAN.bin [--json | --summary]\n"
        << indent << program << " --verify PLAN.bin [POLICY]\n"
        << indent << program << " --print-policy POLICY\n"
        << indent << program << " --lint [--format text|json|sarif] [--werror] POLICY.toml...\n"
        << indent << program << " --version | --help\n"
        << "\n"
        << kHelp;
}

int compile_usage_error(std::string_view program, const std::string &what)
{
    return print_refusal("usage: " + what + " (see " + std::string(program) + " --help)");
}

int compile_command(Args args, std::string_view program)
{
    if (wants_lint(args))
        return lint(args, program);
    Options options;
    if (const Failure usage = parse_arguments(args, options))
        return compile_usage_error(program, *usage);
    if (options.help) {
        print_compile_help(std::cout, program);
        return kExitOk;
    }
    if (options.version) {
        std::cout << program << ' ' << TARTAROS_VERSION_LINE << '\n';
        return kExitOk;
    }
    if (options.explain)
        return explain_plan_file(options.inputs.front(), options.json, options.summary);
    if (options.print_policy)
        return print_policy_file(options.inputs.front());
    if (options.verify)
        return verify(options.inputs.front(), options.inputs.size() > 1 ? options.inputs[1] : "");
    return compile_policy_file(options.inputs.front(), options.output, options.verbose);
}

}  // namespace tartaros
