// tests/fuzz/fuzz_corpus.cpp — the corpus test: every input of fuzz_inputs.h, under a .tart
// and a .toml display name, through the checks of fuzz_check.h, each within a time bound.
//
//   fuzz_corpus [--max-seconds S] [--mutations N] [--generated DIR] ROOT...
//       every policy file under the ROOTs, its truncations and N mutations (N/3 for files
//       over 1 KiB; default 48); with --generated, the large generated inputs too, shown as
//       files in DIR
//   fuzz_corpus --one FILE AS
//       FILE's bytes alone, shown as AS with a .tart and a .toml extension (to reproduce)
//
// A broken property is reported with the input's name and the input saved as
// fuzz-failure-K.{tart,toml} in the working directory. S bounds the check of one input
// (more for inputs past 256 KiB, in proportion); a crash, a sanitizer report or an input
// over 4 times its bound (a hang) stops the run with the input saved as
// fuzz-crash-input.{tart,toml}. Exit status 0 only when every input passed.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "fuzz_check.h"
#include "fuzz_inputs.h"

extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

namespace {

using tartaros::fuzz::Input;

// The input being checked, for the crash and hang handlers (which may only call
// async-signal-safe functions: write, open, _exit).
const Input *g_input = nullptr;
const char *g_display = nullptr;
const char *g_why = "crashed";

void write_text(int fd, const char *text)
{
    ssize_t ignored = write(fd, text, strlen(text));
    (void)ignored;
}

void save_current_input()
{
    if (!g_input || !g_display)
        return;
    write_text(2, "\nfuzz_corpus: ");
    write_text(2, g_why);
    write_text(2, " on input '");
    write_text(2, g_input->name.c_str());
    write_text(2, "' shown as ");
    write_text(2, g_display);
    const bool tart = strlen(g_display) >= 5 && strcmp(g_display + strlen(g_display) - 5, ".tart") == 0;
    const char *file = tart ? "fuzz-crash-input.tart" : "fuzz-crash-input.toml";
    const int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        ssize_t ignored = write(fd, g_input->bytes.data(), g_input->bytes.size());
        (void)ignored;
        close(fd);
        write_text(2, "; saved as ");
        write_text(2, file);
    }
    write_text(2, "\n");
}

void on_fatal_signal(int signo)
{
    save_current_input();
    signal(signo, SIG_DFL);
    raise(signo);
}

void on_alarm(int)
{
    g_why = "took too long (a hang?)";
    save_current_input();
    _exit(3);
}

// The handlers run on their own stack: a stack overflow (deep nesting) is one of the
// crashes they must report.
void install_handlers()
{
    static std::vector<char> alt_stack(1 << 16);
    stack_t ss{};
    ss.ss_sp = alt_stack.data();
    ss.ss_size = alt_stack.size();
    sigaltstack(&ss, nullptr);
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_ONSTACK;
    for (const int signo : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL})
        sigaction(signo, &sa, nullptr);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, nullptr);
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(save_current_input);
}

struct Slow {
    double ms;
    std::string what;
};

struct Stats {
    size_t runs = 0, parsed = 0, lowered = 0, failures = 0;
    std::vector<Slow> slowest;            // the 5 slowest runs, slowest first
    std::map<std::string, double> files;  // origin → the time of all its inputs: where the budget goes

    void time(double ms, const Input &input, const char *ext)
    {
        files[input.origin] += ms;
        slowest.push_back({ms, "'" + input.name + "' as " + ext});
        std::sort(slowest.begin(), slowest.end(), [](const Slow &a, const Slow &b) { return a.ms > b.ms; });
        if (slowest.size() > 5)
            slowest.pop_back();
    }
    std::vector<Slow> costliest_files(size_t count) const
    {
        std::vector<Slow> out;
        for (const auto &[file, ms] : files)
            out.push_back({ms, file});
        std::sort(out.begin(), out.end(), [](const Slow &a, const Slow &b) { return a.ms > b.ms; });
        out.resize(std::min(out.size(), count));
        return out;
    }
};

void report_failure(Stats &stats, const Input &input, const std::string &display, const std::string &failure)
{
    ++stats.failures;
    // Flushed: a later hang ends the run with _exit, which would lose buffered reports.
    std::cout << "FAIL: input '" << input.name << "' shown as " << display << ": " << failure << std::endl;
    if (stats.failures > 20)
        return;  // the first ones are enough to reproduce
    const std::string file = "fuzz-failure-" + std::to_string(stats.failures) + display.substr(display.size() - 5);
    std::ofstream(file, std::ios::binary) << input.bytes;
    std::cout << "      saved as " << file << std::endl;
}

// The bound on one check of `input`: `max_seconds`, and more for inputs past 256 KiB in
// proportion to their size (a linear pass over 1 MiB is allowed 4 times as long).
double bound_seconds(const Input &input, double max_seconds)
{
    return max_seconds * std::max(1.0, static_cast<double>(input.bytes.size()) / (256 << 10));
}

void run(const Input &input, double max_seconds, tartaros::fuzz::Checker &checker, Stats &stats)
{
    const double bound = bound_seconds(input, max_seconds);
    for (const char *ext : {".tart", ".toml"}) {
        const std::string display = tartaros::fuzz::with_extension(input.origin, ext);
        g_input = &input;
        g_display = display.c_str();
        alarm(static_cast<unsigned>(bound * 4) + 1);
        const auto start = std::chrono::steady_clock::now();
        const tartaros::fuzz::Outcome outcome = checker.check(input.bytes, display);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        alarm(0);
        g_input = nullptr;
        ++stats.runs;
        stats.parsed += outcome.parsed;
        stats.lowered += outcome.lowered;
        stats.time(ms, input, ext);
        if (!outcome.failure.empty())
            report_failure(stats, input, display, outcome.failure);
        if (ms > bound * 1000)
            report_failure(stats, input, display,
                           "took " + std::to_string(ms) + " ms, over the bound of " + std::to_string(bound) + " s");
    }
}

int usage()
{
    std::cerr << "usage: fuzz_corpus [--max-seconds S] [--mutations N] [--generated DIR] ROOT...\n"
                 "       fuzz_corpus --one FILE AS\n";
    return 2;
}

}  // namespace

int main(int argc, char **argv)
{
    double max_seconds = 2;
    tartaros::fuzz::Budget budget;
    std::vector<std::string> roots;
    std::string generated_in;
    std::vector<Input> inputs;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--max-seconds" && i + 1 < argc) {
            max_seconds = std::atof(argv[++i]);
        } else if (arg == "--generated" && i + 1 < argc) {
            generated_in = argv[++i];
        } else if (arg == "--mutations" && i + 1 < argc) {
            budget.mutations = static_cast<size_t>(std::atol(argv[++i]));
            budget.large_mutations = budget.mutations / 3;
        } else if (arg == "--one" && i + 2 < argc) {
            std::ifstream in(argv[i + 1], std::ios::binary);
            inputs.push_back({argv[i + 1], std::string(std::istreambuf_iterator<char>(in), {}), argv[i + 2]});
            i += 2;
        } else if (!arg.empty() && arg[0] != '-') {
            roots.push_back(arg);
        } else {
            return usage();
        }
    }
    if (roots.empty() && inputs.empty() && generated_in.empty())
        return usage();
    const auto start = std::chrono::steady_clock::now();
    const std::vector<std::string> files = tartaros::fuzz::policy_files(roots);
    for (const std::string &file : files)
        tartaros::fuzz::add_file_inputs(file, budget, inputs);
    if (!generated_in.empty())
        tartaros::fuzz::add_generated_inputs(generated_in, inputs);

    // Truncations and mutations often give the same bytes twice: each is checked once.
    std::unordered_set<uint64_t> seen;
    size_t unique = 0;
    install_handlers();
    tartaros::fuzz::Checker checker;
    Stats stats;
    for (const Input &input : inputs) {
        if (!seen.insert(tartaros::fuzz::seed_of(input.bytes)).second)
            continue;
        ++unique;
        run(input, max_seconds, checker, stats);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << files.size() << " files, " << inputs.size() << " inputs (" << unique << " distinct), " << stats.runs
              << " parses, " << stats.parsed << " policies, " << stats.lowered << " distinct models lowered to a plan, "
              << stats.failures << " failures, " << seconds << " s\nslowest:\n";
    for (const Slow &slow : stats.slowest)
        std::cout << "  " << slow.ms << " ms " << slow.what << "\n";
    std::cout << "costliest files (all their inputs):\n";
    for (const Slow &file : stats.costliest_files(8))
        std::cout << "  " << file.ms << " ms " << file.what << "\n";
    return stats.failures == 0 ? 0 : 1;
}
