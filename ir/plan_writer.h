// ir/plan_writer.h — builds a plan in memory (compiler side only: uses the C++ library).
//
// Determinism: the bytes depend only on the calls made, in their order. Strings are interned
// in first-use order, sections are laid out in ascending tp_section_type, padding is zero.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "plan.h"

namespace tartaros::ir {

// One argument test of a syscall rule, before the writer places its values.
struct SyscallTestSpec {
    uint8_t arg = 0;
    uint8_t kind = TP_ARG_IN;  // tp_arg_test_kind
    std::vector<uint32_t> values;
};

class PlanWriter {
public:
    // Interns `s` in the string table (the same string always gets the same tp_str).
    tp_str str(std::string_view s);

    void set_meta(const tp_meta &meta);
    void set_namespaces(const tp_namespaces &ns, bool required);
    void add_mount(const tp_mount &m);
    void set_mounts_required(bool required);
    void set_landlock(const tp_landlock_ruleset &rs, bool required);
    void add_landlock_path(const tp_landlock_path &p);
    void add_env(const tp_env &e);
    void set_exec(const tp_exec &e);
    void set_seccomp(const tp_seccomp &sc, const std::vector<tp_bpf_insn> &prog, bool required);
    void set_network(const tp_network &n);
    void add_net_port(const tp_net_port &p);
    void add_net_name(const tp_net_name &n);
    void set_limits(const tp_limits &l, bool required);
    void add_rlimit(const tp_rlimit &r);  // in ascending resource order
    void set_broker(const tp_broker &b, bool required);
    void add_broker_cap(const tp_broker_cap &c);  // in policy order
    // An included file (origin file k is the k-th call); throws std::length_error past
    // TP_MAX_SOURCES.
    void add_source(std::string_view absolute_path);
    // A syscall rule of the policy, in policy order: the writer lays its tests and their
    // values out right after the previous rule's (the reader's invariant).
    void add_syscall_rule(uint32_t nr, uint32_t action, tp_origin origin, const std::vector<SyscallTestSpec> &tests);
    const std::vector<tp_syscall_rule> &syscall_rules() const { return syscall_rules_; }
    const std::vector<tp_syscall_test> &syscall_tests() const { return syscall_tests_; }
    const std::vector<uint32_t> &syscall_values() const { return syscall_values_; }
    void set_required_features(uint64_t features) { required_features_ = features; }
    void set_min_landlock_abi(uint32_t abi) { min_landlock_abi_ = abi; }

    // The finished plan: header, section table, sections, checksum filled in.
    std::vector<uint8_t> finish() const;

private:
    std::string strtab_;
    std::unordered_map<std::string, tp_str> interned_;
    bool has_network_ = false;
    tp_network network_{};
    std::vector<tp_net_port> net_ports_;
    std::vector<tp_net_name> net_names_;
    bool has_limits_ = false, limits_required_ = false;
    tp_limits limits_{};
    std::vector<tp_rlimit> rlimits_;
    bool has_broker_ = false, broker_required_ = false;
    tp_broker broker_{};
    std::vector<tp_broker_cap> broker_caps_;
    std::vector<tp_str> sources_;
    std::vector<tp_syscall_rule> syscall_rules_;
    std::vector<tp_syscall_test> syscall_tests_;
    std::vector<uint32_t> syscall_values_;
    bool has_meta_ = false, has_ns_ = false, has_landlock_ = false, has_exec_ = false, has_seccomp_ = false;
    bool ns_required_ = false, mounts_required_ = false, landlock_required_ = false, seccomp_required_ = false;
    tp_seccomp seccomp_{};
    std::vector<tp_bpf_insn> seccomp_prog_;
    tp_meta meta_{};
    tp_namespaces ns_{};
    tp_landlock_ruleset landlock_{};
    tp_exec exec_{};
    std::vector<tp_mount> mounts_;
    std::vector<tp_landlock_path> landlock_paths_;
    std::vector<tp_env> env_;
    uint64_t required_features_ = 0;
    uint32_t min_landlock_abi_ = 0;
};

}  // namespace tartaros::ir
