// compiler/cli/cli_docs.cpp — see cli_docs.h.
#include "cli_docs.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "cli_options.h"
#include "flags_policy.h"

namespace tartaros {

namespace {

constexpr size_t kWidth = 78;

constexpr std::string_view kAbout =
    "TartarOS runs a command in a sandbox for AI coding agents. `tartaros run` turns its flags, "
    "and the policy file given with --config, into a verified plan in memory and hands it to "
    "tartaros-exec (next to this binary) on a sealed memfd: the same enforcer as "
    "`tartaros-exec PLAN`, never a second one.";

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
    for (char c : text) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
    }
    if (!out.empty() && (out.front() == '.' || out.front() == '\''))
        out.insert(0, "\\&");
    return out;
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
           "    esac ;;\n"
           "  esac\n"
           "}\n"
           "_tartaros \"$@\"\n";
}

void print_man_page(std::ostream &out)
{
    out << ".\\\" generated by `tartaros man` from the option table; do not edit\n"
           ".TH TARTAROS 1 \"\" \"TartarOS " TARTAROS_VERSION "\" \"User Commands\"\n"
           ".SH NAME\n"
           "tartaros \\- run a command in a sandbox for AI coding agents\n"
           ".SH SYNOPSIS\n";
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
    out << ".SH EXIT STATUS\n"
        << roff(kRunExit) << "\n.PP\n"
        << roff(kOtherExit)
        << "\n.SH SEE ALSO\n"
           ".BR tartaros\\-compile ,\n"
           ".BR tartaros\\-exec ;\n"
           "docs/tartaros\\-run.md in the source tree.\n";
}

}  // namespace tartaros
