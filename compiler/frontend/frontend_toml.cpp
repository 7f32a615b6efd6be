// compiler/frontend/frontend_toml.cpp — the TOML front-end: toml++ document → policy model.
//
// Every key is checked against a small schema per table (toml_schema.h); [process] is read by
// frontend_process.cpp, [broker] by frontend_broker.cpp (whose checks against the other tables
// run once the whole document is read). The Linux-only refusals (globs, unix socket
// paths) are recognised, not reported as unknown keys, and say why.
#include "frontend_toml.h"

#include <algorithm>
#include <functional>
#include <string_view>

#include <toml++/toml.h>

#include "domains.h"
#include "frontend_broker.h"
#include "frontend_process.h"
#include "net_channel.h"
#include "paths.h"
#include "toml_schema.h"

namespace tartaros {

namespace {

std::string glob_field_refusal(std::string_view name, std::string_view instead)
{
    return quoted(name) + " is not supported on Linux: TartarOS has no glob engine; list each path in " +
        std::string(instead);
}

const std::string kUnixSocketPathsRefusal =
    "'allow_unix_socket_paths' is not supported on Linux: unix sockets can only be denied all at once, "
    "with 'deny_unix = true' in [network] or '--deny-unix'";

bool comes_before(const SourcePos &a, const SourcePos &b)
{
    return a.line != b.line ? a.line < b.line : a.col < b.col;
}

class Reader : public TomlSchemaReader {
public:
    Reader(std::string file, std::string base_dir, std::optional<std::string> home, Diagnostics &diags,
           const PositionMap *map)
        : TomlSchemaReader(std::move(file), diags, map), base_dir_(std::move(base_dir)), home_(std::move(home))
    {}

    void read_document(const toml::table &root, Policy &policy);

private:
    void read_version(const toml::node &node, Policy &policy);
    void read_filesystem(const toml::table &table, FilesystemPolicy &fs);
    void read_network(const toml::table &table, NetworkPolicy &network);
    void read_env(const toml::table &table, EnvPolicy &env);

    void read_read_scope(const toml::node &node, Located<ReadScope> &out);
    void read_path_list(const toml::key &key, const toml::node &node, std::vector<LocatedPath> &out);
    void read_deny_list(const toml::key &key, const toml::node &node, std::vector<LocatedPath> &out,
                        std::vector<std::string> &file_targets);
    std::optional<std::string> read_deny_table(const toml::key &key, const toml::table &entry, bool &is_file);
    bool add_path(const toml::key &key, const std::string &raw, const toml::node &element,
                  std::vector<LocatedPath> &out, std::vector<std::string> &raw_of_kept);
    void read_name_list(const toml::key &key, const toml::node &node, std::vector<Located<std::string>> &out);
    void read_env_set(const toml::key &key, const toml::node &node, EnvPolicy &env);
    void read_domain_list(const toml::key &key, const toml::node &node, std::vector<Located<std::string>> &out);
    void read_port_list(const toml::key &key, const toml::node &node, std::vector<Located<uint16_t>> &out);
    std::optional<uint16_t> port_value(std::string_view name, const toml::node &node);
    void read_proxy_port(const toml::node &node, Located<uint16_t> &out);
    void read_hosts(const toml::key &key, const toml::node &node, NetworkPolicy &network);
    void check_port_conflicts(const NetworkPolicy &network);
    void check_listener_count(const Policy &policy);
    void for_each_string(const toml::key &key, const toml::node &node,
                         const std::function<void(const std::string &, const toml::node &)> &visit);

    std::string base_dir_;
    std::optional<std::string> home_;
    bool has_passthrough_ = false;  // else the defaults apply
};

void Reader::read_document(const toml::table &root, Policy &policy)
{
    bool has_version = false;
    const std::vector<TomlField> fields = {
        {"version",
         [&](const toml::key &, const toml::node &node) {
             has_version = true;
             read_version(node, policy);
         }},
        // Read before the document (include_tart_files), whose settings it adds to.
        {"include", [](const toml::key &, const toml::node &) {}},
        {"filesystem",
         [&](const toml::key &key, const toml::node &node) {
             if (const toml::table *table = expect_table(key, node))
                 read_filesystem(*table, policy.fs);
         }},
        {"process",
         [&](const toml::key &key, const toml::node &node) {
             if (const toml::table *table = expect_table(key, node))
                 read_process_table(*this, *table, policy.process);
         }},
        {"env",
         [&](const toml::key &key, const toml::node &node) {
             if (const toml::table *table = expect_table(key, node))
                 read_env(*table, policy.env);
         }},
        {"network",
         [&](const toml::key &key, const toml::node &node) {
             if (const toml::table *table = expect_table(key, node))
                 read_network(*table, policy.network);
         }},
        {"broker",
         [&](const toml::key &key, const toml::node &node) {
             if (const toml::table *table = expect_table(key, node))
                 read_broker_table(*this, *table, base_dir_, home_, policy.broker.emplace());
         }},
    };
    const std::vector<TomlRefused> refused = {
        {"glob_read_denies", glob_field_refusal("glob_read_denies", "[filesystem] read_denies"), "glob"},
        {"glob_denies", glob_field_refusal("glob_denies", "[filesystem] read_denies or write_denies"), "glob"},
        {"allow_unix_socket_paths", kUnixSocketPathsRefusal, "unsupported"},
    };
    read_table(root, "", fields, refused);
    if (!has_version) {
        const char *statement = file_.ends_with(".tart") ? "'version 1;'" : "'version = 1'";
        diags_.error({file_, 1, 1},
                     std::string("missing ") + statement + " (the policy format version) at the top of the policy",
                     "missing-version");
    }
    if (!has_passthrough_) {
        for (const std::string &name : kDefaultPassthrough)
            policy.env.passthrough.push_back({name, {}});
    }
    check_broker_against_policy(policy, diags_);
    check_listener_count(policy);
}

void Reader::read_version(const toml::node &node, Policy &policy)
{
    const toml::value<int64_t> *version = node.as_integer();
    if (version == nullptr) {
        type_error(node, "version", "an integer");
        return;
    }
    policy.version = {version->get(), pos(node.source())};
    if (version->get() != 1)
        diags_.error(pos(node.source()),
                     "policy version " + std::to_string(version->get()) +
                         " is not supported: this compiler reads version 1",
                     "unsupported-version");
}

void Reader::read_filesystem(const toml::table &table, FilesystemPolicy &fs)
{
    auto paths = [&](std::vector<LocatedPath> &out) {
        return [&](const toml::key &key, const toml::node &node) { read_path_list(key, node, out); };
    };
    auto denies = [&](std::vector<LocatedPath> &out) {
        return [&](const toml::key &key, const toml::node &node) { read_deny_list(key, node, out, fs.file_targets); };
    };
    auto flag = [&](Located<bool> &out) {
        return [&](const toml::key &key, const toml::node &node) { read_bool(key, node, out); };
    };
    const std::vector<TomlField> fields = {
        {"read_scope", [&](const toml::key &, const toml::node &node) { read_read_scope(node, fs.read_scope); }},
        {"read_allows", paths(fs.read_allows)},
        {"read_denies", denies(fs.read_denies)},
        {"writable_roots", paths(fs.writable_roots)},
        {"write_denies", denies(fs.write_denies)},
        {"materialize", flag(fs.materialize)},
        {"private_tmp", flag(fs.private_tmp)},
        {"private_dirs", paths(fs.private_dirs)},
    };
    const std::vector<TomlRefused> refused = {
        {"glob_read_denies", glob_field_refusal("glob_read_denies", "read_denies"), "glob"},
        {"glob_denies", glob_field_refusal("glob_denies", "read_denies or write_denies"), "glob"},
        {"allow_unix_socket_paths", kUnixSocketPathsRefusal, "unsupported"},
    };
    read_table(table, "filesystem", fields, refused);
}

void Reader::read_network(const toml::table &table, NetworkPolicy &network)
{
    auto domains = [&](std::vector<Located<std::string>> &out) {
        return [&](const toml::key &key, const toml::node &node) { read_domain_list(key, node, out); };
    };
    auto ports = [&](std::vector<Located<uint16_t>> &out) {
        return [&](const toml::key &key, const toml::node &node) { read_port_list(key, node, out); };
    };
    const std::vector<TomlField> fields = {
        {"deny_unix", [&](const toml::key &key, const toml::node &node) { read_bool(key, node, network.deny_unix); }},
        {"allow_domains", domains(network.allow_domains)},
        {"deny_domains", domains(network.deny_domains)},
        {"local_ports", ports(network.local_ports)},
        {"expose_ports", ports(network.expose_ports)},
        {"domain_ports", ports(network.domain_ports)},
        {"hosts", [&](const toml::key &key, const toml::node &node) { read_hosts(key, node, network); }},
        {"proxy_port", [&](const toml::key &, const toml::node &node) { read_proxy_port(node, network.proxy_port); }},
    };
    read_table(table, "network", fields, {{"allow_unix_socket_paths", kUnixSocketPathsRefusal, "unsupported"}});
    check_port_conflicts(network);
}

// allow_domains / deny_domains: checked and normalised by the proxy's rules (domains.h).
void Reader::read_domain_list(const toml::key &key, const toml::node &node, std::vector<Located<std::string>> &out)
{
    std::vector<std::string> raw_of_kept;
    for_each_string(key, node, [&](const std::string &raw, const toml::node &element) {
        DomainError err;
        std::optional<std::string> pattern = check_domain_pattern(raw, PublicSuffixList::system(), err);
        if (!pattern) {
            diags_.error(pos(element.source()), quoted(key.str()) + ": " + err.message, err.rule_id);
            return;
        }
        auto first =
            std::find_if(out.begin(), out.end(), [&](const Located<std::string> &d) { return d.value == *pattern; });
        if (first != out.end()) {
            const std::string &first_raw = raw_of_kept[static_cast<size_t>(first - out.begin())];
            std::string message = quoted(raw) + " is already listed in " + quoted(key.str()) + " at " +
                line_of(first->pos, pos(element.source()));
            if (first_raw != raw)
                message += " (as " + quoted(first_raw) + ")";
            diags_.warning(pos(element.source()), message + "; this copy is ignored", "duplicate");
            return;
        }
        out.push_back({*pattern, pos(element.source())});
        raw_of_kept.push_back(raw);
    });
}

void Reader::read_port_list(const toml::key &key, const toml::node &node, std::vector<Located<uint16_t>> &out)
{
    const toml::array *array = node.as_array();
    if (array == nullptr) {
        type_error(node, key.str(), "an array of port numbers");
        return;
    }
    for (size_t i = 0; i < array->size(); ++i) {
        const toml::node &element = *array->get(i);
        if (!element.is_integer()) {
            diags_.error(pos(element.source()),
                         quoted(key.str()) + " must be an array of port numbers; element " + std::to_string(i + 1) +
                             " is " + type_phrase(element.type()),
                         "wrong-type");
            continue;
        }
        const std::optional<uint16_t> port = port_value(key.str(), element);
        if (!port)
            continue;
        auto first = std::find_if(out.begin(), out.end(), [&](const Located<uint16_t> &p) { return p.value == *port; });
        if (first != out.end()) {
            diags_.warning(pos(element.source()),
                           "port " + std::to_string(*port) + " is already listed in " + quoted(key.str()) + " at " +
                               line_of(first->pos, pos(element.source())) + "; this copy is ignored",
                           "duplicate");
            continue;
        }
        out.push_back({*port, pos(element.source())});
    }
}

// The port of integer `node`, or nullopt after reporting one outside 1..65535.
std::optional<uint16_t> Reader::port_value(std::string_view name, const toml::node &node)
{
    const int64_t number = node.as_integer()->get();
    if (number < 1 || number > 65535) {
        diags_.error(pos(node.source()),
                     quoted(name) + ": " + std::to_string(number) + " is not a port number (1 to 65535)",
                     "invalid-port");
        return std::nullopt;
    }
    return static_cast<uint16_t>(number);
}

void Reader::read_proxy_port(const toml::node &node, Located<uint16_t> &out)
{
    if (!node.is_integer()) {
        type_error(node, "proxy_port", "an integer port number (1 to 65535)");
        return;
    }
    if (const std::optional<uint16_t> port = port_value("proxy_port", node))
        out = {*port, pos(node.source())};
}

// hosts = { "name" = "address" }: each name normalised, each address in canonical text.
void Reader::read_hosts(const toml::key &key, const toml::node &node, NetworkPolicy &network)
{
    const toml::table *table = node.as_table();
    if (table == nullptr) {
        type_error(node, key.str(), "a table of host names to addresses, like { \"db.internal\" = \"10.0.0.5\" }");
        return;
    }
    for (const TomlEntry &entry : entries_in_source_order(*table)) {
        const std::string raw(entry.key->str());
        DomainError err;
        const std::optional<std::string> name = check_pin_name(raw, err);
        if (!name) {
            diags_.error(pos(entry.key->source()), "'hosts': " + err.message, err.rule_id);
            continue;
        }
        const toml::value<std::string> *text = entry.node->as_string();
        if (text == nullptr) {
            type_error(*entry.node, raw, "a string (an IPv4 or IPv6 address)");
            continue;
        }
        const std::optional<std::string> address = check_pin_address(*name, text->get(), err);
        if (!address) {
            diags_.error(pos(entry.node->source()), "'hosts': " + err.message, err.rule_id);
            continue;
        }
        auto first = std::find_if(network.hosts.begin(), network.hosts.end(),
                                  [&](const auto &pin) { return pin.first.value == *name; });
        if (first != network.hosts.end()) {
            diags_.warning(pos(entry.key->source()),
                           quoted(raw) + " is already given an address in 'hosts' at " +
                               line_of(first->first.pos, pos(entry.key->source())) + " (as " +
                               quoted(first->first.value) + "); this copy is ignored",
                           "duplicate");
            continue;
        }
        network.hosts.push_back({{*name, pos(entry.key->source())}, {*address, pos(entry.node->source())}});
    }
}

// A port is relayed either out (local_ports) or in (expose_ports), and neither may take the
// proxy's own listening port inside the sandbox. Reported at the later of the two entries.
void Reader::check_port_conflicts(const NetworkPolicy &network)
{
    for (const Located<uint16_t> &local : network.local_ports) {
        for (const Located<uint16_t> &exposed : network.expose_ports) {
            if (local.value != exposed.value)
                continue;
            const bool local_first = comes_before(local.pos, exposed.pos);
            diags_.error(local_first ? exposed.pos : local.pos,
                         "port " + std::to_string(local.value) + " is in both " +
                             (local_first ? "'expose_ports' and 'local_ports'" : "'local_ports' and 'expose_ports'") +
                             " (line " + std::to_string((local_first ? local : exposed).pos.line) +
                             "): a port is relayed either out of the sandbox or into it, not both",
                         "port-conflict");
        }
    }
    const Located<uint16_t> &proxy = network.proxy_port;
    for (const auto &[name, ports] :
         {std::pair{"local_ports", &network.local_ports}, std::pair{"expose_ports", &network.expose_ports}}) {
        for (const Located<uint16_t> &port : *ports) {
            if (port.value != proxy.value)
                continue;
            diags_.error(port.pos,
                         "port " + std::to_string(port.value) + " in " + quoted(name) +
                             " is the proxy's own port inside the sandbox (" +
                             (proxy.pos.line == 0 ? "the default 'proxy_port'"
                                                  : "'proxy_port' at " + line_of(proxy.pos, port.pos)) +
                             ")",
                         "port-conflict");
        }
    }
}

// Every relayed local port, the proxy and the broker is a listener the sandbox hands to the
// proxy over one message (shared/net_channel.h), which carries at most TNC_MAX_LISTENERS.
void Reader::check_listener_count(const Policy &policy)
{
    const size_t others = (policy.network.allow_domains.empty() ? 0 : 1) + (policy.broker ? 1 : 0);
    const std::vector<Located<uint16_t>> &local = policy.network.local_ports;
    if (local.size() + others <= TNC_MAX_LISTENERS)
        return;
    const std::string with = others == 0 ? ""
        : others == 2                    ? " besides the proxy and the broker"
        : policy.broker                  ? " besides the broker"
                                         : " besides the proxy";
    diags_.error(local[TNC_MAX_LISTENERS - others].pos,
                 "'local_ports': at most " + std::to_string(TNC_MAX_LISTENERS - others) + " ports" + with +
                     ": the sandbox hands the proxy at most " + std::to_string(TNC_MAX_LISTENERS) +
                     " listeners; this policy lists " + std::to_string(local.size()),
                 "listener-count");
}

void Reader::read_env(const toml::table &table, EnvPolicy &env)
{
    const std::vector<TomlField> fields = {
        {"inherit", [&](const toml::key &key, const toml::node &node) { read_bool(key, node, env.inherit); }},
        {"passthrough",
         [&](const toml::key &key, const toml::node &node) {
             has_passthrough_ = true;
             read_name_list(key, node, env.passthrough);
         }},
        {"set", [&](const toml::key &key, const toml::node &node) { read_env_set(key, node, env); }},
    };
    read_table(table, "env", fields, {});
}

void Reader::read_read_scope(const toml::node &node, Located<ReadScope> &out)
{
    const toml::value<std::string> *value = node.as_string();
    if (value == nullptr) {
        type_error(node, "read_scope", "a string (\"all\" or \"granted\")");
        return;
    }
    const std::string &scope = value->get();
    if (scope == "all" || scope == "granted") {
        out = {scope == "all" ? ReadScope::All : ReadScope::Granted, pos(node.source())};
        return;
    }
    std::string message = "'read_scope' must be \"all\" or \"granted\", not \"" + printable(scope) + "\"";
    const std::string suggestion = closest_match(scope, {"all", "granted"});
    if (!suggestion.empty())
        message += "; did you mean \"" + suggestion + "\"?";
    diags_.error(pos(node.source()), std::move(message), "invalid-value");
}

// Visits each string of the array `node` in order; any other element is a type error at
// its own position, reported in its turn.
void Reader::for_each_string(const toml::key &key, const toml::node &node,
                             const std::function<void(const std::string &, const toml::node &)> &visit)
{
    const toml::array *array = node.as_array();
    if (array == nullptr) {
        type_error(node, key.str(), "an array of strings");
        return;
    }
    for (size_t i = 0; i < array->size(); ++i) {
        const toml::node &element = *array->get(i);
        if (const toml::value<std::string> *text = element.as_string()) {
            visit(text->get(), element);
            continue;
        }
        diags_.error(pos(element.source()),
                     quoted(key.str()) + " must be an array of strings; element " + std::to_string(i + 1) + " is " +
                         type_phrase(element.type()),
                     "wrong-type");
    }
}

void Reader::read_path_list(const toml::key &key, const toml::node &node, std::vector<LocatedPath> &out)
{
    std::vector<std::string> raw_of_kept;
    for_each_string(key, node, [&](const std::string &raw, const toml::node &element) {
        add_path(key, raw, element, out, raw_of_kept);
    });
}

// Resolves `raw` and appends it to `out` unless it is already there (a warning). Returns
// whether the path was kept.
bool Reader::add_path(const toml::key &key, const std::string &raw, const toml::node &element,
                      std::vector<LocatedPath> &out, std::vector<std::string> &raw_of_kept)
{
    PathError err;
    std::optional<std::string> path = resolve_policy_path(raw, key.str(), base_dir_, home_, err);
    if (!path) {
        diags_.error(pos(element.source()), std::move(err.message), std::move(err.rule_id));
        return false;
    }
    auto first = std::find_if(out.begin(), out.end(), [&](const LocatedPath &p) { return p.value == *path; });
    if (first != out.end()) {
        const std::string &first_raw = raw_of_kept[static_cast<size_t>(first - out.begin())];
        std::string message = quoted(raw) + " is already listed in " + quoted(key.str()) + " at " +
            line_of(first->pos, pos(element.source()));
        if (first_raw != raw)
            message += " (as " + quoted(first_raw) + ")";
        diags_.warning(pos(element.source()), message + "; this copy is ignored", "duplicate");
        return false;
    }
    out.push_back({*path, pos(element.source())});
    raw_of_kept.push_back(raw);
    return true;
}

// read_denies / write_denies: each element is a path string, or `{ path = "...", type = "file" }`
// for a target that materialize must create as a file (the default is a directory).
void Reader::read_deny_list(const toml::key &key, const toml::node &node, std::vector<LocatedPath> &out,
                            std::vector<std::string> &file_targets)
{
    const toml::array *array = node.as_array();
    if (array == nullptr) {
        type_error(node, key.str(), "an array of paths");
        return;
    }
    std::vector<std::string> raw_of_kept;
    for (size_t i = 0; i < array->size(); ++i) {
        const toml::node &element = *array->get(i);
        if (const toml::value<std::string> *text = element.as_string()) {
            add_path(key, text->get(), element, out, raw_of_kept);
            continue;
        }
        if (const toml::table *entry = element.as_table()) {
            bool is_file = false;
            std::optional<std::string> raw = read_deny_table(key, *entry, is_file);
            if (raw && add_path(key, *raw, element, out, raw_of_kept) && is_file)
                file_targets.push_back(out.back().value);
            continue;
        }
        diags_.error(pos(element.source()),
                     quoted(key.str()) + " must be an array of paths or { path, type } tables; element " +
                         std::to_string(i + 1) + " is " + type_phrase(element.type()),
                     "wrong-type");
    }
}

// `{ path = "...", type = "file" | "dir" }`: returns the raw path, or nullopt after reporting.
std::optional<std::string> Reader::read_deny_table(const toml::key &key, const toml::table &entry, bool &is_file)
{
    static const std::vector<std::string> known = {"path", "type"};
    bool ok = true;
    for (const auto &[name, value] : entry) {
        if (std::find(known.begin(), known.end(), name.str()) != known.end())
            continue;
        std::string message = "unknown key " + quoted(name.str()) + " in an entry of " + quoted(key.str());
        const std::string suggestion = closest_match(std::string(name.str()), known);
        if (!suggestion.empty())
            message += "; did you mean \"" + suggestion + "\"?";
        diags_.error(pos(name.source()), std::move(message), "unknown-key");
        ok = false;
    }
    const toml::node *path = entry.get("path");
    if (path == nullptr || !path->is_string()) {
        diags_.error(pos(entry.source()), "an entry of " + quoted(key.str()) + " needs path = \"...\"", "wrong-type");
        return std::nullopt;
    }
    if (const toml::node *type = entry.get("type")) {
        const std::optional<std::string> kind = type->value<std::string>();
        if (!kind || (*kind != "file" && *kind != "dir")) {
            diags_.error(pos(type->source()), "type must be \"file\" or \"dir\"", "invalid-value");
            ok = false;
        } else {
            is_file = *kind == "file";
        }
    }
    if (!ok)
        return std::nullopt;
    return path->value<std::string>();
}

void Reader::read_name_list(const toml::key &key, const toml::node &node, std::vector<Located<std::string>> &out)
{
    for_each_string(key, node, [&](const std::string &name, const toml::node &element) {
        if (!is_env_name(name)) {
            diags_.error(pos(element.source()),
                         quoted(key.str()) + ": " + quoted(name) +
                             " is not a valid environment variable name (letters, digits and '_', not starting "
                             "with a digit)",
                         "env-name");
            return;
        }
        auto first =
            std::find_if(out.begin(), out.end(), [&](const Located<std::string> &n) { return n.value == name; });
        if (first != out.end()) {
            diags_.warning(pos(element.source()),
                           quoted(name) + " is already listed in " + quoted(key.str()) + " at " +
                               line_of(first->pos, pos(element.source())) + "; this copy is ignored",
                           "duplicate");
            return;
        }
        out.push_back({name, pos(element.source())});
    });
}

void Reader::read_env_set(const toml::key &key, const toml::node &node, EnvPolicy &env)
{
    const toml::table *table = node.as_table();
    if (table == nullptr) {
        type_error(node, key.str(), "a table of names to strings, like { CI = \"1\" }");
        return;
    }
    for (const TomlEntry &entry : entries_in_source_order(*table)) {
        const std::string name(entry.key->str());
        if (!is_env_name(name)) {
            diags_.error(pos(entry.key->source()),
                         "'set': " + quoted(name) +
                             " is not a valid environment variable name (letters, digits and '_', not starting "
                             "with a digit)",
                         "env-name");
            continue;
        }
        const toml::value<std::string> *value = entry.node->as_string();
        if (value == nullptr) {
            type_error(*entry.node, name, "a string");
            continue;
        }
        if (value->get().find('\0') != std::string::npos) {
            diags_.error(pos(entry.node->source()), "the value of " + quoted(name) + " contains a NUL character",
                         "invalid-value");
            continue;
        }
        env.set.push_back({{name, pos(entry.key->source())}, {value->get(), pos(entry.node->source())}});
    }
}

}  // namespace

bool is_env_name(std::string_view name)
{
    if (name.empty() || (name.front() >= '0' && name.front() <= '9'))
        return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

std::optional<Policy> parse_toml_policy(const std::string &path, Diagnostics &diags)
{
    std::string text, err;
    if (!read_file(path, text, err)) {
        diags.error({path, 0, 0}, "cannot read the policy: " + err, "unreadable-policy");
        return std::nullopt;
    }
    return parse_toml_policy_text(text, path, diags);
}

std::optional<Policy> parse_toml_policy_text(const std::string &text, const std::string &display_path,
                                             Diagnostics &diags)
{
    return parse_toml_policy_text(text, display_path, diags, nullptr);
}

std::optional<Policy> parse_toml_policy_text(const std::string &text, const std::string &display_path,
                                             Diagnostics &diags, PolicyTexts *texts)
{
    diags.add_source(display_path, text);
    const std::optional<std::string> source_path = absolute_path(display_path);
    if (!source_path) {
        diags.error({display_path, 0, 0}, "cannot resolve the policy's directory: the current directory is gone",
                    "unresolvable-policy-dir");
        return std::nullopt;
    }
    if (texts != nullptr)
        texts->files = {{{display_path, *source_path}, text}};
    toml::table root;
    try {
        root = toml::parse(text, display_path);
    } catch (const toml::parse_error &e) {
        diags.error({display_path, static_cast<uint32_t>(e.source().begin.line),
                     static_cast<uint32_t>(e.source().begin.column)},
                    std::string(e.description()), "toml-syntax");
        return std::nullopt;
    }
    const size_t errors_before = diags.error_count();
    Policy policy;
    policy.source_path = *source_path;
    policy.sources = {{display_path, *source_path}};
    PositionMap map;
    include_tart_files(root, policy, map, diags, texts);
    read_policy_document(root, display_path, &map, policy, diags);
    if (diags.error_count() > errors_before)
        return std::nullopt;
    return policy;
}

bool read_policy_document(const toml::table &root, const std::string &display_path, const PositionMap *map,
                          Policy &policy, Diagnostics &diags)
{
    const size_t errors_before = diags.error_count();
    Reader(display_path, parent_directory(policy.source_path), policy_home(), diags, map).read_document(root, policy);
    return diags.error_count() == errors_before;
}

}  // namespace tartaros
