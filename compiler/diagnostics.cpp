// compiler/diagnostics.cpp — collecting and printing diagnostics; "did you mean" matching.
#include "diagnostics.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace tartaros {

namespace {

const char *severity_name(Severity severity) {
    switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
    }
    return "error";
}

std::vector<std::string> split_lines(const std::string &text) {
    std::vector<std::string> lines;
    std::string::size_type start = 0;
    while (start < text.size()) {
        std::string::size_type end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(std::move(line));
        start = end + 1;
    }
    return lines;
}

bool is_utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// A policy line may hold control characters (an escape sequence would reach the terminal
// as is); they print as '?', one for one, so the caret stays aligned.
std::string printable_line(const std::string &line) {
    std::string out = line;
    for (char &c : out) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte < 0x20 && c != '\t') || byte == 0x7F) c = '?';
    }
    return out;
}

// Spaces up to column `col` (1-based, counted in code points as toml++ counts them); a tab
// in the source stays a tab so the caret lines up whatever the tab width.
std::string caret_line(const std::string &line, uint32_t col) {
    std::string out;
    uint32_t current = 1;
    for (std::string::size_type i = 0; i < line.size() && current < col; ++i) {
        if (is_utf8_continuation(line[i])) continue;
        out += line[i] == '\t' ? '\t' : ' ';
        ++current;
    }
    out += '^';
    return out;
}

void print_header(std::ostream &out, const Diagnostic &d) {
    if (!d.pos.file.empty()) {
        out << d.pos.file << ':';
        if (d.pos.line > 0) out << d.pos.line << ':' << std::max<uint32_t>(d.pos.col, 1) << ':';
        out << ' ';
    }
    out << severity_name(d.severity) << ": " << d.message;
    if (!d.rule_id.empty()) out << " [" << d.rule_id << ']';
    out << '\n';
}

// Optimal string alignment distance: Levenshtein plus transposition of neighbours, the
// commonest typo in a key ("filesytem").
size_t edit_distance(const std::string &a, const std::string &b) {
    const size_t n = a.size(), m = b.size();
    std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1, 0));
    for (size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (size_t j = 0; j <= m; ++j) d[0][j] = j;
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

// Stars over the secret that starts at byte `at` of `text` (after its opening quote, if `at`
// is one), up to the next quote, blank, ',', '}' or ']'.
void mask_secret(std::string &text, size_t at) {
    constexpr std::string_view kQuotes = "\"'", kEnds = "\"' \t,}]";
    if (at < text.size() && kQuotes.find(text[at]) != std::string_view::npos) ++at;
    for (; at < text.size() && kEnds.find(text[at]) == std::string_view::npos; ++at) text[at] = '*';
}

}  // namespace

void Diagnostics::error(const SourcePos &pos, std::string message, std::string rule_id) {
    items_.push_back({Severity::Error, pos, std::move(message), std::move(rule_id)});
}

void Diagnostics::warning(const SourcePos &pos, std::string message, std::string rule_id) {
    items_.push_back({Severity::Warning, pos, std::move(message), std::move(rule_id)});
}

void Diagnostics::note(const SourcePos &pos, std::string message, std::string rule_id) {
    items_.push_back({Severity::Note, pos, std::move(message), std::move(rule_id)});
}

bool Diagnostics::has_errors() const { return error_count() > 0; }

size_t Diagnostics::error_count() const {
    return static_cast<size_t>(std::count_if(items_.begin(), items_.end(),
                                             [](const Diagnostic &d) { return d.severity == Severity::Error; }));
}

size_t Diagnostics::warning_count() const {
    return static_cast<size_t>(std::count_if(items_.begin(), items_.end(),
                                             [](const Diagnostic &d) { return d.severity == Severity::Warning; }));
}

void Diagnostics::add_source(const std::string &file, const std::string &text) { lines_[file] = split_lines(text); }

const std::vector<std::string> *Diagnostics::lines_of(const std::string &file) const {
    auto found = lines_.find(file);
    if (found == lines_.end()) {
        std::ifstream in(file, std::ios::binary);
        std::ostringstream text;
        if (in) text << in.rdbuf();
        // An unreadable file is cached as empty: it is tried once, and prints no source.
        found = lines_.emplace(file, split_lines(text.str())).first;
    }
    return &found->second;
}

void Diagnostics::redact(const std::string &file, uint32_t line, uint32_t col) {
    redacted_[{file, line}].push_back(std::max<uint32_t>(col, 1));
}

void Diagnostics::print(std::ostream &out, bool include_notes) const {
    for (const Diagnostic &d : items_) {
        if (d.severity == Severity::Note && !include_notes) continue;
        print_header(out, d);
        if (d.pos.file.empty() || d.pos.line == 0) continue;
        const std::vector<std::string> *lines = lines_of(d.pos.file);
        if (d.pos.line > lines->size()) continue;
        std::string text = (*lines)[d.pos.line - 1];
        if (const auto hidden = redacted_.find({d.pos.file, d.pos.line}); hidden != redacted_.end())
            for (uint32_t col : hidden->second)
                mask_secret(text, col - 1);
        const std::string line = printable_line(text);
        out << line << '\n' << caret_line(line, d.pos.col) << '\n';
    }
}

std::string closest_match(const std::string &word, const std::vector<std::string> &candidates) {
    // Close enough: at most 2 edits, or a third of the word for long words; and never a
    // total rewrite of a short word ("ab" is not a typo of "cd").
    const size_t limit = std::max<size_t>(2, word.size() / 3);
    std::string best;
    size_t best_distance = limit + 1;
    for (const std::string &candidate : candidates) {
        const size_t distance = edit_distance(word, candidate);
        if (distance >= std::max(word.size(), candidate.size())) continue;
        const bool better = distance < best_distance || (distance == best_distance && candidate < best);
        if (distance <= limit && better) {
            best = candidate;
            best_distance = distance;
        }
    }
    return best;
}

}  // namespace tartaros
