// tests/fuzz/fuzz_check.h — what must hold for any bytes given to the front-ends, shared by
// the corpus test (fuzz_corpus.cpp) and the libFuzzer target (fuzz_frontend.cpp).
//
// For bytes B under a display name D (.tart: the DSL front-end, else TOML):
//  - parse_policy_text(B, D) returns, throws nothing, and returns a policy exactly when it
//    reported no error; its diagnostics print, in at most 64 bytes per byte of B (plus
//    64 KiB): a diagnostic for every byte of a line, each printed with that line, would make
//    a few KiB of input megabytes of output;
//  - a policy it returns prints (print_policy); the printout parses as .tart without error
//    and prints the same bytes again (print_policy.h's identity), unless the policy holds a
//    string that is not UTF-8 (which print_policy.h says no .tart parser reads back);
//  - lower_policy of it returns plan bytes exactly when it reported no error.
// Crashes, sanitizer reports and hangs are the caller's to catch.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>

namespace tartaros::fuzz {

// What happened to one input: how far it went, and the broken property ("" when none).
struct Outcome {
    bool parsed = false;   // the front-end returned a policy
    bool lowered = false;  // lower_policy ran on it (not a model lowered before) and gave a plan
    std::string failure;
};

class Checker {
public:
    // `lower`: run lower_policy too (the libFuzzer target may leave it out for speed).
    explicit Checker(bool lower = true) : lower_(lower) {}

    Outcome check(std::string_view bytes, const std::string &display_path);

    size_t models_lowered() const { return lowered_.size(); }

private:
    std::string check_policy_text(std::string_view bytes, const std::string &display_path, Outcome &outcome);

    bool lower_;
    // The printouts of the models lowered so far: lowering depends on the model alone, and
    // truncations and mutations give the same model again and again.
    std::unordered_set<std::string> lowered_;
};

// The file name with its extension replaced: "dir/a.tart" → "dir/a.toml".
std::string with_extension(const std::string &path, std::string_view ext);

}  // namespace tartaros::fuzz
