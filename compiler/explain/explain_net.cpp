// compiler/explain/explain_net.cpp — see explain_net.h.
#include "explain_net.h"

#include <string>
#include <vector>

#include "json_text.h"

namespace tartaros {
namespace {

std::vector<std::string> mode_names(const tp_plan &p)
{
    const uint32_t modes = p.network ? p.network->modes : 0;
    std::vector<std::string> out;
    if (modes & TP_NET_PROXY)
        out.emplace_back("proxy");
    if (modes & TP_NET_PORTS)
        out.emplace_back("ports");
    if (modes & TP_NET_EXPOSE)
        out.emplace_back("expose");
    if (modes & TP_NET_BROKER)
        out.emplace_back("broker");
    if (out.empty())
        out.emplace_back("none");
    return out;
}

std::vector<uint16_t> ports_of(const tp_plan &p, uint16_t kind)
{
    std::vector<uint16_t> out;
    for (uint32_t i = 0; i < p.net_port_count; i++)
        if (p.net_ports[i].kind == kind)
            out.push_back(p.net_ports[i].port);
    return out;
}

std::vector<std::string> names_of(const tp_plan &p, uint32_t kind)
{
    std::vector<std::string> out;
    for (uint32_t i = 0; i < p.net_name_count; i++) {
        const tp_net_name &n = p.net_names[i];
        if (n.kind != kind)
            continue;
        std::string text = tp_plan_str(&p, n.name);
        if (kind == TP_NAME_PIN)
            text += std::string("=") + tp_plan_str(&p, n.address);
        out.push_back(text);
    }
    return out;
}

std::string join(const std::vector<std::string> &parts)
{
    std::string out;
    for (const std::string &s : parts)
        out += (out.empty() ? "" : ", ") + s;
    return out.empty() ? "none" : out;
}

std::string join_ports(const std::vector<uint16_t> &ports)
{
    std::vector<std::string> parts;
    for (uint16_t port : ports)
        parts.push_back(std::to_string(port));
    return join(parts);
}

// What each mode does and what it leaves open; docs/limits.md says the same.
std::vector<std::string> network_notes(const tp_plan &p)
{
    const uint32_t modes = p.network ? p.network->modes : 0;
    std::vector<std::string> notes = {
        "a private network namespace with only its loopback: the agent's own servers on 127.0.0.1 reach each "
        "other, nothing of the host's network is reachable, abstract unix sockets are the namespace's own"};
    notes.emplace_back(
        "every connect(), bind(), sendmsg() and sendmmsg(), and every sendto() with an address, of "
        "the command is mediated by the sandbox's init (seccomp user notification): a pathname unix "
        "socket is the sandbox's only on the private /tmp, /dev/shm or a private dir, so a host "
        "service's socket is refused wherever it lies (the workspace included) and bind() elsewhere "
        "answers EACCES; a stream connect is made on the mediator's own socket and installed over the "
        "command's once its peer is a sandbox process; the mediator makes every sendmsg() itself (a "
        "filter cannot read its "
        "address), with its own copy of the address and of the SCM_RIGHTS descriptors: ~35 us more per "
        "sendmsg() (send() and write() are not mediated), and the credentials a receiver sees name the "
        "mediator; a blocking connect holds the calls behind it; mediation is lost (a warning, a refusal under "
        "--strict) without a mount namespace, on a kernel without user notification or pidfd_getfd "
        "(5.6), or under Yama ptrace_scope 3, and then the host's sockets are reachable wherever they "
        "are readable outside the hidden /run");
    if (modes != 0)
        notes.emplace_back("tartaros-proxy runs on the host side as the supervisor's child, confined by its own "
                           "Landlock and seccomp; the listeners inside are made by the sandbox's init on 127.0.0.1 "
                           "and handed to it over a socketpair before the command starts");
    if (modes != 0)
        notes.emplace_back("each refusal of the proxy or the broker is one response naming its reason (a failed lookup "
                           "says \"could not resolve\"), and when the run ends one tartaros: note: line per distinct "
                           "refusal, with its count and what to change in the policy, follows the command's output; "
                           "a connection to a local port the host refuses is reset");
    if (modes & TP_NET_PROXY)
        notes.emplace_back("HTTP(S) through the proxy only: CONNECT and absolute-form requests to allowed names and "
                           "destination ports; each name is resolved once on the host and an internal address "
                           "(loopback, private, link-local, CGNAT, ULA, multicast) is refused unless pinned in hosts; "
                           "DNS inside fails closed, so a tool that ignores the proxy variables reaches nothing");
    if (modes & TP_NET_PORTS)
        notes.emplace_back("each local port is a TCP relay from 127.0.0.1:PORT inside to the host's 127.0.0.1:PORT "
                           "and nowhere else: not another address, not IPv6, not UDP");
    if (modes & TP_NET_EXPOSE)
        notes.emplace_back("each exposed port listens on the host's 127.0.0.1:PORT for the whole run: every local "
                           "user of the host can connect to the agent's server there");
    if (modes & TP_NET_BROKER)
        notes.emplace_back("the credential broker listens on 127.0.0.1:" + std::to_string(p.broker->port) +
                           " inside and connects, from the host side, only to its capabilities' hosts (the broker "
                           "step)");
    notes.emplace_back("if the kernel refuses the network namespace (only without --strict), nothing is relayed and "
                       "Landlock (ABI 4) denies every TCP bind and connect instead; UDP is then not confined");
    return notes;
}

}  // namespace

void explain_network_text(const tp_plan &p, int step, const OriginText &origin, std::ostream &out)
{
    out << step << ". network: " << join(mode_names(p));
    if (p.network)
        out << "  " << origin(p.network->origin);
    out << '\n';
    if (p.network && (p.network->modes & TP_NET_PROXY)) {
        out << "   proxy: 127.0.0.1:" << p.network->proxy_port << " inside\n"
            << "   allow: " << join(names_of(p, TP_NAME_ALLOW)) << '\n'
            << "   deny: " << join(names_of(p, TP_NAME_DENY)) << '\n'
            << "   pinned: " << join(names_of(p, TP_NAME_PIN)) << '\n'
            << "   destination ports: " << join_ports(ports_of(p, TP_PORT_DESTINATION)) << '\n';
    }
    if (p.network && (p.network->modes & TP_NET_PORTS))
        out << "   local ports (inside -> host 127.0.0.1): " << join_ports(ports_of(p, TP_PORT_LOCAL)) << '\n';
    if (p.network && (p.network->modes & TP_NET_EXPOSE))
        out << "   exposed ports (host 127.0.0.1 -> inside): " << join_ports(ports_of(p, TP_PORT_EXPOSE)) << '\n';
    for (const std::string &note : network_notes(p))
        out << "   - " << note << '\n';
}

void explain_network_json(const tp_plan &p, const OriginJson &origin, std::ostream &out)
{
    auto port_list = [&](uint16_t kind) {
        std::string s = "[";
        for (uint16_t port : ports_of(p, kind))
            s += (s.size() > 1 ? "," : "") + std::to_string(port);
        return s + "]";
    };
    out << "{\"step\":\"network\",\"modes\":" << quote_list(mode_names(p));
    if (p.network && (p.network->modes & TP_NET_PROXY))
        out << ",\"proxy\":{\"listen\":" << quote("127.0.0.1:" + std::to_string(p.network->proxy_port))
            << ",\"allow\":" << quote_list(names_of(p, TP_NAME_ALLOW))
            << ",\"deny\":" << quote_list(names_of(p, TP_NAME_DENY))
            << ",\"pinned\":" << quote_list(names_of(p, TP_NAME_PIN))
            << ",\"destination_ports\":" << port_list(TP_PORT_DESTINATION) << '}';
    out << ",\"local_ports\":" << port_list(TP_PORT_LOCAL) << ",\"expose_ports\":" << port_list(TP_PORT_EXPOSE);
    out << ",\"origin\":";
    if (p.network)
        origin(out, p.network->origin);
    else
        out << "null";
    out << ",\"notes\":" << quote_list(network_notes(p)) << '}';
}

}  // namespace tartaros
