// compiler/frontend/frontend_dsl_resolve.h — a .tart policy's files read and its groups resolved.
//
// Loader reads the policy file and, depth first at each `include`, the files it includes: the
// result is one Program whose statements are in reading order (an included file's statements
// stand where its include does). Errors: include-cycle (at the include, naming the file it
// returns to and the chain), include-duplicate (at the second include, naming the first),
// unreadable-policy (at the include), invalid-value (an include that is not a .tart file),
// the path errors of any policy path (glob, invalid-path), and each file's syntax errors.
//
// Groups checks the group definitions of the whole program and expands each: duplicate-group
// (at the second definition, naming the first), unknown-group (with a "did you mean"),
// group-kind (a domains group in a paths group or the reverse, a typed path in a domains
// group), group-cycle (at the reference that closes the cycle, naming the chain), group-size
// (more than kMaxGroupEntries entries, which would make every later check quadratic).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "frontend_dsl_ast.h"

namespace tartaros::dsl {

// A file of the policy: where it is, its text, and what its relative paths are relative to,
// written from the policy file's directory ("" for files there; "rules/" for a file included as
// "rules/x.tart"; "/etc/tart/" for one included by an absolute path), so that a relative path
// prefixed with it means, from the policy's directory, what it meant in its own file.
struct SourceText {
    SourceFile file;
    std::string text;
    std::string prefix;
};

// A `version` statement and the file that holds it.
struct VersionAt {
    size_t file;  // index in Program::files
    Version version;
};

struct Program {
    std::vector<SourceText> files;  // files[0] is the policy file
    std::vector<VersionAt> versions;
    std::vector<Group> groups;
    std::vector<Block> blocks;
    std::vector<SyscallsBlock> syscalls;
};

class Loader {
public:
    Loader(Diagnostics &diags, std::optional<std::string> home) : diags_(diags), home_(std::move(home)) {}

    // The policy file `root` with its text, and everything it includes.
    void load_root(const std::string &text, const SourceFile &root);
    // A policy file that is not .tart (a TOML policy) with the includes it names: `includes`
    // are positioned in that file. Its statements are not the loader's to read.
    void load_includes(const SourceFile &root, const std::vector<Name> &includes);

    bool ok() const { return ok_; }
    Program &program() { return program_; }

private:
    void read(size_t index);
    void include(size_t from, const Include &statement);
    std::optional<std::string> resolve(size_t from, const Name &path);
    bool refuse_repeat(const Include &statement, const std::string &absolute);

    Diagnostics &diags_;
    std::optional<std::string> home_;
    Program program_;
    std::vector<size_t> reading_;                   // the files being read, outermost first
    std::map<std::string, SourcePos> included_at_;  // absolute path → its include statement
    bool ok_ = true;
};

// The most entries a group may expand to, and a setting may hold after its groups expand.
inline constexpr size_t kMaxGroupEntries = 4096;

class Groups {
public:
    Groups(const std::vector<Group> &groups, Diagnostics &diags);

    const Group *find(std::string_view name) const;
    // The items of `group`, every group reference expanded in place, in order; nullopt when the
    // group has an error (already reported).
    const std::optional<std::vector<const Value *>> &expansion(const Group &group) const;
    // "unknown group '@NAME'" with a "did you mean", at `ref`.
    void report_unknown(const Value &ref) const;

private:
    void expand(size_t start);
    bool check_reference(const Group &from, const Value &ref, size_t &target);
    void report_cycle(const std::vector<size_t> &stack, size_t target, const Value &ref);
    void finish(size_t index);

    const std::vector<Group> &groups_;
    Diagnostics &diags_;
    std::map<std::string, size_t, std::less<>> by_name_;  // first definition of each name
    std::vector<int> state_;                              // 0 unvisited, 1 being expanded, 2 done
    std::vector<std::optional<std::vector<const Value *>>> expansions_;
    std::vector<bool> failed_;
};

}  // namespace tartaros::dsl
