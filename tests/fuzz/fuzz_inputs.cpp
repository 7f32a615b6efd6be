// tests/fuzz/fuzz_inputs.cpp — corpus files, their truncations and mutations, and the
// generated large inputs (see fuzz_inputs.h).
#include "fuzz_inputs.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

namespace tartaros::fuzz {

namespace {

namespace fs = std::filesystem;

constexpr size_t kMiB = 1 << 20;
constexpr size_t kBig = 64 << 10;

// Tokens of both syntaxes, and a few byte strings that lexers trip on: inserted whole, a
// mutation makes or breaks a construct rather than one character.
constexpr std::array<std::string_view, 52> kTokens = {
    "{",
    "}",
    ";",
    "@",
    "\"",
    "#",
    "include",
    "include \"common.tart\";",
    "[",
    "]",
    "=",
    ",",
    "\n",
    "\\",
    "\\u",
    "\\U0010FFFF",
    "\"\"",
    std::string_view("\0", 1),
    "\xff",
    "\xc3",
    "0x",
    "-",
    "99999999999999999999",
    "4294967296",
    "-2147483649",
    "version 1;",
    "filesystem {",
    "syscalls {",
    "broker { capability x {",
    "deny socket when arg0 == AF_NETLINK",
    " when ",
    " and ",
    " in {",
    " not in {",
    " errno ",
    " kill",
    "file ",
    "dir ",
    "paths g = [@g];",
    "domains d = [\"a.com\"];",
    "@secrets",
    "arg5",
    " & ",
    " | ",
    "==",
    "!=",
    "[[broker.capability]]",
    "[filesystem]",
    "include = [\"common.tart\"]",
    "\"\"\"",
    "'''",
    "= {",
};

// Bytes worth setting one byte to: ends of strings, comments, blocks and lines, NUL, the
// first byte of a multi-byte UTF-8 sequence and a stray continuation byte.
constexpr std::array<char, 14> kBytes = {'"',  '\\', '{', '}', ';',    '#',    '\n',
                                         '\r', '\0', '@', '=', '\xc3', '\x80', '\xff'};

std::string read_bytes(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

bool is_policy_name(const fs::path &path)
{
    const std::string ext = path.extension().string();
    return ext == ".tart" || ext == ".toml";
}

// Cut points of a file too large for every prefix: evenly spaced ones, and the end of each
// line up to the same count again (a cut at a line end is where a partly written file ends).
std::vector<size_t> sampled_cuts(const std::string &bytes, size_t count)
{
    std::vector<size_t> cuts;
    for (size_t i = 0; i < count; ++i)
        cuts.push_back(bytes.size() * i / count);
    const size_t every = std::max<size_t>(1, static_cast<size_t>(std::count(bytes.begin(), bytes.end(), '\n')) / count);
    size_t line = 0;
    for (size_t at = bytes.find('\n'); at != std::string::npos; at = bytes.find('\n', at + 1))
        if (line++ % every == 0)
            cuts.push_back(at + 1);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    if (!cuts.empty() && cuts.back() >= bytes.size())
        cuts.pop_back();  // the whole file is an input already
    return cuts;
}

void edit(std::string &bytes, Rng &rng)
{
    const size_t at = rng.below(bytes.size() + 1);
    switch (rng.below(6)) {
    case 0:  // flip one bit
        if (!bytes.empty())
            bytes[std::min(at, bytes.size() - 1)] ^= static_cast<char>(1u << rng.below(8));
        break;
    case 1:  // set one byte
        if (!bytes.empty())
            bytes[std::min(at, bytes.size() - 1)] = kBytes[rng.below(kBytes.size())];
        break;
    case 2:  // insert a token
        bytes.insert(at, kTokens[rng.below(kTokens.size())]);
        break;
    case 3:  // replace a short range with a token
        bytes.replace(at, 1 + rng.below(8), kTokens[rng.below(kTokens.size())]);
        break;
    case 4:  // delete a range
        bytes.erase(at, 1 + rng.below(16));
        break;
    default:  // duplicate a range in place
        bytes.insert(at, bytes.substr(at, 1 + rng.below(32)));
        break;
    }
}

std::string repeat(std::string_view unit, size_t bytes)
{
    std::string out;
    out.reserve(bytes + unit.size());
    while (out.size() < bytes)
        out += unit;
    return out;
}

}  // namespace

uint64_t Rng::next()
{
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t seed_of(const std::string &text)
{
    uint64_t hash = 0xcbf29ce484222325ull;
    for (const char c : text)
        hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    return hash;
}

std::vector<std::string> policy_files(const std::vector<std::string> &roots)
{
    std::vector<std::string> files;
    for (const std::string &root : roots) {
        if (fs::is_regular_file(root)) {
            files.push_back(fs::absolute(root).lexically_normal().string());
            continue;
        }
        for (const fs::directory_entry &entry : fs::recursive_directory_iterator(root))
            if (entry.is_regular_file() && is_policy_name(entry.path()))
                files.push_back(fs::absolute(entry.path()).lexically_normal().string());
    }
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    return files;
}

std::string mutate(const std::string &bytes, Rng &rng, size_t max_edits)
{
    std::string out = bytes;
    const size_t edits = 1 + rng.below(max_edits);
    for (size_t i = 0; i < edits; ++i)
        edit(out, rng);
    return out;
}

void add_file_inputs(const std::string &path, const Budget &budget, std::vector<Input> &out)
{
    const std::string bytes = read_bytes(path);
    out.push_back({path, bytes, path});
    const bool large = bytes.size() > budget.all_prefixes_up_to;
    if (!large) {
        for (size_t cut = 0; cut < bytes.size(); ++cut)
            out.push_back({path + " cut at " + std::to_string(cut), bytes.substr(0, cut), path});
    } else {
        for (const size_t cut : sampled_cuts(bytes, budget.sampled_prefixes))
            out.push_back({path + " cut at " + std::to_string(cut), bytes.substr(0, cut), path});
    }
    Rng rng(seed_of(fs::path(path).filename().string()));
    for (size_t i = 0; i < (large ? budget.large_mutations : budget.mutations); ++i)
        out.push_back({path + " mutation " + std::to_string(i), mutate(bytes, rng, budget.max_edits), path});
}

void add_generated_inputs(const std::string &dir, std::vector<Input> &out)
{
    const std::string tart = dir + "/generated.tart";
    const auto add = [&](const std::string &name, std::string bytes) {
        out.push_back({"generated:" + name, std::move(bytes), tart});
    };
    // 1 MiB policies whose bulk is comment and blank lines: the lexers' and line tables' scale.
    std::string policy = "version 1;\nfilesystem {\n";
    for (size_t i = 0; policy.size() < kMiB; ++i)
        policy += "    read_denies \"~/secret-" + std::to_string(i) + "\";  #" + repeat(" words", 4096) + "\n" +
            repeat("\n", 1024);
    add("1 MiB valid policy", policy + "}\n");
    std::string toml = "version = 1\n[filesystem]\nread_denies = [\n";
    for (size_t i = 0; toml.size() < kMiB; ++i)
        toml += "  \"~/secret-" + std::to_string(i) + "\",  #" + repeat(" words", 4096) + "\n" + repeat("\n", 1024);
    add("1 MiB valid TOML policy", toml + "]\n");
    Rng rng(seed_of("generated"));
    std::string soup;
    while (soup.size() < kMiB)
        soup += std::string(kTokens[rng.below(kTokens.size())]) + " ";
    add("1 MiB of random tokens", soup);
    add("1 MiB of NUL", std::string(kMiB, '\0'));
    // 64 KiB is enough for the rest: far past any real policy, nesting deeper than a
    // recursive parser's stack holds, and a quadratic pass over it takes seconds.
    add("64 KiB of '{'", "version 1;\nenv { set A = " + repeat("{", kBig));
    add("64 KiB of '}'", repeat("}", kBig));
    add("64 KiB of '['", "version = 1\nx = " + repeat("[", kBig));
    add("inline maps nested 8 Ki deep",
        "version 1;\nprocess { rlimits nofile = " + repeat("{ a = ", kBig * 3 / 4) + "1" + repeat(" }", kBig / 4) +
            "; }\n");
    add("a 64 KiB string", "version 1;\nfilesystem { read_denies \"~/" + repeat("a", kBig) + "\"; }\n");
    add("a 64 KiB word", "version 1;\nenv { passthrough " + repeat("W", kBig) + "; }\n");
    add("a 64 KiB comment", "version 1;\n#" + repeat("c", kBig));
    add("a 64 KiB number", "version 1;\nprocess { max_processes " + repeat("9", kBig) + "; }\n");
    add("64 KiB of 0xff", std::string(kBig, '\xff'));
    add("64 KiB of line ends", repeat("\r\n\n\r", kBig));
    std::string random(kBig, '\0');
    for (char &c : random)
        c = static_cast<char>(rng.next());
    add("64 KiB of random bytes", random);
    // Many settings and groups: each pass over them must scale better than quadratically.
    std::string many = "version 1;\nfilesystem {\n";
    for (size_t i = 0; i < 4096; ++i)
        many += "    read_denies \"~/secret-" + std::to_string(i) + "\";\n";
    add("4096 read_denies", many + "}\n");
    std::string chain = "version 1;\n";
    for (size_t i = 0; i < 20000; ++i)
        chain += "paths g" + std::to_string(i) + " = [@g" + std::to_string(i + 1) + "];\n";
    add("a chain of 20000 groups", chain + "paths g20000 = [\"~/x\"];\nfilesystem { read_denies @g0; }\n");
}

}  // namespace tartaros::fuzz
