// compiler/model/public_suffix_list.cpp — the Public Suffix List's index and questions, and the
// ASCII form of IDN labels its Unicode rules are kept in (see public_suffix_list.h).
#include "public_suffix_list.h"

#include <algorithm>
#include <cstdint>

#include "paths.h"

namespace tartaros {

namespace {

std::optional<std::u32string> decode_utf8(std::string_view text)
{
    std::u32string out;
    for (size_t i = 0; i < text.size();) {
        const auto lead = static_cast<uint8_t>(text[i]);
        const size_t length = lead < 0x80 ? 1
            : (lead >> 5) == 0x6          ? 2
            : (lead >> 4) == 0xE          ? 3
            : (lead >> 3) == 0x1E         ? 4
                                          : 0;
        if (length == 0 || i + length > text.size())
            return std::nullopt;
        uint32_t code = length == 1 ? lead : lead & (0x7Fu >> length);
        for (size_t k = 1; k < length; ++k) {
            const auto next = static_cast<uint8_t>(text[i + k]);
            if ((next >> 6) != 0x2)
                return std::nullopt;
            code = (code << 6) | (next & 0x3Fu);
        }
        out.push_back(static_cast<char32_t>(code));
        i += length;
    }
    return out;
}

// RFC 3492 §6.1 bias adaptation, with the parameters of §5 for IDNA.
constexpr uint32_t kBase = 36, kTMin = 1, kTMax = 26, kSkew = 38, kDamp = 700;

uint32_t adapt(uint32_t delta, uint32_t points, bool first)
{
    delta = first ? delta / kDamp : delta / 2;
    delta += delta / points;
    uint32_t k = 0;
    while (delta > ((kBase - kTMin) * kTMax) / 2) {
        delta /= kBase - kTMin;
        k += kBase;
    }
    return k + (kBase - kTMin + 1) * delta / (delta + kSkew);
}

char punycode_digit(uint32_t d)
{
    return static_cast<char>(d < 26 ? 'a' + d : '0' + (d - 26));
}

// RFC 3492 §6.3 encoding; labels are at most 63 bytes, far from the overflow bounds.
std::string punycode(const std::u32string &code_points)
{
    std::string out;
    for (char32_t c : code_points)
        if (c < 0x80)
            out.push_back(static_cast<char>(c));
    const auto basic = static_cast<uint32_t>(out.size());
    if (basic > 0)
        out.push_back('-');
    uint32_t n = 0x80, delta = 0, bias = 72, handled = basic;
    while (handled < code_points.size()) {
        uint32_t next = UINT32_MAX;
        for (char32_t c : code_points)
            if (c >= n)
                next = std::min(next, static_cast<uint32_t>(c));
        delta += (next - n) * (handled + 1);
        n = next;
        for (char32_t c : code_points) {
            if (c < n)
                ++delta;
            if (c != n)
                continue;
            uint32_t q = delta;
            for (uint32_t k = kBase;; k += kBase) {
                const uint32_t t = k <= bias ? kTMin : k >= bias + kTMax ? kTMax : k - bias;
                if (q < t)
                    break;
                out.push_back(punycode_digit(t + (q - t) % (kBase - t)));
                q = (q - t) / (kBase - t);
            }
            out.push_back(punycode_digit(q));
            bias = adapt(delta, handled + 1, handled == basic);
            delta = 0;
            ++handled;
        }
        ++delta;
        ++n;
    }
    return out;
}

// Whether the ASCII `rule` has no empty label.
bool labels_well_formed(std::string_view rule)
{
    return !rule.empty() && rule.front() != '.' && rule.back() != '.' && rule.find("..") == std::string_view::npos;
}

// `rule` (after any "!" or "*.") with each label in ASCII form, or "" when malformed.
std::string ascii_rule(std::string_view rule)
{
    // Nearly every rule is ASCII already: its labels are their own ASCII form (decoding them
    // as UTF-8 first would change nothing), so only the empty label is malformed.
    if (std::all_of(rule.begin(), rule.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
        if (!labels_well_formed(rule))
            return "";
        std::string out(rule);
        for (char &c : out)
            c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        return out;
    }
    std::string out;
    size_t start = 0;
    while (true) {
        const size_t dot = rule.find('.', start);
        const std::string_view label = rule.substr(start, dot == std::string_view::npos ? dot : dot - start);
        const std::optional<std::string> ascii = idn_label_to_ascii(label);
        if (label.empty() || !ascii)
            return "";
        if (!out.empty())
            out.push_back('.');
        for (char c : *ascii)
            out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
        if (dot == std::string_view::npos)
            return out;
        start = dot + 1;
    }
}

// A 16-bit hash of the last label of `name`. A rule and a name that are equal, or of which
// one ends with the other's labels, have the same last label and so the same tag.
uint16_t last_label_tag(std::string_view name)
{
    uint32_t hash = 2166136261u;  // FNV-1a
    for (const char c : name.substr(name.rfind('.') + 1)) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 16777619u;
    }
    return static_cast<uint16_t>(hash ^ (hash >> 16));
}

// Whether `rule` ends with the labels of `name`: it is `name`, or ends with "." + name.
bool ends_with_labels(std::string_view rule, std::string_view name)
{
    return rule.ends_with(name) && (rule.size() == name.size() || rule[rule.size() - name.size() - 1] == '.');
}

}  // namespace

std::optional<std::string> idn_label_to_ascii(std::string_view label)
{
    const std::optional<std::u32string> code_points = decode_utf8(label);
    if (!code_points)
        return std::nullopt;
    if (std::all_of(code_points->begin(), code_points->end(), [](char32_t c) { return c < 0x80; }))
        return std::string(label);
    return "xn--" + punycode(*code_points);
}

PublicSuffixList PublicSuffixList::index(std::shared_ptr<const std::string> text)
{
    PublicSuffixList list;
    list.text_ = std::move(text);
    const std::string_view all = *list.text_;
    // Debian's list holds about 10,000 rules: no reallocation on the way there.
    list.rules_.reserve(16384);
    size_t start = 0;
    while (start < all.size()) {
        size_t end = all.find('\n', start);
        if (end == std::string_view::npos)
            end = all.size();
        const std::string_view line = all.substr(start, end - start);
        if (!line.starts_with("//"))
            list.add_rule(line, start);
        start = end + 1;
    }
    return list;
}

PublicSuffixList PublicSuffixList::parse(std::string_view text)
{
    return index(std::make_shared<const std::string>(text));
}

PublicSuffixList PublicSuffixList::load(const std::string &path)
{
    std::string text, err;
    if (!read_file(path, text, err))
        return {};
    return index(std::make_shared<const std::string>(std::move(text)));
}

const PublicSuffixList &PublicSuffixList::system()
{
    static const PublicSuffixList list = load(kPublicSuffixListPath);
    return list;
}

void PublicSuffixList::add_rule(std::string_view line, size_t offset)
{
    const bool exception = line.starts_with('!');
    const bool wildcard = !exception && line.starts_with("*.");
    const Kind kind = exception ? Kind::Exception : wildcard ? Kind::Wildcard : Kind::Plain;
    const size_t skip = exception ? 1 : wildcard ? 2 : 0;
    // The rule runs to the first blank. One pass over it says whether it is its own ASCII form
    // (nothing beyond ASCII, no capitals) and whether it has an empty label (a dot first, last
    // or after a dot; or no name at all): the list's 10,000 lines are read once, byte by byte.
    size_t end = skip;
    bool own_ascii = true, empty_label = false;
    char previous = '.';
    for (; end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r'; end++) {
        const auto c = static_cast<unsigned char>(line[end]);
        own_ascii = own_ascii && c < 0x80 && !(c >= 'A' && c <= 'Z');
        empty_label = empty_label || (c == '.' && previous == '.');
        previous = line[end];
    }
    const std::string_view body = line.substr(skip, end - skip);
    Rule rule{static_cast<uint32_t>(offset + skip), static_cast<uint32_t>(body.size()), last_label_tag(body), kind,
              false};
    if (own_ascii) {  // the text is the name
        if (empty_label || previous == '.')
            return;
    } else {
        const std::string name = ascii_rule(body);
        if (name.empty())
            return;
        rule = {static_cast<uint32_t>(converted_.size()), static_cast<uint32_t>(name.size()), last_label_tag(name),
                kind, true};
        converted_ += name;
    }
    rules_.push_back(rule);
    plain_or_wildcard_ += kind != Kind::Exception;
}

std::string_view PublicSuffixList::name_of(const Rule &r) const
{
    return std::string_view(r.converted ? converted_ : *text_).substr(r.offset, r.length);
}

bool PublicSuffixList::is_public_suffix(std::string_view name) const
{
    const size_t first_dot = name.find('.');
    const std::string_view parent = first_dot == std::string_view::npos ? "" : name.substr(first_dot + 1);
    const uint16_t tag = last_label_tag(name);
    bool listed = false;
    for (const Rule &r : rules_) {
        if (r.tag != tag)
            continue;
        const std::string_view rule = name_of(r);
        if (r.kind == Kind::Exception && ends_with_labels(name, rule))
            return false;
        listed = listed || (r.kind == Kind::Plain && rule == name) ||
            (r.kind == Kind::Wildcard && first_dot != std::string_view::npos && rule == parent);
    }
    return first_dot == std::string_view::npos || listed;
}

std::string PublicSuffixList::suffix_below(std::string_view name) const
{
    const uint16_t tag = last_label_tag(name);
    for (const Rule &r : rules_) {
        if (r.tag != tag || r.kind == Kind::Exception)
            continue;
        const std::string_view rule = name_of(r);
        if (r.kind == Kind::Wildcard && rule == name)
            return "*." + std::string(rule);
        if (rule.size() > name.size() && ends_with_labels(rule, name))
            return (r.kind == Kind::Wildcard ? "*." : "") + std::string(rule);
    }
    return "";
}

}  // namespace tartaros
