// compiler/cli/cli_options.cpp — the option table of `tartaros run`, the subcommands, and the
// parser that reads a command line against them. See cli_options.h.
#include "cli_options.h"

#include <algorithm>
#include <array>

namespace tartaros {

namespace {

using enum ValueKind;

// The flags that build a policy, in their documented order (docs/tartaros-run.md), then the
// launcher's own options.
constexpr std::array kRunOptions = {
    RunOption{RunFlag::Strict, "--strict", None, "", "",
              "a guarantee this host cannot install is a refusal (exit 78) instead of a warning"},
    RunOption{RunFlag::Write, "--write", Path, "PATH", "[filesystem] writable_roots",
              "PATH and everything beneath it are readable and writable; PATH must exist"},
    RunOption{RunFlag::ReadDeny, "--read-deny", Path, "PATH", "[filesystem] read_denies",
              "PATH is not readable and its names are hidden; --read-deny / means read_scope = \"granted\": "
              "only the system paths, the --write roots and the --read-allow paths are readable"},
    RunOption{RunFlag::ReadAllow, "--read-allow", Path, "PATH", "[filesystem] read_allows",
              "PATH is readable: an extra tree under --read-deny /, else a path re-opened inside a --read-deny"},
    RunOption{RunFlag::WriteDeny, "--write-deny", Path, "PATH", "[filesystem] write_denies",
              "PATH is read-only, also inside a --write root"},
    RunOption{RunFlag::Port, "--port", Port, "N", "[network] local_ports",
              "the host's 127.0.0.1:N is reachable at 127.0.0.1:N inside"},
    RunOption{RunFlag::AllowDomain, "--allow-domain", Domain, "HOST", "[network] allow_domains",
              "HTTP(S) to HOST through the egress proxy: an exact name, an IP literal or *.suffix"},
    RunOption{RunFlag::IsolatePids, "--isolate-pids", None, "", "[process] isolate_pids",
              "a private PID namespace (on by default)"},
    RunOption{RunFlag::IsolateProc, "--isolate-proc", None, "", "[process] isolate_proc",
              "a fresh /proc of that PID namespace (on by default)"},
    RunOption{RunFlag::SeccompStrict, "--seccomp-strict", None, "", "[process] harden_syscalls",
              "the seccomp hardening deny list (on by default)"},
    RunOption{RunFlag::Materialize, "--materialize", None, "", "[filesystem] materialize",
              "a deny target absent inside a writable root is created, then protected"},
    RunOption{RunFlag::MaxProcs, "--max-procs", Count, "N", "[process] max_processes",
              "at most N tasks (threads count) for the command and everything it starts"},
    RunOption{RunFlag::InheritEnv, "--inherit-env", None, "", "[env] inherit",
              "the command starts from the launcher's whole environment"},
    RunOption{RunFlag::Env, "--env", EnvName, "NAME[=VALUE]", "[env] passthrough, [env] set",
              "NAME is copied from the launcher's environment, besides the default list (or the file's); "
              "NAME=VALUE sets NAME to VALUE instead (the name ends at the first '=')"},
    RunOption{RunFlag::PrivateTmp, "--private-tmp", None, "", "[filesystem] private_tmp",
              "a private writable tmpfs on /tmp, discarded after the run; --write and --read-allow paths "
              "beneath /tmp are bound into it"},
    RunOption{RunFlag::PrivateDir, "--private-dir", Path, "PATH", "[filesystem] private_dirs",
              "PATH gets an empty, writable, private tmpfs for the run: the host's content there is hidden, "
              "nothing written there reaches the host, and the sandbox's unix sockets work there; PATH must be "
              "a directory"},
    RunOption{RunFlag::DenyUnix, "--deny-unix", None, "", "[network] deny_unix",
              "every AF_UNIX socket and socketpair is refused"},
    RunOption{RunFlag::Log, "--log", File, "FILE", "",
              "the effect log, written by the supervisor outside the sandbox (passed to tartaros-exec)"},
    RunOption{RunFlag::Config, "--config", File, "FILE", "",
              "a policy file (TOML or .tart) the flags are merged into, by the merge rules below"},
    RunOption{RunFlag::NoCache, "--no-cache", None, "", "",
              "compile the policy even when the plan cache holds its plan, and store nothing there"},
    RunOption{RunFlag::Help, "--help", None, "", "", "print this help and exit"},
};

constexpr std::array kSubcommands = {
    Subcommand{"run", "[--strict] [FLAGS] [--config POLICY] [--log FILE] [--no-cache] -- CMD [ARGS...]",
               "run CMD in a sandbox made from the flags and the policy file, compiled in memory or taken "
               "from the plan cache"},
    Subcommand{"compile", "POLICY -o PLAN.bin [-v]",
               "check, lower and verify a policy, and write the plan atomically; tartaros-compile is this "
               "command, with --explain, --verify, --print-policy and --lint too (tartaros compile --help)"},
    Subcommand{"explain", "PLAN.bin [--json | --summary]",
               "print every step of a plan, in order, with its policy line; --summary: one screen, a line per "
               "concern"},
    Subcommand{"verify", "PLAN.bin",
               "check a plan without its policy: the enforcer's validating reader, then its seccomp filter run "
               "in the BPF interpreter against the rules the plan states; one line 'ok', or a refusal"},
    Subcommand{"print-policy", "POLICY",
               "print a policy (TOML or .tart) as the compiler holds it, as .tart text: paths absolute, "
               "groups expanded, the defaults it leaves alone as comments"},
    Subcommand{"lint", "[--format text|json|sarif] [--werror] POLICY...",
               "every check of the compiler and the lint rules on each file, without writing a plan: exit 0 "
               "clean, 1 on errors (or warnings with --werror); reports as text, JSON or SARIF 2.1.0"},
    Subcommand{"completion", "bash|zsh", "print the shell completion script"},
    Subcommand{"man", "[PAGE]",
               "print a manual page (roff): PAGE is tartaros (the default), tartaros-compile, tartaros-exec or "
               "tartaros-policy, the policy file's every key (section 5)"},
};

const RunOption *find_option(std::string_view name)
{
    const auto found =
        std::find_if(kRunOptions.begin(), kRunOptions.end(), [&](const RunOption &o) { return o.name == name; });
    return found == kRunOptions.end() ? nullptr : &*found;
}

// Takes the launcher's options out; the policy flags go to `out.flags` in order.
Failure record(const RunOption &option, std::string value, RunCommandLine &out)
{
    switch (option.flag) {
    case RunFlag::Help: out.help = true; return std::nullopt;
    case RunFlag::Strict: out.strict = true; return std::nullopt;
    case RunFlag::NoCache: out.no_cache = true; return std::nullopt;
    case RunFlag::Log:
        if (!out.log.empty())
            return "--log is given twice";
        out.log = std::move(value);
        return std::nullopt;
    case RunFlag::Config:
        if (!out.config.empty())
            return "--config is given twice; merge the files into one";
        out.config = std::move(value);
        return std::nullopt;
    default: out.flags.push_back({option.flag, std::move(value)}); return std::nullopt;
    }
}

}  // namespace

std::span<const RunOption> run_options()
{
    return kRunOptions;
}

const RunOption &run_option(RunFlag flag)
{
    return *std::find_if(kRunOptions.begin(), kRunOptions.end(), [&](const RunOption &o) { return o.flag == flag; });
}

std::span<const Subcommand> subcommands()
{
    return kSubcommands;
}

Failure parse_run_command_line(std::span<const std::string> args, RunCommandLine &out)
{
    size_t i = 0;
    for (; i < args.size() && args[i] != "--"; ++i) {
        const std::string &arg = args[i];
        if (arg == "-h") {
            out.help = true;
            continue;
        }
        const size_t equals = arg.find('=');
        const std::string name = arg.substr(0, equals);
        const RunOption *option = arg.starts_with("--") ? find_option(name) : nullptr;
        if (option == nullptr) {
            if (arg.starts_with("-"))
                return "unknown option '" + name + "'";
            return "unexpected '" + arg + "' before --: the command goes after --";
        }
        std::string value;
        if (option->kind == ValueKind::None) {
            if (equals != std::string::npos)
                return std::string(option->name) + " takes no value";
        } else if (equals != std::string::npos) {
            value = arg.substr(equals + 1);
        } else if (i + 1 < args.size() && args[i + 1] != "--") {
            value = args[++i];
        }
        if (option->kind != ValueKind::None && value.empty())
            return std::string(option->name) + " needs a " + std::string(option->metavar);
        if (Failure failure = record(*option, std::move(value), out))
            return failure;
    }
    if (out.help)
        return std::nullopt;
    if (i == args.size())
        return "missing -- CMD [ARGS...]: the command goes after --";
    out.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
    if (out.command.empty())
        return "missing the command after --";
    return std::nullopt;
}

}  // namespace tartaros
