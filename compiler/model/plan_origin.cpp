// compiler/model/plan_origin.cpp — see plan_origin.h.
#include "plan_origin.h"

#include <algorithm>

namespace tartaros {

PlanOrigins::PlanOrigins(const Policy &policy)
{
    for (size_t k = 1; k < policy.sources.size(); k++)
        displays_.push_back(policy.sources[k].display);
}

tp_origin PlanOrigins::operator()(const SourcePos &pos) const
{
    if (pos.line == 0)
        return tp_origin{};
    const auto it = std::find(displays_.begin(), displays_.end(), pos.file);
    const uint16_t file = it == displays_.end() ? 0 : static_cast<uint16_t>(it - displays_.begin() + 1);
    return tp_origin{pos.line, static_cast<uint16_t>(std::min<uint32_t>(pos.col, 0xffffu)), file};
}

OriginNames::OriginNames(const Policy &policy)
{
    std::vector<std::string> included;
    for (size_t k = 1; k < policy.sources.size(); k++)
        included.push_back(policy.sources[k].absolute);
    name_files(policy.source_path, included);
}

OriginNames::OriginNames(const tp_plan &plan)
{
    std::vector<std::string> included;
    for (uint32_t k = 0; k < plan.source_count; k++)
        included.emplace_back(tp_plan_str(&plan, plan.sources[k]), plan.sources[k].len);
    const std::string policy_path = plan.meta != nullptr
        ? std::string(tp_plan_str(&plan, plan.meta->policy_path), plan.meta->policy_path.len)
        : std::string();
    name_files(policy_path, included);
}

void OriginNames::name_files(const std::string &policy_path, const std::vector<std::string> &included)
{
    const size_t slash = policy_path.rfind('/');
    const std::string dir = slash == std::string::npos ? std::string() : policy_path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? policy_path : policy_path.substr(slash + 1);
    names_.push_back(base.empty() ? "policy" : base);
    for (const std::string &path : included)
        names_.push_back(!dir.empty() && path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0
                             ? path.substr(dir.size())
                             : path);
}

const std::string &OriginNames::file(uint16_t index) const
{
    return index < names_.size() ? names_[index] : names_.front();
}

std::string OriginNames::text(tp_origin o) const
{
    if (o.line == 0)
        return "(default)";
    return file(o.file) + ":" + std::to_string(o.line) + ":" + std::to_string(o.col);
}

bool PlanOrigins::same(tp_origin o, const SourcePos &pos) const
{
    const tp_origin want = (*this)(pos);
    return o.line == want.line && o.col == want.col && o.file == want.file;
}

}  // namespace tartaros
