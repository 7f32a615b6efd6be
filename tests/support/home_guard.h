// tests/support/home_guard.h — $HOME set (or unset) for a test's scope, restored after: the
// compiler expands `~` from it, and the lint rules compare paths with it.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

struct HomeGuard {
    std::optional<std::string> saved;
    // nullptr: HOME unset for the scope.
    explicit HomeGuard(const char *home)
    {
        if (const char *old = std::getenv("HOME"))
            saved = old;
        if (home != nullptr)
            setenv("HOME", home, 1);
        else
            unsetenv("HOME");
    }
    ~HomeGuard()
    {
        if (saved)
            setenv("HOME", saved->c_str(), 1);
        else
            unsetenv("HOME");
    }
    HomeGuard(const HomeGuard &) = delete;
    HomeGuard &operator=(const HomeGuard &) = delete;
};
