// bench_interleave — wall time of several commands, run in turn rather than one after another.
//
//   bench_interleave RUNS WARMUP ::: NAME CMD [ARGS...] ::: NAME CMD [ARGS...] ...
//
// A NAME of the form `name@3=FILE` runs its command with FILE open on fd 3 (bubblewrap's
// --seccomp 3). hyperfine times all runs of one command, then all of the next: on a shared VM
// whose speed drifts by tens of percent within a minute, a ratio of two such blocks measures
// the drift as much as the commands. Here every round runs each command once, in an order
// rotated from round to round, so drift reaches all of them alike, and each command's time is
// also compared with the first command's in the same round. Commands run with stdin, stdout
// and stderr on /dev/null, through posix_spawnp (no shell, PATH searched); a failed run stops
// the benchmark.
//
// GAP_MS (environment): milliseconds idle before each run, as an agent's commands are seconds
// apart; the CPUs then wake from idle for each run, which slows every command a little.
// OUTPUT=pipe (environment): stdout and stderr are one pipe that the benchmark reads to its
// end, as an agent's harness reads a command's output; a run then lasts until the command
// has exited and its output has reached EOF.
//
// Output, one JSON object per command and line: name, runs, median and min (ms), and
// added_median: the median over rounds of (this command - the first command), in ms.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char **environ;

namespace {

struct Command {
    std::string name;
    std::string fd3_file;  // empty: no fd 3
    std::vector<char *> argv;
    std::vector<double> ms;
};

double now_ms()
{
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

bool output_to_pipe()
{
    const char *output = std::getenv("OUTPUT");
    return output != nullptr && std::strcmp(output, "pipe") == 0;
}

// Reads `fd` to its end and closes it.
void drain(int fd)
{
    char buf[4096];
    while (read(fd, buf, sizeof buf) > 0) {
    }
    close(fd);
}

// One run of `c`: its wall time from spawn to reaped (and, with OUTPUT=pipe, to the output's
// EOF), in ms.
double run_once(const Command &c)
{
    static const bool to_pipe = output_to_pipe();
    int out[2] = {-1, -1};
    if (to_pipe && pipe2(out, O_CLOEXEC) != 0) {
        std::perror("bench_interleave: pipe2");
        std::exit(1);
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (to_pipe) {
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        posix_spawn_file_actions_adddup2(&fa, out[1], 2);
    } else {
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    }
    if (!c.fd3_file.empty())
        posix_spawn_file_actions_addopen(&fa, 3, c.fd3_file.c_str(), O_RDONLY, 0);
    const double start = now_ms();
    pid_t pid = 0;
    int err = posix_spawnp(&pid, c.argv[0], &fa, nullptr, c.argv.data(), environ);
    if (to_pipe) {
        close(out[1]);
        drain(out[0]);
    }
    int status = 0;
    if (err == 0)
        waitpid(pid, &status, 0);
    const double elapsed = now_ms() - start;
    posix_spawn_file_actions_destroy(&fa);
    if (err != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "bench_interleave: %s failed (%s)\n", c.name.c_str(),
                     err ? std::strerror(err) : "exit status not 0");
        std::exit(1);
    }
    return elapsed;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::vector<Command> parse_commands(int argc, char **argv)
{
    std::vector<Command> out;
    for (int i = 3; i < argc; i++) {
        if (std::strcmp(argv[i], ":::") == 0) {
            out.emplace_back();
            continue;
        }
        if (out.empty())
            return {};
        Command &c = out.back();
        if (c.name.empty()) {
            std::string name = argv[i];
            size_t at = name.find("@3=");
            c.name = name.substr(0, at);
            if (at != std::string::npos)
                c.fd3_file = name.substr(at + 3);
        } else {
            c.argv.push_back(argv[i]);
        }
    }
    for (Command &c : out) {
        if (c.name.empty() || c.argv.empty())
            return {};
        c.argv.push_back(nullptr);
    }
    return out;
}

}  // namespace

int main(int argc, char **argv)
{
    std::vector<Command> cmds = argc > 3 ? parse_commands(argc, argv) : std::vector<Command>{};
    const int runs = argc > 1 ? std::atoi(argv[1]) : 0;
    const int warmup = argc > 2 ? std::atoi(argv[2]) : -1;
    if (cmds.size() < 2 || runs < 1 || warmup < 0) {
        std::fprintf(stderr, "usage: bench_interleave RUNS WARMUP ::: NAME[@3=FILE] CMD [ARGS...] ::: ...\n");
        return 2;
    }
    const size_t n = cmds.size();
    for (int w = 0; w < warmup; w++)
        for (const Command &c : cmds)
            run_once(c);
    std::vector<std::vector<double>> added(n);
    const char *gap_env = std::getenv("GAP_MS");
    const long gap_us = gap_env ? std::atol(gap_env) * 1000 : 0;
    for (int r = 0; r < runs; r++) {
        std::vector<double> round(n);
        for (size_t k = 0; k < n; k++) {
            const size_t i = (k + static_cast<size_t>(r)) % n;
            if (gap_us > 0)
                usleep(static_cast<useconds_t>(gap_us));
            round[i] = run_once(cmds[i]);
        }
        for (size_t i = 0; i < n; i++) {
            cmds[i].ms.push_back(round[i]);
            added[i].push_back(round[i] - round[0]);
        }
    }
    for (size_t i = 0; i < n; i++) {
        const Command &c = cmds[i];
        std::printf("{\"name\": \"%s\", \"runs\": %zu, \"median\": %.4f, \"min\": %.4f, \"added_median\": %.4f}\n",
                    c.name.c_str(), c.ms.size(), median(c.ms), *std::min_element(c.ms.begin(), c.ms.end()),
                    median(added[i]));
    }
    return 0;
}
