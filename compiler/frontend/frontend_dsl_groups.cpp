// compiler/frontend/frontend_dsl_groups.cpp — Groups (frontend_dsl_resolve.h): the named groups of
// paths and domains, checked and expanded once.
//
// Expansion is a depth-first walk with an explicit stack (a chain of thousands of groups must
// not exhaust the C++ stack). A group that reaches a group being expanded closes a cycle: that
// is reported once, at the reference, and every group on the cycle fails. A group that uses a
// failed group fails too, silently: its error is already reported.
#include <algorithm>

#include "frontend_dsl_resolve.h"
#include "toml_schema.h"

namespace tartaros::dsl {

namespace {

constexpr int kUnvisited = 0, kExpanding = 1, kDone = 2;

const char *kind_name(bool paths)
{
    return paths ? "paths" : "domains";
}

}  // namespace

Groups::Groups(const std::vector<Group> &groups, Diagnostics &diags)
    : groups_(groups), diags_(diags), state_(groups.size(), kUnvisited), expansions_(groups.size()),
      failed_(groups.size(), false)
{
    for (size_t i = 0; i < groups.size(); ++i) {
        const Group &group = groups[i];
        const auto [first, inserted] = by_name_.emplace(group.name.text, i);
        if (inserted)
            continue;
        diags_.error(group.name.pos,
                     "group " + quoted(group.name.text) + " is already defined at " +
                         position_text(groups[first->second].name.pos) + "; group names are unique in the whole policy",
                     "duplicate-group");
        state_[i] = kDone;  // never used: references find the first definition
        failed_[i] = true;
    }
    for (size_t i = 0; i < groups.size(); ++i)
        if (state_[i] == kUnvisited)
            expand(i);
}

const Group *Groups::find(std::string_view name) const
{
    const auto found = by_name_.find(name);
    return found == by_name_.end() ? nullptr : &groups_[found->second];
}

const std::optional<std::vector<const Value *>> &Groups::expansion(const Group &group) const
{
    return expansions_[static_cast<size_t>(&group - groups_.data())];
}

// Group names are the policy's own and can be as long as a line: the "did you mean" (an edit
// distance, quadratic in the lengths) compares only names short enough to be typed.
void Groups::report_unknown(const Value &ref) const
{
    constexpr size_t kLongest = 64;
    std::vector<std::string> names;
    if (ref.text.size() <= kLongest)
        for (const auto &[name, index] : by_name_)
            if (name.size() <= kLongest)
                names.push_back(name);
    std::string message = "unknown group '@" + ref.text + "'";
    const std::string suggestion = closest_match(ref.text, names);
    if (!suggestion.empty())
        message += "; did you mean '@" + suggestion + "'?";
    diags_.error(ref.pos, std::move(message), "unknown-group");
}

// Whether `ref` in group `from` names a usable group (its index into `target`); reports
// when not.
bool Groups::check_reference(const Group &from, const Value &ref, size_t &target)
{
    const auto found = by_name_.find(ref.text);
    if (found == by_name_.end()) {
        report_unknown(ref);
        return false;
    }
    target = found->second;
    const Group &to = groups_[target];
    if (to.paths != from.paths) {
        diags_.error(ref.pos,
                     "'@" + ref.text + "' is a " + kind_name(to.paths) + " group (" + position_text(to.name.pos) +
                         "); " + kind_name(from.paths) + " group " + quoted(from.name.text) + " can use " +
                         kind_name(from.paths) + " groups only",
                     "group-kind");
        return false;
    }
    return true;
}

void Groups::report_cycle(const std::vector<size_t> &stack, size_t target, const Value &ref)
{
    const auto start = std::find(stack.begin(), stack.end(), target);
    std::string chain;
    for (auto it = start; it != stack.end(); ++it) {
        chain += "@" + groups_[*it].name.text + " → ";
        failed_[*it] = true;
    }
    diags_.error(ref.pos,
                 "group " + quoted(groups_[target].name.text) + " (" + position_text(groups_[target].name.pos) +
                     ") reaches itself: " + chain + "@" + ref.text,
                 "group-cycle");
}

// Every item of group `index` in order, references replaced by their groups' expansions.
void Groups::finish(size_t index)
{
    state_[index] = kDone;
    const Group &group = groups_[index];
    if (failed_[index])
        return;
    std::vector<const Value *> out;
    for (const Value &item : group.items) {
        if (item.kind != Value::Kind::GroupRef) {
            out.push_back(&item);
        } else {
            const auto &inner = expansions_[by_name_.find(item.text)->second];
            if (!inner) {
                failed_[index] = true;
                return;
            }
            out.insert(out.end(), inner->begin(), inner->end());
        }
        if (out.size() > kMaxGroupEntries) {
            diags_.error(group.name.pos,
                         "group " + quoted(group.name.text) + " expands to more than " +
                             std::to_string(kMaxGroupEntries) + " entries",
                         "group-size");
            failed_[index] = true;
            return;
        }
    }
    expansions_[index] = std::move(out);
}

void Groups::expand(size_t start)
{
    struct Frame {
        size_t group;
        size_t next_item;
    };
    std::vector<Frame> frames{{start, 0}};
    std::vector<size_t> stack{start};
    state_[start] = kExpanding;
    while (!frames.empty()) {
        Frame &frame = frames.back();
        const Group &group = groups_[frame.group];
        if (frame.next_item == group.items.size()) {
            finish(frame.group);
            frames.pop_back();
            stack.pop_back();
            continue;
        }
        const Value &item = group.items[frame.next_item++];
        if (item.kind == Value::Kind::TypedPath && !group.paths) {
            diags_.error(item.pos,
                         "'" + std::string(item.flag ? "file" : "dir") + " \"…\"' is a path; domains group " +
                             quoted(group.name.text) + " holds domains",
                         "group-kind");
            failed_[frame.group] = true;
        }
        if (item.kind != Value::Kind::GroupRef)
            continue;
        size_t target = 0;
        if (!check_reference(group, item, target)) {
            failed_[frame.group] = true;
        } else if (state_[target] == kExpanding) {
            report_cycle(stack, target, item);
        } else if (state_[target] == kUnvisited) {
            state_[target] = kExpanding;
            frames.push_back({target, 0});  // `frame` and `group` are not used after this
            stack.push_back(target);
        }
    }
}

}  // namespace tartaros::dsl
