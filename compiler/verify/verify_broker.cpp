// compiler/verify/verify_broker.cpp — see verify_broker.h.
#include "verify_broker.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "lower_broker.h"
#include "lower_net.h"
#include "names.h"

namespace tartaros {

namespace {

std::string str(const tp_plan &plan, tp_str s)
{
    return std::string(tp_plan_str(&plan, s), s.len);
}

Failure check_broker(const tp_plan &plan, const BrokerPolicy &broker)
{
    const tp_broker &b = *plan.broker;
    if ((plan.broker_section_flags & TP_SECF_REQUIRED) == 0)
        return "the broker section is not required";
    if (b.port != broker.port.value)
        return "the plan's port differs from [broker] port";
    if (((b.flags & TP_BROKER_ALLOW_INTERNAL) != 0) != broker.allow_internal.value)
        return "the plan's allow_internal differs from the policy's";
    if (str(plan, b.auth_header) != broker.auth_header.value)
        return "the plan's auth_header differs from the policy's";
    if (str(plan, b.token_env) != (broker.token_env ? broker.token_env->value : ""))
        return "the plan's token_env differs from the policy's";
    if (str(plan, b.ca_file) != (broker.ca_file ? broker.ca_file->value : ""))
        return "the plan's ca_file differs from the policy's";
    return std::nullopt;
}

Failure check_capability(const tp_plan &plan, const tp_broker_cap &c, const BrokerCapability &cap)
{
    const std::string name = cap.name.value;
    if (str(plan, c.name) != name)
        return "capability " + name + ": the plan names it " + str(plan, c.name);
    if (str(plan, c.host) != cap.host.value || c.port != cap.port.value)
        return "capability " + name + ": the plan's upstream differs from its host";
    if (str(plan, c.header) != cap.header.value || str(plan, c.value_format) != cap.value_format.value)
        return "capability " + name + ": the plan's header or value_format differs";
    if (str(plan, c.value_env) != cap.value_env.value)
        return "capability " + name + ": the plan's value_env differs";
    if (str(plan, c.methods) != space_joined(cap.methods) ||
        str(plan, c.path_prefixes) != space_joined(cap.path_prefixes))
        return "capability " + name + ": the plan's methods or path prefixes differ";
    bool allowed = false;
    for (uint32_t i = 0; i < plan.net_name_count && !allowed; i++)
        allowed = plan.net_names[i].kind == TP_NAME_BROKER_HOST &&
            tproxy::pattern_matches(tp_plan_str(&plan, plan.net_names[i].name), cap.host.value);
    if (allowed)
        return std::nullopt;
    return "capability " + name + ": no broker host of the plan matches " + cap.host.value;
}

Failure check_capabilities(const tp_plan &plan, const BrokerPolicy &broker)
{
    if (plan.broker_cap_count != broker.capabilities.size())
        return "the plan has " + std::to_string(plan.broker_cap_count) + " capabilities, the policy " +
            std::to_string(broker.capabilities.size());
    for (uint32_t i = 0; i < plan.broker_cap_count; i++)
        if (Failure failure = check_capability(plan, plan.broker_caps[i], broker.capabilities[i]))
            return failure;
    return std::nullopt;
}

// The broker's variables right after the proxy's; no secret-holding variable anywhere.
Failure check_environment(const tp_plan &plan, const Policy &policy)
{
    using NamePair = std::pair<std::string, std::string>;
    std::vector<NamePair> set;
    for (uint32_t i = 0; i < plan.env_count; i++)
        if (plan.env[i].op == TP_ENV_SET)
            set.emplace_back(str(plan, plan.env[i].name), str(plan, plan.env[i].value));
    const size_t skip = proxy_environment(policy.network).size();
    const std::vector<NamePair> wanted = broker_environment(policy.broker);
    if (set.size() < skip + wanted.size() ||
        !std::equal(wanted.begin(), wanted.end(), set.begin() + static_cast<long>(skip)))
        return "the plan does not point the environment at the broker after the proxy";
    std::vector<std::string> secrets;
    if (policy.broker->token_env)
        secrets.push_back(policy.broker->token_env->value);
    for (const BrokerCapability &cap : policy.broker->capabilities)
        secrets.push_back(cap.value_env.value);
    for (uint32_t i = 0; i < plan.env_count; i++)
        if (std::find(secrets.begin(), secrets.end(), str(plan, plan.env[i].name)) != secrets.end())
            return "the plan's environment names " + str(plan, plan.env[i].name) + ", which holds a secret";
    return std::nullopt;
}

Failure check_credentials(const tp_plan &plan)
{
    std::vector<MountStep> mounts;
    for (uint32_t i = 0; i < plan.mount_count; i++) {
        const tp_mount &m = plan.mounts[i];
        mounts.push_back(MountStep{m.op, m.flags, str(plan, m.path), str(plan, m.source), str(plan, m.anchor), {}});
    }
    if (std::none_of(mounts.begin(), mounts.end(),
                     [](const MountStep &m) { return (m.flags & TP_MNTF_CREDENTIALS) != 0; }))
        return "the plan has no credentials directory";
    if (const MountStep *host = credentials_parent_from_host(mounts))
        return "the credentials directory's mountpoint would be in the host's " + host->path;
    return std::nullopt;
}

}  // namespace

Failure verify_broker(const tp_plan &plan, const Policy &policy)
{
    if (!policy.broker) {
        for (uint32_t i = 0; i < plan.mount_count; i++)
            if ((plan.mounts[i].flags & TP_MNTF_CREDENTIALS) != 0)
                return "broker: a credentials directory without a broker";
        if (plan.broker == nullptr)
            return std::nullopt;
        return "broker: the plan has a broker the policy does not";
    }
    if (plan.broker == nullptr)
        return "broker: the plan has no broker section";
    for (const Failure &failure : {check_broker(plan, *policy.broker), check_capabilities(plan, *policy.broker),
                                   check_environment(plan, policy), check_credentials(plan)})
        if (failure)
            return "broker: " + *failure;
    return std::nullopt;
}

}  // namespace tartaros
