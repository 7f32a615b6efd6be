// compiler/cli/compile_inputs.cpp — see compile_inputs.h.
#include "compile_inputs.h"

#include <sys/stat.h>

#include "domains.h"
#include "lower_fs.h"
#include "paths.h"

namespace tartaros {

namespace {

std::string joined_entries(const std::vector<std::string> &names)
{
    std::string out;
    for (const std::string &name : names) {
        out += name;
        out += '\0';
    }
    return out;
}

// Changes to a file's bytes change its size or mtime, and any change its ctime, which no
// unprivileged caller can set back.
std::string identity(const std::string &path)
{
    struct stat st {};
    if (stat(path.c_str(), &st) != 0)
        return "absent";
    return std::to_string(st.st_dev) + ':' + std::to_string(st.st_ino) + ':' + std::to_string(st.st_mode) + ':' +
        std::to_string(st.st_size) + ':' + std::to_string(st.st_mtim.tv_sec) + '.' +
        std::to_string(st.st_mtim.tv_nsec) + ':' + std::to_string(st.st_ctim.tv_sec) + '.' +
        std::to_string(st.st_ctim.tv_nsec);
}

}  // namespace

std::string answer_now(InputKind kind, const std::string &path)
{
    const HostView &host = real_host();
    switch (kind) {
    case InputKind::Content: {
        std::string text, err;
        return read_file(path, text, err) ? text : std::string("\0unreadable", 11);
    }
    case InputKind::Kind: return std::to_string(static_cast<int>(host.kind(path)));
    case InputKind::LinkTarget: return host.read_link(path);
    case InputKind::Entries: return joined_entries(host.entries(path));
    case InputKind::Identity: return identity(path);
    }
    return {};
}

HostKind RecordingHost::kind(const std::string &path) const
{
    const HostKind answer = inner_.kind(path);
    record(InputKind::Kind, path, std::to_string(static_cast<int>(answer)));
    return answer;
}

std::string RecordingHost::read_link(const std::string &path) const
{
    std::string answer = inner_.read_link(path);
    record(InputKind::LinkTarget, path, answer);
    return answer;
}

std::vector<std::string> RecordingHost::entries(const std::string &path) const
{
    std::vector<std::string> answer = inner_.entries(path);
    record(InputKind::Entries, path, joined_entries(answer));
    return answer;
}

void RecordingHost::record(InputKind kind, const std::string &path, std::string answer) const
{
    if (asked_.emplace(kind, path).second)
        inputs_.push_back({kind, path, std::move(answer)});
}

Input public_suffix_input()
{
    return {InputKind::Identity, kPublicSuffixListPath, answer_now(InputKind::Identity, kPublicSuffixListPath)};
}

std::vector<Input> file_inputs(const Policy &policy, const PolicyTexts &texts)
{
    std::vector<Input> inputs;
    for (const PolicyTexts::File &file : texts.files)
        inputs.push_back({InputKind::Content, file.file.absolute, file.text});
    if (policy.broker && policy.broker->ca_file)
        inputs.push_back({InputKind::Identity, policy.broker->ca_file->value,
                          answer_now(InputKind::Identity, policy.broker->ca_file->value)});
    return inputs;
}

}  // namespace tartaros
