// compiler/model/units.cpp — see units.h. Numbers are parsed as exact decimals and scaled in
// 128-bit integers, so "1.5GiB" is exactly 1610612736 and no float rounding reaches a size
// or a duration.
#include "units.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <sstream>

#include "paths.h"

namespace tartaros::units {

namespace {

using u128 = unsigned __int128;

constexpr uint64_t kPeriodUs = 100000;  // ir/plan.h TP_CPU_PERIOD_US
constexpr uint32_t kMaxWholeDigits = 19;
constexpr uint32_t kMaxFracDigits = 18;

// whole + frac / 10^frac_digits, as written.
struct Decimal {
    uint64_t whole = 0;
    uint64_t frac = 0;
    uint32_t frac_digits = 0;
};

uint64_t pow10(uint32_t n)
{
    uint64_t v = 1;
    while (n-- > 0)
        v *= 10;
    return v;
}

bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

// Digits, optionally '.' and more digits, at the start of `text`. Returns the characters
// used, 0 when there is no number there (or it has too many digits to be a limit).
size_t parse_decimal(std::string_view text, Decimal &out)
{
    size_t i = 0;
    out = {};
    while (i < text.size() && is_digit(text[i])) {
        if (i == kMaxWholeDigits)
            return 0;
        out.whole = out.whole * 10 + static_cast<uint64_t>(text[i] - '0');
        i++;
    }
    if (i == 0)
        return 0;
    if (i == text.size() || text[i] != '.')
        return i;
    size_t j = i + 1;
    while (j < text.size() && is_digit(text[j])) {
        if (out.frac_digits == kMaxFracDigits)
            return 0;
        out.frac = out.frac * 10 + static_cast<uint64_t>(text[j] - '0');
        out.frac_digits++;
        j++;
    }
    return out.frac_digits == 0 ? 0 : j;  // "1." is not a number
}

enum class Scaled { Ok, NotWhole, TooLarge };

// d * unit, exactly.
Scaled scale(const Decimal &d, uint64_t unit, u128 &out)
{
    const u128 den = pow10(d.frac_digits);
    const u128 frac = static_cast<u128>(d.frac) * unit;
    if (frac % den != 0)
        return Scaled::NotWhole;
    out = static_cast<u128>(d.whole) * unit + frac / den;
    return out >= ~0ull ? Scaled::TooLarge : Scaled::Ok;  // ~0 is RLIM_INFINITY, never a size
}

// "text" in double quotes, unlike paths.h's 'quoted': a size or duration is a TOML string value.
std::string quoted(std::string_view text)
{
    return "\"" + printable(text) + "\"";
}

std::string lower(std::string_view text)
{
    std::string out;
    for (char c : text)
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::nullopt_t fail(UnitError &err, std::string message, const char *rule_id)
{
    err.message = std::move(message);
    err.rule_id = rule_id;
    return std::nullopt;
}

const char kSizeHint[] = "write an integer of bytes or a number with a unit: \"512M\", \"2G\", \"1.5GiB\" "
                         "(K M G T P = KiB MiB GiB TiB PiB, powers of 1024)";

struct SizeUnit {
    const char *name;  // lower case
    uint64_t bytes;
};
constexpr SizeUnit kSizeUnits[] = {
    {"b", 1},           {"k", 1ull << 10},   {"kib", 1ull << 10}, {"m", 1ull << 20},   {"mib", 1ull << 20},
    {"g", 1ull << 30},  {"gib", 1ull << 30}, {"t", 1ull << 40},   {"tib", 1ull << 40}, {"p", 1ull << 50},
    {"pib", 1ull << 50}};

std::nullopt_t size_unit_error(std::string_view text, std::string_view number, std::string_view unit, UnitError &err)
{
    const std::string u = lower(unit);
    if (u.size() == 2 && u[1] == 'b' && std::string_view("kmgtp").find(u[0]) != std::string_view::npos) {
        const char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(u[0])));
        const std::string n(number);
        return fail(err,
                    quoted(text) + " is ambiguous: " + std::string(unit) + " means a power of 1000 to some tools and " +
                        "of 1024 to others; write \"" + n + letter + "\" or \"" + n + letter + "iB\" (powers of 1024)" +
                        ", or an integer of bytes",
                    "invalid-size");
    }
    return fail(err, quoted(text) + ": unknown unit " + quoted(unit) + "; " + kSizeHint, "invalid-size");
}

const char kDurationHint[] = "durations are like \"90s\", \"5m\", \"1h30m\", \"250ms\" (units d h m s ms us, "
                             "largest first)";

struct DurationUnit {
    const char *name;
    uint64_t us;
};
constexpr DurationUnit kDurationUnits[] = {{"d", 86400000000ull}, {"h", 3600000000ull}, {"m", 60000000ull},
                                           {"s", 1000000ull},     {"ms", 1000ull},      {"us", 1ull}};

}  // namespace

std::optional<uint64_t> parse_size(std::string_view text, UnitError &err)
{
    if (text.find_first_of(" \t") != std::string_view::npos)
        return fail(err, quoted(text) + ": no spaces in a size; " + kSizeHint, "invalid-size");
    Decimal d;
    const size_t used = parse_decimal(text, d);
    if (used == 0) {
        if (!text.empty() && text.front() == '-')
            return fail(err, quoted(text) + " is negative; " + kSizeHint, "invalid-size");
        return fail(err, quoted(text) + " is not a size; " + kSizeHint, "invalid-size");
    }
    const std::string_view number = text.substr(0, used), unit = text.substr(used);
    if (unit.empty())
        return fail(err,
                    quoted(text) + " has no unit; write " + std::string(number) + " (bytes, without quotes) or \"" +
                        std::string(number) + "M\"",
                    "invalid-size");
    const std::string u = lower(unit);
    for (const SizeUnit &s : kSizeUnits) {
        if (u != s.name)
            continue;
        u128 bytes = 0;
        switch (scale(d, s.bytes, bytes)) {
        case Scaled::Ok: return static_cast<uint64_t>(bytes);
        case Scaled::NotWhole:
            return fail(err,
                        quoted(text) +
                            " is not a whole number of bytes; write an integer of bytes or a size "
                            "that is one, like \"1.5G\"",
                        "invalid-size");
        case Scaled::TooLarge: return fail(err, quoted(text) + " is too large to be a size", "invalid-size");
        }
    }
    return size_unit_error(text, number, unit, err);
}

std::optional<uint64_t> parse_duration_us(std::string_view text, UnitError &err)
{
    if (text.empty())
        return fail(err, "an empty string is not a duration; " + std::string(kDurationHint), "invalid-duration");
    if (text.find_first_of(" \t") != std::string_view::npos)
        return fail(err, quoted(text) + ": no spaces in a duration; " + kDurationHint, "invalid-duration");
    u128 total = 0;
    size_t rank = 0;  // index in kDurationUnits the next component must be at or after
    for (size_t i = 0; i < text.size();) {
        Decimal d;
        const size_t used = parse_decimal(text.substr(i), d);
        if (used == 0)
            return fail(
                err, quoted(text) + (text.front() == '-' ? " is negative; " : " is not a duration; ") + kDurationHint,
                "invalid-duration");
        size_t end = i + used;
        while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end])))
            end++;
        const std::string_view unit = text.substr(i + used, end - i - used);
        if (unit.empty() && end == text.size())
            return fail(err,
                        quoted(text) + (i == 0 ? " has no unit; " : ": its last number has no unit; ") + kDurationHint,
                        "invalid-duration");
        const auto *found = std::find_if(std::begin(kDurationUnits), std::end(kDurationUnits),
                                         [&](const DurationUnit &u) { return unit == u.name; });
        if (unit.empty() || found == std::end(kDurationUnits))
            return fail(err,
                        quoted(text) + ": unknown unit " + quoted(unit.empty() ? text.substr(end, 1) : unit) + "; " +
                            kDurationHint,
                        "invalid-duration");
        const size_t at = static_cast<size_t>(found - std::begin(kDurationUnits));
        if (at < rank)
            return fail(err, quoted(text) + ": units must come largest first, each once (\"1h30m\", not \"30m1h\")",
                        "invalid-duration");
        rank = at + 1;
        u128 part = 0;
        if (scale(d, found->us, part) == Scaled::NotWhole)
            return fail(err, quoted(text) + " is finer than a microsecond", "invalid-duration");
        total += part;
        if (total >= ~0ull)
            return fail(err, quoted(text) + " is too long to be a duration", "invalid-duration");
        i = end;
    }
    return static_cast<uint64_t>(total);
}

std::optional<uint64_t> parse_cpu_percent(std::string_view text, UnitError &err)
{
    const char *hint = "write a number of CPUs (0.5, 2) or a percentage of one CPU (\"50%\", \"150%\")";
    Decimal d;
    const size_t used = parse_decimal(text, d);
    if (used != 0 && used == text.size())
        return fail(err,
                    quoted(text) + " has no '%'; write \"" + std::string(text) + "%\" (of one CPU) or " +
                        std::string(text) + " (CPUs, without quotes)",
                    "invalid-cpu");
    if (used == 0 || text.substr(used) != "%")
        return fail(err,
                    quoted(text) +
                        (!text.empty() && text.front() == '-' ? " is negative; " : " is not a CPU amount; ") + hint,
                    "invalid-cpu");
    if (d.whole > 1000000000000ull)
        return fail(err, quoted(text) + " is too large to be a CPU amount", "invalid-cpu");
    // percent * 1000 us, rounded to the nearest microsecond (half up).
    const u128 den = pow10(d.frac_digits);
    const u128 scaled = (static_cast<u128>(d.whole) * den + d.frac) * (kPeriodUs / 100);
    return static_cast<uint64_t>((scaled + den / 2) / den);
}

std::optional<uint64_t> cpu_quota_of(double cpus, UnitError &err)
{
    std::ostringstream written;
    written << cpus;
    if (!std::isfinite(cpus))
        return fail(err, written.str() + " is not a number of CPUs; write one like 0.5 or 2, or \"50%\"",
                    "invalid-cpu");
    if (cpus < 0)
        return fail(err, written.str() + " is negative; write a number of CPUs like 0.5 or 2, or \"50%\"",
                    "invalid-cpu");
    if (cpus > 1e9)
        return fail(err, written.str() + " CPUs is too large to be a CPU amount", "invalid-cpu");
    return static_cast<uint64_t>(std::llround(cpus * static_cast<double>(kPeriodUs)));
}

std::string format_size(uint64_t bytes)
{
    static const char kLetters[] = "KMGTP";
    for (int shift = 50; shift >= 10; shift -= 10) {
        const uint64_t unit = 1ull << shift;
        if (bytes != 0 && bytes % unit == 0)
            return std::to_string(bytes / unit) + kLetters[shift / 10 - 1];
    }
    return std::to_string(bytes) + (bytes == 0 ? "" : bytes == 1 ? " byte" : " bytes");
}

std::string format_duration_us(uint64_t us)
{
    if (us == 0)
        return "0s";
    std::string out;
    for (const DurationUnit &u : kDurationUnits) {
        if (us >= u.us) {
            out += std::to_string(us / u.us) + u.name;
            us %= u.us;
        }
    }
    return out;
}

std::string format_duration_ms(uint64_t ms)
{
    return format_duration_us(ms > ~0ull / 1000 ? ~0ull : ms * 1000);
}

std::string format_cpus(uint64_t quota_us)
{
    std::string out = std::to_string(quota_us / kPeriodUs);
    std::string frac = std::to_string(kPeriodUs + quota_us % kPeriodUs).substr(1);  // 5 digits
    while (!frac.empty() && frac.back() == '0')
        frac.pop_back();
    return frac.empty() ? out : out + "." + frac;
}

namespace {

constexpr RlimitResource kResources[] = {
    {"cpu", 0, RlimitUnit::Seconds, "seconds of CPU time of each process"},
    {"fsize", 1, RlimitUnit::Bytes, "the size of any file a process writes"},
    {"data", 2, RlimitUnit::Bytes, "each process's data segment and heap"},
    {"stack", 3, RlimitUnit::Bytes, "each process's stack"},
    {"core", 4, RlimitUnit::Bytes, "the size of a core dump (0: none)"},
    {"nproc", 6, RlimitUnit::Count, "processes of the sandbox's user"},
    {"nofile", 7, RlimitUnit::Count, "open file descriptors of each process"},
    {"memlock", 8, RlimitUnit::Bytes, "memory each process may lock"},
    {"as", 9, RlimitUnit::Bytes, "each process's address space"},
    {"locks", 10, RlimitUnit::Count, "file locks of each process"},
    {"sigpending", 11, RlimitUnit::Count, "queued signals of the sandbox's user"},
    {"msgqueue", 12, RlimitUnit::Bytes, "bytes in POSIX message queues of the sandbox's user"},
    {"nice", 13, RlimitUnit::Count, "the nice ceiling (20 - value)"},
    {"rtprio", 14, RlimitUnit::Count, "the real-time priority ceiling"},
    {"rttime", 15, RlimitUnit::Microseconds, "microseconds of real-time CPU without a blocking call"},
};

}  // namespace

const RlimitResource *rlimit_resources(std::size_t &count)
{
    count = std::size(kResources);
    return kResources;
}

const RlimitResource *rlimit_by_name(std::string_view name)
{
    for (const RlimitResource &r : kResources)
        if (name == r.name)
            return &r;
    return nullptr;
}

const RlimitResource *rlimit_by_number(uint32_t number)
{
    for (const RlimitResource &r : kResources)
        if (number == r.number)
            return &r;
    return nullptr;
}

}  // namespace tartaros::units
