// tests/compiler/frontend/test_frontend_dsl_fixture.h — what the .tart front-end's tests share: a scratch
// directory of policy files, $HOME set for the test, and a policy parsed from text.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "frontend.h"
#include "parsed_policy.h"

namespace tartaros::test {

// Sets $HOME for the test's duration.
struct DslHome {
    std::optional<std::string> saved;
    explicit DslHome(const char *home = "/home/agent")
    {
        if (const char *old = std::getenv("HOME"))
            saved = old;
        setenv("HOME", home, 1);
    }
    ~DslHome()
    {
        if (saved)
            setenv("HOME", saved->c_str(), 1);
        else
            unsetenv("HOME");
    }
};

// A fresh directory for policy files, removed with the object.
struct PolicyDir {
    std::string path;
    PolicyDir()
    {
        path = (std::filesystem::temp_directory_path() / "tartaros-dsl-XXXXXX").string();
        if (mkdtemp(path.data()) == nullptr)
            path.clear();
    }
    ~PolicyDir()
    {
        if (!path.empty())
            std::filesystem::remove_all(path);
    }
    // Writes `text` to `name` (relative to the directory, parents created); returns its path.
    std::string write(const std::string &name, const std::string &text) const
    {
        const std::filesystem::path file = std::filesystem::path(path) / name;
        std::filesystem::create_directories(file.parent_path());
        std::ofstream(file) << text;
        return file.string();
    }
};

// `text` parsed as the policy `display` (its name decides the language).
inline Parsed parse_text(const std::string &text, const std::string &display)
{
    DslHome home;
    Parsed parsed;
    parsed.policy = parse_policy_text(text, display, parsed.diags);
    return parsed;
}

// The policy file `name` of `dir`, written with `text`, then parsed by its absolute path.
inline Parsed parse_file(const PolicyDir &dir, const std::string &name, const std::string &text)
{
    return parse_text(text, dir.write(name, text));
}

// The diagnostics printed, source lines and carets included.
inline std::string printed(const Diagnostics &diags)
{
    std::ostringstream out;
    diags.print(out);
    return out.str();
}

}  // namespace tartaros::test
