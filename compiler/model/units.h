// compiler/model/units.h — the value grammar of the [process] limits: sizes, durations, CPU
// amounts, and which of them each rlimit resource takes.
//
// Sizes (memory_max, the byte rlimits): a TOML integer is bytes; a string is a decimal
// number and a unit, with no space: "512M", "2G", "1.5GiB", "64k", "100B". K M G T P and
// KiB MiB GiB TiB PiB are the same powers of 1024 (case does not matter: "64k" = "64K");
// B is bytes. KB MB GB TB PB are refused as ambiguous (10^n to some tools, 2^n to others),
// and so is a string without a unit ("512": write the integer 512). A fraction is allowed
// when the result is a whole number of bytes ("1.5G" yes, "0.3K" no).
//
// Durations (timeout, timeout_grace, the cpu and rttime rlimits): a TOML integer is seconds
// (rttime: microseconds, as the kernel counts it); a string is one or more components
// <number><unit>, largest unit first and each at most once, with no space: "90s", "5m",
// "1h30m", "250ms", "1.5h", "2d". Units: d h m s ms us, lower case only ("M" could be a
// month). The result must be whole microseconds; callers ask for coarser ones (timeout:
// milliseconds, the cpu rlimit: seconds).
//
// CPU amounts (cpu_max): a TOML integer or float is a number of CPUs (0.5, 2); a string is
// a percentage of one CPU ("50%", "150%", "12.5%"). The result is a CFS quota per 100 ms
// period, rounded to the nearest microsecond.
//
// Every function here checks only the grammar and what fits in the result; the ranges of
// the limits are the front-end's (frontend_process.cpp). An error message quotes the value
// as written and ends with a hint; the caller prefixes the key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tartaros::units {

struct UnitError {
    std::string message;  // one line: what is wrong, then "; write ..." or similar
    std::string rule_id;  // "invalid-size", "invalid-duration" or "invalid-cpu"
};

// A size string, in bytes.
std::optional<uint64_t> parse_size(std::string_view text, UnitError &err);

// A duration string, in microseconds.
std::optional<uint64_t> parse_duration_us(std::string_view text, UnitError &err);

// A CPU percentage string ("50%"), as a quota in microseconds per 100000 us.
std::optional<uint64_t> parse_cpu_percent(std::string_view text, UnitError &err);

// A number of CPUs (from a TOML integer or float), as a quota in microseconds per 100000 us;
// refuses negative, NaN and infinite numbers and ones too large to count.
std::optional<uint64_t> cpu_quota_of(double cpus, UnitError &err);

// Exact text for messages and --explain, in the grammar above where it can be:
// 4294967296 -> "4G", 1572864 -> "1536K", 1000 -> "1000 bytes", 0 -> "0"; 5400000 ms -> "1h30m",
// 250 -> "250ms", 0 -> "0s"; a quota of 50000 -> "0.5", 150000 -> "1.5" (CPUs).
std::string format_size(uint64_t bytes);
std::string format_duration_ms(uint64_t ms);
std::string format_duration_us(uint64_t us);
std::string format_cpus(uint64_t quota_us);

// What an rlimit resource counts, which decides the values it takes.
enum class RlimitUnit {
    Bytes,         // sizes: fsize data stack core memlock as msgqueue
    Seconds,       // cpu: an integer of seconds, or a duration of whole seconds
    Microseconds,  // rttime: an integer of microseconds, or a duration
    Count          // integers: nproc nofile locks sigpending nice rtprio
};

struct RlimitResource {
    const char *name;  // the policy's key, e.g. "nofile"
    uint32_t number;   // the Linux RLIMIT_* number
    RlimitUnit unit;
    const char *counts;  // what it limits, for messages: "open file descriptors"
};

// The resources TP_RLIMIT_KNOWN admits, in ascending number.
const RlimitResource *rlimit_resources(std::size_t &count);
const RlimitResource *rlimit_by_name(std::string_view name);
const RlimitResource *rlimit_by_number(uint32_t number);

}  // namespace tartaros::units
