// tests/fuzz/fuzz_inputs.h — the inputs of the corpus test: every corpus file, truncations
// of it, deterministic mutations of it, and large inputs generated in memory.
//
// Deterministic: the same files give the same inputs in the same order on every run and
// host (the mutations of a file are seeded by its name, not by the clock), so a failure
// found once is found again, and adding a file does not change the inputs of the others.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tartaros::fuzz {

// One input: its bytes, a name that says how it was made (for failure reports), and the
// path of the file it came from (display names sit in that file's directory, so relative
// paths and includes resolve where the file lies).
struct Input {
    std::string name;
    std::string bytes;
    std::string origin;  // an absolute file path; its extension is replaced for each display name
};

// How many inputs each file yields.
// A large file is one past all_prefixes_up_to: it gets a sample of prefixes and fewer
// mutations (its parses cost more, and its mutations differ from each other less).
struct Budget {
    size_t all_prefixes_up_to = 1024;  // files up to this size: every prefix
    size_t sampled_prefixes = 32;      // prefixes of a large file (evenly spaced, plus as many line ends)
    size_t mutations = 48;             // mutated copies of each file
    size_t large_mutations = 16;       // mutated copies of a large file
    size_t max_edits = 4;              // edits per mutated copy (1..max_edits)
};

// A small fast PRNG (splitmix64): the same seed gives the same sequence everywhere.
class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}
    uint64_t next();
    size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(next() % n); }

private:
    uint64_t state_;
};

// FNV-1a of `text`: seeds that depend on a file's name only.
uint64_t seed_of(const std::string &text);

// Every regular file ending in .tart or .toml under each of `roots` (files or directories,
// recursively), sorted by path. Golden `.expected` files and the like are skipped.
std::vector<std::string> policy_files(const std::vector<std::string> &roots);

// The file itself, its truncations and its mutations, appended to `out`.
void add_file_inputs(const std::string &path, const Budget &budget, std::vector<Input> &out);

// One mutation of `bytes`: 1..max_edits edits, each a bit flip, a byte set to a value that
// matters to a lexer, a token inserted or substituted (`{ } ; @ " # include`...), a range
// deleted or duplicated.
std::string mutate(const std::string &bytes, Rng &rng, size_t max_edits);

// Inputs too large to keep in the repository, named "generated:...", with display names in
// `dir`: 1 MiB valid policies (both syntaxes), 1 MiB of token soup and of NULs; 64 KiB of
// unbalanced braces and brackets, nested inline maps, one string, word, comment and number,
// 0xff bytes, line ends and random bytes; 4096 paths; a chain of 20000 groups. (Long group
// names are corpus/long-group-names.tart: longer ones cost "did you mean" gigabytes.)
void add_generated_inputs(const std::string &dir, std::vector<Input> &out);

}  // namespace tartaros::fuzz
