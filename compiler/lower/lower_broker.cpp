// compiler/lower/lower_broker.cpp — see lower_broker.h.
#include "lower_broker.h"

#include "fs_trie.h"
#include "paths.h"

namespace tartaros {

namespace {

// The steps whose tmpfs the enforcer registers and may create mountpoints in.
bool makes_tmpfs(const MountStep &s)
{
    return s.op == TP_MNT_ROOT_EMPTY || s.op == TP_MNT_MASK ||
        (s.op == TP_MNT_TMPFS && (s.flags & TP_MNTF_CREDENTIALS) == 0);
}

}  // namespace

std::string broker_url(const BrokerPolicy &broker)
{
    return "http://127.0.0.1:" + std::to_string(broker.port.value);
}

std::vector<std::pair<std::string, std::string>> broker_environment(const std::optional<BrokerPolicy> &broker)
{
    if (!broker)
        return {};
    return {{kBrokerUrlVariable, broker_url(*broker)}, {kCredentialsVariable, TP_CREDENTIALS_DIR}};
}

std::string space_joined(const std::vector<Located<std::string>> &words)
{
    std::string out;
    for (const Located<std::string> &w : words)
        out += (out.empty() ? "" : " ") + w.value;
    return out;
}

void write_broker(ir::PlanWriter &w, const BrokerPolicy &broker, const PlanOrigins &origin)
{
    tp_broker b{};
    b.port = broker.port.value;
    b.flags = broker.allow_internal.value ? uint16_t{TP_BROKER_ALLOW_INTERNAL} : uint16_t{0};
    b.auth_header = w.str(broker.auth_header.value);
    b.token_env = w.str(broker.token_env ? broker.token_env->value : "");
    b.ca_file = w.str(broker.ca_file ? broker.ca_file->value : "");
    b.origin = origin(broker.pos);
    w.set_broker(b, true);
    for (const BrokerCapability &cap : broker.capabilities) {
        tp_broker_cap c{};
        c.name = w.str(cap.name.value);
        c.host = w.str(cap.host.value);
        c.header = w.str(cap.header.value);
        c.value_env = w.str(cap.value_env.value);
        c.value_format = w.str(cap.value_format.value);
        c.methods = w.str(space_joined(cap.methods));
        c.path_prefixes = w.str(space_joined(cap.path_prefixes));
        c.port = cap.port.value;
        c.origin = origin(cap.pos);
        w.add_broker_cap(c);
    }
}

const MountStep *credentials_parent_from_host(const std::vector<MountStep> &mounts)
{
    const std::string parent = parent_directory(TP_CREDENTIALS_DIR);
    const MountStep *decider = nullptr;
    for (const MountStep &s : mounts) {
        if ((s.flags & TP_MNTF_CREDENTIALS) != 0)
            return decider == nullptr || makes_tmpfs(*decider) ? nullptr : decider;
        // PIN and SYMLINK make no directory of their own; at equal depth the later step wins.
        if (s.op != TP_MNT_PIN && s.op != TP_MNT_SYMLINK && path_is_within(parent, s.path) &&
            (decider == nullptr || path_depth(s.path) >= path_depth(decider->path)))
            decider = &s;
    }
    return nullptr;
}

}  // namespace tartaros
