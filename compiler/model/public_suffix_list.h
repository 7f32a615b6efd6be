// compiler/model/public_suffix_list.h — the Public Suffix List, as the domain checks
// (domains.h) ask it: is a name a public suffix, and is there one beneath it.
//
// The list is indexed, not parsed into sets: one pass over the text records each rule as a
// view into it (a rule written in Unicode or in capitals as its ASCII form, kept aside) with a
// tag of its last label, and each question is a pass over those ~10,000 records that compares
// names only where the tags agree (a rule and a name that share no last label cannot match).
// A compile asks a few questions, one or two per "*.suffix" pattern; building hash sets of the
// whole list, and of every suffix of every rule, cost a compile of examples/agent.toml about
// 2 ms, a fifth of its time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tartaros {

// Debian's copy of https://publicsuffix.org/list/ (package publicsuffix).
inline constexpr const char *kPublicSuffixListPath = "/usr/share/publicsuffix/public_suffix_list.dat";

// The Public Suffix List: plain rules ("co.uk"), wildcard rules ("*.ck": every "x.ck" is a
// public suffix) and exception rules ("!www.ck": but "www.ck" is not). Rules written in
// Unicode are kept in their ASCII (punycode, "xn--") form, the only form a policy can hold.
class PublicSuffixList {
public:
    // Indexes the list's text format: one rule per line, the first whitespace-separated word;
    // lines starting with "//" and blank lines are comments. Malformed rules are skipped.
    static PublicSuffixList parse(std::string_view text);
    // The list in `path`; an empty list when it cannot be read (then only the single-label
    // rule applies).
    static PublicSuffixList load(const std::string &path);
    // The list in kPublicSuffixListPath, read once.
    static const PublicSuffixList &system();

    bool empty() const { return plain_or_wildcard_ == 0; }

    // True when `name` (normalised, ASCII) is itself a public suffix by the list's algorithm:
    // an exception rule matching the name or one of its suffixes wins; otherwise the name
    // is one when a rule covers exactly all its labels, or when it is a single label (the
    // implicit "*" rule).
    bool is_public_suffix(std::string_view name) const;

    // A public suffix strictly under `name` ("s3.amazonaws.com" for "amazonaws.com"), the
    // first in the list's order, or "" when there is none.
    std::string suffix_below(std::string_view name) const;

private:
    enum class Kind : uint8_t { Plain, Wildcard, Exception };
    struct Rule {
        uint32_t offset;  // in text_, or in converted_ when `converted`
        uint32_t length;
        uint16_t tag;  // last_label_tag() of the name
        Kind kind;
        bool converted;
    };

    static PublicSuffixList index(std::shared_ptr<const std::string> text);
    void add_rule(std::string_view line, size_t offset);
    std::string_view name_of(const Rule &r) const;

    std::shared_ptr<const std::string> text_;  // shared: a copy of the list shares its text
    std::string converted_;                    // the ASCII forms of rules not written in them
    std::vector<Rule> rules_;                  // in the list's order
    size_t plain_or_wildcard_ = 0;
};

// The ASCII form of one IDN label ("bücher" → "xn--bcher-kva", RFC 3492); the label itself
// when it is ASCII; nullopt when it is not valid UTF-8.
std::optional<std::string> idn_label_to_ascii(std::string_view label);

}  // namespace tartaros
