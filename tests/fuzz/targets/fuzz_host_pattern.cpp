// tests/fuzz/targets/fuzz_host_pattern.cpp — a differential check of one host-name pattern
// through the three programs that read it: the compiler's check of an allow_domains entry
// (compiler/model/domains.h), the plan reader that carries it (ir/plan_reader.h), and the
// proxy that matches requests against it (shared/names.h, proxy/plan_config.h). The input is
// a pattern as a policy writes it, then (after the first NUL) a host as a request names it.
// Properties, for any pattern and host:
//  - what the compiler accepts, the proxy takes unchanged: normalize_pattern of the compiler's
//    result is itself, and a plan carrying it as an allowed and as a denied name is read and
//    configured by the proxy with that very pattern;
//  - what the proxy cannot read, the compiler refused (as domain-syntax);
//  - a wildcard "*.S" matches a subdomain of S and never S; an exact pattern matches its host
//    however a request writes it (any case, a trailing dot); a host matches a pattern only as
//    the compiler explains it (exact, or a strict subdomain of the suffix);
//  - the broker's upstream host (check_upstream_host) and a pin's name and address
//    (check_pin_name, check_pin_address) are taken by the proxy as the compiler wrote them;
//  - the plan reader's rule (shared/host_rules.h) and the proxy's normaliser agree: what the
//    rule accepts normalises, and what normalises to itself (an IPv6 literal: whatever
//    inet_pton takes in lower case) the rule accepts.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "config.h"
#include "domains.h"
#include "fuzz_target.h"
#include "host_rules.h"
#include "names.h"
#include "plan_config.h"
#include "plan_reader.h"
#include "plan_writer.h"

namespace {

using tartaros::DomainError;

std::string upper(std::string s)
{
    for (char &c : s)
        if (c >= 'a' && c <= 'z')
            c = static_cast<char>(c - 'a' + 'A');
    return s;
}

// A plan with `pattern` allowed and denied, read by the proxy: its allow and deny lists.
tproxy::Config proxy_view(const std::string &pattern)
{
    tartaros::ir::PlanWriter w;
    w.set_meta({w.str("/p/policy.toml"), w.str("tartaros-compile fuzz"), 1, 0});
    w.set_namespaces({TP_NS_USER | TP_NS_NET, 0, w.str(""), {}}, false);
    tp_network n{};
    n.modes = TP_NET_PROXY;
    n.proxy_port = 3128;
    w.set_network(n);
    for (uint16_t kind : {TP_NAME_ALLOW, TP_NAME_DENY}) {
        tp_net_name name{};
        name.kind = kind;
        name.name = w.str(pattern);
        w.add_net_name(name);
    }
    const std::vector<uint8_t> plan = w.finish();
    int fd = memfd_create("fuzz-host-pattern", MFD_CLOEXEC);
    if (fd < 0 || write(fd, plan.data(), plan.size()) != static_cast<ssize_t>(plan.size()))
        tartaros::fuzz::property_failed(__FILE__, __LINE__, "memfd", "cannot write the plan");
    tproxy::Config c;
    const std::string err = tproxy::config_from_plan(fd, c);
    FUZZ_ASSERT(err.empty(), pattern + ": " + err);
    return c;
}

void check_pattern(std::string_view raw, std::string_view host_raw)
{
    static const tartaros::PublicSuffixList &psl = tartaros::PublicSuffixList::system();
    DomainError err;
    const std::optional<std::string> compiled = tartaros::check_domain_pattern(raw, psl, err);
    const std::optional<std::string> proxy = tproxy::normalize_pattern(raw);
    if (!proxy && !compiled)
        FUZZ_ASSERT(err.rule_id == "domain-syntax" || err.rule_id == "domain-too-broad", err.rule_id);
    if (!compiled) {
        FUZZ_ASSERT(tartaros::fuzz::one_line(err.message) && !err.message.empty(), err.message);
        return;
    }
    const std::string &p = *compiled;
    FUZZ_ASSERT(proxy && *proxy == p, p);
    FUZZ_ASSERT(tproxy::normalize_pattern(p) == p, p);
    const tproxy::Config c = proxy_view(p);
    FUZZ_ASSERT(c.policy.allow == std::vector<std::string>{p} && c.policy.deny == std::vector<std::string>{p}, p);

    const bool wildcard = p.starts_with("*.");
    const std::string target = wildcard ? p.substr(2) : p;
    if (wildcard) {
        FUZZ_ASSERT(!tproxy::pattern_matches(p, target), p);
        FUZZ_ASSERT(tproxy::pattern_matches(p, "a." + target), p);
    } else {
        const auto exact = tproxy::normalize_host(raw);
        FUZZ_ASSERT(exact && exact->text == p, p);
        if (exact->kind == tproxy::HostKind::Name) {
            for (const std::string &variant : {upper(std::string(raw)), std::string(raw) + "."}) {
                const auto h = tproxy::normalize_host(variant);
                FUZZ_ASSERT(!h || tproxy::pattern_matches(p, h->text), variant);
            }
        }
    }
    if (const auto h = tproxy::normalize_host(host_raw)) {
        const bool matches = tproxy::pattern_matches(p, h->text);
        const bool meant =
            wildcard ? h->text.size() > target.size() + 1 && h->text.ends_with("." + target) : h->text == p;
        FUZZ_ASSERT(matches == meant, p + " vs " + h->text);
    }
}

void check_upstream(std::string_view raw)
{
    DomainError err;
    const auto up = tartaros::check_upstream_host(raw, err);
    if (!up) {
        FUZZ_ASSERT(tartaros::fuzz::one_line(err.message) && !err.message.empty(), err.message);
        return;
    }
    const auto h = tproxy::normalize_host(up->host);
    FUZZ_ASSERT(h && h->text == up->host, up->host);
    FUZZ_ASSERT(!up->port || *up->port >= 1, raw);
}

void check_pin(std::string_view name, std::string_view address)
{
    DomainError err;
    const auto n = tartaros::check_pin_name(name, err);
    if (!n)
        return;
    const auto h = tproxy::normalize_host(*n);
    FUZZ_ASSERT(h && h->text == *n && h->kind == tproxy::HostKind::Name, *n);
    const auto a = tartaros::check_pin_address(*n, address, err);
    if (!a)
        return;
    FUZZ_ASSERT(tproxy::parse_pin_address(*n, *a).has_value(), *a);
    FUZZ_ASSERT(tartaros::check_pin_address(*n, *a, err) == a, *a);  // canonical: printed once
}

void check_rules(std::string_view raw)
{
    const std::string s(raw);
    const auto host = tproxy::normalize_host(raw);
    if (thr::host(s.data(), s.size()))
        FUZZ_ASSERT(host.has_value(), s);
    const bool lower_case = std::none_of(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
    if (host && (host->text == s || (host->kind == tproxy::HostKind::V6Literal && lower_case)))
        FUZZ_ASSERT(thr::host(s.data(), s.size()), s);
    const auto pattern = tproxy::normalize_pattern(raw);
    if (thr::pattern(s.data(), s.size()))
        FUZZ_ASSERT(pattern.has_value(), s);
    if (pattern && *pattern == s)
        FUZZ_ASSERT(thr::pattern(s.data(), s.size()), s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view in(reinterpret_cast<const char *>(data), size);
    const size_t nul = in.find('\0');
    const std::string_view first = in.substr(0, nul);
    const std::string_view second = nul == std::string_view::npos ? std::string_view() : in.substr(nul + 1);
    check_pattern(first, second);
    check_upstream(first);
    check_rules(first);
    check_pin(first, second);
    return 0;
}
