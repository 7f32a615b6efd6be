// compiler/cli/cli_docs.h — everything `tartaros` prints about itself, generated from the tables
// of cli_options.h and the merge rules of flags_policy.h: --help, `tartaros run --help`, the
// bash and zsh completion scripts and the man page. The build runs the built binary to
// install the last three (compiler/CMakeLists.txt), so they cannot drift from the parser.
#pragma once

#include <ostream>

namespace tartaros {

void print_main_help(std::ostream &out);  // every subcommand, then the run flags
void print_run_help(std::ostream &out);   // `tartaros run`: every flag with its policy field
void print_bash_completion(std::ostream &out);
void print_zsh_completion(std::ostream &out);
void print_man_page(std::ostream &out);  // roff, section 1

}  // namespace tartaros
