// tartaros: the flag command line (`tartaros run`) and the compiler's subcommands in one
// binary. Argument handling and calls only: what the flags mean is flags_policy.h, the
// pipeline is compile_driver.h, `compile` is tartaros-compile (compile_command.h), the enforcement is
// tartaros-exec, started next to this binary on the plan in a sealed memfd.
// Every refusal exits 78 with a first stderr line that starts "tartaros:".
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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
#include "tartaros_version.h"

namespace {

using namespace tartaros;

constexpr unsigned kPlanSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;

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

// --- run ----------------------------------------------------------------------------------

// The plan in an unnamed, sealed file that survives execve: -1 with `err` set on failure.
int plan_memfd(const std::vector<uint8_t> &plan, std::string &err)
{
    int fd = memfd_create("tartaros-plan", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        err = std::string("memfd_create: ") + std::strerror(errno);
        return -1;
    }
    size_t done = 0;
    while (done < plan.size()) {
        const ssize_t wrote = write(fd, plan.data() + done, plan.size() - done);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote <= 0)
            break;
        done += static_cast<size_t>(wrote);
    }
    // tartaros-exec wants a descriptor above 2 (0-2 may have been closed by our caller).
    const int moved = fd > 2 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (done != plan.size() || fcntl(fd, F_ADD_SEALS, kPlanSeals) != 0 || moved < 0 || fcntl(moved, F_SETFD, 0) != 0) {
        err = std::string("cannot write the plan into a memfd: ") + std::strerror(errno);
        close(fd);
        if (moved >= 0 && moved != fd)
            close(moved);
        return -1;
    }
    if (moved != fd)
        close(fd);
    return moved;
}

// tartaros-exec in the directory of this very binary (never found through $PATH).
std::string enforcer_path()
{
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return "";
    return parent_directory(std::string(self, static_cast<size_t>(n))) + "/tartaros-exec";
}

int exec_enforcer(const std::vector<uint8_t> &plan, const RunCommandLine &line)
{
    const std::string enforcer = enforcer_path();
    if (enforcer.empty()) {
        std::cerr << "tartaros: cannot find tartaros-exec: /proc/self/exe is unreadable\n";
        return kExitStartup;
    }
    std::string err;
    const int fd = plan_memfd(plan, err);
    if (fd < 0) {
        std::cerr << "tartaros: " << err << '\n';
        return kExitStartup;
    }
    std::vector<std::string> words = {enforcer};
    if (line.strict)
        words.emplace_back("--strict");
    if (!line.log.empty())
        words.insert(words.end(), {"--log", line.log});
    words.insert(words.end(), {"--plan-fd", std::to_string(fd), "--"});
    words.insert(words.end(), line.command.begin(), line.command.end());
    std::vector<char *> argv;
    for (std::string &word : words)
        argv.push_back(word.data());
    argv.push_back(nullptr);
    execv(enforcer.c_str(), argv.data());
    std::cerr << "tartaros: cannot start " << enforcer << ": " << std::strerror(errno) << '\n';
    return kExitStartup;
}

// Warnings do not stop a run; a first line starting "tartaros:" keeps the signature intact
// when the enforcer refuses after them.
void print_warnings(const std::string &source, const Diagnostics &diags)
{
    const size_t warnings = diags.warning_count();
    if (warnings == 0)
        return;
    std::cerr << "tartaros: " << source << ": " << warnings << (warnings == 1 ? " warning" : " warnings") << '\n';
    diags.print(std::cerr, false);
}

int run(Args args)
{
    RunCommandLine line;
    if (const Failure failure = parse_run_command_line(args, line))
        return usage_error("run", *failure);
    if (line.help) {
        print_run_help(std::cout);
        return kExitOk;
    }
    const std::optional<std::string> cwd = absolute_path(".");
    if (!cwd)
        return print_refusal("cannot resolve the current directory: it is gone");
    Diagnostics diags;
    std::optional<Policy> policy = line.config.empty() ? default_flags_policy() : load_policy_file(line.config, diags);
    if (!policy)
        return kExitRefusal;
    const FlagContext context{*cwd, policy_home()};
    const std::vector<std::string> refusals = apply_flags(*policy, line.flags, context);
    for (const std::string &refusal : refusals)
        print_refusal(refusal);
    if (!refusals.empty())
        return kExitRefusal;

    const std::string source = line.config.empty() ? "the command line" : line.config;
    const std::vector<uint8_t> plan = compile_policy(*policy, "", source, diags);
    if (plan.empty())
        return kExitRefusal;
    print_warnings(source, diags);
    return exec_enforcer(plan, line);
}

// --- the compiler's subcommands -------------------------------------------------------------

int explain(Args args)
{
    std::string plan;
    bool json = false;
    for (const std::string &arg : args) {
        if (arg == "--json")
            json = true;
        else if (arg.size() > 1 && arg.front() == '-')
            return usage_error("explain", "unknown option '" + printable(arg) + "'");
        else if (!plan.empty())
            return usage_error("explain", "expected exactly one PLAN.bin");
        else
            plan = arg;
    }
    if (plan.empty())
        return usage_error("explain", "expected exactly one PLAN.bin");
    return explain_plan_file(plan, json);
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
        return run(args);
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
