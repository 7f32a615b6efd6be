// compiler/explain/explain_broker.cpp — see explain_broker.h.
#include "explain_broker.h"

#include <string>
#include <string_view>
#include <vector>

#include "json_text.h"
#include "paths.h"

namespace tartaros {
namespace {

std::string str(const tp_plan &p, tp_str s)
{
    return std::string(tp_plan_str(&p, s), s.len);
}

// "GET POST" → {"GET", "POST"}; "" → {}.
std::vector<std::string> words(std::string_view list)
{
    std::vector<std::string> out;
    while (!list.empty()) {
        const size_t space = list.find(' ');
        out.emplace_back(list.substr(0, space));
        if (space == std::string_view::npos)
            break;
        list.remove_prefix(space + 1);
    }
    return out;
}

std::string join(const std::vector<std::string> &items, const char *if_empty)
{
    std::string out;
    for (const std::string &item : items)
        out += (out.empty() ? "" : ", ") + printable(item);
    return out.empty() ? if_empty : out;
}

std::string upstream(const tp_plan &p, const tp_broker_cap &c)
{
    const std::string host = str(p, c.host);
    const bool v6 = host.find(':') != std::string::npos;
    return "https://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(c.port);
}

std::string listen(const tp_plan &p)
{
    return "127.0.0.1:" + std::to_string(p.broker->port);
}

std::string token_file()
{
    return std::string(TP_CREDENTIALS_DIR) + "/" + TP_BROKER_TOKEN_FILE;
}

std::vector<std::string> allowed_hosts(const tp_plan &p)
{
    std::vector<std::string> out;
    for (uint32_t i = 0; i < p.net_name_count; i++)
        if (p.net_names[i].kind == TP_NAME_BROKER_HOST)
            out.push_back(str(p, p.net_names[i].name));
    return out;
}

std::string token_source(const tp_plan &p)
{
    const std::string env = str(p, p.broker->token_env);
    return env.empty() ? "a random 256-bit token made for this run (hex)"
                       : "the launcher's variable " + printable(env) + ", read once at start";
}

// What the broker does and leaves open; docs/limits.md says the same.
std::vector<std::string> broker_notes(const tp_plan &p)
{
    const bool internal = (p.broker->flags & TP_BROKER_ALLOW_INTERNAL) != 0;
    const std::string auth = str(p, p.broker->auth_header);
    std::vector<std::string> notes = {
        "a request is http://" + listen(p) + "/<capability>/<path> carrying '" + printable(auth) +
            ": <token>'; the broker removes that header and the agent's own copy of the capability's header, "
            "sets Host, adds only the capability's header and forwards to https://<host>:<port>/<path> (query kept), "
            "verifying the upstream's certificate",
        "a path prefix allows the path equal to it or continuing after a '/' (\"/repos/a\" allows \"/repos/a/x\", "
        "not \"/repos/ab\"); requests with '.' or '..' segments or encoded slashes are refused",
        "the token and every value are read from the launcher's environment once at start and handed to the "
        "broker through a sealed memory file: never on a command line, in the plan, in a log or in the agent's "
        "environment (the enforcer removes token_env and every value_env from it, inherit = true too); the agent "
        "gets only the token file, read-only",
        "the body of a response is relayed as is: an upstream that echoes its request (its headers) shows the "
        "value to the agent",
        "the agent can use every capability with the token, as often as it likes, with any method and path the "
        "capability allows: the credential's own scopes are the real limit, so give the broker tokens with the "
        "least scope that works",
        internal ? "internal addresses allowed (allow_internal): an upstream name that resolves to loopback, a "
                   "private or link-local network gets the request and its credential"
                 : "each upstream is resolved on the host and an internal address (loopback, private, link-local, "
                   "CGNAT, ULA, multicast) is refused (blocked-internal-address)",
        "every use is in the effect log (event broker): capability, method, host, path without the query, status "
        "and bytes, never a header value",
    };
    return notes;
}

}  // namespace

void explain_broker_text(const tp_plan &p, int step, const OriginText &origin, std::ostream &out)
{
    const tp_broker &b = *p.broker;
    const std::string ca = str(p, b.ca_file);
    out << step << ". broker: " << listen(p) << " inside"
        << ((p.broker_section_flags & TP_SECF_REQUIRED) ? " (required)" : "") << "  " << origin(b.origin) << '\n'
        << "   environment: TARTAROS_BROKER_URL=http://" << listen(p) << ", CREDENTIALS_DIRECTORY=" TP_CREDENTIALS_DIR
        << '\n'
        << "   token: " << token_source(p) << "; the agent reads it from " << token_file()
        << " (mode 0400, a read-only tmpfs) and sends it in " << printable(str(p, b.auth_header)) << '\n'
        << "   allowed hosts: " << join(allowed_hosts(p), "none") << '\n'
        << "   internal addresses: " << ((b.flags & TP_BROKER_ALLOW_INTERNAL) ? "allowed" : "refused") << '\n'
        << "   trusted CAs: the system store" << (ca.empty() ? "" : " and " + printable(ca)) << '\n';
    for (uint32_t i = 0; i < p.broker_cap_count; i++) {
        const tp_broker_cap &c = p.broker_caps[i];
        out << "   " << step << '.' << (i + 1) << " capability " << printable(str(p, c.name)) << " -> "
            << printable(upstream(p, c)) << "  " << origin(c.origin) << '\n'
            << "        header: " << printable(str(p, c.header)) << ": " << printable(str(p, c.value_format))
            << " ({value} from the launcher's " << printable(str(p, c.value_env)) << ")\n"
            << "        methods: " << join(words(str(p, c.methods)), "any") << '\n'
            << "        path prefixes: " << join(words(str(p, c.path_prefixes)), "any") << '\n';
    }
    for (const std::string &note : broker_notes(p))
        out << "   - " << note << '\n';
}

void explain_broker_json(const tp_plan &p, const OriginJson &origin, std::ostream &out)
{
    const tp_broker &b = *p.broker;
    const std::string token_env = str(p, b.token_env);
    const std::string ca = str(p, b.ca_file);
    out << "{\"step\":\"broker\",\"listen\":" << quote(listen(p))
        << ",\"required\":" << ((p.broker_section_flags & TP_SECF_REQUIRED) ? "true" : "false")
        << ",\"environment\":{\"TARTAROS_BROKER_URL\":" << quote("http://" + listen(p))
        << ",\"CREDENTIALS_DIRECTORY\":" << quote(TP_CREDENTIALS_DIR)
        << "},\"auth_header\":" << quote(str(p, b.auth_header))
        << ",\"token\":{\"source\":" << (token_env.empty() ? "\"random\"" : "\"env\"")
        << ",\"env\":" << (token_env.empty() ? "null" : quote(token_env)) << ",\"file\":" << quote(token_file())
        << "},\"allowed_hosts\":" << quote_list(allowed_hosts(p))
        << ",\"allow_internal\":" << ((b.flags & TP_BROKER_ALLOW_INTERNAL) ? "true" : "false")
        << ",\"ca_file\":" << (ca.empty() ? "null" : quote(ca)) << ",\"capabilities\":[";
    for (uint32_t i = 0; i < p.broker_cap_count; i++) {
        const tp_broker_cap &c = p.broker_caps[i];
        out << (i ? "," : "") << "{\"name\":" << quote(str(p, c.name)) << ",\"upstream\":" << quote(upstream(p, c))
            << ",\"host\":" << quote(str(p, c.host)) << ",\"port\":" << c.port
            << ",\"header\":" << quote(str(p, c.header)) << ",\"value_format\":" << quote(str(p, c.value_format))
            << ",\"value_env\":" << quote(str(p, c.value_env))
            << ",\"methods\":" << quote_list(words(str(p, c.methods)))
            << ",\"path_prefixes\":" << quote_list(words(str(p, c.path_prefixes))) << ",\"origin\":";
        origin(out, c.origin);
        out << '}';
    }
    out << "],\"origin\":";
    origin(out, b.origin);
    out << ",\"notes\":" << quote_list(broker_notes(p)) << '}';
}

}  // namespace tartaros
