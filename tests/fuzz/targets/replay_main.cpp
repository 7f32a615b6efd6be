// tests/fuzz/targets/replay_main.cpp — a libFuzzer target without libFuzzer: main() runs
// LLVMFuzzerTestOneInput on every file named, or on every file of every directory named, in
// name order. The plain build links each target with it, and ctest replays the target's seed
// corpus (tests/fuzz/seeds/TARGET), so whatever fuzzing found stays checked without clang.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_target.h"

namespace {

std::vector<uint8_t> read_file(const std::filesystem::path &p)
{
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char **argv)
{
    std::vector<std::filesystem::path> files;
    for (int i = 1; i < argc; i++) {
        std::filesystem::path arg(argv[i]);
        if (std::filesystem::is_directory(arg)) {
            for (const auto &e : std::filesystem::directory_iterator(arg))
                if (e.is_regular_file())
                    files.push_back(e.path());
        } else {
            files.push_back(arg);
        }
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        std::fprintf(stderr, "%s: no input (usage: %s FILE|DIR...)\n", argv[0], argv[0]);
        return 2;
    }
    for (const auto &f : files) {
        std::vector<uint8_t> bytes = read_file(f);
        std::fprintf(stderr, "%s\n", f.c_str());
        LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    }
    std::printf("%zu inputs replayed, none broke a property\n", files.size());
    return 0;
}
