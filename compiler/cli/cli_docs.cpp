// compiler/cli/cli_docs.cpp — see cli_docs.h.
#include "cli_docs.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli_options.h"
#include "compile_command.h"
#include "flags_policy.h"
#include "policy_keys.h"

// Where tartaros-exec looks for tartaros-proxy once installed, relative to its own directory
// (cmake/install.cmake); tartaros-exec(1) says so.
#ifndef TARTAROS_HELPER_FROM_BINDIR
#define TARTAROS_HELPER_FROM_BINDIR ""
#endif

namespace tartaros {

namespace {

constexpr size_t kWidth = 78;

constexpr std::array<std::string_view, 4> kManPages = {"tartaros", "tartaros-compile", "tartaros-exec",
                                                       "tartaros-policy"};

std::string man_page_names()
{
    std::string names;
    for (std::string_view name : kManPages)
        names += (names.empty() ? "" : " ") + std::string(name);
    return names;
}

constexpr std::string_view kAbout =
    "TartarOS runs a command in a sandbox for AI coding agents. `tartaros run` turns its flags, "
    "and the policy file given with --config, into a verified plan in memory (or takes it from "
    "its plan cache) and hands it to tartaros-exec (next to this binary) on a sealed memfd: the "
    "same enforcer as `tartaros-exec PLAN`, never a second one. tartaros is a small launcher that "
    "starts a cached plan itself and runs everything else through tartaros-cli, the compiler, "
    "found next to it or in the helper directory.";

constexpr std::string_view kRunExit =
    "The command's own status, or 128+N when it died of signal N. 78: refused, nothing ran (a bad "
    "flag or usage, an invalid policy, a conflict between the flags and the file, or under --strict a "
    "guarantee this host cannot install); the first line on stderr starts with 'tartaros:'. 125: the "
    "sandbox failed to start. 126/127: the command is not executable / not found.";

constexpr std::string_view kOtherExit =
    "compile, explain, verify, completion and man: 0 done, 78 refused. lint: 0 clean, 1 when a file has "
    "errors (or, with --werror, warnings), 78 when a file cannot be read or the usage is wrong.";

// `text` cut into lines of at most `width - indent` characters at spaces, each indented.
std::vector<std::string> wrap(std::string_view text, size_t indent, size_t width = kWidth)
{
    std::vector<std::string> lines;
    std::string line;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find(' ', start);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view word = text.substr(start, end - start);
        if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
            lines.push_back(std::string(indent, ' ') + line);
            line.clear();
        }
        if (!line.empty())
            line += ' ';
        line += word;
        start = end + 1;
    }
    if (!line.empty())
        lines.push_back(std::string(indent, ' ') + line);
    return lines;
}

void print_wrapped(std::ostream &out, std::string_view text, size_t indent)
{
    for (const std::string &line : wrap(text, indent))
        out << line << '\n';
}

std::string label(const RunOption &o)
{
    return o.metavar.empty() ? std::string(o.name) : std::string(o.name) + " " + std::string(o.metavar);
}

std::string run_synopsis()
{
    return "tartaros run " + std::string(subcommands().front().synopsis);
}

void print_flags_and_rules(std::ostream &out)
{
    out << "Flags of `tartaros run`, each with the policy field it sets:\n";
    for (const RunOption &o : run_options()) {
        std::string head = "  " + label(o);
        head.resize(std::max<size_t>(head.size() + 1, 24), ' ');
        out << head << (o.field.empty() ? "(the launcher)" : o.field) << '\n';
        print_wrapped(out, o.help, 6);
    }
    out << "\nMerge rules (flags and the --config file):\n";
    for (std::string_view rule : merge_rules()) {
        std::vector<std::string> lines = wrap(rule, 4);
        lines.front().replace(2, 1, "-");
        for (const std::string &line : lines)
            out << line << '\n';
    }
    out << "\nExit status:\n";
    print_wrapped(out, kRunExit, 2);
}

// --- shells ---------------------------------------------------------------------------------

bool takes_files(ValueKind kind)
{
    return kind == ValueKind::Path || kind == ValueKind::File;
}
bool free_text(ValueKind kind)
{
    return kind == ValueKind::Port || kind == ValueKind::Count || kind == ValueKind::Domain;
}
bool repeatable(ValueKind kind)
{
    return kind == ValueKind::Path || kind == ValueKind::Port || kind == ValueKind::Domain ||
        kind == ValueKind::EnvName;
}

// The names of the rows whose value is of one of `kinds`, joined by `separator`.
std::string names_where(bool (*pick)(ValueKind), std::string_view separator)
{
    std::string names;
    for (const RunOption &o : run_options()) {
        if (!pick(o.kind))
            continue;
        if (!names.empty())
            names += separator;
        names += o.name;
    }
    return names;
}

// A description inside a zsh _arguments spec: single quotes and brackets escaped.
std::string zsh_text(std::string_view text)
{
    std::string out;
    for (char c : text) {
        if (c == '\'')
            out += "'\\''";
        else if (c == '[' || c == ']' || c == ':' || c == '\\')
            out += std::string("\\") + c;
        else
            out += c;
    }
    return out;
}

// --- roff -----------------------------------------------------------------------------------

std::string roff(std::string_view text)
{
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\\') {
            out += "\\e";
        } else if (c == '-') {
            out += "\\-";
        } else if (byte >= 0xc0 && byte < 0xf0 && i + (byte >= 0xe0 ? 2 : 1) < text.size()) {
            // UTF-8 ("1–64") as groff's \[uXXXX], so the page is ASCII whatever troff's input encoding.
            const size_t extra = byte >= 0xe0 ? 2 : 1;
            unsigned code = byte & (extra == 2 ? 0x0fu : 0x1fu);
            for (size_t k = 1; k <= extra; ++k)
                code = code << 6 | (static_cast<unsigned char>(text[i + k]) & 0x3fu);
            char escape[16];
            std::snprintf(escape, sizeof escape, "\\[u%04X]", code);
            out += escape;
            i += extra;
        } else {
            out += c;
        }
    }
    if (!out.empty() && (out.front() == '.' || out.front() == '\''))
        out.insert(0, "\\&");
    return out;
}

// A cell of docs/policy.md's table (Markdown) in roff: `code` and **strong** in bold, a link's
// text kept and its target dropped, the rest as roff() escapes it.
std::string markdown_roff(std::string_view md)
{
    std::string out;
    bool code = false, strong = false, keep_whole = false;
    for (size_t i = 0; i < md.size(); ++i) {
        const char c = md[i];
        if (c == '`') {
            code = !code;
            out += code || strong ? "\\fB" : "\\fR";
            // A short value is not broken across lines; a long one would not fit a line.
            const size_t close = code ? md.find('`', i + 1) : i;
            keep_whole = code && close != std::string_view::npos && close - i <= 32;
        } else if (!code && md.substr(i, 2) == "**") {
            strong = !strong;
            out += strong ? "\\fB" : "\\fR";
            ++i;
        } else if (const size_t mid = md.find("](", i);
                   !code && c == '[' && mid != std::string_view::npos && md.find(')', mid) != std::string_view::npos) {
            out += markdown_roff(md.substr(i + 1, mid - i - 1));
            i = md.find(')', mid);
        } else if (keep_whole && c == ' ') {
            out += "\\~";
        } else {
            const size_t end = md.find_first_of("`*[ ", i + 1);
            const size_t len = (end == std::string_view::npos ? md.size() : end) - i;
            out += roff(md.substr(i, len));
            i += len - 1;
        }
    }
    if (out.starts_with(".") || out.starts_with("'"))
        out.insert(0, "\\&");
    return out;
}

// Lines of literal text (a TOML example, a command), as .EX shows them.
void print_roff_example(std::ostream &out, std::string_view text)
{
    out << ".PP\n.RS 4\n.EX\n";
    for (size_t start = 0; start <= text.size();) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        out << roff(text.substr(start, end - start)) << '\n';
        start = end + 1;
    }
    out << ".EE\n.RE\n";
}

// A man page's header: .TH and NAME.
void print_roff_head(std::ostream &out, std::string_view title, int section, std::string_view manual,
                     std::string_view name_line)
{
    out << ".\\\" generated by `tartaros man` from the tables of the sources; do not edit\n"
        << ".\\\" no hyphenation: names and values are hyphenated wrongly (groff_man(7): HY)\n"
        << ".nr HY 0\n"
        << ".TH " << title << ' ' << section << " \"\" \"TartarOS " TARTAROS_VERSION "\" \"" << manual << "\"\n"
        << ".SH NAME\n"
        << name_line << '\n';
}

// A command-line word of a synopsis or an option head: options bold, metavariables italic.
std::string roff_words(std::string_view words)
{
    std::string out;
    for (size_t start = 0; start < words.size();) {
        size_t end = words.find(' ', start);
        if (end == std::string_view::npos)
            end = words.size();
        std::string_view word = words.substr(start, end - start);
        std::string tail;
        while (!word.empty() && (word.back() == ',' || word.back() == ']')) {
            tail.insert(tail.begin(), word.back());
            word.remove_suffix(1);
        }
        std::string head;
        while (!word.empty() && word.front() == '[') {
            head += '[';
            word.remove_prefix(1);
        }
        if (!out.empty())
            out += ' ';
        const bool literal = word.starts_with("-") || word == "tartaros-compile" || word == "|";
        out += head + (literal ? "\\fB" : "\\fI") + roff(word) + "\\fR" + tail;
        start = end + 1;
    }
    return out;
}

void print_see_also(std::ostream &out, std::string_view self, std::string_view docs)
{
    constexpr std::array<std::pair<std::string_view, int>, 4> kPages = {
        {{"tartaros", 1}, {"tartaros-compile", 1}, {"tartaros-exec", 1}, {"tartaros-policy", 5}}};
    out << ".SH SEE ALSO\n";
    std::vector<std::string> refs;
    for (const auto &[name, section] : kPages)
        if (name != self)
            refs.push_back(".BR " + roff(name) + " (" + std::to_string(section) + ")");
    for (size_t i = 0; i < refs.size(); ++i)
        out << refs[i] << (i + 1 < refs.size() ? ",\n" : ";\n");
    out << roff(docs)
        << " in the sources, installed with the documentation (/usr/share/doc/tartaros/docs/ from the Debian "
           "package).\n";
}

// --- the pages ----------------------------------------------------------------------------

// tartaros-compile(1), from its --help: the usage lines, the description, the options and the
// exit status as print_compile_help() writes them.
void print_compile_page(std::ostream &out)
{
    std::ostringstream help_text;
    print_compile_help(help_text, "tartaros-compile");
    std::vector<std::string> lines;
    std::istringstream in(help_text.str());
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    print_roff_head(out, "TARTAROS-COMPILE", 1, "User Commands",
                    "tartaros\\-compile \\- check a TartarOS policy and compile it into a verified plan");
    out << ".SH SYNOPSIS\n";
    size_t i = 0;
    for (; i < lines.size() && !lines[i].empty(); ++i) {
        std::string_view usage = lines[i];
        usage.remove_prefix(std::min(usage.find_first_not_of(' ', i == 0 ? 6 : 0), usage.size()));
        out << roff_words(usage) << "\n.br\n";
    }
    out << ".SH DESCRIPTION\n";
    std::string paragraph;
    for (++i; i < lines.size() && !lines[i].empty(); ++i)
        paragraph += (paragraph.empty() ? "" : " ") + lines[i];
    out << roff(paragraph) << "\n.SH OPTIONS\n";
    for (++i; i < lines.size() && !lines[i].empty(); ++i) {
        const std::string &line = lines[i];
        if (line.starts_with("  -")) {
            const size_t gap = line.find("  ", 2);
            out << ".TP\n"
                << roff_words(line.substr(2, gap == std::string::npos ? std::string::npos : gap - 2)) << '\n';
            if (gap != std::string::npos)
                out << roff(line.substr(line.find_first_not_of(' ', gap))) << '\n';
        } else {
            out << roff(line.substr(line.find_first_not_of(' '))) << '\n';
        }
    }
    paragraph.clear();
    for (++i; i < lines.size() && !lines[i].empty(); ++i)
        paragraph += (paragraph.empty() ? "" : " ") + lines[i];
    constexpr std::string_view kExitHead = "Exit status: ";
    if (paragraph.starts_with(kExitHead))
        paragraph.erase(0, kExitHead.size());
    out << ".SH EXIT STATUS\n" << roff(paragraph) << '\n';
    out << ".SH EXAMPLES\n";
    print_roff_example(out,
                       "tartaros-compile agent.toml -o ~/.cache/agent.plan\ntartaros-compile --explain "
                       "~/.cache/agent.plan\ntartaros-exec ~/.cache/agent.plan -- make test");
    print_see_also(out, "tartaros-compile", "docs/usage.md");
}

struct ExecOption {
    std::string_view head;
    std::string_view help;
};

// tartaros-exec's options: its --help is one usage line (enforcer/main.cpp), which a test checks
// against this page.
constexpr std::array<ExecOption, 5> kExecOptions = {{
    {"--strict",
     "refuse (exit 78, before the command starts) when a guarantee the plan requires cannot be installed on "
     "this host; without it the guarantee is dropped with a 'tartaros: warning: not enforced:' line and the "
     "command runs"},
    {"--log FILE",
     "write the effect log of the run to FILE: one JSON line per event (exec, denial, network), docs/effect-log.md"},
    {"--plan-fd N",
     "read the plan from descriptor N (above 2) instead of a file: how tartaros run hands over the plan it "
     "compiled, in a sealed memfd"},
    {"--help", "print the usage line and exit"},
    {"--version", "print the version and exit"},
}};

void print_exec_page(std::ostream &out)
{
    print_roff_head(out, "TARTAROS-EXEC", 1, "User Commands",
                    "tartaros\\-exec \\- run a command inside a TartarOS plan");
    out << ".SH SYNOPSIS\n"
        << roff_words("tartaros-exec [--strict] [--log FILE] PLAN.bin -- CMD [ARGS...]") << "\n.br\n"
        << roff_words("tartaros-exec [--strict] [--log FILE] --plan-fd N -- CMD [ARGS...]") << "\n.br\n"
        << roff_words("tartaros-exec --version | --help") << "\n.SH DESCRIPTION\n"
        << markdown_roff(
               "tartaros-exec reads one plan, written by tartaros-compile(1) or handed over by `tartaros run`, "
               "validates every byte of it, probes the host, and runs CMD inside it: new user, mount, PID, network, "
               "IPC, UTS and cgroup namespaces, a mount tree that hides and write-protects what the policy says, a "
               "Landlock allow-list, resource limits and a seccomp filter. It is a small static binary without a "
               "C++ runtime; it reads plans only, never policies.")
        << "\n.SH OPTIONS\n";
    for (const ExecOption &o : kExecOptions)
        out << ".TP\n" << roff_words(o.head) << '\n' << roff(o.help) << ".\n";
    out << ".SH EXIT STATUS\n"
        << roff("CMD's own status, or 128+N when it died of signal N. 78: refused, nothing ran (a usage error, an "
                "invalid plan, or under --strict a guarantee this host cannot install); the first line on stderr "
                "starts with 'tartaros:'. 125: the sandbox failed to start. 126/127: CMD is not executable / not "
                "found.")
        << "\n.SH FILES\n.TP\n.I tartaros\\-proxy\n"
        << roff(std::string("the egress proxy, port relays and credential broker, which runs outside the sandbox for "
                            "a plan whose [network] section lets anything across (allow_domains, local_ports, "
                            "expose_ports, the broker). tartaros-exec runs the one in its own directory, else the one "
                            "in ") +
                (std::string_view(TARTAROS_HELPER_FROM_BINDIR).empty()
                     ? std::string("its own directory")
                     : std::string(TARTAROS_HELPER_FROM_BINDIR) + "/ relative to it") +
                " (/usr/libexec/tartaros/tartaros-proxy for /usr/bin/tartaros-exec); never one found through "
                "$PATH, which the caller controls.")
        << '\n';
    out << ".SH EXAMPLES\n";
    print_roff_example(out,
                       "tartaros-compile agent.toml -o agent.plan\ntartaros-exec --strict agent.plan -- /bin/sh "
                       "-c 'make test'");
    print_see_also(out, "tartaros-exec", "docs/enforcement.md");
}

// tartaros-policy(5): the file format, every key of policy_keys.h.
void print_policy_page(std::ostream &out)
{
    print_roff_head(out, "TARTAROS-POLICY", 5, "File Formats",
                    "tartaros\\-policy \\- the TartarOS policy file: what a sandboxed command may read, write "
                    "and reach");
    out << ".\\\" left-adjusted: values kept whole leave no gaps\n.ad l\n";
    out << ".SH SYNOPSIS\n\\fIPOLICY\\fR.toml\n.br\n\\fIPOLICY\\fR.tart\n.SH DESCRIPTION\n"
        << markdown_roff(
               "A policy is a TOML file, or a .tart file (the same keys in TartarOS's policy language, told apart "
               "by the name). tartaros-compile(1) checks it and lowers it to a plan that tartaros-exec(1) runs "
               "commands in; `tartaros run --config POLICY` (tartaros(1)) merges it with its flags. A relative path "
               "is relative to the policy file's directory, and ~ is the home directory. A key not listed here is "
               "an error.")
        << "\n.PP\n"
        << roff("This page is generated from the compiler's table of keys, as is the key reference of "
                "docs/policy.md, the policy reference: where a meaning says \"see below\" or names a section, it is "
                "that page's.")
        << "\n.SH KEYS\n";
    for (const PolicySection &section : policy_sections()) {
        out << ".SS " << (section.name.empty() ? "\"The top level\"" : "\"" + roff(section.header) + "\"") << '\n';
        if (!section.doc.empty())
            out << markdown_roff(section.doc) << ".\n";
        for (const PolicyKey *key : section_keys(section.name)) {
            out << ".TP\n.B " << roff(key->name) << '\n'
                << "Type: " << markdown_roff(key->type) << "; default: " << markdown_roff(key->default_text) << ".\n"
                << ".br\n"
                << markdown_roff(key->doc) << ".\n";
            std::string example;
            if (!section.header.empty())
                example = std::string(section.header) + "\n";
            example += key->example;
            print_roff_example(out, example);
        }
    }
    out << ".SH EXAMPLE\n";
    print_roff_example(out,
                       "version = 1\n\n[filesystem]\nread_denies = [\"~/.ssh\", \"~/.aws\"]\nwritable_roots = "
                       "[\".\"]\nprivate_tmp = true\n\n[network]\nallow_domains = [\"github.com\"]");
    out << roff("More, each line explained: the examples in /usr/share/doc/tartaros/examples/ (examples/ in the "
                "sources).")
        << '\n';
    print_see_also(out, "tartaros-policy", "docs/policy.md");
}

}  // namespace

void print_main_help(std::ostream &out)
{
    out << "usage:";
    for (const Subcommand &s : subcommands())
        out << (&s == subcommands().data() ? " " : "       ") << "tartaros " << s.name
            << (s.synopsis.empty() ? "" : " ") << s.synopsis << '\n';
    out << "       tartaros --version | --help\n\n";
    print_wrapped(out, kAbout, 0);
    out << "\nCommands:\n";
    for (const Subcommand &s : subcommands()) {
        constexpr size_t kSummaryColumn = 16;  // the longest name, print-policy, and a space
        std::string head = "  " + std::string(s.name);
        head.resize(kSummaryColumn, ' ');
        const std::vector<std::string> lines = wrap(s.summary, kSummaryColumn);
        out << head << lines.front().substr(kSummaryColumn) << '\n';
        for (size_t i = 1; i < lines.size(); ++i)
            out << lines[i] << '\n';
    }
    out << '\n';
    print_flags_and_rules(out);
    out << '\n';
    print_wrapped(out, kOtherExit, 2);
}

void print_run_help(std::ostream &out)
{
    out << "usage: " << run_synopsis() << "\n\n";
    print_wrapped(out, kAbout, 0);
    out << '\n';
    print_flags_and_rules(out);
}

void print_bash_completion(std::ostream &out)
{
    std::string all_flags, subs;
    for (const RunOption &o : run_options())
        all_flags += std::string(o.name) + " ";
    for (const Subcommand &s : subcommands())
        subs += std::string(s.name) + " ";
    out << "# bash completion for tartaros (generated by `tartaros completion bash`; do not edit)\n"
           "_tartaros_words() {\n"
           "    mapfile -t COMPREPLY < <(compgen \"$@\")\n"
           "}\n"
           "_tartaros_files() {\n"
           "    compopt -o filenames 2>/dev/null\n"
           "    _tartaros_words -f -- \"$1\"\n"
           "}\n"
           "_tartaros() {\n"
           "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} i sub=\"\"\n"
           "    COMPREPLY=()\n"
           "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
           "        case ${COMP_WORDS[i]} in -*) ;; *) sub=${COMP_WORDS[i]}; break ;; esac\n"
           "    done\n"
           "    case $sub in\n"
           "    '') _tartaros_words -W \""
        << subs
        << "--help --version\" -- \"$cur\" ;;\n"
           "    run)\n"
           "        for ((i = 2; i < COMP_CWORD; i++)); do\n"
           "            [ \"${COMP_WORDS[i]}\" = -- ] || continue\n"
           "            if ((i == COMP_CWORD - 1)); then _tartaros_words -c -- \"$cur\"\n"
           "            else _tartaros_files \"$cur\"; fi\n"
           "            return\n"
           "        done\n"
           "        case $prev in\n"
           "        "
        << names_where(takes_files, "|")
        << ") _tartaros_files \"$cur\" ;;\n"
           "        "
        << run_option(RunFlag::Env).name
        << ") _tartaros_words -e -- \"$cur\" ;;\n"
           "        "
        << names_where(free_text, "|")
        << ") ;;\n"
           "        *) _tartaros_words -W \""
        << all_flags
        << "--\" -- \"$cur\" ;;\n"
           "        esac ;;\n"
           "    compile)\n"
           "        case $prev in -o | --output) _tartaros_files \"$cur\" ;; *)\n"
           "            if [[ $cur == -* ]]; then _tartaros_words -W \"-o --output -v --verbose --explain "
           "--json --verify --print-policy --lint --format --werror --version --help\" -- \"$cur\";\n"
           "            else _tartaros_files \"$cur\"; fi ;;\n"
           "        esac ;;\n"
           "    explain)\n"
           "        if [[ $cur == -* ]]; then _tartaros_words -W \"--json --help\" -- \"$cur\"\n"
           "        else _tartaros_files \"$cur\"; fi ;;\n"
           "    verify | print-policy)\n"
           "        if [[ $cur == -* ]]; then _tartaros_words -W \"--help\" -- \"$cur\"\n"
           "        else _tartaros_files \"$cur\"; fi ;;\n"
           "    lint)\n"
           "        case $prev in --format) _tartaros_words -W \"text json sarif\" -- \"$cur\" ;; *)\n"
           "            if [[ $cur == -* ]]; then _tartaros_words -W \"--format --werror --help\" -- \"$cur\"\n"
           "            else _tartaros_files \"$cur\"; fi ;;\n"
           "        esac ;;\n"
           "    completion) _tartaros_words -W \"bash zsh\" -- \"$cur\" ;;\n"
           "    man) _tartaros_words -W \""
        << man_page_names()
        << "\" -- \"$cur\" ;;\n"
           "    esac\n"
           "}\n"
           "complete -F _tartaros tartaros\n";
}

void print_zsh_completion(std::ostream &out)
{
    out << "#compdef tartaros\n"
           "# zsh completion for tartaros (generated by `tartaros completion zsh`; do not edit)\n"
           "_tartaros_run() {\n"
           "  local end=${words[(i)--]}\n"
           "  if (( end < CURRENT )); then\n"
           "    shift $end words\n"
           "    (( CURRENT -= end ))\n"
           "    _normal\n"
           "    return\n"
           "  fi\n"
           "  _arguments -S \\\n";
    for (const RunOption &o : run_options()) {
        out << "    '" << (repeatable(o.kind) ? "*" : "") << o.name << "[" << zsh_text(o.help) << "]";
        if (o.kind != ValueKind::None) {
            out << ":" << o.metavar << ":";
            if (takes_files(o.kind))
                out << "_files";
            else if (o.kind == ValueKind::EnvName)
                out << "_parameters -g '\\''*export*'\\''";
            else
                out << " ";
        }
        out << "' \\\n";
    }
    out << "    '--[the command follows]'\n"
           "}\n"
           "_tartaros() {\n"
           "  local curcontext=$curcontext state line\n"
           "  typeset -A opt_args\n"
           "  _arguments -C '(- *)--help[print the help]' '(- *)--version[print the version]' \\\n"
           "    '1:command:->command' '*::argument:->argument'\n"
           "  case $state in\n"
           "  command)\n"
           "    local -a commands\n"
           "    commands=(\n";
    for (const Subcommand &s : subcommands())
        out << "      '" << s.name << ":" << zsh_text(s.summary) << "'\n";
    out << "    )\n"
           "    _describe command commands ;;\n"
           "  argument)\n"
           "    case $words[1] in\n"
           "    run) _tartaros_run ;;\n"
           "    compile) _arguments '(-o --output)'{-o,--output}'[the plan to write]:PLAN:_files' "
           "'(-v --verbose)'{-v,--verbose}'[also print notes]' '--explain[print a plan]' "
           "'--json[with --explain: JSON]' "
           "'--verify[a plan against a fresh compile]' '--print-policy[print a policy as .tart]' "
           "'--lint[lint policies]' '--format[with --lint: the report format]:FORMAT:(text json sarif)' "
           "'--werror[with --lint: warnings fail too]' '--version[print the version]' '*:FILE:_files' ;;\n"
           "    explain) _arguments '--json[print JSON]' '1:PLAN:_files' ;;\n"
           "    verify) _arguments '1:PLAN:_files' ;;\n"
           "    print-policy) _arguments '1:POLICY:_files' ;;\n"
           "    lint) _arguments '--format[the report format]:FORMAT:(text json sarif)' "
           "'--werror[warnings fail too]' '*:POLICY:_files' ;;\n"
           "    completion) _values shell bash zsh ;;\n"
           "    man) _values page "
        << man_page_names()
        << " ;;\n"
           "    esac ;;\n"
           "  esac\n"
           "}\n"
           "_tartaros \"$@\"\n";
}

namespace {

void print_tartaros_page(std::ostream &out)
{
    print_roff_head(out, "TARTAROS", 1, "User Commands",
                    "tartaros \\- run a command in a sandbox for AI coding agents");
    out << ".SH SYNOPSIS\n";
    for (const Subcommand &s : subcommands())
        out << ".B tartaros " << s.name << "\n" << (s.synopsis.empty() ? "" : roff(s.synopsis) + "\n") << ".br\n";
    out << ".B tartaros\n\\-\\-version | \\-\\-help\n"
           ".SH DESCRIPTION\n"
        << roff(kAbout) << "\n.SH COMMANDS\n";
    for (const Subcommand &s : subcommands())
        out << ".TP\n.B " << s.name << "\n" << roff(s.summary) << ".\n";
    out << ".SH RUN FLAGS\n";
    for (const RunOption &o : run_options()) {
        out << ".TP\n";
        if (o.metavar.empty())
            out << ".B " << roff(o.name) << "\n";
        else
            out << ".BI " << roff(o.name) << " \" " << o.metavar << "\"\n";
        out << roff(o.help) << ".\n";
        if (!o.field.empty())
            out << "Policy field: \\fB" << roff(o.field) << "\\fR.\n";
    }
    out << ".SH MERGE RULES\n";
    for (std::string_view rule : merge_rules())
        out << ".IP \\(bu 2\n" << roff(rule) << "\n";
    out << ".SH EXIT STATUS\n" << roff(kRunExit) << "\n.PP\n" << roff(kOtherExit) << '\n';
    print_see_also(out, "tartaros", "docs/tartaros-run.md");
}

}  // namespace

std::span<const std::string_view> man_pages()
{
    return kManPages;
}

bool print_man_page(std::ostream &out, std::string_view page)
{
    if (page == "tartaros")
        print_tartaros_page(out);
    else if (page == "tartaros-compile")
        print_compile_page(out);
    else if (page == "tartaros-exec")
        print_exec_page(out);
    else if (page == "tartaros-policy")
        print_policy_page(out);
    else
        return false;
    return true;
}

}  // namespace tartaros
