// compiler/model/diagnostics.cpp — collecting and printing diagnostics; "did you mean" matching.
#include "diagnostics.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

namespace tartaros {

namespace {

const char *severity_name(Severity severity)
{
    switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
    }
    return "error";
}

std::vector<std::string> split_lines(const std::string &text)
{
    std::vector<std::string> lines;
    std::string::size_type start = 0;
    while (start < text.size()) {
        std::string::size_type end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        std::string line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        lines.push_back(std::move(line));
        start = end + 1;
    }
    return lines;
}

bool is_utf8_continuation(char c)
{
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// A policy line may hold control characters (an escape sequence would reach the terminal
// as is); they print as '?', one for one, so the caret stays aligned.
std::string printable_line(const std::string &line)
{
    std::string out = line;
    for (char &c : out) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte < 0x20 && c != '\t') || byte == 0x7F)
            c = '?';
    }
    return out;
}

// Spaces up to column `col` (1-based, counted in code points as toml++ counts them); a tab
// in the source stays a tab so the caret lines up whatever the tab width.
std::string caret_line(const std::string &line, uint32_t col)
{
    std::string out;
    uint32_t current = 1;
    for (std::string::size_type i = 0; i < line.size() && current < col; ++i) {
        if (is_utf8_continuation(line[i]))
            continue;
        out += line[i] == '\t' ? '\t' : ' ';
        ++current;
    }
    out += '^';
    return out;
}

// A source line longer than this many characters prints as the part around the column, with
// "…" where it was cut: a generated or minified policy can hold a megabyte on one line, and
// every diagnostic on that line would print all of it.
constexpr uint32_t kShownColumns = 200;

// The part of `line` shown for column `col`, and the caret's column in that part.
std::pair<std::string, uint32_t> shown_part(const std::string &line, uint32_t col)
{
    std::vector<size_t> starts;  // the byte offset of each character
    for (size_t i = 0; i < line.size(); ++i)
        if (!is_utf8_continuation(line[i]))
            starts.push_back(i);
    if (starts.size() <= kShownColumns)
        return {line, col};
    const uint32_t first = col > kShownColumns / 2 ? col - kShownColumns / 2 : 1;  // 1-based, characters
    if (first > starts.size())
        return {"…", 2};
    const size_t last = std::min<size_t>(starts.size(), first + kShownColumns - 1);
    const size_t from = starts[first - 1], to = last < starts.size() ? starts[last] : line.size();
    std::string part = line.substr(from, to - from);
    if (last < starts.size())
        part += "…";
    if (first == 1)
        return {part, col};
    return {"…" + part, col - first + 2};
}

void print_header(std::ostream &out, const Diagnostic &d)
{
    if (!d.pos.file.empty()) {
        out << d.pos.file << ':';
        if (d.pos.line > 0)
            out << d.pos.line << ':' << std::max<uint32_t>(d.pos.col, 1) << ':';
        out << ' ';
    }
    out << severity_name(d.severity) << ": " << d.message;
    if (!d.rule_id.empty())
        out << " [" << d.rule_id << ']';
    out << '\n';
}

// Optimal string alignment distance: Levenshtein plus transposition of neighbours, the
// commonest typo in a key ("filesytem").
size_t edit_distance(const std::string &a, const std::string &b)
{
    const size_t n = a.size(), m = b.size();
    std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1, 0));
    for (size_t i = 0; i <= n; ++i)
        d[i][0] = i;
    for (size_t j = 0; j <= m; ++j)
        d[0][j] = j;
    for (size_t i = 1; i <= n; ++i) {
        for (size_t j = 1; j <= m; ++j) {
            const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[n][m];
}

// The byte offset of column `col` (1-based, in characters) of `text`, or its size.
size_t byte_of_column(const std::string &text, uint32_t col)
{
    uint32_t current = 0;
    for (size_t i = 0; i < text.size(); ++i)
        if (!is_utf8_continuation(text[i]) && ++current == col)
            return i;
    return text.size();
}

// The bytes [from, to) of `text` that the secret written at `at` takes, quotes left out: a
// quoted one ("…", '…', or tripled) up to its closing quotes (a backslash escapes the next
// character in a basic string); a bare one (a .tart word, or a token found inside a string)
// up to a quote, blank, ',', ';', '}' or ']'.
std::pair<size_t, size_t> secret_span(const std::string &text, size_t at)
{
    if (at < text.size() && (text[at] == '"' || text[at] == '\'')) {
        const std::string quote(text.compare(at, 3, std::string(3, text[at])) == 0 ? 3 : 1, text[at]);
        size_t end = at + quote.size();
        while (end < text.size() && text.compare(end, quote.size(), quote) != 0)
            end += text[end] == '\\' && quote[0] == '"' ? 2 : 1;
        return {at + quote.size(), std::min(end, text.size())};
    }
    const size_t end = text.find_first_of("\"' \t,;}]", at);
    return {at, end == std::string::npos ? text.size() : end};
}

// `text` with the secret at column `col` as one '*' per character, so carets stay in place.
std::string mask_secret(const std::string &text, uint32_t col)
{
    const auto [from, to] = secret_span(text, byte_of_column(text, col));
    std::string out = text.substr(0, from);
    for (size_t i = from; i < to; ++i)
        if (!is_utf8_continuation(text[i]))
            out += '*';
    return out + text.substr(to);
}

}  // namespace

void Diagnostics::error(const SourcePos &pos, std::string message, std::string rule_id)
{
    items_.push_back({Severity::Error, pos, std::move(message), std::move(rule_id)});
}

void Diagnostics::warning(const SourcePos &pos, std::string message, std::string rule_id)
{
    items_.push_back({Severity::Warning, pos, std::move(message), std::move(rule_id)});
}

void Diagnostics::note(const SourcePos &pos, std::string message, std::string rule_id)
{
    items_.push_back({Severity::Note, pos, std::move(message), std::move(rule_id)});
}

bool Diagnostics::has_errors() const
{
    return error_count() > 0;
}

size_t Diagnostics::error_count() const
{
    return static_cast<size_t>(
        std::count_if(items_.begin(), items_.end(), [](const Diagnostic &d) { return d.severity == Severity::Error; }));
}

size_t Diagnostics::warning_count() const
{
    return static_cast<size_t>(std::count_if(items_.begin(), items_.end(),
                                             [](const Diagnostic &d) { return d.severity == Severity::Warning; }));
}

void Diagnostics::add_source(const std::string &file, const std::string &text)
{
    lines_[file] = split_lines(text);
}

const std::vector<std::string> *Diagnostics::lines_of(const std::string &file) const
{
    auto found = lines_.find(file);
    if (found == lines_.end()) {
        std::ifstream in(file, std::ios::binary);
        std::ostringstream text;
        if (in)
            text << in.rdbuf();
        // An unreadable file is cached as empty: it is tried once, and prints no source.
        found = lines_.emplace(file, split_lines(text.str())).first;
    }
    return &found->second;
}

void Diagnostics::redact(const std::string &file, uint32_t line, uint32_t col)
{
    redacted_[{file, line}].push_back(std::max<uint32_t>(col, 1));
}

void Diagnostics::print(std::ostream &out, bool include_notes) const
{
    for (const Diagnostic &d : items_) {
        if (d.severity == Severity::Note && !include_notes)
            continue;
        print_header(out, d);
        if (d.pos.file.empty() || d.pos.line == 0)
            continue;
        const std::vector<std::string> *lines = lines_of(d.pos.file);
        if (d.pos.line > lines->size())
            continue;
        std::string text = (*lines)[d.pos.line - 1];
        if (const auto hidden = redacted_.find({d.pos.file, d.pos.line}); hidden != redacted_.end())
            for (uint32_t col : hidden->second)
                text = mask_secret(text, col);
        const auto [part, caret] = shown_part(printable_line(text), std::max<uint32_t>(d.pos.col, 1));
        out << part << '\n' << caret_line(part, caret) << '\n';
    }
}

std::string position_text(const SourcePos &pos)
{
    return pos.file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.col);
}

std::string line_of(const SourcePos &pos, const SourcePos &here)
{
    return (pos.file == here.file ? "line " : pos.file + ":") + std::to_string(pos.line);
}

std::string closest_match(const std::string &word, const std::vector<std::string> &candidates)
{
    // Close enough: at most 2 edits, or a third of the word for long words; and never a
    // total rewrite of a short word ("ab" is not a typo of "cd").
    const size_t limit = std::max<size_t>(2, word.size() / 3);
    std::string best;
    size_t best_distance = limit + 1;
    for (const std::string &candidate : candidates) {
        const size_t distance = edit_distance(word, candidate);
        if (distance >= std::max(word.size(), candidate.size()))
            continue;
        const bool better = distance < best_distance || (distance == best_distance && candidate < best);
        if (distance <= limit && better) {
            best = candidate;
            best_distance = distance;
        }
    }
    return best;
}

int print_refusal(const std::string &line)
{
    std::cerr << "tartaros: " << line << '\n';
    return kExitRefusal;
}

}  // namespace tartaros
