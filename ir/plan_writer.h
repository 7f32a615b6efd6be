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
