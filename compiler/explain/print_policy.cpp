// compiler/explain/print_policy.cpp — see print_policy.h.
//
// Each block is written by one function, key by key in docs/policy.md's order. A key's statement
// comes from the model alone: a scalar is set when its position has a line, a list when it
// has elements (the model cannot tell `read_allows = []` from no key, and both mean the
// same); env.passthrough is the exception the model marks itself (absent: the defaults,
// each with line 0).
#include "print_policy.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>
#include <vector>

#include "policy_keys.h"
#include "syscall_constants.h"
#include "units.h"

namespace tartaros {

namespace {

// The words the .tart grammar gives a meaning of its own (grammar/Tart.g4): printed quoted
// wherever a string is meant, so no reader has to decide.
constexpr std::array<std::string_view, 22> kKeywords = {
    "version",  "include",    "paths",   "domains", "file", "dir",    "true", "false",
    "deny",     "when",       "and",     "in",      "not",  "errno",  "kill", "capability",
    "syscalls", "filesystem", "network", "process", "env",  "broker",
};

// Syscall values at or above this are printed in hex (ioctl requests, all-ones); below it in
// decimal (address families, protocols, small flags), as people write them.
constexpr uint32_t kHexFrom = 0x1000;

std::string hex(uint64_t value)
{
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

std::string boolean(bool value)
{
    return value ? "true" : "false";
}

std::string quoted_text(const std::string &text)
{
    return "\"" + text + "\"";
}

// A byte size: "4G" when units.h's text reads back as the same number, else plain bytes.
std::string size_value(uint64_t bytes)
{
    const std::string text = units::format_size(bytes);
    units::UnitError err;
    const bool unit = !text.empty() && text.back() >= 'A' && text.back() <= 'Z';
    if (unit && units::parse_size(text, err) == bytes)
        return quoted_text(text);
    return std::to_string(bytes);
}

// Milliseconds as a duration string ("1h30m", "250ms"); every whole millisecond has one.
std::string duration_value(uint64_t ms)
{
    const std::string text = units::format_duration_ms(ms);
    units::UnitError err;
    if (units::parse_duration_us(text, err) == ms * 1000)
        return quoted_text(text);
    return quoted_text(std::to_string(ms) + "ms");
}

// A CFS quota per 100 ms: whole CPUs as an integer, else a percentage of one CPU with up to
// three decimals ("12.345%": parse_cpu_percent reads it back to the same microsecond).
std::string cpu_value(uint32_t quota)
{
    constexpr uint32_t kPeriodUs = 100000;
    if (quota % kPeriodUs == 0)
        return std::to_string(quota / kPeriodUs);
    std::string text = std::to_string(quota / 1000);
    if (uint32_t rest = quota % 1000; rest != 0) {
        std::string frac = std::to_string(1000 + rest).substr(1);
        while (frac.back() == '0')
            frac.pop_back();
        text += "." + frac;
    }
    return quoted_text(text + "%");
}

std::string rlimit_value(const units::RlimitResource *res, uint64_t value)
{
    if (value == kRlimUnlimited)
        return "\"unlimited\"";
    if (res != nullptr && res->unit == units::RlimitUnit::Bytes)
        return size_value(value);
    return std::to_string(value);
}

std::string rlimit_entry(const RlimitSetting &limit)
{
    const units::RlimitResource *res = units::rlimit_by_number(limit.resource);
    const std::string name =
        res != nullptr ? tart_word(res->name) : tart_word("rlimit" + std::to_string(limit.resource));
    if (limit.soft == limit.hard)
        return name + " = " + rlimit_value(res, limit.soft);
    return name + " = { soft = " + rlimit_value(res, limit.soft) + ", hard = " + rlimit_value(res, limit.hard) + " }";
}

std::string syscall_value(uint32_t value)
{
    return value >= kHexFrom ? hex(value) : std::to_string(value);
}

std::string condition_text(const SyscallCondition &c)
{
    const std::string arg = "arg" + std::to_string(c.arg);
    auto set = [&] {
        std::string text = "{";
        for (size_t i = 0; i < c.values.size(); ++i)
            text += (i == 0 ? "" : ", ") + syscall_value(c.values[i]);
        return text + "}";
    };
    const uint32_t first = c.values.empty() ? 0 : c.values.front();
    switch (c.kind) {
    case SyscallCondition::Kind::In:
        return c.values.size() == 1 ? arg + " == " + syscall_value(first) : arg + " in " + set();
    case SyscallCondition::Kind::NotIn:
        return c.values.size() == 1 ? arg + " != " + syscall_value(first) : arg + " not in " + set();
    case SyscallCondition::Kind::AnyBit: return arg + " & " + hex(first);
    case SyscallCondition::Kind::NoBit: return arg + " & " + hex(first) + " == 0";
    }
    return arg;
}

// The syscall's name is printed bare even when it is a keyword (`deny kill`): the grammar
// takes a keyword as a word there, and a string is not allowed.
std::string rule_text(const SyscallDenyRule &rule)
{
    std::string text = "deny " + rule.name.value;
    for (size_t i = 0; i < rule.when.size(); ++i)
        text += (i == 0 ? " when " : " and ") + condition_text(rule.when[i]);
    if (rule.kill)
        return text + " kill;";
    const std::string_view name = errno_name(rule.err);
    return text + " errno " + (name.empty() ? std::to_string(rule.err) : std::string(name)) + ";";
}

// The .tart text being written, statement by statement, at the depth of the open blocks.
class Writer {
public:
    void line(std::string_view text) { out_ += std::string(depth_ * 4, ' ') + std::string(text) + "\n"; }
    void blank() { out_ += "\n"; }
    void open(std::string_view head)
    {
        line(std::string(head) + " {");
        ++depth_;
    }
    void close()
    {
        --depth_;
        line("}");
    }

    // `KEY E, ...;` on one line for at most one entry, else one entry per line beneath it.
    void statement(std::string_view key, const std::vector<std::string> &entries)
    {
        if (entries.size() <= 1) {
            line(std::string(key) + (entries.empty() ? "" : " " + entries.front()) + ";");
            return;
        }
        line(key);
        for (size_t i = 0; i < entries.size(); ++i)
            line("    " + entries[i] + (i + 1 == entries.size() ? ";" : ","));
    }

    // A default that applies because the policy does not set `key`: the statement that would
    // set it, commented out.
    void defaulted(std::string_view key, const std::vector<std::string> &entries)
    {
        std::string text = "# " + std::string(key);
        for (size_t i = 0; i < entries.size(); ++i)
            text += (i == 0 ? " " : ", ") + entries[i];
        line(text + "; (default)");
    }

    // A key the policy does not set and whose absence is no value: what that means.
    void unset(std::string_view key, std::string_view meaning)
    {
        line("# " + std::string(key) + " (default: " + std::string(meaning) + ")");
    }

    std::string take() { return std::move(out_); }

private:
    std::string out_;
    size_t depth_ = 0;
};

// Each element of `list` as `render` writes it.
template <class T, class Render>
std::vector<std::string> rendered(const std::vector<Located<T>> &list, Render render)
{
    std::vector<std::string> out;
    out.reserve(list.size());
    for (const Located<T> &item : list)
        out.push_back(render(item.value));
    return out;
}

std::string decimal(uint64_t number)
{
    return std::to_string(number);
}

class PolicyPrinter {
public:
    explicit PolicyPrinter(const Policy &policy) : p_(policy) {}

    std::string print()
    {
        w_.line("# The normalised policy (tartaros-compile --print-policy): paths absolute, values as the");
        w_.line("# compiler holds them. A line starting with '#' is a default this policy does not set.");
        w_.line("version " + std::to_string(p_.version.value) + ";");
        filesystem();
        network();
        process();
        env();
        broker();
        syscalls();
        return w_.take();
    }

private:
    template <class T>
    void setting(std::string_view key, const Located<T> &value, const std::string &text)
    {
        if (value.pos.line != 0)
            w_.statement(key, {text});
        else
            w_.defaulted(key, {text});
    }
    void flag(std::string_view key, const Located<bool> &value) { setting(key, value, boolean(value.value)); }

    template <class T, class Render>
    void optional(std::string_view key, const std::optional<Located<T>> &value, Render render, std::string_view meaning)
    {
        if (value)
            w_.statement(key, {render(value->value)});
        else
            w_.unset(key, meaning);
    }

    void list(std::string_view key, const std::vector<std::string> &entries, std::string_view meaning)
    {
        if (entries.empty())
            w_.unset(key, meaning);
        else
            w_.statement(key, entries);
    }

    // Every key of `section` in the order of policy_keys.h, each by its printer.
    using Printers = std::map<std::string_view, std::function<void(std::string_view key)>>;
    static void keys(std::string_view section, const Printers &printers)
    {
        const std::vector<const PolicyKey *> table = section_keys(section);
        if (printers.size() != table.size())
            throw std::logic_error("print_policy and policy_keys.cpp disagree on the keys of " + std::string(section));
        for (const PolicyKey *key : table)
            printers.at(key->name)(key->name);
    }

    void filesystem();
    std::vector<std::string> denies(const std::vector<LocatedPath> &paths) const;
    void network();
    void process();
    void env();
    void broker();
    void capability(const BrokerCapability &cap);
    void syscalls();

    const Policy &p_;
    Writer w_;
};

void PolicyPrinter::filesystem()
{
    const FilesystemPolicy &fs = p_.fs;
    w_.blank();
    w_.open("filesystem");
    keys("filesystem",
         {{"read_scope",
           [&](auto k) { setting(k, fs.read_scope, fs.read_scope.value == ReadScope::All ? "all" : "granted"); }},
          {"read_allows", [&](auto k) { list(k, rendered(fs.read_allows, tart_string), "none"); }},
          {"read_denies", [&](auto k) { list(k, denies(fs.read_denies), "none"); }},
          {"writable_roots", [&](auto k) { list(k, rendered(fs.writable_roots, tart_string), "none"); }},
          {"write_denies", [&](auto k) { list(k, denies(fs.write_denies), "none"); }},
          {"materialize", [&](auto k) { flag(k, fs.materialize); }},
          {"private_tmp", [&](auto k) { flag(k, fs.private_tmp); }},
          {"private_dirs", [&](auto k) { list(k, rendered(fs.private_dirs, tart_string), "none"); }}});
    w_.close();
}

// A deny the policy declared a regular file is `file "..."`, so materialize keeps creating a file.
std::vector<std::string> PolicyPrinter::denies(const std::vector<LocatedPath> &paths) const
{
    const std::vector<std::string> &files = p_.fs.file_targets;
    std::vector<std::string> out;
    for (const LocatedPath &path : paths) {
        const bool file = std::find(files.begin(), files.end(), path.value) != files.end();
        out.push_back((file ? "file " : "") + tart_string(path.value));
    }
    return out;
}

void PolicyPrinter::network()
{
    const NetworkPolicy &net = p_.network;
    w_.blank();
    w_.open("network");
    std::vector<std::string> hosts;
    for (const auto &[name, address] : net.hosts)
        hosts.push_back(tart_word(name.value) + " = " + tart_string(address.value));
    keys("network",
         {{"allow_domains", [&](auto k) { list(k, rendered(net.allow_domains, tart_string), "none: no proxy"); }},
          {"deny_domains", [&](auto k) { list(k, rendered(net.deny_domains, tart_string), "none"); }},
          {"domain_ports",
           [&](auto k) {
               if (net.domain_ports.empty()) {
                   std::vector<std::string> ports;
                   for (uint16_t port : kDefaultDomainPorts)
                       ports.push_back(std::to_string(port));
                   w_.defaulted(k, ports);
               } else {
                   w_.statement(k, rendered(net.domain_ports, decimal));
               }
           }},
          {"hosts", [&](auto k) { list(k, hosts, "none"); }},
          {"proxy_port", [&](auto k) { setting(k, net.proxy_port, decimal(net.proxy_port.value)); }},
          {"local_ports", [&](auto k) { list(k, rendered(net.local_ports, decimal), "none"); }},
          {"expose_ports", [&](auto k) { list(k, rendered(net.expose_ports, decimal), "none"); }},
          {"deny_unix", [&](auto k) { flag(k, net.deny_unix); }}});
    w_.close();
}

void PolicyPrinter::process()
{
    const ProcessPolicy &proc = p_.process;
    w_.blank();
    w_.open("process");
    std::vector<std::string> limits;
    bool core = false;
    for (const RlimitSetting &limit : proc.rlimits) {
        limits.push_back(rlimit_entry(limit));
        core = core || limit.resource == units::rlimit_by_name("core")->number;
    }
    keys("process",
         {{"isolate_pids", [&](auto k) { flag(k, proc.isolate_pids); }},
          {"isolate_proc", [&](auto k) { flag(k, proc.isolate_proc); }},
          {"harden_syscalls", [&](auto k) { flag(k, proc.harden_syscalls); }},
          {"max_processes", [&](auto k) { optional(k, proc.max_processes, decimal, "no limit"); }},
          {"memory_max", [&](auto k) { optional(k, proc.memory_max, size_value, "no limit"); }},
          {"cpu_max", [&](auto k) { optional(k, proc.cpu_max, cpu_value, "no limit"); }},
          {"timeout", [&](auto k) { optional(k, proc.timeout, duration_value, "none"); }},
          {"timeout_grace",
           [&](auto k) {
               if (proc.timeout_grace)
                   w_.statement(k, {duration_value(proc.timeout_grace->value)});
               else if (proc.timeout)
                   w_.defaulted(k, {duration_value(kDefaultTimeoutGraceMs)});
               else
                   w_.unset(k, duration_value(kDefaultTimeoutGraceMs) + ", with a timeout");
           }},
          {"rlimits", [&](auto k) {
               if (!limits.empty())
                   w_.statement(k, limits);
               if (!core)
                   w_.defaulted(k, {"core = 0"});
           }}});
    w_.close();
}

void PolicyPrinter::env()
{
    const EnvPolicy &env = p_.env;
    w_.blank();
    w_.open("env");
    // Absent, the key holds the defaults, all with line 0 (policy.h); anything else was written.
    const bool defaults = !env.passthrough.empty() &&
        std::all_of(env.passthrough.begin(), env.passthrough.end(),
                    [](const auto &name) { return name.pos.line == 0; });
    const std::vector<std::string> names = rendered(env.passthrough, tart_word);
    std::vector<std::string> set;
    for (const auto &[name, value] : env.set)
        set.push_back(tart_word(name.value) + " = " + tart_string(value.value));
    keys("env",
         {{"inherit", [&](auto k) { flag(k, env.inherit); }},
          {"passthrough",
           [&](auto k) {
               if (defaults)
                   w_.defaulted(k, names);
               else
                   w_.statement(k, names);
           }},
          {"set", [&](auto k) { list(k, set, "none"); }}});
    w_.close();
}

void PolicyPrinter::broker()
{
    w_.blank();
    if (!p_.broker) {
        w_.line("# broker { } (default: none, no credential broker)");
        return;
    }
    const BrokerPolicy &b = *p_.broker;
    w_.open("broker");
    keys("broker",
         {{"port", [&](auto k) { setting(k, b.port, std::to_string(b.port.value)); }},
          {"auth_header", [&](auto k) { setting(k, b.auth_header, tart_string(b.auth_header.value)); }},
          {"token_env", [&](auto k) { optional(k, b.token_env, tart_word, "a random token per run"); }},
          {"allowed_hosts", [&](auto k) { list(k, rendered(b.allowed_hosts, tart_string), "none"); }},
          {"allow_internal", [&](auto k) { flag(k, b.allow_internal); }},
          {"ca_file", [&](auto k) { optional(k, b.ca_file, tart_string, "the system store only"); }}});
    for (const BrokerCapability &cap : b.capabilities)
        capability(cap);
    w_.close();
}

void PolicyPrinter::capability(const BrokerCapability &cap)
{
    w_.open("capability " + tart_word(cap.name.value));
    // The port lives in the host's text ("git.example.com:8443"); an IPv6 address is bracketed.
    const bool v6 = cap.host.value.find(':') != std::string::npos;
    std::string host = v6 ? "[" + cap.host.value + "]" : cap.host.value;
    if (cap.port.pos.line != 0)
        host += ":" + std::to_string(cap.port.value);
    keys("broker.capability",
         {{"name", [](auto) {}},  // the block's label above
          {"host", [&](auto k) { w_.statement(k, {tart_string(host)}); }},
          {"header", [&](auto k) { setting(k, cap.header, tart_string(cap.header.value)); }},
          {"value_env", [&](auto k) { w_.statement(k, {tart_word(cap.value_env.value)}); }},
          {"value_format", [&](auto k) { setting(k, cap.value_format, tart_string(cap.value_format.value)); }},
          {"methods", [&](auto k) { list(k, rendered(cap.methods, tart_word), "any"); }},
          {"path_prefixes", [&](auto k) { list(k, rendered(cap.path_prefixes, tart_string), "any"); }}});
    w_.close();
}

void PolicyPrinter::syscalls()
{
    w_.blank();
    if (p_.syscalls.rules.empty()) {
        w_.line("# syscalls { } (default: no rules of the policy's own; the built-in lists apply)");
        return;
    }
    w_.open("syscalls");
    for (const SyscallDenyRule &rule : p_.syscalls.rules)
        w_.line(rule_text(rule));
    w_.close();
}

}  // namespace

// The .tart lexer's escapes (\n, \t, \r named); frontend_dsl_lower's toml_string differs as it
// writes TOML for toml++.
std::string tart_string(std::string_view text)
{
    std::string out = "\"";
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (byte < 0x20 || byte == 0x7f) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\u%04X", byte);
            out += escape;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string tart_word(std::string_view text)
{
    auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
    const bool plain = !text.empty() && letter(text.front()) &&
        std::all_of(text.begin(), text.end(), [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
    const bool keyword = std::find(kKeywords.begin(), kKeywords.end(), text) != kKeywords.end();
    return plain && !keyword ? std::string(text) : tart_string(text);
}

std::string print_policy(const Policy &policy)
{
    return PolicyPrinter(policy).print();
}

}  // namespace tartaros
