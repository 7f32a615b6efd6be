// compiler/cli/run_command.h — `tartaros run`: the flags and the --config policy into a plan, the
// plan into tartaros-exec. The plan comes from the plan cache (plan_cache.h) when an entry of
// the same key still matches what its compile read, else from a compile, whose plan is then
// stored; --no-cache compiles and stores nothing.
#pragma once

#include <span>
#include <string>

namespace tartaros {

// Runs `tartaros run ARGS` (the arguments after "run"); returns only on failure, with the exit
// status (kExitRefusal, kExitStartup): on success the process is tartaros-exec.
int run_command(std::span<const std::string> args);

}  // namespace tartaros
