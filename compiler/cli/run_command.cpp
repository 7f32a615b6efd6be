// compiler/cli/run_command.cpp — see run_command.h.
#include "run_command.h"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <sstream>
#include <vector>

#include "cli_docs.h"
#include "compile_driver.h"
#include "compile_inputs.h"
#include "flags_policy.h"
#include "lower_fs.h"
#include "paths.h"
#include "plan_cache.h"
#include "plan_handoff.h"
#include "sibling_path.h"

namespace tartaros {

namespace {

// Where tartaros-exec lies relative to this binary's directory once installed
// (cmake/install.cmake: from the helper directory to the binaries, e.g. "../../bin"); ""
// when the build defines none.
#ifndef TARTAROS_BINDIR_FROM_HELPER
#define TARTAROS_BINDIR_FROM_HELPER ""
#endif

// Starts tartaros-exec (found as shared/sibling_path.h says) on `plan`; returns only on failure.
int exec_enforcer(const std::vector<uint8_t> &plan, const RunCommandLine &line)
{
    th_sibling where{};
    const char *enforcer = th_find_sibling("tartaros-exec", TARTAROS_BINDIR_FROM_HELPER, &where);
    if (enforcer == nullptr) {
        std::cerr << "tartaros: cannot find tartaros-exec: " << where.beside << ": "
                  << std::strerror(where.beside_errno) << '\n';
        return kExitStartup;
    }
    const int fd = th_plan_memfd(plan.data(), plan.size());
    if (fd < 0) {
        std::cerr << "tartaros: cannot write the plan into a memfd: " << std::strerror(errno) << '\n';
        return kExitStartup;
    }
    std::vector<const char *> command;
    for (const std::string &word : line.command)
        command.push_back(word.c_str());
    command.push_back(nullptr);
    th_exec_enforcer(enforcer, line.strict, line.log.empty() ? nullptr : line.log.c_str(), fd, command.data());
    std::cerr << "tartaros: cannot start " << enforcer << ": " << std::strerror(errno) << '\n';
    return kExitStartup;
}

// Warnings do not stop a run; a first line starting "tartaros:" keeps the signature intact
// when the enforcer refuses after them.
std::string warnings_text(const std::string &source, const Diagnostics &diags)
{
    const size_t warnings = diags.warning_count();
    if (warnings == 0)
        return "";
    std::ostringstream out;
    out << "tartaros: " << source << ": " << warnings << (warnings == 1 ? " warning" : " warnings") << '\n';
    diags.print(out, false);
    return out.str();
}

// The policy of `line` compiled in memory, with what the compile read: an entry for the cache.
// Refusals are printed; the entry's plan is then empty.
CacheEntry compile_run(const RunCommandLine &line, const std::string &cwd)
{
    CacheEntry entry;
    const Input public_suffixes = public_suffix_input();
    Diagnostics diags;
    PolicyTexts texts;
    std::optional<Policy> policy =
        line.config.empty() ? default_flags_policy() : load_policy_file(line.config, diags, &texts);
    if (!policy)
        return entry;
    const std::vector<std::string> refusals = apply_flags(*policy, line.flags, FlagContext{cwd, policy_home()});
    for (const std::string &refusal : refusals)
        print_refusal(refusal);
    if (!refusals.empty())
        return entry;

    const std::string source = line.config.empty() ? "the command line" : line.config;
    const RecordingHost host(real_host());
    entry.plan = compile_policy(*policy, "", source, diags, &host);
    entry.warnings = warnings_text(source, diags);
    entry.inputs = file_inputs(*policy, texts);
    entry.inputs.push_back(public_suffixes);
    entry.inputs.insert(entry.inputs.end(), host.inputs().begin(), host.inputs().end());
    return entry;
}

}  // namespace

int run_command(std::span<const std::string> args)
{
    RunCommandLine line;
    if (const Failure failure = parse_run_command_line(args, line))
        return print_refusal("usage: " + *failure + " (see tartaros run --help)");
    if (line.help) {
        print_run_help(std::cout);
        return kExitOk;
    }
    const std::optional<std::string> cwd = absolute_path(".");
    if (!cwd)
        return print_refusal("cannot resolve the current directory: it is gone");

    const std::optional<std::string> cache_directory = line.no_cache ? std::nullopt : plan_cache_directory();
    const std::string key = run_cache_key(line, *cwd);
    if (cache_directory)
        if (const std::optional<CacheEntry> hit = PlanCache(*cache_directory).lookup(key)) {
            std::cerr << hit->warnings;
            return exec_enforcer(hit->plan, line);
        }

    CacheEntry entry = compile_run(line, *cwd);
    if (entry.plan.empty())
        return kExitRefusal;
    std::cerr << entry.warnings;
    if (cache_directory) {
        entry.key = key;
        PlanCache(*cache_directory).store(entry);
    }
    return exec_enforcer(entry.plan, line);
}

}  // namespace tartaros
