// tests/support/policy_dump.h — every value of a policy model as text, without provenance, for
// tests that compare two models: "the same values, and the same settings set".
//
// Independent of print_policy on purpose (a test of the printer must not judge it by its own
// output): one line per field, raw values, "(set)" after a scalar whose position has a line.
// Positions, file names and Policy::source_path/sources are left out; fs.file_targets is a
// sorted set (the model keeps one list for both deny lists, see print_policy.h).
#pragma once

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "policy.h"

namespace tartaros::test {

class PolicyDump {
public:
    explicit PolicyDump(const Policy &p)
    {
        scalar("version", p.version, p.version.value);
        fs(p.fs);
        process(p.process);
        network(p.network);
        env(p.env);
        if (p.broker)
            broker(*p.broker);
        else
            out_ << "broker: none\n";
        for (const SyscallDenyRule &rule : p.syscalls.rules)
            syscall(rule);
    }

    std::string str() const { return out_.str(); }

private:
    template <class T, class V>
    void scalar(const std::string &key, const Located<T> &value, const V &shown)
    {
        out_ << key << " = " << shown << (value.pos.line != 0 ? " (set)" : "") << '\n';
    }
    void flag(const std::string &key, const Located<bool> &value)
    {
        scalar(key, value, value.value ? "true" : "false");
    }
    template <class T>
    void maybe(const std::string &key, const std::optional<Located<T>> &value)
    {
        if (value)
            out_ << key << " = " << value->value << '\n';
        else
            out_ << key << ": none\n";
    }
    template <class T>
    void list(const std::string &key, const std::vector<Located<T>> &items)
    {
        out_ << key << " = [";
        for (const Located<T> &item : items)
            out_ << ' ' << item.value << (item.pos.line != 0 ? "" : "(default)");
        out_ << " ]\n";
    }
    void pairs(const std::string &key, const std::vector<std::pair<Located<std::string>, Located<std::string>>> &items)
    {
        out_ << key << " = {";
        for (const auto &[name, value] : items)
            out_ << ' ' << name.value << '=' << value.value;
        out_ << " }\n";
    }

    void fs(const FilesystemPolicy &fs)
    {
        scalar("fs.read_scope", fs.read_scope, fs.read_scope.value == ReadScope::All ? "all" : "granted");
        list("fs.read_allows", fs.read_allows);
        list("fs.read_denies", fs.read_denies);
        list("fs.writable_roots", fs.writable_roots);
        list("fs.write_denies", fs.write_denies);
        std::vector<std::string> files = fs.file_targets;
        std::sort(files.begin(), files.end());
        files.erase(std::unique(files.begin(), files.end()), files.end());
        out_ << "fs.file_targets =";
        for (const std::string &file : files)
            out_ << ' ' << file;
        out_ << '\n';
        flag("fs.materialize", fs.materialize);
        flag("fs.private_tmp", fs.private_tmp);
        list("fs.private_dirs", fs.private_dirs);
    }

    void process(const ProcessPolicy &p)
    {
        flag("process.isolate_pids", p.isolate_pids);
        flag("process.isolate_proc", p.isolate_proc);
        flag("process.harden_syscalls", p.harden_syscalls);
        maybe("process.max_processes", p.max_processes);
        maybe("process.memory_max", p.memory_max);
        maybe("process.cpu_max", p.cpu_max);
        maybe("process.timeout", p.timeout);
        maybe("process.timeout_grace", p.timeout_grace);
        for (const RlimitSetting &limit : p.rlimits)
            out_ << "process.rlimit " << limit.resource << " = " << limit.soft << '/' << limit.hard << '\n';
    }

    void network(const NetworkPolicy &n)
    {
        flag("network.deny_unix", n.deny_unix);
        list("network.allow_domains", n.allow_domains);
        list("network.deny_domains", n.deny_domains);
        list("network.local_ports", n.local_ports);
        list("network.expose_ports", n.expose_ports);
        list("network.domain_ports", n.domain_ports);
        pairs("network.hosts", n.hosts);
        scalar("network.proxy_port", n.proxy_port, n.proxy_port.value);
    }

    void env(const EnvPolicy &e)
    {
        flag("env.inherit", e.inherit);
        list("env.passthrough", e.passthrough);
        pairs("env.set", e.set);
    }

    void broker(const BrokerPolicy &b)
    {
        scalar("broker.port", b.port, b.port.value);
        scalar("broker.auth_header", b.auth_header, b.auth_header.value);
        if (b.token_env)
            out_ << "broker.token_env = " << b.token_env->value << '\n';
        list("broker.allowed_hosts", b.allowed_hosts);
        flag("broker.allow_internal", b.allow_internal);
        if (b.ca_file)
            out_ << "broker.ca_file = " << b.ca_file->value << '\n';
        for (const BrokerCapability &cap : b.capabilities) {
            const std::string at = "broker.capability " + cap.name.value + ".";
            scalar(at + "host", cap.host, cap.host.value);
            scalar(at + "port", cap.port, cap.port.value);
            scalar(at + "header", cap.header, cap.header.value);
            scalar(at + "value_env", cap.value_env, cap.value_env.value);
            scalar(at + "value_format", cap.value_format, cap.value_format.value);
            list(at + "methods", cap.methods);
            list(at + "path_prefixes", cap.path_prefixes);
        }
    }

    void syscall(const SyscallDenyRule &rule)
    {
        out_ << "syscall deny " << rule.name.value << " nr " << rule.nr;
        for (const SyscallCondition &c : rule.when) {
            out_ << " [arg" << unsigned(c.arg) << " kind " << unsigned(c.kind);
            for (uint32_t v : c.values)
                out_ << ' ' << v;
            out_ << ']';
        }
        out_ << (rule.kill ? " kill" : " errno " + std::to_string(rule.err)) << '\n';
    }

    std::ostringstream out_;
};

inline std::string dump_policy(const Policy &policy)
{
    return PolicyDump(policy).str();
}

}  // namespace tartaros::test
