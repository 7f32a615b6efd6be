// compiler/lower/lower_net.cpp — see lower_net.h.
#include "lower_net.h"

#include "plan_origin.h"

namespace tartaros {

namespace {

void add_ports(ir::PlanWriter &w, const std::vector<Located<uint16_t>> &ports, uint16_t kind, const PlanOrigins &origin)
{
    for (const Located<uint16_t> &p : ports) {
        tp_net_port r{};
        r.port = p.value;
        r.kind = kind;
        r.origin = origin(p.pos);
        w.add_net_port(r);
    }
}

void add_destination_ports(ir::PlanWriter &w, const NetworkPolicy &network, const PlanOrigins &origin)
{
    if (!network.domain_ports.empty())
        return add_ports(w, network.domain_ports, TP_PORT_DESTINATION, origin);
    for (uint16_t port : kDefaultDomainPorts) {
        tp_net_port r{};
        r.port = port;
        r.kind = TP_PORT_DESTINATION;
        w.add_net_port(r);
    }
}

void add_names(ir::PlanWriter &w, const std::vector<Located<std::string>> &names, uint32_t kind,
               const PlanOrigins &origin)
{
    for (const Located<std::string> &n : names) {
        tp_net_name r{};
        r.kind = kind;
        r.name = w.str(n.value);
        r.origin = origin(n.pos);
        w.add_net_name(r);
    }
}

void add_pins(ir::PlanWriter &w, const NetworkPolicy &network, const PlanOrigins &origin)
{
    for (const auto &[name, address] : network.hosts) {
        tp_net_name r{};
        r.kind = TP_NAME_PIN;
        r.name = w.str(name.value);
        r.address = w.str(address.value);
        r.origin = origin(name.pos);
        w.add_net_name(r);
    }
}

// A key that only the proxy reads, set while the proxy is off.
void warn_idle_proxy_keys(const NetworkPolicy &network, Diagnostics &diags)
{
    auto idle = [&](const SourcePos &pos, const char *key) {
        diags.warning(pos,
                      std::string("[network] ") + key +
                          " does nothing while allow_domains is empty: the proxy is not started",
                      "proxy-key-unused");
    };
    if (!network.deny_domains.empty())
        idle(network.deny_domains.front().pos, "deny_domains");
    if (!network.hosts.empty())
        idle(network.hosts.front().first.pos, "hosts");
    if (!network.domain_ports.empty())
        idle(network.domain_ports.front().pos, "domain_ports");
    if (network.proxy_port.pos.line != 0)
        idle(network.proxy_port.pos, "proxy_port");
}

}  // namespace

uint32_t network_modes(const Policy &policy)
{
    const NetworkPolicy &network = policy.network;
    uint32_t modes = policy.broker ? uint32_t{TP_NET_BROKER} : 0u;
    if (!network.allow_domains.empty())
        modes |= TP_NET_PROXY;
    if (!network.local_ports.empty())
        modes |= TP_NET_PORTS;
    if (!network.expose_ports.empty())
        modes |= TP_NET_EXPOSE;
    return modes;
}

std::string proxy_url(const NetworkPolicy &network)
{
    if (network.allow_domains.empty())
        return "";
    return "http://127.0.0.1:" + std::to_string(network.proxy_port.value);
}

std::vector<std::pair<std::string, std::string>> proxy_environment(const NetworkPolicy &network)
{
    const std::string url = proxy_url(network);
    if (url.empty())
        return {};
    // Lower case first: curl reads only the lower-case http_proxy (the upper case one is a
    // CGI-era risk), most other tools read either.
    return {{"http_proxy", url},
            {"https_proxy", url},
            {"HTTP_PROXY", url},
            {"HTTPS_PROXY", url},
            {"ALL_PROXY", url},
            {"NO_PROXY", "localhost,127.0.0.1,::1"},
            {"no_proxy", "localhost,127.0.0.1,::1"}};
}

void write_network(ir::PlanWriter &w, const Policy &policy, Diagnostics &diags)
{
    const NetworkPolicy &network = policy.network;
    const PlanOrigins origin(policy);
    const uint32_t modes = network_modes(policy);
    if (!(modes & TP_NET_PROXY))
        warn_idle_proxy_keys(network, diags);
    if (modes == 0)
        return;
    tp_network n{};
    n.modes = modes;
    n.proxy_port = (modes & TP_NET_PROXY) ? network.proxy_port.value : uint16_t{0};
    n.origin = origin(!network.allow_domains.empty()      ? network.allow_domains.front().pos
                          : !network.local_ports.empty()  ? network.local_ports.front().pos
                          : !network.expose_ports.empty() ? network.expose_ports.front().pos
                                                          : policy.broker->pos);
    w.set_network(n);
    add_ports(w, network.local_ports, TP_PORT_LOCAL, origin);
    add_ports(w, network.expose_ports, TP_PORT_EXPOSE, origin);
    if (modes & TP_NET_PROXY) {
        add_destination_ports(w, network, origin);
        add_names(w, network.allow_domains, TP_NAME_ALLOW, origin);
        add_names(w, network.deny_domains, TP_NAME_DENY, origin);
        add_pins(w, network, origin);
    }
    if (policy.broker)
        add_names(w, policy.broker->allowed_hosts, TP_NAME_BROKER_HOST, origin);
}

}  // namespace tartaros
