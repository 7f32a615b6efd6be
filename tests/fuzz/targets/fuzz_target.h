// tests/fuzz/targets/fuzz_target.h — what every libFuzzer target of tests/fuzz/targets/ shares:
// the one way a property fails (a line naming it, then abort(), so libFuzzer keeps the input
// and the replay's ctest fails), and a reader that takes typed values off the front of an
// input (libFuzzer's FuzzedDataProvider is clang's; the replay build is gcc's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace tartaros::fuzz {

[[noreturn]] inline void property_failed(const char *file, int line, const char *what, std::string_view detail)
{
    std::fprintf(stderr, "%s:%d: property broken: %s: %.*s\n", file, line, what, static_cast<int>(detail.size()),
                 detail.data());
    std::abort();
}

// Input bytes taken front to back; past the end every value is 0 and every string empty.
class Bytes {
public:
    Bytes(const uint8_t *data, size_t size) : p_(data), n_(size) {}
    uint8_t u8()
    {
        if (n_ == 0)
            return 0;
        n_--;
        return *p_++;
    }
    uint16_t u16() { return static_cast<uint16_t>(u8() | u8() << 8); }
    uint32_t u32() { return u16() | static_cast<uint32_t>(u16()) << 16; }
    uint64_t u64() { return u32() | static_cast<uint64_t>(u32()) << 32; }
    bool flag() { return u8() & 1u; }
    // Up to `max` bytes, the length from one byte.
    std::string str(size_t max = 255)
    {
        size_t len = u8() % (max + 1);
        if (len > n_)
            len = n_;
        std::string s(reinterpret_cast<const char *>(p_), len);
        p_ += len;
        n_ -= len;
        return s;
    }
    std::string_view rest() const { return {reinterpret_cast<const char *>(p_), n_}; }
    size_t left() const { return n_; }

private:
    const uint8_t *p_;
    size_t n_;
};

// One line: no CR, LF or NUL (a refusal's reason, a log line's detail).
inline bool one_line(std::string_view s)
{
    return s.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

// Whether `hay` holds `needle`, ASCII case ignored.
inline bool contains_icase(std::string_view hay, std::string_view needle)
{
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (needle.empty() || needle.size() > hay.size())
        return needle.empty();
    for (size_t i = 0; i + needle.size() <= hay.size(); i++) {
        size_t k = 0;
        while (k < needle.size() && lower(hay[i + k]) == lower(needle[k]))
            k++;
        if (k == needle.size())
            return true;
    }
    return false;
}

}  // namespace tartaros::fuzz

// A property of the target: when it does not hold, the input is a finding.
#define FUZZ_ASSERT(cond, detail)                                                                                      \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ::tartaros::fuzz::property_failed(__FILE__, __LINE__, #cond, (detail));                                    \
    } while (0)
