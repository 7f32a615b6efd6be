/* proxy/plan_config.cpp — the configuration from the plan (see plan_config.h). */
#include "plan_config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "plan_reader.h"

namespace tproxy {
namespace {

// The whole plan, in 8-aligned memory as the reader wants it; "" or why not. Sized by fstat,
// so a start costs the plan's pages, not the format's limit.
std::string read_all(int fd, std::vector<uint64_t> *words, uint32_t *size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return std::string("cannot read the plan on --plan-fd: ") + std::strerror(errno);
    if (st.st_size > static_cast<off_t>(TP_MAX_PLAN_SIZE))
        return "the plan on --plan-fd is larger than the format's limit";
    words->resize(static_cast<size_t>(st.st_size) / 8 + 1);
    auto *bytes = reinterpret_cast<char *>(words->data());
    size_t total = 0;
    while (total < static_cast<size_t>(st.st_size)) {
        ssize_t n = pread(fd, bytes + total, static_cast<size_t>(st.st_size) - total, static_cast<off_t>(total));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return std::string("cannot read the plan on --plan-fd: ") + (n < 0 ? std::strerror(errno) : "short read");
        total += static_cast<size_t>(n);
    }
    *size = static_cast<uint32_t>(total);
    return "";
}

std::string str(const tp_plan &p, tp_str s)
{
    return tp_plan_str(&p, s);
}

// A plan-carried name that names.h cannot take: the reader and names.h disagree, a bug.
std::string unusable(const char *what, const std::string &name)
{
    return "the plan's " + std::string(what) + " \"" + name + "\" is not a host name the proxy can match";
}

std::string add_name(const tp_plan &p, const tp_net_name &n, Config &c)
{
    const std::string name = str(p, n.name);
    if (n.kind == TP_NAME_PIN) {
        auto pin = parse_pin_address(name, str(p, n.address));
        if (!pin)
            return unusable("pin", name);
        c.policy.pins.push_back(*pin);
        return "";
    }
    auto pattern = normalize_pattern(name);
    if (!pattern)
        return unusable("name", name);
    std::vector<std::string> &list = n.kind == TP_NAME_ALLOW ? c.policy.allow
        : n.kind == TP_NAME_DENY                             ? c.policy.deny
                                                             : c.broker.allow;
    list.push_back(*pattern);
    return "";
}

std::string take_network(const tp_plan &p, Config &c)
{
    // Without the HTTP proxy the default destination ports stay, as no flag would set them.
    if (p.network->modes & TP_NET_PROXY) {
        c.proxy_port = p.network->proxy_port;
        c.policy.ports.clear();
    }
    for (uint32_t i = 0; i < p.net_port_count; i++) {
        const tp_net_port &port = p.net_ports[i];
        if (port.kind == TP_PORT_DESTINATION)
            c.policy.ports.push_back(port.port);
        if (port.kind == TP_PORT_LOCAL)
            c.relay_ports.push_back(port.port);
    }
    for (uint32_t i = 0; i < p.net_name_count; i++) {
        const tp_net_name &n = p.net_names[i];
        if (n.kind == TP_NAME_BROKER_HOST && c.broker.secrets_fd < 0)
            continue;
        if (std::string err = add_name(p, n, c); !err.empty())
            return err;
    }
    return "";
}

std::string take_capability(const tp_plan &p, const tp_broker_cap &r, BrokerConfig &b)
{
    Capability cap;
    cap.name = str(p, r.name);
    auto host = normalize_host(str(p, r.host));
    if (!host)
        return unusable("capability host", str(p, r.host));
    cap.host = *host;
    cap.port = r.port;
    cap.header = str(p, r.header);
    cap.format = str(p, r.value_format);
    cap.methods = split_spaced(str(p, r.methods));
    cap.path_prefixes = split_spaced(str(p, r.path_prefixes));
    b.caps.push_back(std::move(cap));
    return "";
}

std::string take_broker(const tp_plan &p, BrokerConfig &b)
{
    if (p.broker == nullptr)
        return "--broker-secrets, but the plan has no broker";
    b.port = p.broker->port;
    b.auth_header = str(p, p.broker->auth_header);
    b.allow_internal = (p.broker->flags & TP_BROKER_ALLOW_INTERNAL) != 0;
    b.ca_file = str(p, p.broker->ca_file);
    for (uint32_t i = 0; i < p.broker_cap_count; i++)
        if (std::string err = take_capability(p, p.broker_caps[i], b); !err.empty())
            return err;
    return "";
}

}  // namespace

std::string config_from_plan(int fd, Config &c)
{
    std::vector<uint64_t> words;
    uint32_t size = 0;
    std::string err = read_all(fd, &words, &size);
    close(fd);
    if (!err.empty())
        return err;
    tp_plan p{};
    char reason[256];
    if (tp_plan_open(reinterpret_cast<const uint8_t *>(words.data()), size, &p, reason, sizeof reason) != 0)
        return std::string("invalid plan on --plan-fd: ") + reason;
    if (p.network == nullptr)
        return "the plan on --plan-fd has no network section: nothing to serve";
    c.lookups_before_ready = p.limits != nullptr && p.limits->max_processes != 0;
    err = take_network(p, c);
    if (err.empty() && c.broker.secrets_fd >= 0)
        err = take_broker(p, c.broker);
    return err;
}

}  // namespace tproxy
