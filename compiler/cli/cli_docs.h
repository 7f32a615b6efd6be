// compiler/cli/cli_docs.h — everything `tartaros` prints about itself, generated from the tables
// of cli_options.h and the merge rules of flags_policy.h: --help, `tartaros run --help`, the
// bash and zsh completion scripts and the man pages. The build runs the built binary to
// write the last ones (compiler/CMakeLists.txt), so they cannot drift from the parser: the
// pages of tartaros and tartaros-compile from their option tables and help, tartaros-policy(5)
// from the table of policy keys (policy_keys.h).
#pragma once

#include <ostream>
#include <span>
#include <string_view>

namespace tartaros {

void print_main_help(std::ostream &out);  // every subcommand, then the run flags
void print_run_help(std::ostream &out);   // `tartaros run`: every flag with its policy field
void print_bash_completion(std::ostream &out);
void print_zsh_completion(std::ostream &out);

// The man pages `tartaros man PAGE` prints, in roff: "tartaros" (the default), "tartaros-compile",
// "tartaros-exec" (section 1) and "tartaros-policy" (section 5: the policy file's format, every key
// of policy_keys.h with its type, default, meaning and example).
std::span<const std::string_view> man_pages();
bool print_man_page(std::ostream &out, std::string_view page);  // false for a name not in man_pages()

}  // namespace tartaros
