// plan_damage COMPILE EXEC — tartaros-exec against every damaged copy of a real plan.
//
// A plan compiled from a real policy is cut at every byte offset, and has one bit flipped
// at every byte offset (the bit rotates with the offset); tartaros-exec must refuse each
// copy with exit 78 and exactly one stderr line starting "tartaros:", and the command —
// which would create a marker file — must not run. The reader's unit tests flip every bit;
// this proves the enforcer binary itself, end to end, fails closed and never crashes.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern char **environ;

namespace {

struct Run {
    int status = -1;
    std::string err;
};

// Runs argv with stdout discarded and stderr captured.
Run run(const std::vector<std::string> &args)
{
    int pipefd[2];
    if (pipe(pipefd) != 0) {
        perror("pipe");
        std::exit(2);
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipefd[1], 2);
    posix_spawn_file_actions_addclose(&actions, pipefd[0]);
    std::vector<char *> argv;
    for (const std::string &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid;
    if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
        perror("posix_spawn");
        std::exit(2);
    }
    posix_spawn_file_actions_destroy(&actions);
    close(pipefd[1]);
    Run r;
    char buf[4096];
    for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;)
        r.err.append(buf, static_cast<size_t>(n));
    close(pipefd[0]);
    waitpid(pid, &r.status, 0);
    return r;
}

void write_file(const std::string &path, const std::vector<char> &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        std::exit(2);
    }
}

struct Checker {
    std::string exec, plan, marker;
    int failures = 0, runs = 0;

    // One damaged plan: refused with the signature, and the command did not run.
    void expect_refused(const std::vector<char> &bytes, const std::string &what)
    {
        write_file(plan, bytes);
        const Run r = run({exec, plan, "--", "/bin/touch", marker});
        ++runs;
        const bool exit78 = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 78;
        const bool one_line = !r.err.empty() && r.err.back() == '\n' && r.err.find('\n') == r.err.size() - 1;
        const bool signature = r.err.rfind("tartaros: ", 0) == 0;
        const bool ran = access(marker.c_str(), F_OK) == 0;
        if (exit78 && one_line && signature && !ran)
            return;
        ++failures;
        std::printf("FAIL %s: status 0x%x, command ran: %s, stderr: %s\n", what.c_str(), r.status, ran ? "yes" : "no",
                    r.err.c_str());
        unlink(marker.c_str());
    }
};

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: plan_damage TARTAROS-COMPILE TARTAROS-EXEC\n");
        return 2;
    }
    char dir_template[] = "/var/tmp/tartaros-damage-XXXXXX";
    const char *dir = mkdtemp(dir_template);
    if (dir == nullptr) {
        perror("mkdtemp");
        return 2;
    }
    const std::string d = dir;
    mkdir((d + "/ws").c_str(), 0755);
    mkdir((d + "/secret").c_str(), 0755);
    {
        std::ofstream policy(d + "/policy.toml");
        policy << "version = 1\n[filesystem]\nwritable_roots = [\"ws\"]\nread_denies = [\"secret\"]\n"
                  "write_denies = [\"ws/.git/hooks\"]\nmaterialize = true\n[env]\nset = { CI = \"1\" }\n";
    }
    const std::string good = d + "/good.plan";
    const Run compiled = run({argv[1], d + "/policy.toml", "-o", good});
    if (!WIFEXITED(compiled.status) || WEXITSTATUS(compiled.status) != 0) {
        std::printf("FAIL: the policy did not compile: %s\n", compiled.err.c_str());
        return 1;
    }
    std::ifstream in(good, std::ios::binary);
    const std::vector<char> plan((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

    Checker check{argv[2], d + "/damaged.plan", d + "/ws/ran"};
    for (size_t cut = 0; cut < plan.size(); ++cut)
        check.expect_refused(std::vector<char>(plan.begin(), plan.begin() + static_cast<long>(cut)),
                             "cut at " + std::to_string(cut));
    for (size_t off = 0; off < plan.size(); ++off) {
        std::vector<char> flipped = plan;
        flipped[off] = static_cast<char>(flipped[off] ^ (1 << (off % 8)));
        check.expect_refused(flipped, "bit " + std::to_string(off % 8) + " of byte " + std::to_string(off));
    }
    std::vector<char> longer = plan;
    longer.push_back('\0');
    check.expect_refused(longer, "one byte appended");

    if (std::system(("rm -rf '" + d + "'").c_str()) != 0)
        std::printf("warning: could not remove %s\n", d.c_str());
    std::printf("%d damaged plans of a %zu-byte plan: %d passed, %d failed\n", check.runs, plan.size(),
                check.runs - check.failures, check.failures);
    return check.failures == 0 ? 0 : 1;
}
