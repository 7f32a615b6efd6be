// compiler/cli/compile_inputs.cpp — see compile_inputs.h.
#include "compile_inputs.h"

#include <new>

#include "domains.h"
#include "host_answer.h"
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

}  // namespace

std::string answer_now(InputKind kind, const std::string &path)
{
    th_owned_text answer;
    th_answer(static_cast<th_question>(kind), path.c_str(), &answer);
    if (answer.failed)
        throw std::bad_alloc();
    return std::string(answer.data, answer.len);
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
