// compiler/frontend/secret_detector.cpp — see secret_detector.h.
#include "secret_detector.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace tartaros {

namespace {

bool is_upper(char c)
{
    return c >= 'A' && c <= 'Z';
}
bool is_lower(char c)
{
    return c >= 'a' && c <= 'z';
}
bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}
bool is_alnum(char c)
{
    return is_upper(c) || is_lower(c) || is_digit(c);
}
// Characters of the word runs token formats are found in.
bool is_word(char c)
{
    return is_alnum(c) || c == '_' || c == '-';
}
// Characters of base64 and base64url, the alphabets of random secrets.
bool is_base64(char c)
{
    return is_word(c) || c == '+' || c == '/' || c == '=';
}

enum class Rest { Alnum, AlnumUnderscore, Word, UpperDigit };

bool in_rest(char c, Rest rest)
{
    switch (rest) {
    case Rest::Alnum: return is_alnum(c);
    case Rest::AlnumUnderscore: return is_alnum(c) || c == '_';
    case Rest::Word: return is_word(c);
    case Rest::UpperDigit: return is_upper(c) || is_digit(c);
    }
    return false;
}

// A token format: a run starting with `prefix`, then at least `min_rest` characters of
// `rest` (exactly that many when `exact`).
struct TokenFormat {
    std::string_view prefix;
    Rest rest;
    size_t min_rest;
    bool exact;
    std::string_view what;
};

// Longer prefixes before the shorter ones they start with (sk-ant- before sk-).
constexpr std::array kFormats = {
    TokenFormat{"github_pat_", Rest::AlnumUnderscore, 30, false, "a GitHub fine-grained token"},
    TokenFormat{"ghp_", Rest::Alnum, 30, false, "a GitHub token"},
    TokenFormat{"gho_", Rest::Alnum, 30, false, "a GitHub OAuth token"},
    TokenFormat{"ghu_", Rest::Alnum, 30, false, "a GitHub user-to-server token"},
    TokenFormat{"ghs_", Rest::Alnum, 30, false, "a GitHub server-to-server token"},
    TokenFormat{"ghr_", Rest::Alnum, 30, false, "a GitHub refresh token"},
    TokenFormat{"glpat-", Rest::Word, 20, false, "a GitLab token"},
    TokenFormat{"xoxa-", Rest::Word, 10, false, "a Slack token"},
    TokenFormat{"xoxb-", Rest::Word, 10, false, "a Slack token"},
    TokenFormat{"xoxp-", Rest::Word, 10, false, "a Slack token"},
    TokenFormat{"xoxr-", Rest::Word, 10, false, "a Slack token"},
    TokenFormat{"xoxs-", Rest::Word, 10, false, "a Slack token"},
    TokenFormat{"sk-ant-", Rest::Word, 20, false, "an Anthropic API key"},
    TokenFormat{"sk_live_", Rest::Alnum, 20, false, "a Stripe secret key"},
    TokenFormat{"rk_live_", Rest::Alnum, 20, false, "a Stripe restricted key"},
    TokenFormat{"sk_test_", Rest::Alnum, 20, false, "a Stripe test key"},
    TokenFormat{"rk_test_", Rest::Alnum, 20, false, "a Stripe test key"},
    TokenFormat{"AKIA", Rest::UpperDigit, 16, true, "an AWS access key id"},
    TokenFormat{"ASIA", Rest::UpperDigit, 16, true, "an AWS temporary access key id"},
    TokenFormat{"AIza", Rest::Word, 30, false, "a Google API key"},
    TokenFormat{"npm_", Rest::Alnum, 30, false, "an npm token"},
    TokenFormat{"pypi-AgE", Rest::Word, 50, false, "a PyPI token"},
    TokenFormat{"hf_", Rest::Alnum, 30, false, "a Hugging Face token"},
};

// "sk-" alone is a common start of words ("sk-learn"): its rest must also mix upper case,
// lower case and digits, as the keys do.
constexpr size_t kSkMinRest = 20;

bool mixes_classes(std::string_view s)
{
    return std::any_of(s.begin(), s.end(), is_upper) && std::any_of(s.begin(), s.end(), is_lower) &&
        std::any_of(s.begin(), s.end(), is_digit);
}

size_t rest_length(std::string_view run, size_t from, Rest rest)
{
    size_t n = 0;
    while (from + n < run.size() && in_rest(run[from + n], rest))
        ++n;
    return n;
}

// What the word run `run` is when a token format matches it, else "".
std::string_view token_format_of(std::string_view run)
{
    for (const TokenFormat &f : kFormats) {
        if (!run.starts_with(f.prefix))
            continue;
        const size_t n = rest_length(run, f.prefix.size(), f.rest);
        if (f.exact ? (n == f.min_rest && f.prefix.size() + n == run.size()) : n >= f.min_rest)
            return f.what;
    }
    if (run.starts_with("sk-") && !run.starts_with("sk-ant-")) {
        const std::string_view rest = run.substr(3);
        if (rest.size() >= kSkMinRest && mixes_classes(rest))
            return "an OpenAI-style API key";
    }
    return "";
}

// A JSON Web Token at `at`: three base64url parts joined by '.', the first two JSON objects
// (base64 "eyJ" is `{"`). Returns its length, or 0.
size_t jwt_length(std::string_view text, size_t at)
{
    constexpr size_t kMinPart = 10;
    size_t i = at;
    for (int part = 0; part < 3; ++part) {
        if (part < 2 && text.substr(i, 3) != "eyJ")
            return 0;
        size_t n = 0;
        while (i + n < text.size() && is_word(text[i + n]))
            ++n;
        if (n < kMinPart)
            return 0;
        i += n;
        if (part < 2) {
            if (i >= text.size() || text[i] != '.')
                return 0;
            ++i;
        }
    }
    return i - at;
}

// "-----BEGIN ... PRIVATE KEY-----" at `at`: returns the header's length, or 0.
size_t pem_private_key_length(std::string_view text, size_t at)
{
    constexpr std::string_view kBegin = "-----BEGIN ";
    constexpr std::string_view kEnd = "PRIVATE KEY-----";
    if (text.substr(at, kBegin.size()) != kBegin)
        return 0;
    const size_t end = text.find("-----", at + kBegin.size());
    if (end == std::string_view::npos)
        return 0;
    const size_t close = end + 5;
    if (close < kEnd.size() || text.substr(close - kEnd.size(), kEnd.size()) != kEnd)
        return 0;
    return close - at;
}

bool is_url_stop(char c)
{
    return c == '/' || c == '@' || c == '"' || c == '\'' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
        c == '?' || c == '#';
}

// After "://" at `at`: the offset of the password in "user:password@", or npos. A
// password that is a reference ($VAR, ${VAR}, <placeholder>) is not a secret.
size_t url_password_offset(std::string_view text, size_t at)
{
    const size_t start = at + 3;
    size_t colon = std::string_view::npos;
    size_t i = start;
    while (i < text.size() && !is_url_stop(text[i])) {
        if (text[i] == ':' && colon == std::string_view::npos)
            colon = i;
        ++i;
    }
    if (i >= text.size() || text[i] != '@' || colon == std::string_view::npos || colon == start)
        return std::string_view::npos;
    const size_t password = colon + 1;
    if (password == i || text[password] == '$' || text[password] == '{' || text[password] == '<')
        return std::string_view::npos;
    return password;
}

double shannon_entropy(std::string_view s)
{
    std::array<size_t, 256> counts{};
    for (char c : s)
        ++counts[static_cast<unsigned char>(c)];
    double bits = 0;
    const auto n = static_cast<double>(s.size());
    for (size_t count : counts) {
        if (count == 0)
            continue;
        const double p = static_cast<double>(count) / n;
        bits -= p * std::log2(p);
    }
    return bits;
}

int char_class(char c)
{
    return is_upper(c) ? 0 : is_lower(c) ? 1 : is_digit(c) ? 2 : 3;
}

// Whether `pred` holds for some piece of `text` split at any of `separators`.
template <class Pred>
bool any_piece(std::string_view text, const char *separators, Pred pred)
{
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find_first_of(separators, start);
        if (end == std::string_view::npos)
            end = text.size();
        if (pred(text.substr(start, end - start)))
            return true;
        start = end + 1;
    }
    return false;
}

// The pieces of `piece` a random test applies to: itself, or, when '_' and '-' are frequent
// enough to be word separators (identifiers, not base64url), the parts between them.
bool piece_looks_random(std::string_view piece)
{
    constexpr double kMaxSeparatorRate = 0.05;  // base64url has one in 32 characters
    const auto separators =
        static_cast<double>(std::count_if(piece.begin(), piece.end(), [](char c) { return c == '_' || c == '-'; }));
    if (piece.empty() || separators / static_cast<double>(piece.size()) <= kMaxSeparatorRate)
        return looks_random(piece);
    return any_piece(piece, "_-", looks_random);
}

// Whether a piece of the base64 run `run`, split at '/' (paths) and at '=' that is not
// padding (key=value), looks random.
bool run_looks_random(std::string_view run)
{
    while (!run.empty() && run.back() == '=')
        run.remove_suffix(1);
    return any_piece(run, "/=", piece_looks_random);
}

// The share of `piece` in words: a capitalised or lower-case run of 3+ letters after an
// optional capital ("Timeout", "root"), or 4+ capitals ("ROOT"). Identifiers are mostly
// words; a random string of the same alphabet has few.
double word_share(std::string_view piece)
{
    size_t in_words = 0, i = 0;
    auto lower_run = [&](size_t from) {
        size_t n = 0;
        while (from + n < piece.size() && is_lower(piece[from + n]))
            ++n;
        return n;
    };
    while (i < piece.size()) {
        const size_t capital = is_upper(piece[i]) ? 1 : 0;
        size_t n = lower_run(i + capital) >= 3 ? capital + lower_run(i + capital) : 0;
        if (n == 0 && lower_run(i) >= 3)
            n = lower_run(i);
        if (n == 0) {
            size_t upper = 0;
            while (i + upper < piece.size() && is_upper(piece[i + upper]))
                ++upper;
            if (upper >= 4)
                n = upper;
        }
        in_words += n;
        i += n == 0 ? 1 : n;
    }
    return static_cast<double>(in_words) / static_cast<double>(piece.size());
}

void add(std::vector<SecretMatch> &out, size_t offset, std::string_view what)
{
    out.push_back({offset, std::string(what)});
}

// Token formats, JWTs and PEM headers, one scan over the word runs.
void find_formats(std::string_view text, std::vector<SecretMatch> &out, std::vector<std::pair<size_t, size_t>> &taken)
{
    size_t i = 0;
    while (i < text.size()) {
        if (const size_t pem = pem_private_key_length(text, i)) {
            add(out, i, "a private key");
            taken.emplace_back(i, i + pem);
            i += pem;
            continue;
        }
        if (!is_word(text[i])) {
            ++i;
            continue;
        }
        size_t end = i;
        while (end < text.size() && is_word(text[end]))
            ++end;
        if (const size_t jwt = jwt_length(text, i)) {
            add(out, i, "a JSON Web Token");
            taken.emplace_back(i, i + jwt);
            end = i + jwt;
        } else if (const std::string_view what = token_format_of(text.substr(i, end - i)); !what.empty()) {
            add(out, i, what);
            taken.emplace_back(i, end);
        }
        i = end;
    }
}

void find_url_passwords(std::string_view text, std::vector<SecretMatch> &out)
{
    for (size_t at = text.find("://"); at != std::string_view::npos; at = text.find("://", at + 3)) {
        const size_t password = url_password_offset(text, at);
        if (password != std::string_view::npos)
            add(out, password, "a password in a URL");
    }
}

bool overlaps(const std::vector<std::pair<size_t, size_t>> &taken, size_t begin, size_t end)
{
    return std::any_of(taken.begin(), taken.end(), [&](const auto &t) { return begin < t.second && t.first < end; });
}

void find_random_strings(std::string_view text, const std::vector<std::pair<size_t, size_t>> &taken,
                         std::vector<SecretMatch> &out)
{
    size_t i = 0;
    while (i < text.size()) {
        if (!is_base64(text[i])) {
            ++i;
            continue;
        }
        size_t end = i;
        while (end < text.size() && is_base64(text[end]))
            ++end;
        if (!overlaps(taken, i, end) && run_looks_random(text.substr(i, end - i)))
            add(out, i, "a long random string");
        i = end;
    }
}

// `name` split into lower-case words at '_', '-', '.' and lower-to-upper changes.
std::vector<std::string> words_of(std::string_view name)
{
    std::vector<std::string> words(1);
    for (size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c == '_' || c == '-' || c == '.') {
            if (!words.back().empty())
                words.emplace_back();
            continue;
        }
        if (is_upper(c) && i > 0 && is_lower(name[i - 1]) && !words.back().empty())
            words.emplace_back();
        words.back() += static_cast<char>(is_upper(c) ? c - 'A' + 'a' : c);
    }
    if (words.back().empty())
        words.pop_back();
    return words;
}

bool is_env_reference(std::string_view value)
{
    const bool shape =
        std::all_of(value.begin(), value.end(), [](char c) { return is_upper(c) || is_digit(c) || c == '_'; });
    const bool letters_only = std::all_of(value.begin(), value.end(), is_upper);
    return shape && !is_digit(value.front()) && (letters_only || value.find('_') != std::string_view::npos);
}

}  // namespace

bool looks_random(std::string_view piece)
{
    // Calibrated on random base64, base64url and base62 strings against identifiers, paths,
    // and the keys and certificates of /etc: a 20-character random string passes 3 times
    // in 4, a 40-character one 7 in 8.
    constexpr size_t kMinLength = 20;
    constexpr double kMinBitsPerChar = 3.5;
    constexpr double kMinClassChanges = 0.4;  // random base62 changes class at ~62% of positions
    constexpr double kMaxWordShare = 0.45;
    if (piece.size() < kMinLength || !mixes_classes(piece))
        return false;
    size_t changes = 0;
    for (size_t i = 1; i < piece.size(); ++i)
        changes += char_class(piece[i]) != char_class(piece[i - 1]);
    const double change_rate = static_cast<double>(changes) / static_cast<double>(piece.size() - 1);
    return change_rate >= kMinClassChanges && shannon_entropy(piece) >= kMinBitsPerChar &&
        word_share(piece) <= kMaxWordShare;
}

std::vector<SecretMatch> find_secrets_in_text(std::string_view text)
{
    std::vector<SecretMatch> out;
    std::vector<std::pair<size_t, size_t>> taken;
    find_formats(text, out, taken);
    find_url_passwords(text, out);
    for (const SecretMatch &m : out)
        taken.emplace_back(m.offset, m.offset + 1);
    find_random_strings(text, taken, out);
    std::stable_sort(out.begin(), out.end(),
                     [](const SecretMatch &a, const SecretMatch &b) { return a.offset < b.offset; });
    return out;
}

bool names_a_secret(std::string_view name)
{
    static constexpr std::array<std::string_view, 6> kEndings = {"token",  "secret",     "password",
                                                                 "passwd", "passphrase", "apikey"};
    static constexpr std::array<std::string_view, 5> kKeyQualifiers = {"api", "access", "private", "secret", "auth"};
    const std::vector<std::string> words = words_of(name);
    if (words.empty())
        return false;
    const std::string &last = words.back();
    if (std::any_of(kEndings.begin(), kEndings.end(), [&](std::string_view e) { return last.ends_with(e); }))
        return true;
    return last == "key" && words.size() >= 2 &&
        std::find(kKeyQualifiers.begin(), kKeyQualifiers.end(), words[words.size() - 2]) != kKeyQualifiers.end();
}

bool looks_like_secret_value(std::string_view value)
{
    constexpr size_t kMinLength = 8;
    if (value.size() < kMinLength || value.find_first_of(" \t\n") != std::string_view::npos)
        return false;
    if (value.front() == '$' || value.front() == '/' || value.front() == '~' || value.starts_with("./") ||
        value.starts_with("../"))
        return false;
    return !is_env_reference(value);
}

}  // namespace tartaros
