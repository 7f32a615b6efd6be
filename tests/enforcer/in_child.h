// tests/enforcer/in_child.h — runs enforcer code that may refuse (exit 78 through report.h's
// fail/refuse) in a forked child, so a refusal ends the child and not the test binary.
#pragma once

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

struct ChildResult {
    int code;
    std::string err;
};

// Runs `body` in a child with stderr captured; its exit code (the body's, or 78 on a refusal).
inline ChildResult in_child(const std::function<int()> &body)
{
    int pipefd[2];
    REQUIRE(pipe(pipefd) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        dup2(pipefd[1], STDERR_FILENO);
        close(pipefd[0]);
        _exit(body());
    }
    close(pipefd[1]);
    std::string err;
    char buf[512];
    for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;)
        err.append(buf, static_cast<size_t>(n));
    close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, err};
}
