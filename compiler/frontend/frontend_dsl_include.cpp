// compiler/frontend/frontend_dsl_include.cpp — Loader (frontend_dsl_resolve.h): the policy file and the
// files it includes, read depth first into one Program.
//
// A file is known by its absolute normalised path: reading one that is being read (it includes
// itself, directly or not) is a cycle; reading one that was read before is a duplicate. Both
// would otherwise set every setting of that file twice.
#include <utility>

#include "frontend_dsl_parse.h"
#include "frontend_dsl_resolve.h"
#include "paths.h"
#include "toml_schema.h"

namespace tartaros::dsl {

namespace {

// "a/b/" for "a/b/c.tart", "" for "c.tart".
std::string directory_part(const std::string &path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

bool is_rooted(const std::string &path)
{
    return !path.empty() && (path.front() == '/' || path.front() == '~');
}

}  // namespace

void Loader::load_root(const std::string &text, const SourceFile &root)
{
    program_.files.push_back({root, text, ""});
    read(0);
}

void Loader::load_includes(const SourceFile &root, const std::vector<Name> &includes)
{
    program_.files.push_back({root, "", ""});
    reading_.push_back(0);
    for (const Name &path : includes)
        include(0, Include{path.pos, path});
    reading_.pop_back();
}

// Parses file `index` and takes its statements in order, reading each include where it stands.
void Loader::read(size_t index)
{
    const SourceText &source = program_.files[index];
    diags_.add_source(source.file.display, source.text);
    std::optional<File> file = parse_tart_file(source.text, source.file.display, index, diags_);
    if (!file) {
        ok_ = false;
        return;
    }
    reading_.push_back(index);
    for (Statement &statement : file->statements) {
        if (auto *include_statement = std::get_if<Include>(&statement)) {
            include(index, *include_statement);
        } else if (auto *version = std::get_if<Version>(&statement)) {
            program_.versions.push_back({index, std::move(*version)});
        } else if (auto *group = std::get_if<Group>(&statement)) {
            program_.groups.push_back(std::move(*group));
        } else if (auto *block = std::get_if<Block>(&statement)) {
            program_.blocks.push_back(std::move(*block));
        } else {
            program_.syscalls.push_back(std::move(std::get<SyscallsBlock>(statement)));
        }
    }
    reading_.pop_back();
}

// The absolute path an include names, relative to the directory of the file `from`; nullopt
// after reporting.
std::optional<std::string> Loader::resolve(size_t from, const Name &path)
{
    PathError err;
    const std::string base = parent_directory(program_.files[from].file.absolute);
    std::optional<std::string> absolute = resolve_policy_path(path.text, "include", base, home_, err);
    if (!absolute) {
        diags_.error(path.pos, std::move(err.message), std::move(err.rule_id));
        return std::nullopt;
    }
    if (!absolute->ends_with(".tart")) {
        diags_.error(path.pos,
                     "'include': " + quoted(path.text) +
                         " is not a .tart file: a policy includes .tart files only (their settings, groups and "
                         "syscall rules add to its own)",
                     "invalid-value");
        return std::nullopt;
    }
    return absolute;
}

// A file being read (a cycle) or read before (a duplicate) is reported; true then.
bool Loader::refuse_repeat(const Include &statement, const std::string &absolute)
{
    for (size_t i = 0; i < reading_.size(); ++i) {
        const SourceFile &open = program_.files[reading_[i]].file;
        if (open.absolute != absolute)
            continue;
        std::string chain;
        for (size_t k = i; k < reading_.size(); ++k)
            chain += program_.files[reading_[k]].file.display + " → ";
        diags_.error(statement.path.pos,
                     "this include returns to " + quoted(open.display) +
                         ", which is still being read: an include "
                         "cycle (" +
                         chain + open.display + ")",
                     "include-cycle");
        return true;
    }
    const auto first = included_at_.find(absolute);
    if (first == included_at_.end())
        return false;
    diags_.error(statement.path.pos,
                 quoted(statement.path.text) + " names a file already included at " + position_text(first->second) +
                     "; a file is included once (its settings would be made twice)",
                 "include-duplicate");
    return true;
}

void Loader::include(size_t from, const Include &statement)
{
    const std::optional<std::string> absolute = resolve(from, statement.path);
    if (!absolute || refuse_repeat(statement, *absolute)) {
        ok_ = false;
        return;
    }
    included_at_.emplace(*absolute, statement.pos);
    const SourceText &includer = program_.files[from];
    const std::string &raw = statement.path.text;
    SourceText source;
    source.file.absolute = *absolute;
    source.file.display = is_rooted(raw) ? raw : directory_part(includer.file.display) + raw;
    source.prefix = is_rooted(raw) ? directory_part(raw) : includer.prefix + directory_part(raw);
    std::string err;
    if (!read_file(*absolute, source.text, err)) {
        diags_.error(statement.path.pos, "cannot read the included file " + quoted(raw) + ": " + err,
                     "unreadable-policy");
        ok_ = false;
        return;
    }
    program_.files.push_back(std::move(source));
    read(program_.files.size() - 1);
}

}  // namespace tartaros::dsl
