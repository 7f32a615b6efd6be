// compiler/cli/flags_policy.cpp — see flags_policy.h.
#include "flags_policy.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>

#include "domains.h"
#include "frontend_toml.h"
#include "fs_trie.h"
#include "net_channel.h"
#include "paths.h"
#include "plan.h"

namespace tartaros {

namespace {

constexpr std::array<std::string_view, 8> kMergeRules = {
    "Lists add up: the --config file's entries first, then the flags' in command-line order; a path, "
    "port, domain or name already listed is dropped.",
    "A switch sets its key to true; the file setting the same key to false is a conflict.",
    "--max-procs N with a different max_processes in the file, or a different --max-procs, is a conflict.",
    "--read-deny / means read_scope = \"granted\": only the system paths (/usr /lib /lib64 /bin /sbin /etc, a "
    "private /dev, /proc), the --write roots and the --read-allow paths are readable. The file setting "
    "read_scope = \"all\" is a conflict.",
    "--env NAME adds NAME to the file's [env] passthrough, or to the default list (PATH HOME TERM LANG LC_ALL "
    "USER LOGNAME SHELL TZ) when the file has none.",
    "--env NAME=VALUE sets NAME in [env] set (the name ends at the first =; a set wins over a pass-through of "
    "the same name). The file's set giving NAME another value, or another --env NAME= with another value, is a "
    "conflict. A variable of the file's [broker] is refused in both forms. A command line is kept in shell "
    "histories and shown by ps: for a secret, export it and use --env NAME.",
    "A relative path in a flag resolves against the current directory (in the file: against the file's "
    "directory), and ~ is $HOME. A glob (* ? [ ] {) is refused: there is no glob engine on Linux.",
    "A conflict is a refusal (exit 78) that names both places; say the setting in one place.",
};

std::string conflict(std::string_view flag, const std::string &file_setting, const SourcePos &pos)
{
    return std::string(flag) + " conflicts with " + file_setting + " at " + position_text(pos) +
        "; say it in one place";
}

// A decimal number without sign or spaces, nullopt otherwise (or when it overflows).
std::optional<uint64_t> decimal(std::string_view text)
{
    uint64_t value = 0;
    if (text.empty() || text.front() < '0' || text.front() > '9')
        return std::nullopt;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

template <class T>
bool contains(const std::vector<Located<T>> &list, const T &value)
{
    return std::any_of(list.begin(), list.end(), [&](const Located<T> &item) { return item.value == value; });
}

template <class T>
void add_unique(std::vector<Located<T>> &list, const T &value, const SourcePos &pos)
{
    if (!contains(list, value))
        list.push_back({value, pos});
}

class Merger {
public:
    Merger(Policy &policy, const FlagContext &context) : p_(policy), ctx_(context) {}

    void apply(const FlagUse &use);
    std::vector<std::string> take_errors() { return std::move(errors_); }

private:
    void path_flag(const FlagUse &use, std::vector<LocatedPath> &list);
    void read_deny(const FlagUse &use);
    void port(const FlagUse &use);
    void domain(const FlagUse &use);
    void max_procs(const FlagUse &use);
    void env(const FlagUse &use);
    bool env_name_allowed(const std::string &name, const std::string &flag);
    bool env_value_allowed(const std::string &value, const std::string &flag);
    void env_set(const std::string &name, const std::string &value, const std::string &flag, const SourcePos &at);
    bool in_credentials_dir(const FlagUse &use, const std::string &path);
    void set_true(const FlagUse &use, Located<bool> &field, std::string_view key);
    std::optional<std::string> resolve(const FlagUse &use);

    std::string_view name(const FlagUse &use) const { return run_option(use.flag).name; }
    SourcePos pos(const FlagUse &use) const { return {std::string(name(use)), 0, 0}; }

    Policy &p_;
    const FlagContext &ctx_;
    std::vector<std::string> errors_;
};

void Merger::apply(const FlagUse &use)
{
    switch (use.flag) {
    case RunFlag::Write: path_flag(use, p_.fs.writable_roots); return;
    case RunFlag::ReadDeny: read_deny(use); return;
    case RunFlag::ReadAllow: path_flag(use, p_.fs.read_allows); return;
    case RunFlag::WriteDeny: path_flag(use, p_.fs.write_denies); return;
    case RunFlag::Port: port(use); return;
    case RunFlag::AllowDomain: domain(use); return;
    case RunFlag::IsolatePids: set_true(use, p_.process.isolate_pids, "isolate_pids"); return;
    case RunFlag::IsolateProc: set_true(use, p_.process.isolate_proc, "isolate_proc"); return;
    case RunFlag::SeccompStrict: set_true(use, p_.process.harden_syscalls, "harden_syscalls"); return;
    case RunFlag::Materialize: set_true(use, p_.fs.materialize, "materialize"); return;
    case RunFlag::MaxProcs: max_procs(use); return;
    case RunFlag::InheritEnv: set_true(use, p_.env.inherit, "inherit"); return;
    case RunFlag::Env: env(use); return;
    case RunFlag::PrivateTmp: set_true(use, p_.fs.private_tmp, "private_tmp"); return;
    case RunFlag::PrivateDir: path_flag(use, p_.fs.private_dirs); return;
    case RunFlag::DenyUnix: set_true(use, p_.network.deny_unix, "deny_unix"); return;
    case RunFlag::Strict:
    case RunFlag::Log:
    case RunFlag::Config:
    case RunFlag::NoCache:
    case RunFlag::Help:
        // The launcher's own options: parse_run_command_line keeps them out of the flags.
        return;
    }
}

std::optional<std::string> Merger::resolve(const FlagUse &use)
{
    PathError err;
    std::optional<std::string> path = resolve_policy_path(use.value, name(use), ctx_.cwd, ctx_.home, err);
    if (!path)
        errors_.push_back(err.message);
    return path;
}

void Merger::path_flag(const FlagUse &use, std::vector<LocatedPath> &list)
{
    const std::optional<std::string> path = resolve(use);
    if (path && !in_credentials_dir(use, *path))
        add_unique(list, *path, pos(use));
}

// The credential broker's directory is the compiler's own (frontend_broker.h).
bool Merger::in_credentials_dir(const FlagUse &use, const std::string &path)
{
    if (!p_.broker || !path_is_within(path, TP_CREDENTIALS_DIR))
        return false;
    errors_.push_back(std::string(name(use)) + " " + printable(path) +
                      " lies in the credential broker's directory " TP_CREDENTIALS_DIR " ([broker] at " +
                      position_text(p_.broker->pos) + "), which the sandbox makes for its token alone");
    return true;
}

// The flags' idiom: "--read-deny /" is read_scope = "granted", not a deny of everything.
void Merger::read_deny(const FlagUse &use)
{
    const std::optional<std::string> path = resolve(use);
    if (!path || in_credentials_dir(use, *path))
        return;
    if (*path != "/") {
        add_unique(p_.fs.read_denies, *path, pos(use));
        return;
    }
    Located<ReadScope> &scope = p_.fs.read_scope;
    if (scope.pos.line != 0 && scope.value == ReadScope::All) {
        errors_.push_back(conflict("--read-deny /", "read_scope = \"all\"", scope.pos));
        return;
    }
    if (scope.value == ReadScope::All)
        scope = {ReadScope::Granted, pos(use)};
}

void Merger::port(const FlagUse &use)
{
    const std::optional<uint64_t> number = decimal(use.value);
    if (!number || *number < 1 || *number > 65535) {
        errors_.push_back("--port: '" + printable(use.value) + "' is not a port number (1 to 65535)");
        return;
    }
    const auto value = static_cast<uint16_t>(*number);
    const std::string flag = "--port " + std::to_string(value);
    const NetworkPolicy &net = p_.network;
    for (const Located<uint16_t> &exposed : net.expose_ports) {
        if (exposed.value == value) {
            errors_.push_back(flag + " conflicts with expose_ports = [" + std::to_string(value) + "] at " +
                              position_text(exposed.pos) +
                              ": a port is relayed either out of the sandbox or into it, not both");
            return;
        }
    }
    if (net.proxy_port.value == value) {
        errors_.push_back(flag + " is the proxy's own port inside the sandbox (" +
                          (net.proxy_port.pos.line == 0 ? std::string("the default proxy_port")
                                                        : "proxy_port at " + position_text(net.proxy_port.pos)) +
                          "); choose another proxy_port in the --config file");
        return;
    }
    if (p_.broker && p_.broker->port.value == value) {
        errors_.push_back(flag + " is the credential broker's own port inside the sandbox (" +
                          (p_.broker->port.pos.line == 0
                               ? "the default [broker] port at " + position_text(p_.broker->pos)
                               : "[broker] port at " + position_text(p_.broker->port.pos)) +
                          "); choose another port in the --config file");
        return;
    }
    const size_t others = (net.allow_domains.empty() ? 0 : 1) + (p_.broker ? 1 : 0);
    if (!contains(net.local_ports, value) && net.local_ports.size() + others >= TNC_MAX_LISTENERS) {
        errors_.push_back(flag + ": the sandbox hands the proxy at most " + std::to_string(TNC_MAX_LISTENERS) +
                          " listeners, and the local ports, the proxy and the broker take them all");
        return;
    }
    add_unique(p_.network.local_ports, value, pos(use));
}

void Merger::domain(const FlagUse &use)
{
    DomainError err;
    const std::optional<std::string> pattern = check_domain_pattern(use.value, PublicSuffixList::system(), err);
    if (!pattern) {
        errors_.push_back("--allow-domain: " + err.message);
        return;
    }
    add_unique(p_.network.allow_domains, *pattern, pos(use));
}

void Merger::max_procs(const FlagUse &use)
{
    const std::optional<uint64_t> number = decimal(use.value);
    if (!number || *number < 1 || *number > TP_MAX_PROCESSES) {
        errors_.push_back("--max-procs: '" + printable(use.value) +
                          "' is out of range: at least 1 (the command itself), at most " +
                          std::to_string(TP_MAX_PROCESSES) + " (the kernel's PID limit)");
        return;
    }
    const std::string flag = "--max-procs " + std::to_string(*number);
    std::optional<Located<uint64_t>> &limit = p_.process.max_processes;
    if (limit && limit->value != *number) {
        errors_.push_back(limit->pos.line == 0
                              ? flag + " conflicts with --max-procs " + std::to_string(limit->value) + "; say it once"
                              : conflict(flag, "max_processes = " + std::to_string(limit->value), limit->pos));
        return;
    }
    if (!limit)
        limit = Located<uint64_t>{*number, pos(use)};
}

// `--env NAME` passes NAME through, `--env NAME=VALUE` sets it. A message names the variable
// but never repeats the value ("--env NAME=..."): it may be a secret, and stderr is logged.
void Merger::env(const FlagUse &use)
{
    const size_t equals = use.value.find('=');
    const std::string name = use.value.substr(0, equals);
    const std::string flag = "--env " + name + (equals == std::string::npos ? "" : "=...");
    if (!env_name_allowed(name, flag))
        return;
    if (equals == std::string::npos) {
        add_unique(p_.env.passthrough, name, pos(use));
        return;
    }
    const std::string value = use.value.substr(equals + 1);
    if (env_value_allowed(value, flag))
        env_set(name, value, flag, pos(use));
}

// The name checks of both forms: a valid name, and none the policy's [broker] owns.
bool Merger::env_name_allowed(const std::string &name, const std::string &flag)
{
    if (!is_env_name(name)) {
        errors_.push_back("--env: '" + printable(name) +
                          "' is not a valid environment variable name (letters, digits and '_', not starting "
                          "with a digit)");
        return false;
    }
    if (!p_.broker)
        return true;
    const BrokerPolicy &b = *p_.broker;
    const Located<std::string> *secret = b.token_env && b.token_env->value == name ? &*b.token_env : nullptr;
    for (const BrokerCapability &cap : b.capabilities)
        if (secret == nullptr && cap.value_env.value == name)
            secret = &cap.value_env;
    if (secret != nullptr) {
        errors_.push_back(flag + " would hand the agent a secret of the credential broker (" +
                          position_text(secret->pos) + "); the broker reads it from this environment itself");
        return false;
    }
    if (name == kBrokerUrlVariable || name == kCredentialsVariable) {
        errors_.push_back(flag + ": the credential broker ([broker] at " + position_text(b.pos) +
                          ") sets it for the agent");
        return false;
    }
    return true;
}

// A value a command line may carry: no NUL (the plan's strings end there).
bool Merger::env_value_allowed(const std::string &value, const std::string &flag)
{
    if (value.find('\0') == std::string::npos)
        return true;
    errors_.push_back(flag + ": the value contains a NUL character");
    return false;
}

// The same NAME twice is a conflict unless the values agree (then the first stays).
void Merger::env_set(const std::string &name, const std::string &value, const std::string &flag, const SourcePos &at)
{
    auto &set = p_.env.set;
    const auto same =
        std::find_if(set.begin(), set.end(), [&](const auto &entry) { return entry.first.value == name; });
    if (same == set.end()) {
        set.push_back({{name, at}, {value, at}});
        return;
    }
    if (same->second.value == value)
        return;
    errors_.push_back(same->second.pos.line == 0
                          ? flag + " conflicts with an earlier " + flag + " of another value; say it once"
                          : conflict(flag, "another value of " + name + " in [env] set", same->second.pos));
}

// A switch sets true; the file saying false for the same key is a conflict. A key the file
// does not set (line 0) takes the flag's position.
void Merger::set_true(const FlagUse &use, Located<bool> &field, std::string_view key)
{
    if (field.pos.line != 0) {
        if (!field.value)
            errors_.push_back(conflict(name(use), std::string(key) + " = false", field.pos));
        return;
    }
    field = {true, pos(use)};
}

}  // namespace

std::span<const std::string_view> merge_rules()
{
    return kMergeRules;
}

Policy default_flags_policy()
{
    Policy policy;
    for (const std::string &name : kDefaultPassthrough)
        policy.env.passthrough.push_back({name, {}});
    return policy;
}

std::vector<std::string> apply_flags(Policy &policy, const std::vector<FlagUse> &flags, const FlagContext &context)
{
    Merger merger(policy, context);
    for (const FlagUse &use : flags)
        merger.apply(use);
    return merger.take_errors();
}

}  // namespace tartaros
