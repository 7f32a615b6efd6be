// compiler/cli/compile_inputs.h — what a compile read besides its command line, recorded so
// that `tartaros run`'s plan cache (plan_cache.h) can tell whether the same compile today
// would give the same plan.
//
// A compile reads: the policy files (Policy::sources), the host through HostView (kinds,
// symlink targets, directory listings: the lowering's and the verifier's only questions),
// the public suffix list (domain patterns) and the broker's ca_file (checked to be a regular
// file). Each is one Input: what was asked and the answer. Recording happens through the
// same functions that answer at lookup (answer_now), so an answer is compared with one
// computed the same way.
//
// Invariant: an Input's answer is a pure function of the host's state at the moment it is
// asked; two compiles that got equal answers to every Input of one of them (and had equal
// keys: plan_cache.h) produce the same plan, warnings and refusals.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "frontend_dsl.h"
#include "host_answer.h"
#include "host_view.h"
#include "policy.h"

namespace tartaros {

// The questions of shared/host_answer.h, which answers them for the compile and for a lookup.
enum class InputKind : uint8_t {
    Content = TH_CONTENT,         // a policy file's bytes, as the front-end read them
    Kind = TH_KIND,               // HostView::kind (lstat)
    LinkTarget = TH_LINK_TARGET,  // HostView::read_link
    Entries = TH_ENTRIES,         // HostView::entries, NUL-separated
    Identity = TH_IDENTITY,       // stat (following symlinks): device, inode, size, times; "absent" if none
};

struct Input {
    InputKind kind;
    std::string path;
    std::string answer;
    bool operator==(const Input &) const = default;
};

// The answer `path` gives to a question of `kind` now.
std::string answer_now(InputKind kind, const std::string &path);

// A HostView that answers as `inner` does and records each distinct question with its answer.
class RecordingHost final : public HostView {
public:
    explicit RecordingHost(const HostView &inner) : inner_(inner) {}
    HostKind kind(const std::string &path) const override;
    std::string read_link(const std::string &path) const override;
    std::vector<std::string> entries(const std::string &path) const override;
    // The questions in the order first asked.
    const std::vector<Input> &inputs() const { return inputs_; }

private:
    void record(InputKind kind, const std::string &path, std::string answer) const;
    const HostView &inner_;
    mutable std::vector<Input> inputs_;
    mutable std::set<std::pair<InputKind, std::string>> asked_;
};

// The public suffix list's identity, taken before the compile reads it: a list replaced
// during the compile then makes the entry stale instead of wrong.
Input public_suffix_input();

// The inputs of a compile of `policy` besides the host's answers and the public suffix list:
// each policy file with the text the front-end read (`texts`), and the ca_file's identity.
std::vector<Input> file_inputs(const Policy &policy, const PolicyTexts &texts);

}  // namespace tartaros
