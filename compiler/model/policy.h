// compiler/model/policy.h — the policy model every front-end lowers into.
//
// Invariants once a front-end has returned a Policy without errors:
//  - every path is absolute and normalised: no "." or ".." components, no repeated or
//    trailing '/', "~" expanded, relative paths resolved against the policy file's
//    directory; no glob characters (front-ends refuse them);
//  - each list keeps the order of the source and holds no duplicates (a duplicate is a
//    diagnostic, and the later copy is dropped);
//  - every value carries the source position it came from, so any later pass (lint,
//    lowering, --explain) can point at the line that caused it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tartaros {

struct SourcePos {
    std::string file;   // as given on the command line
    uint32_t line = 0;  // 1-based; 0 = not from the file (a default)
    uint32_t col = 0;   // 1-based
};

template <class T>
struct Located {
    T value{};
    SourcePos pos{};
};

using LocatedPath = Located<std::string>;

enum class ReadScope { All, Granted };

struct FilesystemPolicy {
    Located<ReadScope> read_scope{ReadScope::All, {}};
    std::vector<LocatedPath> read_allows;
    std::vector<LocatedPath> read_denies;
    std::vector<LocatedPath> writable_roots;
    std::vector<LocatedPath> write_denies;
    // Deny targets the policy declares to be regular files (`{ path = "...", type = "file" }`
    // in read_denies or write_denies): materialize creates them as empty files, not directories.
    std::vector<std::string> file_targets;
    Located<bool> materialize{false, {}};
    Located<bool> private_tmp{false, {}};
    // Directories that get an empty private tmpfs of the run's own (lower/private_dirs.h says
    // where one may lie).
    std::vector<LocatedPath> private_dirs;
};

// One `[process] rlimits` entry: a Linux resource limit the command starts with.
struct RlimitSetting {
    uint32_t resource = 0;  // the Linux RLIMIT_* number (compiler/model/units.h names them)
    uint64_t soft = 0;      // kRlimUnlimited = no limit
    uint64_t hard = 0;
    SourcePos pos;  // the resource's key
};

// "unlimited" in rlimits (the kernel's RLIM_INFINITY).
inline constexpr uint64_t kRlimUnlimited = ~0ull;

// The grace from the timeout's SIGTERM to SIGKILL when a policy sets `timeout` alone.
inline constexpr uint64_t kDefaultTimeoutGraceMs = 5000;

// Invariants of the limits (an absent optional is "no limit"; the bounds are ir/plan.h's):
//  - max_processes is in 1..TP_MAX_PROCESSES tasks;
//  - memory_max is in TP_MIN_MEMORY..TP_MAX_MEMORY bytes;
//  - cpu_max is a CFS quota in microseconds per TP_CPU_PERIOD_US (100000 = one CPU), in
//    1000..TP_MAX_CPU_QUOTA;
//  - timeout is in 1..TP_MAX_TIMEOUT_MS milliseconds; timeout_grace is set only together
//    with timeout and is in 1..TP_MAX_GRACE_MS (absent: kDefaultTimeoutGraceMs);
//  - rlimits keep the order of the source; each resource appears once, is one of
//    TP_RLIMIT_KNOWN, and has soft <= hard. The default core = 0 is not in the list (the
//    lowering adds it when the policy does not set core).
struct ProcessPolicy {
    Located<bool> isolate_pids{true, {}};  // private PID namespace
    Located<bool> isolate_proc{true, {}};  // fresh /proc of that namespace
    // The seccomp hardening deny list (compiler/seccomp/seccomp_profile.h). On unless the policy says
    // false: the list refuses nothing a coding agent's tools need.
    Located<bool> harden_syscalls{true, {}};
    std::optional<Located<uint64_t>> max_processes;  // tasks (threads count) of the sandbox
    std::optional<Located<uint64_t>> memory_max;     // bytes
    std::optional<Located<uint32_t>> cpu_max;        // quota, microseconds per 100 ms
    std::optional<Located<uint64_t>> timeout;        // milliseconds of wall clock
    std::optional<Located<uint64_t>> timeout_grace;  // milliseconds from SIGTERM to SIGKILL
    std::vector<RlimitSetting> rlimits;
};

// Invariants (besides the ones above): every domain is normalised as the proxy matches it
// (lower case, no trailing dot; an exact name, an IP literal, or "*.suffix" where the suffix
// is not a single label, not a public suffix nor has one beneath it — save the few its owner
// alone fills, such as githubusercontent.com: compiler/model/domains.h); every port is in 1..65535; a name pinned in
// `hosts` is normalised and its address is an IPv4 or IPv6 literal in canonical form; ports
// appear in at most one of local_ports / expose_ports and never equal proxy_port.
struct NetworkPolicy {
    Located<bool> deny_unix{false, {}};               // every AF_UNIX socket and socketpair refused
    std::vector<Located<std::string>> allow_domains;  // the proxy's allow-list
    std::vector<Located<std::string>> deny_domains;   // wins over allow_domains
    // Host 127.0.0.1 ports the agent reaches at 127.0.0.1:PORT inside (relayed out).
    std::vector<Located<uint16_t>> local_ports;
    // Sandbox ports the host reaches at its 127.0.0.1:PORT (relayed in: an agent's dev server).
    std::vector<Located<uint16_t>> expose_ports;
    // Destination ports the proxy may connect to for allow_domains.
    std::vector<Located<uint16_t>> domain_ports;  // empty in the policy: kDefaultDomainPorts
    std::vector<std::pair<Located<std::string>, Located<std::string>>> hosts;  // name, address
    Located<uint16_t> proxy_port{3128, {}};  // where the proxy listens inside, on 127.0.0.1
};

// The proxy's destination ports when a policy does not say.
inline const std::vector<uint16_t> kDefaultDomainPorts = {443, 80};

struct EnvPolicy {
    Located<bool> inherit{false, {}};
    // Names copied from the launcher's environment. When the key is absent from the
    // policy this holds the defaults (kDefaultPassthrough) with line 0.
    std::vector<Located<std::string>> passthrough;
    std::vector<std::pair<Located<std::string>, Located<std::string>>> set;  // name, value
};

// The environment variables passed through when a policy does not say.
inline const std::vector<std::string> kDefaultPassthrough = {"PATH", "HOME",    "TERM",  "LANG", "LC_ALL",
                                                             "USER", "LOGNAME", "SHELL", "TZ"};

// One `[[broker.capability]]`: requests to the broker under /<name>/ go to https://host:port
// with `header` set to value_format, {value} replaced by the launcher's `value_env`.
// Invariants: name is 1..64 of [A-Za-z0-9._-] and unique among the capabilities; host is
// normalised as the proxy matches it (names.h: lower case, IPv6 without brackets) and matched
// by a pattern of allowed_hosts; port is 1..65535; header is an HTTP field name that is neither
// a header the broker controls (tbr::reserved_header, shared/broker_rules.h) nor the auth_header; value_env is an
// environment variable name; value_format is printable ASCII with "{value}" exactly once;
// methods are [A-Z]{1,32}, path_prefixes start with '/', hold no dot segment, space, control
// character, '?', '#' or encoded slash; neither list has duplicates (empty: any).
struct BrokerCapability {
    SourcePos pos;  // the table's first key
    Located<std::string> name;
    Located<std::string> host;
    Located<uint16_t> port{443, {}};
    Located<std::string> header{"Authorization", {}};
    Located<std::string> value_env;
    Located<std::string> value_format{"{value}", {}};
    std::vector<Located<std::string>> methods;
    std::vector<Located<std::string>> path_prefixes;
};

// The broker's port when a policy does not say. Fixed, not chosen at run time: the URL is in
// the agent's environment before the run starts, and the network namespace is private to the
// run, so no other program can hold it.
inline constexpr uint16_t kDefaultBrokerPort = 3129;

// `[broker]`, the credential broker. Invariants (besides the capabilities' above): port is
// 1..65535 and is none of proxy_port, local_ports, expose_ports; auth_header is an HTTP field
// name, not reserved; token_env and every value_env are environment variable names that no
// [env] passthrough or set entry names, and no value_env is the token_env; allowed_hosts is
// non-empty and normalised like allow_domains; there are 1..TP_MAX_BROKER_CAPS capabilities;
// ca_file, when set, is absolute and normalised and was a regular file at compile time.
struct BrokerPolicy {
    SourcePos pos;  // the [broker] table
    Located<uint16_t> port{kDefaultBrokerPort, {}};
    Located<std::string> auth_header{"X-Broker-Auth", {}};
    std::optional<Located<std::string>> token_env;  // absent: a random token per run
    std::vector<Located<std::string>> allowed_hosts;
    Located<bool> allow_internal{false, {}};
    std::optional<LocatedPath> ca_file;
    std::vector<BrokerCapability> capabilities;
};

// The variables that tell the agent where the broker is and where its token file lies; the
// compiler sets both when a broker is configured, so [env] may not name them.
inline constexpr const char *kBrokerUrlVariable = "TARTAROS_BROKER_URL";
inline constexpr const char *kCredentialsVariable = "CREDENTIALS_DIRECTORY";

// One `deny` rule of a .tart `syscalls` block (TOML pulls them in with `include`):
// `deny NAME [when CONDITION and ...] [errno E | kill];`. Rules only refuse: the baseline and
// the hardening list (compiler/seccomp/seccomp_profile.h) are a floor no policy rule can lift, so there
// is no `allow`. Where a built-in rule already decides a call, the built-in action stands; the
// first of the policy's rules that holds decides the rest (source order).
//
// Invariants: nr is a syscall of the compiler's native table and name is its name; `when` is
// sorted by arg, holds at most one condition per argument (0..5), and each condition tests the
// low 32 bits only (the kernel reads int arguments as 32 bits, so a test on the
// full register could be sidestepped with the high word); In/NotIn values are sorted, unique
// and non-empty; AnyBit/NoBit hold exactly one non-zero mask; err is 1..4095 unless kill.
struct SyscallCondition {
    enum class Kind : uint8_t {
        In,      // low32 is one of values           (argN == V, argN in {V, ...})
        NotIn,   // low32 is none of values          (argN != V, argN not in {V, ...})
        AnyBit,  // low32 & values[0] != 0           (argN & M, argN & M != 0)
        NoBit,   // low32 & values[0] == 0           (argN & M == 0)
    };
    Kind kind = Kind::In;
    uint8_t arg = 0;
    std::vector<uint32_t> values;
    SourcePos pos;  // the argument's name
};

struct SyscallDenyRule {
    SourcePos pos;              // 'deny'
    Located<std::string> name;  // the syscall's name, at the name
    uint32_t nr = 0;
    std::vector<SyscallCondition> when;  // all must hold; empty: every call
    bool kill = false;                   // true: SECCOMP_RET_KILL_PROCESS; false: errno `err`
    uint16_t err = 1;                    // EPERM unless the rule says
};

// At most this many rules; the filter must still fit the kernel's 4096 instructions (the
// lowering checks that too).
inline constexpr size_t kMaxSyscallRules = 256;

struct SyscallPolicy {
    std::vector<SyscallDenyRule> rules;  // source order (across includes: the order files were read)
};

// A file the policy was read from. `display` is the name diagnostics and SourcePos::file use
// (as given on the command line, or the including file's directory joined with the include's
// string); `absolute` is where it lies (normalised).
struct SourceFile {
    std::string display;
    std::string absolute;
};

struct Policy {
    std::string source_path;  // absolute path of the policy file ("" for flags-only policies)
    // Every file read, the policy file first (sources[0].absolute == source_path), then each
    // included .tart in the order first read; no file twice. Each is write-protected like the
    // policy file when it lies inside a writable root, and origins in the plan name them.
    // Empty for flags-only policies.
    std::vector<SourceFile> sources;
    Located<int64_t> version{1, {}};
    FilesystemPolicy fs;
    ProcessPolicy process;
    NetworkPolicy network;
    EnvPolicy env;
    std::optional<BrokerPolicy> broker;  // absent: no [broker] table
    SyscallPolicy syscalls;              // .tart `syscalls` blocks only
};

}  // namespace tartaros
