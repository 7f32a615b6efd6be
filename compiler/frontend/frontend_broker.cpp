// compiler/frontend/frontend_broker.cpp — see frontend_broker.h.
#include "frontend_broker.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "broker_rules.h"
#include "domains.h"
#include "frontend_toml.h"
#include "fs_trie.h"
#include "names.h"
#include "paths.h"
#include "plan.h"
#include "secret_detector.h"

namespace tartaros {

namespace {

constexpr std::string_view kAllowedHostsPorts =
    "a capability's port is written in its own host, as 'git.example.com:8443'";

std::string lower_case(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
    return out;
}

// Why `method` is not an upper-case method name, if it is not.
Failure method_problem(std::string_view method)
{
    const bool letters = !method.empty() && method.size() <= TP_BROKER_MAX_METHOD &&
        std::all_of(method.begin(), method.end(),
                    [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); });
    if (!letters)
        return "a method is one word of letters, at most 32, like GET or POST";
    if (std::none_of(method.begin(), method.end(), [](char c) { return c >= 'a' && c <= 'z'; }))
        return std::nullopt;
    std::string upper(method);
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; });
    return "methods are matched as sent, in upper case: write " + quoted(upper);
}

// Why `prefix` cannot limit a request's path, if it cannot.
Failure prefix_problem(std::string_view prefix)
{
    if (!prefix.starts_with('/'))
        return "a prefix is a path, starting with '/', like '/repos/myorg/'";
    if (prefix.size() > TP_BROKER_MAX_PREFIX)
        return "longer than " + std::to_string(TP_BROKER_MAX_PREFIX) + " bytes";
    if (std::any_of(prefix.begin(), prefix.end(), [](char c) { return c <= 0x20 || c >= 0x7f; }))
        return "spaces, control and non-ASCII characters never appear in a request's path: write them "
               "percent-encoded, as requests carry them";
    if (prefix.find_first_of("?#") != std::string_view::npos)
        return "a prefix matches the path alone, never the query or a fragment: remove what follows '?' or '#'";
    const std::string folded = lower_case(prefix);
    if (folded.find("%2f") != std::string::npos || folded.find("%5c") != std::string::npos)
        return "the broker refuses requests with an encoded slash, so this prefix would match nothing";
    for (std::string_view part : path_components(prefix))
        if (part == "." || part == "..")
            return "the broker refuses requests with '.' or '..' segments, so this prefix would match nothing; "
                   "write the path they lead to";
    return std::nullopt;
}

// Why `format` cannot be a header value with the secret in it, if it cannot.
Failure format_problem(std::string_view format)
{
    if (std::any_of(format.begin(), format.end(), [](char c) { return c < 0x20 || c >= 0x7f; }))
        return "a header value is printable ASCII: no control characters, tabs, line breaks or UTF-8";
    if (format.size() > TP_BROKER_MAX_FORMAT)
        return "longer than " + std::to_string(TP_BROKER_MAX_FORMAT) + " bytes";
    size_t found = 0;
    for (size_t at = format.find("{value}"); at != std::string_view::npos; at = format.find("{value}", at + 1))
        ++found;
    if (found != 1)
        return std::string(found == 0 ? "it has no {value}" : "it has {value} more than once") +
            ": write {value} exactly once, where the secret goes, like \"Bearer {value}\"";
    return std::nullopt;
}

class BrokerReader {
public:
    BrokerReader(TomlSchemaReader &reader, const std::string &base_dir, const std::optional<std::string> &home,
                 BrokerPolicy &broker)
        : r_(reader), base_dir_(base_dir), home_(home), b_(broker)
    {}

    void read(const toml::table &table);

private:
    SourcePos at(const toml::node &node) const { return r_.pos(node.source()); }
    void error(const SourcePos &pos, std::string message, const char *rule_id)
    {
        r_.diags().error(pos, std::move(message), rule_id);
    }
    SourcePos table_pos(const toml::table &table) const;
    void redact_value(const toml::table &table, std::string_view key);
    const std::string *text(const toml::key &key, const toml::node &node, std::string_view expected);

    void read_port(const toml::node &node);
    void read_header(const toml::key &key, const toml::node &node, Located<std::string> &out);
    void read_env_name(const toml::key &key, const toml::node &node, Located<std::string> &out);
    bool looks_like_secret(const toml::key &key, const toml::node &node, const std::string &name);
    void read_allowed_hosts(const toml::key &key, const toml::node &node);
    void read_ca_file(const toml::key &key, const toml::node &node);
    void read_capabilities(const toml::key &key, const toml::node &node);
    void read_capability(const toml::table &table);
    void read_cap_name(const toml::key &key, const toml::node &node, Located<std::string> &out);
    void read_cap_host(const toml::key &key, const toml::node &node, BrokerCapability &cap);
    void read_value_format(const toml::key &key, const toml::node &node, Located<std::string> &out);
    using WordCheck = bool (BrokerReader::*)(const toml::key &, const toml::node &, const std::string &);
    void read_word_list(const toml::key &key, const toml::node &node, std::vector<Located<std::string>> &out,
                        WordCheck check);
    bool check_method(const toml::key &key, const toml::node &element, const std::string &method);
    bool check_prefix(const toml::key &key, const toml::node &element, const std::string &prefix);
    void require(const toml::table &table, const SourcePos &pos, std::string_view key, std::string_view where,
                 std::string_view example);
    void check_capabilities(const SourcePos &table);
    void check_capability(const BrokerCapability &cap, size_t index);

    TomlSchemaReader &r_;
    const std::string &base_dir_;
    const std::optional<std::string> &home_;
    BrokerPolicy &b_;
    bool has_capability_key_ = false;
};

// A table made implicitly (by [[broker.capability]] alone) has no position of its own: its
// first key stands for it.
SourcePos BrokerReader::table_pos(const toml::table &table) const
{
    SourcePos pos = at(table);
    if (pos.line == 0) {
        const std::vector<TomlEntry> entries = entries_in_source_order(table);
        if (!entries.empty())
            pos = r_.pos(entries.front().key->source());
    }
    return pos;
}

// The value of `key` in `table`, if it is a string, is kept out of every printed source line.
void BrokerReader::redact_value(const toml::table &table, std::string_view key)
{
    const toml::node *value = table.get(key);
    if (value != nullptr && value->is_string()) {
        const SourcePos pos = at(*value);
        r_.diags().redact(pos.file, pos.line, pos.col);
    }
}

const std::string *BrokerReader::text(const toml::key &key, const toml::node &node, std::string_view expected)
{
    const toml::value<std::string> *value = node.as_string();
    if (value == nullptr) {
        r_.type_error(node, key.str(), expected);
        return nullptr;
    }
    return &value->get();
}

void BrokerReader::read(const toml::table &table)
{
    b_.pos = table_pos(table);
    const std::vector<TomlField> fields = {
        {"port", [&](const toml::key &, const toml::node &node) { read_port(node); }},
        {"auth_header", [&](const toml::key &key, const toml::node &node) { read_header(key, node, b_.auth_header); }},
        {"token_env",
         [&](const toml::key &key, const toml::node &node) {
             Located<std::string> name;
             read_env_name(key, node, name);
             if (name.pos.line != 0)
                 b_.token_env = name;
         }},
        {"allowed_hosts", [&](const toml::key &key, const toml::node &node) { read_allowed_hosts(key, node); }},
        {"allow_internal",
         [&](const toml::key &key, const toml::node &node) { r_.read_bool(key, node, b_.allow_internal); }},
        {"ca_file", [&](const toml::key &key, const toml::node &node) { read_ca_file(key, node); }},
        {"capability", [&](const toml::key &key, const toml::node &node) { read_capabilities(key, node); }},
    };
    redact_value(table, "token");
    const std::vector<TomlRefused> refused = {
        {"token",
         "'token' would write the broker's token in the policy, where everyone who can read the file has it: name "
         "the launcher's variable that holds it with token_env, or leave both out for a random token per run",
         "secret-in-policy"},
    };
    r_.read_table(table, "broker", fields, refused);
    require(table, b_.pos, "allowed_hosts", "[broker]",
            "the hosts the broker may connect to, like allowed_hosts = [\"api.github.com\"]");
    check_capabilities(b_.pos);
}

void BrokerReader::read_port(const toml::node &node)
{
    const toml::value<int64_t> *number = node.as_integer();
    if (number == nullptr) {
        r_.type_error(node, "port", "an integer port number (1 to 65535)");
        return;
    }
    if (number->get() == 0) {
        error(at(node),
              "'port' = 0: the broker's port cannot be chosen at run time, because its URL is in the agent's "
              "environment before the run starts; leave 'port' out for " +
                  std::to_string(kDefaultBrokerPort) +
                  " (the network namespace is private to the run, so no other program holds it) or write a port",
              "invalid-port");
        return;
    }
    if (number->get() < 1 || number->get() > 65535) {
        error(at(node), "'port': " + std::to_string(number->get()) + " is not a port number (1 to 65535)",
              "invalid-port");
        return;
    }
    b_.port = {static_cast<uint16_t>(number->get()), at(node)};
}

void BrokerReader::read_header(const toml::key &key, const toml::node &node, Located<std::string> &out)
{
    const std::string *name = text(key, node, "a string (an HTTP header name)");
    if (name == nullptr)
        return;
    if (!tbr::http_token(name->data(), name->size()) || name->size() > TP_BROKER_MAX_HEADER_NAME) {
        error(at(node),
              quoted(key.str()) + ": " + quoted(*name) +
                  " is not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~, at most 64, no ':' or "
                  "spaces), like \"Authorization\"",
              "header-name");
        return;
    }
    if (tbr::reserved_header(name->data(), name->size())) {
        error(at(node),
              quoted(key.str()) + ": " + quoted(*name) +
                  " is a header the broker controls: it frames or routes the request (Host, Content-Length, "
                  "Transfer-Encoding, Connection, Keep-Alive, TE, Trailer, Upgrade, Expect, Proxy-*), so setting it "
                  "could smuggle a second request; use the header the upstream reads the credential from",
              "header-reserved");
        return;
    }
    out = {*name, at(node)};
}

void BrokerReader::read_env_name(const toml::key &key, const toml::node &node, Located<std::string> &out)
{
    const std::string *name = text(key, node, "a string (the name of an environment variable)");
    if (name == nullptr || looks_like_secret(key, node, *name))
        return;
    if (!is_env_name(*name) || name->size() > TP_BROKER_MAX_ENV_NAME) {
        error(at(node),
              quoted(key.str()) + ": " + quoted(*name) +
                  " is not a valid environment variable name (letters, digits and '_', not starting with a digit, "
                  "at most 255): it names the launcher's variable that holds the secret, like \"GITHUB_TOKEN\"",
              "env-name");
        return;
    }
    out = {*name, at(node)};
}

// A secret written where its variable's name belongs would end up in the plan and in every
// message naming the variable.
bool BrokerReader::looks_like_secret(const toml::key &key, const toml::node &node, const std::string &name)
{
    const std::vector<SecretMatch> found = find_secrets_in_text(name);
    if (found.empty())
        return false;
    const SourcePos value = at(node);
    const SourcePos pos{value.file, value.line, value.col + 1 + static_cast<uint32_t>(found.front().offset)};
    error(pos,
          quoted(key.str()) + " names the launcher's variable that holds the secret, but this looks like " +
              found.front().what +
              " itself: anyone who can read this file or its history has it; revoke it, and write the variable's "
              "name, like \"GITHUB_TOKEN\"",
          "secret-in-policy");
    r_.diags().redact(pos.file, pos.line, pos.col);
    return true;
}

void BrokerReader::read_allowed_hosts(const toml::key &key, const toml::node &node)
{
    const toml::array *array = node.as_array();
    if (array == nullptr) {
        r_.type_error(node, key.str(), "an array of host names, like [\"api.github.com\"]");
        return;
    }
    if (array->empty())
        error(at(node), "'allowed_hosts' is empty: list the hosts the broker may connect to, like [\"api.github.com\"]",
              "missing-key");
    for (size_t i = 0; i < array->size(); ++i) {
        const toml::node &element = *array->get(i);
        const toml::value<std::string> *raw = element.as_string();
        if (raw == nullptr) {
            error(at(element),
                  "'allowed_hosts' must be an array of strings; element " + std::to_string(i + 1) + " is " +
                      type_phrase(element.type()),
                  "wrong-type");
            continue;
        }
        DomainError err;
        const std::optional<std::string> pattern =
            check_domain_pattern(raw->get(), PublicSuffixList::system(), err, kAllowedHostsPorts);
        if (!pattern) {
            r_.diags().error(at(element), "'allowed_hosts': " + err.message, err.rule_id);
            continue;
        }
        auto first = std::find_if(b_.allowed_hosts.begin(), b_.allowed_hosts.end(),
                                  [&](const Located<std::string> &h) { return h.value == *pattern; });
        if (first != b_.allowed_hosts.end()) {
            r_.diags().warning(at(element),
                               quoted(raw->get()) + " is already listed in 'allowed_hosts' at " +
                                   line_of(first->pos, at(element)) + "; this copy is ignored",
                               "duplicate");
            continue;
        }
        b_.allowed_hosts.push_back({*pattern, at(element)});
    }
}

void BrokerReader::read_ca_file(const toml::key &key, const toml::node &node)
{
    const std::string *raw = text(key, node, "a string (the path of a PEM file of CA certificates)");
    if (raw == nullptr || raw->empty())  // "" is the way to say: the system store only
        return;
    PathError err;
    const std::optional<std::string> path = resolve_policy_path(*raw, key.str(), base_dir_, home_, err);
    if (!path) {
        r_.diags().error(at(node), std::move(err.message), std::move(err.rule_id));
        return;
    }
    struct stat st {};
    const std::string resolved = *path != *raw ? " (" + *path + ")" : "";
    if (stat(path->c_str(), &st) != 0) {
        const int err_number = errno;
        const bool relative = raw->front() != '/' && raw->front() != '~';
        error(at(node),
              "'ca_file': " + quoted(*raw) + resolved + " cannot be used: " + std::strerror(err_number) +
                  (relative ? "; a relative path is relative to the policy's directory" : ""),
              "ca-file");
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        error(at(node),
              "'ca_file': " + quoted(*raw) + resolved +
                  " is not a regular file: it must be one PEM file of CA certificates (a bundle)",
              "ca-file");
        return;
    }
    b_.ca_file = LocatedPath{*path, at(node)};
}

void BrokerReader::read_capabilities(const toml::key &key, const toml::node &node)
{
    has_capability_key_ = true;
    const toml::array *array = node.as_array();
    if (array != nullptr && array->empty()) {
        error(at(node),
              "'capability' is empty: add a [[broker.capability]] table for each credential, with name, host and "
              "value_env",
              "capability-count");
        return;
    }
    if (array == nullptr || !array->is_array_of_tables()) {
        r_.type_error(node, key.str(),
                      "an array of tables: write each capability as its own [[broker.capability]] table");
        return;
    }
    for (const toml::node &element : *array)
        read_capability(*element.as_table());
}

void BrokerReader::read_capability(const toml::table &table)
{
    BrokerCapability cap;
    cap.pos = table_pos(table);
    using StringReader = void (BrokerReader::*)(const toml::key &, const toml::node &, Located<std::string> &);
    auto string_field = [&](Located<std::string> &out, StringReader reader) {
        return [this, reader, target = &out](const toml::key &key, const toml::node &node) {
            (this->*reader)(key, node, *target);
        };
    };
    const std::vector<TomlField> fields = {
        {"name", string_field(cap.name, &BrokerReader::read_cap_name)},
        {"host", [&](const toml::key &key, const toml::node &node) { read_cap_host(key, node, cap); }},
        {"header", string_field(cap.header, &BrokerReader::read_header)},
        {"value_env", string_field(cap.value_env, &BrokerReader::read_env_name)},
        {"value_format", string_field(cap.value_format, &BrokerReader::read_value_format)},
        {"methods",
         [&](const toml::key &key, const toml::node &node) {
             read_word_list(key, node, cap.methods, &BrokerReader::check_method);
         }},
        {"path_prefixes",
         [&](const toml::key &key, const toml::node &node) {
             read_word_list(key, node, cap.path_prefixes, &BrokerReader::check_prefix);
         }},
    };
    redact_value(table, "value");
    const std::vector<TomlRefused> refused = {
        {"value",
         "'value' would write the secret in the policy, where everyone who can read the file has it: name the "
         "launcher's variable that holds it with value_env",
         "secret-in-policy"},
    };
    r_.read_table(table, "broker.capability", fields, refused);
    require(table, cap.pos, "name", "[[broker.capability]]",
            "the first segment of the broker's path for it, like name = \"github\"");
    require(table, cap.pos, "host", "[[broker.capability]]",
            "the upstream it forwards to, like host = \"api.github.com\"");
    require(table, cap.pos, "value_env", "[[broker.capability]]",
            "the launcher's variable that holds the credential, like value_env = \"GITHUB_TOKEN\"");
    b_.capabilities.push_back(std::move(cap));
}

void BrokerReader::require(const toml::table &table, const SourcePos &pos, std::string_view key, std::string_view where,
                           std::string_view example)
{
    if (!table.contains(key))
        error(pos, std::string(where) + " needs " + quoted(key) + ": " + std::string(example), "missing-key");
}

void BrokerReader::read_cap_name(const toml::key &key, const toml::node &node, Located<std::string> &out)
{
    const std::string *name = text(key, node, "a string, like \"github\"");
    if (name == nullptr)
        return;
    if (!tbr::capability_name(name->data(), name->size()) || *name == "." || *name == "..") {
        error(at(node),
              "'name': " + quoted(*name) +
                  " cannot be a capability's name: it is the first segment of the broker's path "
                  "(http://127.0.0.1:PORT/<name>/...), 1 to 64 of letters, digits, '.', '_' and '-', not '.' or '..'",
              "capability-name");
        return;
    }
    out = {*name, at(node)};
}

void BrokerReader::read_cap_host(const toml::key &key, const toml::node &node, BrokerCapability &cap)
{
    const std::string *raw = text(key, node, "a string, like \"api.github.com\"");
    if (raw == nullptr)
        return;
    DomainError err;
    const std::optional<UpstreamHost> host = check_upstream_host(*raw, err);
    if (!host) {
        r_.diags().error(at(node), "'host': " + err.message, err.rule_id);
        return;
    }
    cap.host = {host->host, at(node)};
    if (host->port)
        cap.port = {*host->port, at(node)};
}

void BrokerReader::read_value_format(const toml::key &key, const toml::node &node, Located<std::string> &out)
{
    const std::string *format = text(key, node, "a string, like \"Bearer {value}\"");
    if (format == nullptr)
        return;
    if (const Failure problem = format_problem(*format)) {
        error(at(node), "'value_format': " + quoted(*format) + ": " + *problem, "value-format");
        return;
    }
    out = {*format, at(node)};
}

bool BrokerReader::check_method(const toml::key &key, const toml::node &element, const std::string &method)
{
    const Failure why = method_problem(method);
    if (why)
        error(at(element), quoted(key.str()) + ": " + quoted(method) + ": " + *why, "http-method");
    return !why;
}

bool BrokerReader::check_prefix(const toml::key &key, const toml::node &element, const std::string &prefix)
{
    const Failure why = prefix_problem(prefix);
    if (why)
        error(at(element), quoted(key.str()) + ": " + quoted(prefix) + ": " + *why, "path-prefix");
    return !why;
}

void BrokerReader::read_word_list(const toml::key &key, const toml::node &node, std::vector<Located<std::string>> &out,
                                  WordCheck check)
{
    const toml::array *array = node.as_array();
    if (array == nullptr) {
        r_.type_error(node, key.str(), "an array of strings");
        return;
    }
    for (size_t i = 0; i < array->size(); ++i) {
        const toml::node &element = *array->get(i);
        const toml::value<std::string> *word = element.as_string();
        if (word == nullptr) {
            error(at(element),
                  quoted(key.str()) + " must be an array of strings; element " + std::to_string(i + 1) + " is " +
                      type_phrase(element.type()),
                  "wrong-type");
            continue;
        }
        if (!(this->*check)(key, element, word->get()))
            continue;
        auto first =
            std::find_if(out.begin(), out.end(), [&](const Located<std::string> &w) { return w.value == word->get(); });
        if (first != out.end()) {
            r_.diags().warning(at(element),
                               quoted(word->get()) + " is already listed in " + quoted(key.str()) + " at " +
                                   line_of(first->pos, at(element)) + "; this copy is ignored",
                               "duplicate");
            continue;
        }
        out.push_back({word->get(), at(element)});
    }
}

// What needs the whole table: the count, unique names, and each capability against the
// table's own keys.
void BrokerReader::check_capabilities(const SourcePos &table)
{
    if (b_.capabilities.empty() && !has_capability_key_)
        error(table,
              "[broker] has no capability: add a [[broker.capability]] table for each credential, with name, host "
              "and value_env",
              "capability-count");
    if (b_.capabilities.size() > TP_MAX_BROKER_CAPS)
        error(b_.capabilities[TP_MAX_BROKER_CAPS].pos,
              "more than " + std::to_string(TP_MAX_BROKER_CAPS) +
                  " capabilities: the broker serves at most that many; split the policy",
              "capability-count");
    for (size_t i = 0; i < b_.capabilities.size(); ++i)
        check_capability(b_.capabilities[i], i);
}

void BrokerReader::check_capability(const BrokerCapability &cap, size_t index)
{
    for (size_t j = 0; j < index && cap.name.pos.line != 0; ++j) {
        const BrokerCapability &other = b_.capabilities[j];
        if (other.name.value != cap.name.value)
            continue;
        error(cap.name.pos,
              "capability " + quoted(cap.name.value) + " is already defined at " +
                  line_of(other.name.pos, cap.name.pos) + ": each name is one path of the broker; rename one",
              "capability-duplicate");
        break;
    }
    if (tbr::same_header(cap.header.value.data(), cap.header.value.size(), b_.auth_header.value.data(),
                         b_.auth_header.value.size())) {
        const std::string where = b_.auth_header.pos.line == 0
            ? "the default 'auth_header'"
            : "'auth_header' at " + line_of(b_.auth_header.pos, cap.header.pos);
        if (cap.header.pos.line != 0)
            error(cap.header.pos,
                  "'header': " + quoted(cap.header.value) + " is the header that carries the broker's token (" + where +
                      "), which the broker strips from every request: pick another auth_header",
                  "header-conflict");
        else
            error(b_.auth_header.pos,
                  "'auth_header': " + quoted(b_.auth_header.value) + " is the header capability " +
                      quoted(cap.name.value) +
                      " injects its credential into (the default 'header'), and the broker strips the token's header "
                      "from every request: pick another auth_header",
                  "header-conflict");
    }
    if (cap.value_env.pos.line != 0 && b_.token_env && b_.token_env->value == cap.value_env.value)
        error(cap.value_env.pos,
              "'value_env': " + quoted(cap.value_env.value) + " is also 'token_env' (" +
                  line_of(b_.token_env->pos, cap.value_env.pos) +
                  "): the agent holds the token, so it would hold this secret too; give the token its own variable",
              "broker-env-exposed");
    if (cap.host.pos.line == 0 || b_.allowed_hosts.empty())
        return;
    const bool allowed =
        std::any_of(b_.allowed_hosts.begin(), b_.allowed_hosts.end(),
                    [&](const Located<std::string> &p) { return tproxy::pattern_matches(p.value, cap.host.value); });
    if (!allowed)
        error(cap.host.pos,
              "'host': " + quoted(cap.host.value) + " is not matched by [broker] allowed_hosts (" +
                  line_of(b_.allowed_hosts.front().pos, cap.host.pos) + "): add it there, or correct the host",
              "capability-host-not-allowed");
}

// ---- against the rest of the policy ------------------------------------------------------

void check_ports(const BrokerPolicy &broker, const NetworkPolicy &network, Diagnostics &diags)
{
    const Located<uint16_t> &port = broker.port;
    // Where a port is set, for a diagnostic at `here`; a default has no position.
    const auto where = [](const Located<uint16_t> &p, const std::string &what, const SourcePos &here) {
        return p.pos.line == 0 ? "the default " + what : what + " at " + line_of(p.pos, here);
    };
    if (port.value == network.proxy_port.value) {
        const Located<uint16_t> &proxy = network.proxy_port;
        const SourcePos &at = port.pos.line != 0 ? port.pos : proxy.pos;
        diags.error(at,
                    "port " + std::to_string(port.value) + " is both the broker's port (" +
                        where(port, "[broker] 'port'", at) + ") and the proxy's (" + where(proxy, "'proxy_port'", at) +
                        "): each listens on its own port inside the sandbox",
                    "port-conflict");
    }
    for (const auto &[name, ports] :
         {std::pair{"local_ports", &network.local_ports}, std::pair{"expose_ports", &network.expose_ports}})
        for (const Located<uint16_t> &relayed : *ports)
            if (relayed.value == port.value)
                diags.error(relayed.pos,
                            "port " + std::to_string(relayed.value) + " in " + quoted(name) +
                                " is the broker's own port inside the sandbox (" +
                                where(port, "[broker] 'port'", relayed.pos) + ")",
                            "port-conflict");
}

// A variable that holds a secret may not reach the agent's environment.
void check_secret_variable(const Located<std::string> &variable, std::string_view key, const EnvPolicy &env,
                           Diagnostics &diags)
{
    for (const Located<std::string> &passed : env.passthrough) {
        if (passed.value != variable.value)
            continue;
        diags.error(variable.pos,
                    quoted(key) + ": " + quoted(variable.value) + " is also in [env] passthrough (" +
                        (passed.pos.line == 0 ? std::string("its default list") : line_of(passed.pos, variable.pos)) +
                        "): the agent would get the secret in its environment; remove it from passthrough (the broker "
                        "reads it from the launcher's environment itself)",
                    "broker-env-exposed");
        return;
    }
    for (const auto &[name, value] : env.set) {
        if (name.value != variable.value)
            continue;
        diags.error(variable.pos,
                    quoted(key) + ": " + quoted(variable.value) + " is also set by [env] set (" +
                        line_of(name.pos, variable.pos) +
                        "): the agent would see that value, and the secret belongs in the launcher's environment; "
                        "remove it from set",
                    "broker-env-exposed");
        return;
    }
}

void check_environment(const BrokerPolicy &broker, const EnvPolicy &env, Diagnostics &diags)
{
    if (broker.token_env)
        check_secret_variable(*broker.token_env, "token_env", env, diags);
    for (const BrokerCapability &cap : broker.capabilities)
        if (cap.value_env.pos.line != 0)
            check_secret_variable(cap.value_env, "value_env", env, diags);
    auto reserved = [&](const Located<std::string> &name, const char *list) {
        if (name.value != kBrokerUrlVariable && name.value != kCredentialsVariable)
            return;
        diags.error(name.pos,
                    std::string("[env] ") + list + " names " + quoted(name.value) +
                        ", which the broker sets for the agent (the broker's URL and the directory of its token "
                        "file): remove it",
                    "broker-env-reserved");
    };
    for (const Located<std::string> &passed : env.passthrough)
        if (passed.pos.line != 0)
            reserved(passed, "passthrough");
    for (const auto &[name, value] : env.set)
        reserved(name, "set");
    if (env.inherit.value)
        diags.note(env.inherit.pos,
                   "inherit = true: the broker's variables (token_env and every value_env) are removed from the "
                   "agent's environment all the same",
                   "broker-env-stripped");
}

// The credentials directory is the compiler's: no filesystem rule may reach into it.
void check_credentials_dir(const FilesystemPolicy &fs, Diagnostics &diags)
{
    for (const auto &[list, name] :
         {std::pair{&fs.read_allows, "read_allows"}, std::pair{&fs.read_denies, "read_denies"},
          std::pair{&fs.writable_roots, "writable_roots"}, std::pair{&fs.write_denies, "write_denies"}})
        for (const LocatedPath &path : *list)
            if (path_is_within(path.value, TP_CREDENTIALS_DIR))
                diags.error(path.pos,
                            std::string(name) + ": " + quoted(path.value) +
                                " lies in the broker's credentials directory " TP_CREDENTIALS_DIR
                                ", which the sandbox makes for the token alone (read-only); remove it",
                            "credentials-dir");
}

}  // namespace

void read_broker_table(TomlSchemaReader &reader, const toml::table &table, const std::string &base_dir,
                       const std::optional<std::string> &home, BrokerPolicy &broker)
{
    BrokerReader(reader, base_dir, home, broker).read(table);
}

void check_broker_against_policy(const Policy &policy, Diagnostics &diags)
{
    if (!policy.broker)
        return;
    check_ports(*policy.broker, policy.network, diags);
    check_environment(*policy.broker, policy.env, diags);
    check_credentials_dir(policy.fs, diags);
}

}  // namespace tartaros
