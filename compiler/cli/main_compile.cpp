// tartaros-compile: `tartaros compile` under its own name (compile_command.h).
#include <iostream>
#include <string>
#include <vector>

#include "compile_command.h"
#include "diagnostics.h"

int main(int argc, char **argv)
{
    const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    const int code = tartaros::compile_command(args, "tartaros-compile");
    std::cout.flush();
    return std::cout ? code : tartaros::print_refusal("cannot write to standard output");
}
