// compiler/model/plan_origin.h — a policy position as the plan carries it (ir/plan.h tp_origin).
//
// The plan names a file by number: 0 is the policy file (tp_meta.policy_path), k >= 1 the k-th
// file the policy included (Policy::sources[k], TP_SEC_SOURCES record k - 1). A SourcePos
// names its file by display name (policy.h), so the number is the index of the source with
// that display name; a position of no listed file (a command-line flag) is file 0. The column
// is clamped at 65535 (the plan's 16 bits); the line is kept whole.
//
// OriginNames prints an origin as people read it: "agent.toml:12:1" (the policy file by its
// name), "rules.tart:4:5" (an included file by its path relative to the policy file's
// directory, or absolute when it lies elsewhere), "(default)" for line 0. Built from a plan
// (meta.policy_path and TP_SEC_SOURCES) or from the policy (source_path and sources), it
// gives the same text: lowering, --verify and --explain name origins alike.
#pragma once

#include <string>
#include <vector>

#include "plan.h"
#include "plan_reader.h"
#include "policy.h"

namespace tartaros {

class PlanOrigins {
public:
    explicit PlanOrigins(const Policy &policy);

    // {0, 0, 0} for a default (line 0).
    tp_origin operator()(const SourcePos &pos) const;
    // Whether `o` is what operator() gives for `pos` (the verifier's comparison).
    bool same(tp_origin o, const SourcePos &pos) const;

private:
    std::vector<std::string> displays_;  // Policy::sources[k].display, k >= 1 at index k - 1
};

class OriginNames {
public:
    explicit OriginNames(const Policy &policy);
    explicit OriginNames(const tp_plan &plan);  // a plan tp_plan_open accepted

    // "name:line:col", or "(default)" for line 0.
    std::string text(tp_origin o) const;
    // The file's name alone ("policy" when the plan names no policy file).
    const std::string &file(uint16_t index) const;

private:
    void name_files(const std::string &policy_path, const std::vector<std::string> &included);
    std::vector<std::string> names_;  // index = the origin's file
};

}  // namespace tartaros
