// compiler/cli/run_command.cpp — see run_command.h.
#include "run_command.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

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

namespace tartaros {

namespace {

constexpr unsigned kPlanSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;

// The plan in an unnamed, sealed file that survives execve: -1 with `err` set on failure.
int plan_memfd(const std::vector<uint8_t> &plan, std::string &err)
{
    int fd = memfd_create("tartaros-plan", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        err = std::string("memfd_create: ") + std::strerror(errno);
        return -1;
    }
    const bool written = write_all(fd, plan);
    // tartaros-exec wants a descriptor above 2 (0-2 may have been closed by our caller).
    const int moved = fd > 2 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (!written || fcntl(fd, F_ADD_SEALS, kPlanSeals) != 0 || moved < 0 || fcntl(moved, F_SETFD, 0) != 0) {
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
