// compiler/verify/verify_net.cpp — see verify_net.h.
#include "verify_net.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "lower_net.h"

namespace tartaros {

namespace {

std::vector<uint16_t> plan_ports(const tp_plan &plan, uint16_t kind)
{
    std::vector<uint16_t> out;
    for (uint32_t i = 0; i < plan.net_port_count; i++)
        if (plan.net_ports[i].kind == kind)
            out.push_back(plan.net_ports[i].port);
    return out;
}

std::vector<uint16_t> values(const std::vector<Located<uint16_t>> &ports)
{
    std::vector<uint16_t> out;
    for (const Located<uint16_t> &p : ports)
        out.push_back(p.value);
    return out;
}

using NamePair = std::pair<std::string, std::string>;

std::vector<NamePair> plan_names(const tp_plan &plan, uint32_t kind)
{
    std::vector<NamePair> out;
    for (uint32_t i = 0; i < plan.net_name_count; i++)
        if (plan.net_names[i].kind == kind)
            out.emplace_back(tp_plan_str(&plan, plan.net_names[i].name), tp_plan_str(&plan, plan.net_names[i].address));
    return out;
}

std::vector<NamePair> policy_names(const std::vector<Located<std::string>> &names)
{
    std::vector<NamePair> out;
    for (const Located<std::string> &n : names)
        out.emplace_back(n.value, "");
    return out;
}

std::vector<NamePair> policy_pins(const NetworkPolicy &network)
{
    std::vector<NamePair> out;
    for (const auto &[name, address] : network.hosts)
        out.emplace_back(name.value, address.value);
    return out;
}

Failure check_ports(const tp_plan &plan, const NetworkPolicy &network, bool proxy)
{
    if (plan_ports(plan, TP_PORT_LOCAL) != values(network.local_ports))
        return "the plan's local ports differ from local_ports";
    if (plan_ports(plan, TP_PORT_EXPOSE) != values(network.expose_ports))
        return "the plan's exposed ports differ from expose_ports";
    std::vector<uint16_t> destinations =
        network.domain_ports.empty() ? kDefaultDomainPorts : values(network.domain_ports);
    if (plan_ports(plan, TP_PORT_DESTINATION) != (proxy ? destinations : std::vector<uint16_t>{}))
        return "the plan's destination ports differ from domain_ports";
    return std::nullopt;
}

Failure check_names(const tp_plan &plan, const Policy &policy, bool proxy)
{
    const NetworkPolicy &network = policy.network;
    const std::vector<NamePair> broker_hosts =
        policy.broker ? policy_names(policy.broker->allowed_hosts) : std::vector<NamePair>{};
    if (plan_names(plan, TP_NAME_BROKER_HOST) != broker_hosts)
        return "the plan's broker hosts differ from [broker] allowed_hosts";
    if (!proxy && plan.net_name_count != broker_hosts.size())
        return "the plan names domains while the proxy is off";
    if (!proxy)
        return std::nullopt;
    if (plan_names(plan, TP_NAME_ALLOW) != policy_names(network.allow_domains))
        return "the plan's allowed names differ from allow_domains";
    if (plan_names(plan, TP_NAME_DENY) != policy_names(network.deny_domains))
        return "the plan's denied names differ from deny_domains";
    if (plan_names(plan, TP_NAME_PIN) != policy_pins(network))
        return "the plan's pins differ from hosts";
    return std::nullopt;
}

// The proxy variables, set in order before any of the policy's own.
Failure check_environment(const tp_plan &plan, const NetworkPolicy &network)
{
    std::vector<NamePair> set;
    for (uint32_t i = 0; i < plan.env_count; i++)
        if (plan.env[i].op == TP_ENV_SET)
            set.emplace_back(tp_plan_str(&plan, plan.env[i].name), tp_plan_str(&plan, plan.env[i].value));
    const std::vector<NamePair> wanted = proxy_environment(network);
    if (set.size() < wanted.size() || !std::equal(wanted.begin(), wanted.end(), set.begin()))
        return "the plan does not point the environment at the proxy first";
    return std::nullopt;
}

}  // namespace

Failure verify_network(const tp_plan &plan, const Policy &policy)
{
    const NetworkPolicy &network = policy.network;
    const uint32_t modes = network_modes(policy);
    if ((plan.network == nullptr ? 0u : plan.network->modes) != modes)
        return "network: the plan's modes differ from the policy's";
    const bool proxy = (modes & TP_NET_PROXY) != 0;
    if (plan.network != nullptr && plan.network->proxy_port != (proxy ? network.proxy_port.value : 0))
        return "network: the plan's proxy port differs from proxy_port";
    for (const Failure &failure :
         {check_ports(plan, network, proxy), check_names(plan, policy, proxy), check_environment(plan, network)})
        if (failure)
            return "network: " + *failure;
    return std::nullopt;
}

}  // namespace tartaros
