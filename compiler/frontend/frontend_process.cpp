// compiler/frontend/frontend_process.cpp — see frontend_process.h.
#include "frontend_process.h"

#include <sstream>
#include <string>

#include "paths.h"
#include "plan.h"
#include "units.h"

namespace tartaros {

namespace {

using units::RlimitResource;
using units::RlimitUnit;

constexpr uint64_t kUsPerMs = 1000;
constexpr uint64_t kUsPerSecond = 1000000;

// The value as the policy wrote it, for messages: "4G" with its quotes, 1024, 0.5.
std::string written(const toml::node &node)
{
    if (const toml::value<std::string> *text = node.as_string())
        return "\"" + printable(text->get()) + "\"";
    std::ostringstream out;
    if (const toml::value<int64_t> *number = node.as_integer())
        out << number->get();
    else if (const toml::value<double> *real = node.as_floating_point())
        out << real->get();
    return out.str();
}

class ProcessReader {
public:
    ProcessReader(TomlSchemaReader &reader, ProcessPolicy &process) : r_(reader), p_(process) {}

    void read(const toml::table &table);

private:
    void error(const toml::node &node, std::string message, const char *rule_id)
    {
        r_.diags().error(r_.pos(node.source()), std::move(message), rule_id);
    }

    void read_max_processes(const toml::node &node);
    void read_memory_max(const toml::node &node);
    void read_cpu_max(const toml::node &node);
    void read_timeout(const toml::node &node, std::string_view name, uint64_t max_ms,
                      std::optional<Located<uint64_t>> &out);
    std::optional<uint64_t> duration_ms(const toml::node &node, std::string_view name);
    void read_rlimits(const toml::key &key, const toml::node &node);
    void read_rlimit(const toml::key &key, const toml::node &node);
    bool known_resource(const toml::key &key);
    std::optional<uint64_t> rlimit_value(const RlimitResource &res, const toml::node &node, const std::string &label);
    std::optional<uint64_t> rlimit_string(const RlimitResource &res, const toml::node &node, const std::string &label,
                                          const std::string &text);

    TomlSchemaReader &r_;
    ProcessPolicy &p_;
};

void ProcessReader::read(const toml::table &table)
{
    auto flag = [&](Located<bool> &out) {
        return [&](const toml::key &key, const toml::node &node) { r_.read_bool(key, node, out); };
    };
    const std::vector<TomlField> fields = {
        {"isolate_pids", flag(p_.isolate_pids)},
        {"isolate_proc", flag(p_.isolate_proc)},
        {"harden_syscalls", flag(p_.harden_syscalls)},
        {"max_processes", [&](const toml::key &, const toml::node &node) { read_max_processes(node); }},
        {"memory_max", [&](const toml::key &, const toml::node &node) { read_memory_max(node); }},
        {"cpu_max", [&](const toml::key &, const toml::node &node) { read_cpu_max(node); }},
        {"timeout",
         [&](const toml::key &, const toml::node &node) {
             read_timeout(node, "timeout", TP_MAX_TIMEOUT_MS, p_.timeout);
         }},
        {"timeout_grace",
         [&](const toml::key &, const toml::node &node) {
             read_timeout(node, "timeout_grace", TP_MAX_GRACE_MS, p_.timeout_grace);
         }},
        {"rlimits", [&](const toml::key &key, const toml::node &node) { read_rlimits(key, node); }},
    };
    r_.read_table(table, "process", fields, {});
    if (p_.timeout_grace && !p_.timeout)
        r_.diags().error(p_.timeout_grace->pos,
                         "'timeout_grace' without 'timeout': the grace is the time from the timeout's SIGTERM to "
                         "SIGKILL; set 'timeout' too, or remove 'timeout_grace'",
                         "timeout-grace");
}

void ProcessReader::read_max_processes(const toml::node &node)
{
    const toml::value<int64_t> *number = node.as_integer();
    if (number == nullptr) {
        r_.type_error(node, "max_processes", "an integer (1 to 4194304)");
        return;
    }
    if (number->get() < 1 || static_cast<uint64_t>(number->get()) > TP_MAX_PROCESSES) {
        error(node,
              "'max_processes': " + written(node) + " is out of range: at least 1 (the command itself), at most " +
                  std::to_string(TP_MAX_PROCESSES) + " (the kernel's PID limit); leave it out for no limit",
              "limit-range");
        return;
    }
    p_.max_processes = Located<uint64_t>{static_cast<uint64_t>(number->get()), r_.pos(node.source())};
}

void ProcessReader::read_memory_max(const toml::node &node)
{
    std::optional<uint64_t> bytes;
    if (const toml::value<int64_t> *number = node.as_integer()) {
        if (number->get() < 0) {
            error(node, "'memory_max': " + written(node) + " is negative; write a size like \"4G\"", "invalid-size");
            return;
        }
        bytes = static_cast<uint64_t>(number->get());
    } else if (const toml::value<std::string> *text = node.as_string()) {
        units::UnitError err;
        bytes = units::parse_size(text->get(), err);
        if (!bytes) {
            error(node, "'memory_max': " + err.message, err.rule_id.c_str());
            return;
        }
    } else {
        r_.type_error(node, "memory_max", "an integer of bytes or a size string like \"4G\"");
        return;
    }
    if (*bytes < TP_MIN_MEMORY || *bytes > TP_MAX_MEMORY) {
        error(node,
              "'memory_max': " + written(node) +
                  (*bytes < TP_MIN_MEMORY ? " is below the minimum of \"1M\" (1 MiB): nothing starts in less"
                                          : " is above the maximum of \"1P\" (1 PiB)"),
              "limit-range");
        return;
    }
    p_.memory_max = Located<uint64_t>{*bytes, r_.pos(node.source())};
}

void ProcessReader::read_cpu_max(const toml::node &node)
{
    units::UnitError err;
    std::optional<uint64_t> quota;
    if (const toml::value<int64_t> *number = node.as_integer())
        quota = units::cpu_quota_of(static_cast<double>(number->get()), err);
    else if (const toml::value<double> *real = node.as_floating_point())
        quota = units::cpu_quota_of(real->get(), err);
    else if (const toml::value<std::string> *text = node.as_string())
        quota = units::parse_cpu_percent(text->get(), err);
    else {
        r_.type_error(node, "cpu_max", "a number of CPUs (0.5, 2) or a percentage of one CPU (\"50%\")");
        return;
    }
    if (!quota) {
        error(node, "'cpu_max': " + err.message, err.rule_id.c_str());
        return;
    }
    if (*quota < 1000 || *quota > TP_MAX_CPU_QUOTA) {
        error(node,
              "'cpu_max': " + written(node) +
                  (*quota < 1000 ? " is below the minimum of 0.01 CPU (\"1%\": a quota of 1000 us per 100000 us); "
                                   "leave it out for no limit"
                                 : " is above the maximum of 4096 CPUs"),
              "limit-range");
        return;
    }
    p_.cpu_max = Located<uint32_t>{static_cast<uint32_t>(*quota), r_.pos(node.source())};
}

// An integer of seconds or a duration string, in whole milliseconds.
std::optional<uint64_t> ProcessReader::duration_ms(const toml::node &node, std::string_view name)
{
    const std::string prefix = quoted(name) + ": ";
    if (const toml::value<int64_t> *number = node.as_integer()) {
        if (number->get() < 0) {
            error(node, prefix + written(node) + " is negative; write a duration like \"90s\" or \"30m\"",
                  "invalid-duration");
            return std::nullopt;
        }
        if (static_cast<uint64_t>(number->get()) > ~0ull / kUsPerSecond)
            return ~0ull / kUsPerMs;  // past every maximum; the caller says so
        return static_cast<uint64_t>(number->get()) * 1000;
    }
    const toml::value<std::string> *text = node.as_string();
    if (text == nullptr) {
        r_.type_error(node, name, "an integer of seconds or a duration string like \"90s\" or \"1h30m\"");
        return std::nullopt;
    }
    units::UnitError err;
    const std::optional<uint64_t> us = units::parse_duration_us(text->get(), err);
    if (!us) {
        error(node, prefix + err.message, err.rule_id.c_str());
        return std::nullopt;
    }
    if (*us % kUsPerMs != 0) {
        error(node, prefix + written(node) + " is finer than a millisecond; write whole milliseconds (\"1500ms\")",
              "invalid-duration");
        return std::nullopt;
    }
    return *us / kUsPerMs;
}

void ProcessReader::read_timeout(const toml::node &node, std::string_view name, uint64_t max_ms,
                                 std::optional<Located<uint64_t>> &out)
{
    const std::optional<uint64_t> ms = duration_ms(node, name);
    if (!ms)
        return;
    const bool grace = name == "timeout_grace";
    if (*ms == 0 || *ms > max_ms) {
        error(node,
              quoted(name) + ": " + written(node) +
                  (*ms > max_ms ? " is above the maximum of \"" + units::format_duration_ms(max_ms) + "\""
                       : grace  ? " leaves no time between SIGTERM and SIGKILL; write at least \"1ms\""
                                : " is no time at all; write a duration like \"30m\", or leave 'timeout' out for none"),
              "limit-range");
        return;
    }
    out = Located<uint64_t>{*ms, r_.pos(node.source())};
}

void ProcessReader::read_rlimits(const toml::key &key, const toml::node &node)
{
    const toml::table *table = node.as_table();
    if (table == nullptr) {
        r_.type_error(node, key.str(), "a table of resources, like { nofile = 1024, core = 0 }");
        return;
    }
    for (const TomlEntry &entry : entries_in_source_order(*table))
        if (known_resource(*entry.key))
            read_rlimit(*entry.key, *entry.node);
}

bool ProcessReader::known_resource(const toml::key &key)
{
    if (units::rlimit_by_name(key.str()) != nullptr)
        return true;
    const SourcePos at = r_.pos(key.source());
    if (key.str() == "rss") {
        r_.diags().error(at,
                         "'rss' in 'rlimits' has no effect on Linux (the kernel ignores RLIMIT_RSS); use "
                         "[process] memory_max",
                         "unknown-key");
        return false;
    }
    std::size_t count = 0;
    const RlimitResource *all = units::rlimit_resources(count);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < count; i++)
        names.emplace_back(all[i].name);
    std::string message = "unknown resource " + quoted(key.str()) + " in 'rlimits'";
    const std::string suggestion = closest_match(std::string(key.str()), names);
    if (!suggestion.empty()) {
        message += "; did you mean " + quoted(suggestion) + "?";
    } else {
        message += "; the resources are";
        for (const std::string &name : names)
            message += " " + name;
    }
    r_.diags().error(at, std::move(message), "unknown-key");
    return false;
}

// `nofile = 1024`, `stack = "8M"`, `core = "unlimited"` or `nofile = { soft = 1024, hard = 4096 }`.
void ProcessReader::read_rlimit(const toml::key &key, const toml::node &node)
{
    const RlimitResource &res = *units::rlimit_by_name(key.str());
    const std::string label = quoted(key.str());
    const toml::table *pair = node.as_table();
    if (pair == nullptr) {
        if (const std::optional<uint64_t> value = rlimit_value(res, node, label))
            p_.rlimits.push_back({res.number, *value, *value, r_.pos(key.source())});
        return;
    }
    std::optional<uint64_t> soft, hard;
    bool ok = true;
    for (const TomlEntry &entry : entries_in_source_order(*pair)) {
        const std::string_view name = entry.key->str();
        if (name == "soft" || name == "hard") {
            std::optional<uint64_t> &out = name == "soft" ? soft : hard;
            out = rlimit_value(res, *entry.node, label + " " + std::string(name) + " limit");
            ok = ok && out.has_value();
            continue;
        }
        std::string message = "unknown key " + quoted(name) + " in " + label + "; it takes soft and hard";
        const std::string suggestion = closest_match(std::string(name), {"soft", "hard"});
        if (!suggestion.empty())
            message += "; did you mean " + quoted(suggestion) + "?";
        r_.diags().error(r_.pos(entry.key->source()), std::move(message), "unknown-key");
        ok = false;
    }
    if (!ok)
        return;
    if (!soft || !hard) {
        error(node,
              label + " needs both soft and hard in a table; a single value (" + std::string(res.name) +
                  " = ...) sets both",
              "wrong-type");
        return;
    }
    if (*soft > *hard) {
        error(node,
              label + ": soft " + written(*pair->get("soft")) + " is above hard " + written(*pair->get("hard")) +
                  "; the soft limit is what applies, the hard limit how far the command may raise it, so "
                  "soft <= hard",
              "rlimit-order");
        return;
    }
    p_.rlimits.push_back({res.number, *soft, *hard, r_.pos(key.source())});
}

// `label` is the resource as messages name it: "'nofile'" or "'nofile' soft limit".
std::optional<uint64_t> ProcessReader::rlimit_value(const RlimitResource &res, const toml::node &node,
                                                    const std::string &label)
{
    const std::string prefix = label + ": ";
    if (const toml::value<int64_t> *number = node.as_integer()) {
        if (number->get() < 0) {
            error(node, prefix + written(node) + " is negative; write 0 or more, or \"unlimited\"", "invalid-rlimit");
            return std::nullopt;
        }
        return static_cast<uint64_t>(number->get());
    }
    if (const toml::value<std::string> *text = node.as_string())
        return rlimit_string(res, node, label, text->get());
    const char *expected = res.unit == RlimitUnit::Bytes ? "an integer of bytes, a size like \"8M\", \"unlimited\""
        : res.unit == RlimitUnit::Seconds                ? "an integer of seconds, a duration like \"10m\", "
                                                           "\"unlimited\""
        : res.unit == RlimitUnit::Microseconds ? "an integer of microseconds, a duration like \"500ms\", \"unlimited\""
                                               : "an integer, \"unlimited\"";
    error(node, label + " must be " + expected + " or { soft = ..., hard = ... }, not " + type_phrase(node.type()),
          "wrong-type");
    return std::nullopt;
}

std::optional<uint64_t> ProcessReader::rlimit_string(const RlimitResource &res, const toml::node &node,
                                                     const std::string &label, const std::string &text)
{
    const std::string prefix = label + ": ";
    if (text == "unlimited")
        return kRlimUnlimited;
    if (!closest_match(text, {"unlimited"}).empty()) {
        error(node, prefix + written(node) + " is not a limit; did you mean \"unlimited\"?", "invalid-rlimit");
        return std::nullopt;
    }
    if (res.unit == RlimitUnit::Count) {
        error(node,
              prefix + "it counts " + std::string(res.counts) + ": write an integer (no quotes, no unit) or " +
                  "\"unlimited\", not " + written(node),
              "invalid-rlimit");
        return std::nullopt;
    }
    units::UnitError err;
    if (res.unit == RlimitUnit::Bytes) {
        const std::optional<uint64_t> bytes = units::parse_size(text, err);
        if (!bytes)
            error(node, prefix + err.message + ", or \"unlimited\"", err.rule_id.c_str());
        return bytes;
    }
    const std::optional<uint64_t> us = units::parse_duration_us(text, err);
    if (!us) {
        error(node, prefix + err.message, err.rule_id.c_str());
        return std::nullopt;
    }
    if (res.unit == RlimitUnit::Microseconds)
        return us;
    if (*us % kUsPerSecond != 0) {
        error(node,
              prefix + written(node) +
                  " is not a whole number of seconds: the kernel counts CPU time limits in "
                  "seconds",
              "invalid-duration");
        return std::nullopt;
    }
    return *us / kUsPerSecond;
}

}  // namespace

void read_process_table(TomlSchemaReader &reader, const toml::table &table, ProcessPolicy &process)
{
    ProcessReader(reader, process).read(table);
}

}  // namespace tartaros
