// The one table of policy keys (policy_keys.h) against docs/policy.md's key reference, and
// against what the two front-ends accept; each key's example (tartaros-policy(5)) is a policy.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "frontend.h"
#include "paths.h"
#include "policy_keys.h"

namespace tartaros {

namespace {

// docs/policy.md's key reference: the lines from the table's header row to the first line
// that is not a row.
std::string documented_reference(const std::string &page)
{
    const size_t start = page.find("| key | type | default | meaning |\n");
    REQUIRE(start != std::string::npos);
    size_t end = start;
    while (end < page.size() && page[end] == '|')
        end = page.find('\n', end) + 1;
    return page.substr(start, end - start);
}

}  // namespace

TEST_CASE("policy keys: docs/policy.md's key reference is the table")
{
    std::string page, err;
    REQUIRE(read_file(std::string(TARTAROS_SOURCE_DIR) + "/docs/policy.md", page, err));
    // On a difference, paste the expected table (policy_key_reference()) into docs/policy.md, or
    // fix the row in policy_keys.cpp.
    CHECK(documented_reference(page) == policy_key_reference());
}

TEST_CASE("policy keys: names are unique within a section, and each section is in the table")
{
    std::set<std::pair<std::string_view, std::string_view>> seen;
    for (const PolicyKey &k : policy_keys()) {
        CHECK(seen.insert({k.section, k.name}).second);
        CHECK(policy_section(k.section).name == k.section);
    }
    CHECK_THROWS_AS(policy_section("nowhere"), std::logic_error);
    CHECK(known_names("broker").back() == "capability");
    CHECK(known_names("").size() == 2 + 5);  // version, include and the five top-level tables
}

TEST_CASE("policy keys: every key of the table is read by both front-ends")
{
    // A policy that sets one key of the table with a wrong type: the reader knows the key when
    // it says what type it wants instead of "unknown key".
    for (const PolicyKey &k : policy_keys()) {
        if (k.section.empty())
            continue;
        const std::string header = std::string(policy_section(k.section).header);
        const std::string toml = "version = 1\n" + header + "\n" + std::string(k.name) + " = {x = {y = 1}}\n";
        Diagnostics diags;
        parse_policy_text(toml, "/p/policy.toml", diags);
        std::ostringstream text;
        diags.print(text);
        CAPTURE(toml);
        CHECK(text.str().find("unknown key") == std::string::npos);
    }
}

TEST_CASE("policy keys: every key's example sets the key and is accepted by the TOML front-end")
{
    // The files the examples name (include, ca_file), relative to the policy's directory.
    std::string dir = (std::filesystem::temp_directory_path() / "tartaros-key-examples.XXXXXX").string();
    REQUIRE(mkdtemp(dir.data()) != nullptr);
    std::ofstream(dir + "/groups.tart") << "version 1;\n";
    std::ofstream(dir + "/corp-ca.pem") << "a PEM bundle\n";
    for (const PolicyKey &k : policy_keys()) {
        CAPTURE(k.name);
        REQUIRE(!k.example.empty());
        CHECK(k.example.find(std::string(k.name) + " = ") != std::string_view::npos);
        // The example under its section's header, and what that section needs beside it: a
        // broker needs its allowed hosts and a capability, a capability its name, host and variable.
        std::string toml = k.name == "version" ? "" : "version = 1\n";
        if (k.section.empty())
            toml += std::string(k.example) + "\n";
        else if (!k.section.starts_with("broker"))
            toml += std::string(policy_section(k.section).header) + "\n" + std::string(k.example) + "\n";
        else {
            toml += "[broker]\n";
            if (k.name != "allowed_hosts")
                toml += "allowed_hosts = [\"api.github.com\"]\n";
            if (k.section == "broker")
                toml += std::string(k.example) + "\n";
            toml += "[[broker.capability]]\n";
            for (std::string_view required : {"name = \"gh\"", "host = \"api.github.com\"", "value_env = \"GH_TOKEN\""})
                if (k.section == "broker" || !required.starts_with(std::string(k.name) + " "))
                    toml += std::string(required) + "\n";
            if (k.section == "broker.capability")
                toml += std::string(k.example) + "\n";
        }
        CAPTURE(toml);
        Diagnostics diags;
        parse_policy_text(toml, dir + "/policy.toml", diags);
        std::ostringstream text;
        diags.print(text);
        CAPTURE(text.str());
        CHECK(!diags.has_errors());
    }
    std::filesystem::remove_all(dir);
}

}  // namespace tartaros
