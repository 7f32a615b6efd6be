// tests/fuzz/targets/fuzz_cache_entry.cpp — the plan cache's entry reader
// (shared/plan_cache_entry.h), which the tartaros launcher and tartaros-cli both run on the
// files of the cache directory, against the compiler's writer (compiler/cli/plan_cache.h).
// The input is an entry whose checksum the target sets first: a random checksum would only
// ever test the checksum.
// Properties, for any bytes:
//  - no crash, no undefined behaviour, no read outside the input;
//  - every field an accepted entry gives (key, warnings, each input's path and answer, the
//    plan) lies inside the input, and each input's question is one host_answer.h knows;
//  - the compiler's reader accepts exactly what the shared one accepts, and the writer gives
//    an accepted entry back byte for byte (the format has one encoding).
#include <cstring>
#include <vector>

#include "fuzz_target.h"
#include "plan_cache.h"
#include "plan_cache_entry.h"
#include "plan_reader.h"

namespace {

bool inside(const tc_bytes &b, const std::vector<uint8_t> &in)
{
    return b.len == 0 ||
        (b.data >= in.data() && b.len <= in.size() && b.data - in.data() <= static_cast<ptrdiff_t>(in.size() - b.len));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    std::vector<uint8_t> bytes(data, data + size);
    if (bytes.size() >= TC_HEADER_SIZE && bytes.size() <= TC_MAX_ENTRY) {
        std::memset(bytes.data() + TC_CHECKSUM_OFFSET, 0, 8);
        const uint64_t checksum = tp_checksum(bytes.data(), static_cast<uint32_t>(bytes.size()), TC_CHECKSUM_OFFSET);
        std::memcpy(bytes.data() + TC_CHECKSUM_OFFSET, &checksum, sizeof checksum);
    }
    tc_entry entry{};
    const bool accepted = tc_entry_parse(bytes.data(), bytes.size(), &entry) == 1;
    const std::optional<tartaros::CacheEntry> decoded = tartaros::decode_cache_entry(bytes);
    FUZZ_ASSERT(accepted == decoded.has_value(), "the compiler's reader and the shared one disagree");
    if (!accepted)
        return 0;
    FUZZ_ASSERT(inside(entry.key, bytes) && inside(entry.warnings, bytes) && inside(entry.plan, bytes),
                "a field outside the entry");
    const uint8_t *at = entry.inputs;
    for (uint32_t i = 0; i < entry.input_count; ++i) {
        tc_input in{};
        at = tc_next_input(&entry, at, &in);
        FUZZ_ASSERT(inside(in.path, bytes) && inside(in.answer, bytes), "an input outside the entry");
        FUZZ_ASSERT(in.question >= TH_CONTENT && in.question <= TH_IDENTITY, "an unknown question");
        FUZZ_ASSERT(at <= entry.inputs_end, "the inputs run past their end");
    }
    FUZZ_ASSERT(at == entry.inputs_end, "the inputs end before their end");
    FUZZ_ASSERT(tartaros::encode_cache_entry(*decoded) == bytes, "written back, the entry differs");
    return 0;
}
