// compiler/cli/compile_command.h — the compiler's command line, once: `tartaros-compile ARGS`
// is `tartaros compile ARGS`, with the same help and the same refusals. A policy into a
// verified plan (-o), any plan back into text (--explain), a plan against a fresh compile of
// its policy (--verify), a policy back into normalised .tart text (--print-policy,
// print_policy.h), or policies checked without a plan (--lint, the pipeline of lint.h).
// `program` is how the caller was invoked ("tartaros-compile", "tartaros compile"): the
// usage lines and the pointer to --help name it.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <string_view>

namespace tartaros {

// Runs the command line `args` (without the program's name); returns the exit status.
int compile_command(std::span<const std::string> args, std::string_view program);

void print_compile_help(std::ostream &out, std::string_view program);

// "tartaros: usage: WHAT (see PROGRAM --help)"; returns kExitRefusal.
int compile_usage_error(std::string_view program, const std::string &what);

}  // namespace tartaros
