// tests/fuzz/fuzz_frontend.cpp — the libFuzzer target: each input through the checks of
// fuzz_check.h as a .tart and as a .toml file in the corpus directory (so `include
// "common.tart"` finds the corpus's files). A broken property aborts, and libFuzzer keeps
// the input. Built only with a clang that has -fsanitize=fuzzer (tests/fuzz/CMakeLists.txt):
//
//   build/fuzz/tests/fuzz/fuzz_frontend -dict=tests/fuzz/tart.dict -max_total_time=600 \
//       NEW_DIR tests/fuzz/corpus examples tests/compiler/golden
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static tartaros::fuzz::Checker checker;
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    for (const char *name : {"/fuzz-input.tart", "/fuzz-input.toml"}) {
        const std::string display = std::string(TARTAROS_FUZZ_CORPUS) + name;
        const tartaros::fuzz::Outcome outcome = checker.check(bytes, display);
        if (!outcome.failure.empty()) {
            std::fprintf(stderr, "fuzz_frontend: %s: %s\n", display.c_str(), outcome.failure.c_str());
            std::abort();
        }
    }
    return 0;
}
