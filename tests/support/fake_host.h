// tests/support/fake_host.h — a host filesystem made of two maps, for lowering and verify tests.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lower_fs.h"

namespace tartaros {

class FakeHost final : public HostView {
public:
    std::map<std::string, HostKind> kinds;
    std::map<std::string, std::string> links;
    std::map<std::string, std::vector<std::string>> dirs;  // names listed by entries()

    HostKind kind(const std::string &path) const override
    {
        auto it = kinds.find(path);
        return it == kinds.end() ? HostKind::Absent : it->second;
    }
    std::string read_link(const std::string &path) const override
    {
        auto it = links.find(path);
        return it == links.end() ? "" : it->second;
    }
    std::vector<std::string> entries(const std::string &path) const override
    {
        auto it = dirs.find(path);
        return it == dirs.end() ? std::vector<std::string>{} : it->second;
    }
};

}  // namespace tartaros
