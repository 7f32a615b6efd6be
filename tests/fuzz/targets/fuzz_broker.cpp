// tests/fuzz/targets/fuzz_broker.cpp — the credential broker on hostile bytes from both sides
// (proxy/broker_request.h, broker_mask.h, broker_reflect.h): an agent's request head, then
// (after that head) an upstream's response head. The broker holds fixed secrets, read through
// the real secrets reader (a memfd in shared/broker_secrets_wire.h's layout): the token and
// one value per capability. So the fuzzer can place them anywhere, "$T" in the input stands
// for the token and "$V", "$W", "$X" for the capabilities' values (tests/fuzz/broker.dict).
// Properties, for any bytes:
//  - no crash, no undefined behaviour, no leak, no hang;
//  - a refusal is well-formed (a 4xx status, a code, a one-line reason);
//  - a request let through names a capability, a target under its prefixes, one of its
//    methods; the head sent upstream parses, carries the capability's header exactly once
//    (the injected line, never the client's copy) and never the broker's token header;
//  - the secret never appears in what the agent receives: a response head relayed to the
//    client holds no capability value in any form the finder knows (verbatim in any case,
//    %-encoded, base64), and a refusal holds no value the request did not hold already;
//  - the relayed head parses again (parse → print → parse);
//  - a log line (mask_for_log) of any text holds neither the token nor any value.
#include <openssl/sha.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "broker_mask.h"
#include "broker_reflect.h"
#include "broker_request.h"
#include "broker_secrets_wire.h"
#include "fuzz_target.h"
#include "http_util.h"

namespace {

using namespace tproxy;
using tartaros::fuzz::contains_icase;

const std::string kToken = "tOkEn-0123456789abcdef0123456789abcdef";
const std::vector<std::string> kValues = {"ghp_S3cretValue0123456789abcdefXYZ", "k3y-Zz9/+=Qq8765",
                                          "outside-secret-value-42"};

struct Broker {
    BrokerConfig b;
    BrokerSecrets s;
    OwnAddress own{{"127.0.0.1", "localhost"}, 3129};

    Broker()
    {
        b.port = 3129;
        b.allow = {"api.example.com", "*.corp.test"};
        Capability gh;
        gh.name = "gh";
        gh.host = {"api.example.com", HostKind::Name};
        gh.format = "Bearer {value}";
        gh.methods = {"GET", "POST"};
        gh.path_prefixes = {"/repos/a", "/status/"};
        Capability any;
        any.name = "any.thing_1";
        any.host = {"x.corp.test", HostKind::Name};
        any.port = 8443;
        any.header = "X-Key";
        Capability outside;
        outside.name = "outside";
        outside.host = {"evil.test", HostKind::Name};
        b.caps = {gh, any, outside};
        // The secrets file, as tartaros-exec writes it.
        std::string file(sizeof(tbs_header), '\0');
        tbs_header h{TBS_MAGIC, static_cast<uint32_t>(1 + kValues.size())};
        std::memcpy(file.data(), &h, sizeof h);
        std::vector<std::string> records = {kToken};
        records.insert(records.end(), kValues.begin(), kValues.end());
        for (const std::string &v : records) {
            uint32_t len = static_cast<uint32_t>(v.size());
            file.append(reinterpret_cast<const char *>(&len), sizeof len);
            file += v;
        }
        int fd = memfd_create("fuzz-broker-secrets", MFD_CLOEXEC);
        if (fd < 0 || write(fd, file.data(), file.size()) != static_cast<ssize_t>(file.size()))
            tartaros::fuzz::property_failed(__FILE__, __LINE__, "memfd", "cannot write the secrets");
        std::string err = read_broker_secrets(fd, b, &s);
        if (!err.empty())
            tartaros::fuzz::property_failed(__FILE__, __LINE__, "read_broker_secrets", err);
    }
};

std::string expand(std::string_view in)
{
    std::string out;
    for (size_t i = 0; i < in.size(); i++) {
        if (in[i] == '$' && i + 1 < in.size()) {
            const char k = in[i + 1];
            if (k == 'T' || k == 'V' || k == 'W' || k == 'X') {
                out += k == 'T' ? kToken : kValues[static_cast<size_t>(k - 'V')];
                i++;
                continue;
            }
        }
        out += in[i];
    }
    return out;
}

void check_refusal(const Refusal &r, std::string_view request)
{
    FUZZ_ASSERT(r.status >= 400 && r.status <= 499, std::to_string(r.status));
    FUZZ_ASSERT(r.code != nullptr && *r.code != '\0', r.body);
    FUZZ_ASSERT(tartaros::fuzz::one_line(r.body), r.body);
    const std::string whole = refusal_response(r);
    for (const std::string &v : kValues)
        FUZZ_ASSERT(!contains_icase(whole, v) || contains_icase(request, v), whole);
}

void check_upstream(const Request &req, const Broker &k, const BrokerDecision &d)
{
    const Capability &c = k.b.caps[static_cast<size_t>(d.cap)];
    FUZZ_ASSERT(!d.path.empty() && d.path[0] == '/', d.path);
    FUZZ_ASSERT(d.log_path == d.path.substr(0, d.path.find('?')), d.log_path);
    bool allowed = c.path_prefixes.empty();
    for (const std::string &p : c.path_prefixes)
        allowed = allowed || prefix_allows(p, d.log_path);
    FUZZ_ASSERT(allowed, d.path);
    bool method_ok = c.methods.empty();
    for (const std::string &m : c.methods)
        method_ok = method_ok || m == req.method;
    FUZZ_ASSERT(method_ok, req.method);
    for (bool close : {false, true}) {
        const Secret head = upstream_request_head(req, k.b, c, d.path, k.s.lines[static_cast<size_t>(d.cap)], close);
        const std::string_view text = head.view();
        FUZZ_ASSERT(text.substr(0, req.method.size() + d.path.size() + 2) == req.method + " " + d.path + " ", "line");
        ParseResult p = parse_request(text, text.size() + 1, Form::Origin);
        FUZZ_ASSERT(p.status == ParseStatus::Ok, p.err.detail);
        FUZZ_ASSERT(header_values(p.req, c.header).size() == 1, c.header);
        FUZZ_ASSERT(header_values(p.req, k.b.auth_header).empty(), k.b.auth_header);
        FUZZ_ASSERT(text.find(k.s.lines[static_cast<size_t>(d.cap)].view()) != std::string_view::npos, "no line");
        FUZZ_ASSERT(p.req.host.text == c.host.text, p.req.host.text);
        FUZZ_ASSERT(wants_close(p.req) == close, "Connection");
    }
}

void check_response(std::string_view bytes, size_t cap)
{
    ResponseParse p = parse_response(bytes, 16384);
    if (p.status != ParseStatus::Ok)
        return;
    ValueFinder finder(kValues[cap]);
    for (bool close : {false, true}) {
        ClientHead h = client_response_head(p.resp, finder, close);
        FUZZ_ASSERT(!contains_icase(h.text, kValues[cap]), h.text);
        size_t start = 0;
        for (size_t eol; (eol = h.text.find("\r\n", start)) != std::string::npos; start = eol + 2)
            FUZZ_ASSERT(!finder.found_in(std::string_view(h.text).substr(start, eol - start)), h.text);
        ResponseParse again = parse_response(h.text, h.text.size() + 1);
        FUZZ_ASSERT(again.status == ParseStatus::Ok && again.resp.status == p.resp.status, h.text + again.error);
    }
}

void check_mask(std::string_view text, const Broker &k)
{
    const std::string masked = mask_for_log(text, k.s);
    FUZZ_ASSERT(masked.find(kToken) == std::string::npos, masked);
    for (const std::string &v : kValues) {
        FUZZ_ASSERT(!contains_icase(masked, v), masked);
        ValueFinder finder(v);
        FUZZ_ASSERT(!finder.found_in(masked), masked);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const Broker broker;
    const std::string input = expand(std::string_view(reinterpret_cast<const char *>(data), size));
    check_mask(input, broker);
    ParseResult p = parse_request(input, 16384, Form::Origin);
    if (p.status != ParseStatus::Ok) {
        check_response(input, 0);
        return 0;
    }
    BrokerDecision d = broker_decide(p.req, broker.b, broker.s, broker.own);
    FUZZ_ASSERT(d.cap >= -1 && d.cap < static_cast<int>(broker.b.caps.size()), std::to_string(d.cap));
    if (d.refusal) {
        check_refusal(*d.refusal, input);
    } else {
        FUZZ_ASSERT(d.cap >= 0, "let through without a capability");
        check_upstream(p.req, broker, d);
    }
    check_mask(d.log_path, broker);
    check_response(std::string_view(input).substr(p.req.head_len), d.cap >= 0 ? static_cast<size_t>(d.cap) : 0);
    Request copy = p.req;
    wipe_request(copy);
    FUZZ_ASSERT(copy.headers.empty(), "wipe_request left headers");
    return 0;
}
