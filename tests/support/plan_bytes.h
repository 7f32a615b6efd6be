// tests/support/plan_bytes.h — plans as bytes for the reader's tests: an exact-size 8-aligned
// copy (AddressSanitizer sees any read past the end), the open result, and forging fields with
// the checksum resealed.
#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "plan_reader.h"

namespace plan_bytes {

// Plan bytes in an 8-aligned heap block of exactly the plan's size, so that AddressSanitizer
// flags any read past the end.
struct Buf {
    std::unique_ptr<uint8_t[]> mem;
    uint32_t len = 0;

    explicit Buf(const uint8_t *data, std::size_t n) : mem(new uint8_t[n ? n : 1]), len(static_cast<uint32_t>(n))
    {
        if (n)
            std::memcpy(mem.get(), data, n);
    }
    explicit Buf(const std::vector<uint8_t> &v) : Buf(v.data(), v.size()) {}
};

struct Result {
    int rc;
    std::string err;
    tp_plan plan;
};

inline Result open_plan(const uint8_t *data, uint32_t len)
{
    Result r{};
    char err[256];
    std::memset(err, 'x', sizeof err);
    r.rc = tp_plan_open(data, len, &r.plan, err, sizeof err);
    r.err = err;
    return r;
}

inline Result open_plan(const std::vector<uint8_t> &bytes)
{
    Buf b(bytes);
    Result r = open_plan(b.mem.get(), b.len);
    r.plan = {};  // points into `b`, which dies here
    return r;
}

inline void reseal(std::vector<uint8_t> &bytes)
{
    uint64_t sum = tp_checksum(bytes.data(), static_cast<uint32_t>(bytes.size()), offsetof(tp_header, checksum));
    std::memcpy(bytes.data() + offsetof(tp_header, checksum), &sum, sizeof sum);
}

inline void put_u32(std::vector<uint8_t> &bytes, std::size_t off, uint32_t v)
{
    std::memcpy(bytes.data() + off, &v, sizeof v);
}

inline uint32_t get_u32(const std::vector<uint8_t> &bytes, std::size_t off)
{
    uint32_t v;
    std::memcpy(&v, bytes.data() + off, sizeof v);
    return v;
}

// Byte offset of section-table entry `type`'s field at `field_off` (e.g. offsetof(tp_section, count)).
inline std::size_t section_field(const std::vector<uint8_t> &bytes, uint32_t type, std::size_t field_off)
{
    uint32_t count = get_u32(bytes, offsetof(tp_header, section_count));
    for (uint32_t i = 0; i < count; i++) {
        std::size_t entry = sizeof(tp_header) + i * sizeof(tp_section);
        if (get_u32(bytes, entry + offsetof(tp_section, type)) == type)
            return entry + field_off;
    }
    FAIL("no section of type " << type);
    return 0;
}

inline std::size_t section_data(const std::vector<uint8_t> &bytes, uint32_t type)
{
    return get_u32(bytes, section_field(bytes, type, offsetof(tp_section, offset)));
}

// Sets a u32 at `off`, reseals the checksum and expects a refusal mentioning `reason`.
inline void expect_refused_after(std::vector<uint8_t> bytes, std::size_t off, uint32_t value, const char *reason)
{
    put_u32(bytes, off, value);
    reseal(bytes);
    Result r = open_plan(bytes);
    CHECK(r.rc == -1);
    CHECK_MESSAGE(r.err.find(reason) != std::string::npos, "error was: " << r.err);
}

}  // namespace plan_bytes
