// Tests of the [process] limits in the front-end: the value grammar (compiler/units.h), every
// limit with its position, the range checks at their edges, and every class of wrong value
// with its exact message and rule id.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "frontend_toml.h"
#include "parsed_policy.h"
#include "plan.h"
#include "units.h"

using namespace tartaros;

namespace {

uint64_t size_of(const char *text)
{
    units::UnitError err;
    const std::optional<uint64_t> v = units::parse_size(text, err);
    REQUIRE_MESSAGE(v, err.message);
    return *v;
}

uint64_t us_of(const char *text)
{
    units::UnitError err;
    const std::optional<uint64_t> v = units::parse_duration_us(text, err);
    REQUIRE_MESSAGE(v, err.message);
    return *v;
}

uint64_t percent_of(const char *text)
{
    units::UnitError err;
    const std::optional<uint64_t> v = units::parse_cpu_percent(text, err);
    REQUIRE_MESSAGE(v, err.message);
    return *v;
}

// The refusal of `parse` for `text`: "rule: message".
template <class Parse>
std::string refusal(Parse parse, const char *text)
{
    units::UnitError err;
    CHECK_FALSE(parse(text, err));
    return err.rule_id + ": " + err.message;
}

Parsed parse(const std::string &text)
{
    Parsed parsed;
    parsed.policy = parse_toml_policy_text(text, "/w/policy.toml", parsed.diags);
    return parsed;
}

// The [process] table of a policy that must parse without diagnostics.
ProcessPolicy process(const std::string &body)
{
    Parsed parsed = parse("version = 1\n[process]\n" + body);
    REQUIRE_MESSAGE(parsed.policy, summary(parsed.diags));
    CHECK(parsed.diags.all().empty());
    return parsed.policy->process;
}

// Every diagnostic of a [process] table that must fail.
std::string errors(const std::string &body)
{
    Parsed parsed = parse("version = 1\n[process]\n" + body);
    CHECK_FALSE(parsed.policy);
    return summary(parsed.diags);
}

bool accepted(const std::string &body)
{
    Parsed parsed = parse("version = 1\n[process]\n" + body);
    return parsed.policy.has_value();
}

}  // namespace

TEST_CASE("units: sizes are powers of 1024 with or without iB")
{
    CHECK(size_of("512M") == 512ull << 20);
    CHECK(size_of("2G") == 2ull << 30);
    CHECK(size_of("2GiB") == 2ull << 30);
    CHECK(size_of("1.5GiB") == 1610612736ull);
    CHECK(size_of("64k") == 65536);
    CHECK(size_of("64K") == 65536);
    CHECK(size_of("64kib") == 65536);
    CHECK(size_of("100B") == 100);
    CHECK(size_of("3T") == 3ull << 40);
    CHECK(size_of("1p") == 1ull << 50);
    CHECK(size_of("0.5K") == 512);
    CHECK(size_of("16383P") == 16383ull << 50);
}

TEST_CASE("units: ambiguous or malformed sizes are refused with a hint")
{
    CHECK(refusal(units::parse_size, "2GB") ==
          "invalid-size: \"2GB\" is ambiguous: GB means a power of 1000 to some tools and of 1024 to others; write "
          "\"2G\" or "
          "\"2GiB\" (powers of 1024), or an integer of bytes");
    CHECK(refusal(units::parse_size, "64kb").find("\"64kb\" is ambiguous") != std::string::npos);
    CHECK(refusal(units::parse_size, "512") ==
          "invalid-size: \"512\" has no unit; write 512 (bytes, without quotes) or \"512M\"");
    CHECK(
        refusal(units::parse_size, "0.3K") ==
        "invalid-size: \"0.3K\" is not a whole number of bytes; write an integer of bytes or a size that is one, like "
        "\"1.5G\"");
    const std::string hint = "write an integer of bytes or a number with a unit: \"512M\", \"2G\", \"1.5GiB\" "
                             "(K M G T P = KiB MiB GiB TiB PiB, powers of 1024)";
    CHECK(refusal(units::parse_size, "lots") == "invalid-size: \"lots\" is not a size; " + hint);
    CHECK(refusal(units::parse_size, "-1M") == "invalid-size: \"-1M\" is negative; " + hint);
    CHECK(refusal(units::parse_size, "8 M") == "invalid-size: \"8 M\": no spaces in a size; " + hint);
    CHECK(refusal(units::parse_size, "1e9") == "invalid-size: \"1e9\": unknown unit \"e9\"; " + hint);
    CHECK(refusal(units::parse_size, ".5G") == "invalid-size: \".5G\" is not a size; " + hint);
    CHECK(refusal(units::parse_size, "1.G") == "invalid-size: \"1.G\" is not a size; " + hint);
    CHECK(refusal(units::parse_size, "2Mi") == "invalid-size: \"2Mi\": unknown unit \"Mi\"; " + hint);
    CHECK(refusal(units::parse_size, "16384P") == "invalid-size: \"16384P\" is too large to be a size");
    CHECK(refusal(units::parse_size, "") == "invalid-size: \"\" is not a size; " + hint);
}

TEST_CASE("units: durations take components largest first")
{
    CHECK(us_of("90s") == 90000000);
    CHECK(us_of("5m") == 300000000);
    CHECK(us_of("1h30m") == 5400000000);
    CHECK(us_of("1.5h") == 5400000000);
    CHECK(us_of("250ms") == 250000);
    CHECK(us_of("2d") == 172800000000);
    CHECK(us_of("1d2h3m4s5ms6us") == 93784005006);
    CHECK(us_of("1500us") == 1500);
    CHECK(us_of("0s") == 0);
}

TEST_CASE("units: malformed durations are refused with a hint")
{
    const std::string hint = "durations are like \"90s\", \"5m\", \"1h30m\", \"250ms\" (units d h m s ms us, largest "
                             "first)";
    CHECK(refusal(units::parse_duration_us, "90") == "invalid-duration: \"90\" has no unit; " + hint);
    CHECK(refusal(units::parse_duration_us, "1h30") ==
          "invalid-duration: \"1h30\": its last number has no unit; " + hint);
    CHECK(refusal(units::parse_duration_us, "30m1h") ==
          "invalid-duration: \"30m1h\": units must come largest first, each once (\"1h30m\", not \"30m1h\")");
    CHECK(refusal(units::parse_duration_us, "1m1m").find("units must come largest first, each once") !=
          std::string::npos);
    CHECK(refusal(units::parse_duration_us, "5M") == "invalid-duration: \"5M\": unknown unit \"M\"; " + hint);
    CHECK(refusal(units::parse_duration_us, "5min") == "invalid-duration: \"5min\": unknown unit \"min\"; " + hint);
    CHECK(refusal(units::parse_duration_us, "1h 30m") ==
          "invalid-duration: \"1h 30m\": no spaces in a duration; " + hint);
    CHECK(refusal(units::parse_duration_us, "-5s") == "invalid-duration: \"-5s\" is negative; " + hint);
    CHECK(refusal(units::parse_duration_us, "soon") == "invalid-duration: \"soon\" is not a duration; " + hint);
    CHECK(refusal(units::parse_duration_us, "0.5us") == "invalid-duration: \"0.5us\" is finer than a microsecond");
    CHECK(refusal(units::parse_duration_us, "") == "invalid-duration: an empty string is not a duration; " + hint);
    CHECK(refusal(units::parse_duration_us, "999999999d") ==
          "invalid-duration: \"999999999d\" is too long to be a duration");
}

TEST_CASE("units: CPU amounts are CPUs or a percentage of one")
{
    CHECK(percent_of("50%") == 50000);
    CHECK(percent_of("150%") == 150000);
    CHECK(percent_of("12.5%") == 12500);
    CHECK(percent_of("0.0005%") == 1);  // half a microsecond rounds up
    CHECK(percent_of("0.0004%") == 0);
    units::UnitError err;
    CHECK(units::cpu_quota_of(0.5, err) == 50000u);
    CHECK(units::cpu_quota_of(2, err) == 200000u);
    CHECK(units::cpu_quota_of(0.1, err) == 10000u);
    CHECK(units::cpu_quota_of(1.0 / 3, err) == 33333u);
    CHECK(refusal(units::parse_cpu_percent, "50") ==
          "invalid-cpu: \"50\" has no '%'; write \"50%\" (of one CPU) or 50 (CPUs, without quotes)");
    CHECK(refusal(units::parse_cpu_percent, "two") ==
          "invalid-cpu: \"two\" is not a CPU amount; write a number of CPUs (0.5, 2) or a percentage of one CPU "
          "(\"50%\", "
          "\"150%\")");
    CHECK(refusal(units::parse_cpu_percent, "-5%").find("\"-5%\" is negative") != std::string::npos);
    CHECK(refusal(units::parse_cpu_percent, "50 %").find("is not a CPU amount") != std::string::npos);
    CHECK_FALSE(units::cpu_quota_of(std::nan(""), err));
    CHECK(err.message == "nan is not a number of CPUs; write one like 0.5 or 2, or \"50%\"");
    CHECK_FALSE(units::cpu_quota_of(-1, err));
    CHECK(err.message == "-1 is negative; write a number of CPUs like 0.5 or 2, or \"50%\"");
    CHECK_FALSE(units::cpu_quota_of(1e12, err));
}

TEST_CASE("units: exact text for messages and explain")
{
    CHECK(units::format_size(4ull << 30) == "4G");
    CHECK(units::format_size(1610612736) == "1536M");
    CHECK(units::format_size(1ull << 50) == "1P");
    CHECK(units::format_size(1000) == "1000 bytes");
    CHECK(units::format_size(1) == "1 byte");
    CHECK(units::format_size(0) == "0");
    CHECK(units::format_duration_ms(5400000) == "1h30m");
    CHECK(units::format_duration_ms(250) == "250ms");
    CHECK(units::format_duration_ms(90061001) == "1d1h1m1s1ms");
    CHECK(units::format_duration_ms(0) == "0s");
    CHECK(units::format_duration_us(250001) == "250ms1us");
    CHECK(units::format_cpus(50000) == "0.5");
    CHECK(units::format_cpus(150000) == "1.5");
    CHECK(units::format_cpus(200000) == "2");
    CHECK(units::format_cpus(33333) == "0.33333");
    CHECK(units::format_cpus(1000) == "0.01");
    // What the formatters print, the parsers read back.
    for (uint64_t bytes : {1ull << 20, 3ull << 30, 1536ull << 20, 1ull << 50})
        CHECK(size_of(units::format_size(bytes).c_str()) == bytes);
    for (uint64_t ms : {1ull, 999ull, 90061001ull, 366ull * 86400000})
        CHECK(us_of(units::format_duration_ms(ms).c_str()) == ms * 1000);
}

TEST_CASE("units: the rlimit resources are exactly the ones the plan admits")
{
    std::size_t count = 0;
    const units::RlimitResource *all = units::rlimit_resources(count);
    uint32_t seen = 0;
    for (std::size_t i = 0; i < count; i++) {
        CAPTURE(all[i].name);
        CHECK((seen & (1u << all[i].number)) == 0);
        seen |= 1u << all[i].number;
        if (i > 0)
            CHECK(all[i - 1].number < all[i].number);
        CHECK(units::rlimit_by_name(all[i].name) == &all[i]);
        CHECK(units::rlimit_by_number(all[i].number) == &all[i]);
    }
    CHECK(seen == TP_RLIMIT_KNOWN);
    CHECK(units::rlimit_by_number(5) == nullptr);
    CHECK(units::rlimit_by_name("rss") == nullptr);
    CHECK(units::rlimit_by_name("nofile")->number == 7);
    CHECK(units::rlimit_by_name("stack")->unit == units::RlimitUnit::Bytes);
    CHECK(units::rlimit_by_name("cpu")->unit == units::RlimitUnit::Seconds);
    CHECK(units::rlimit_by_name("rttime")->unit == units::RlimitUnit::Microseconds);
    CHECK(units::rlimit_by_name("nice")->unit == units::RlimitUnit::Count);
}

TEST_CASE("limits: no limit unless the policy sets one")
{
    const ProcessPolicy p = process("isolate_pids = true\n");
    CHECK_FALSE(p.max_processes);
    CHECK_FALSE(p.memory_max);
    CHECK_FALSE(p.cpu_max);
    CHECK_FALSE(p.timeout);
    CHECK_FALSE(p.timeout_grace);
    CHECK(p.rlimits.empty());
}

TEST_CASE("limits: every limit is parsed with its position")
{
    const ProcessPolicy p = process("max_processes = 512\n"
                                    "memory_max = \"4G\"\n"
                                    "cpu_max = 0.5\n"
                                    "timeout = \"30m\"\n"
                                    "timeout_grace = \"10s\"\n");
    REQUIRE(p.max_processes);
    CHECK(p.max_processes->value == 512);
    CHECK(p.max_processes->pos.line == 3);
    CHECK(p.max_processes->pos.col == 17);
    REQUIRE(p.memory_max);
    CHECK(p.memory_max->value == 4ull << 30);
    CHECK(p.memory_max->pos.line == 4);
    REQUIRE(p.cpu_max);
    CHECK(p.cpu_max->value == 50000);
    CHECK(p.cpu_max->pos.line == 5);
    REQUIRE(p.timeout);
    CHECK(p.timeout->value == 1800000);
    CHECK(p.timeout->pos.line == 6);
    CHECK(p.timeout->pos.col == 11);
    REQUIRE(p.timeout_grace);
    CHECK(p.timeout_grace->value == 10000);
    CHECK(p.timeout_grace->pos.line == 7);
}

TEST_CASE("limits: integers are bytes and seconds and CPUs")
{
    const ProcessPolicy p = process("memory_max = 268435456\ncpu_max = 2\ntimeout = 90\n");
    CHECK(p.memory_max->value == 256ull << 20);
    CHECK(p.cpu_max->value == 200000);
    CHECK(p.timeout->value == 90000);
    CHECK(process("cpu_max = \"150%\"\n").cpu_max->value == 150000);
}

TEST_CASE("limits: the ranges are the plan's at both edges")
{
    CHECK(accepted("max_processes = 1\n"));
    CHECK(accepted("max_processes = 4194304\n"));
    CHECK_FALSE(accepted("max_processes = 0\n"));
    CHECK_FALSE(accepted("max_processes = 4194305\n"));
    CHECK_FALSE(accepted("max_processes = -3\n"));
    CHECK(accepted("memory_max = \"1M\"\n"));
    CHECK(accepted("memory_max = \"1P\"\n"));
    CHECK_FALSE(accepted("memory_max = 1048575\n"));
    CHECK_FALSE(accepted("memory_max = \"1025T\"\n"));
    CHECK(accepted("cpu_max = 0.01\n"));
    CHECK(accepted("cpu_max = \"1%\"\n"));
    CHECK(accepted("cpu_max = 4096\n"));
    CHECK_FALSE(accepted("cpu_max = 0.0099\n"));
    CHECK_FALSE(accepted("cpu_max = 0\n"));
    CHECK_FALSE(accepted("cpu_max = 4096.01\n"));
    CHECK(accepted("timeout = \"366d\"\n"));
    CHECK(accepted("timeout = \"1ms\"\n"));
    CHECK_FALSE(accepted("timeout = \"366d1ms\"\n"));
    CHECK_FALSE(accepted("timeout = 0\n"));
    CHECK_FALSE(accepted("timeout = 9223372036854775807\n"));
    CHECK(accepted("timeout = 1\ntimeout_grace = \"1h\"\n"));
    CHECK(accepted("timeout = 1\ntimeout_grace = \"1ms\"\n"));
    CHECK_FALSE(accepted("timeout = 1\ntimeout_grace = \"1h1ms\"\n"));
    CHECK_FALSE(accepted("timeout = 1\ntimeout_grace = 0\n"));
}

TEST_CASE("limits: wrong values get a message with a hint at the value")
{
    CHECK(errors("max_processes = 0\n") ==
          "3:17: error: 'max_processes': 0 is out of range: at least 1 (the command itself), at most 4194304 (the "
          "kernel's PID limit); leave it out for no limit [limit-range]\n");
    CHECK(errors("max_processes = \"64\"\n") ==
          "3:17: error: 'max_processes' must be an integer (1 to 4194304), not a string [wrong-type]\n");
    CHECK(errors("memory_max = 1000\n") ==
          "3:14: error: 'memory_max': 1000 is below the minimum of \"1M\" (1 MiB): nothing starts in less "
          "[limit-range]\n");
    CHECK(errors("memory_max = \"2P\"\n") ==
          "3:14: error: 'memory_max': \"2P\" is above the maximum of \"1P\" (1 PiB) [limit-range]\n");
    CHECK(errors("memory_max = \"2GB\"\n") ==
          "3:14: error: 'memory_max': \"2GB\" is ambiguous: GB means a power of 1000 to some tools and of 1024 to "
          "others; write \"2G\" or \"2GiB\" (powers of 1024), or an integer of bytes [invalid-size]\n");
    CHECK(errors("memory_max = -1\n") ==
          "3:14: error: 'memory_max': -1 is negative; write a size like \"4G\" [invalid-size]\n");
    CHECK(errors("memory_max = 1.5\n") ==
          "3:14: error: 'memory_max' must be an integer of bytes or a size string like \"4G\", not a float "
          "[wrong-type]\n");
    CHECK(errors("cpu_max = 0.001\n") ==
          "3:11: error: 'cpu_max': 0.001 is below the minimum of 0.01 CPU (\"1%\": a quota of 1000 us per 100000 us); "
          "leave it out for no limit [limit-range]\n");
    CHECK(errors("cpu_max = 5000\n") ==
          "3:11: error: 'cpu_max': 5000 is above the maximum of 4096 CPUs [limit-range]\n");
    CHECK(errors("cpu_max = \"50\"\n") ==
          "3:11: error: 'cpu_max': \"50\" has no '%'; write \"50%\" (of one CPU) or 50 (CPUs, without quotes) "
          "[invalid-cpu]\n");
    CHECK(errors("cpu_max = true\n") ==
          "3:11: error: 'cpu_max' must be a number of CPUs (0.5, 2) or a percentage of one CPU (\"50%\"), not a "
          "boolean [wrong-type]\n");
    CHECK(errors("timeout = 0\n") ==
          "3:11: error: 'timeout': 0 is no time at all; write a duration like \"30m\", or "
          "leave 'timeout' out for none [limit-range]\n");
    CHECK(errors("timeout = \"367d\"\n") ==
          "3:11: error: 'timeout': \"367d\" is above the maximum of \"366d\" [limit-range]\n");
    CHECK(errors("timeout = \"1500us\"\n") ==
          "3:11: error: 'timeout': \"1500us\" is finer than a millisecond; write "
          "whole milliseconds (\"1500ms\") [invalid-duration]\n");
    CHECK(errors("timeout = -5\n") ==
          "3:11: error: 'timeout': -5 is negative; write a duration like \"90s\" or \"30m\" [invalid-duration]\n");
    CHECK(errors("timeout = 1.5\n") ==
          "3:11: error: 'timeout' must be an integer of seconds or a duration string like "
          "\"90s\" or \"1h30m\", not a float [wrong-type]\n");
    CHECK(errors("timeout = 60\ntimeout_grace = 0\n") ==
          "4:17: error: 'timeout_grace': 0 leaves no time between SIGTERM and SIGKILL; write at least \"1ms\" "
          "[limit-range]\n");
    CHECK(errors("timeout = 60\ntimeout_grace = \"2h\"\n") ==
          "4:17: error: 'timeout_grace': \"2h\" is above the maximum of \"1h\" [limit-range]\n");
}

TEST_CASE("limits: timeout_grace needs a timeout")
{
    CHECK(errors("timeout_grace = \"5s\"\nisolate_pids = true\n") ==
          "3:17: error: 'timeout_grace' without 'timeout': the grace is the time from the timeout's SIGTERM to "
          "SIGKILL; set 'timeout' too, or remove 'timeout_grace' [timeout-grace]\n");
    CHECK(process("timeout_grace = \"5s\"\ntimeout = \"1m\"\n").timeout_grace->value == 5000);
}

TEST_CASE("limits: rlimits in every form keep the order of the source")
{
    const ProcessPolicy p = process("rlimits = { nofile = { soft = 1024, hard = 4096 }, stack = \"8M\", core = 0, "
                                    "fsize = \"unlimited\", cpu = \"10m\", rttime = \"250ms\", nice = 5 }\n");
    REQUIRE(p.rlimits.size() == 7);
    auto check = [&](size_t i, uint32_t resource, uint64_t soft, uint64_t hard, uint32_t col) {
        CAPTURE(i);
        CHECK(p.rlimits[i].resource == resource);
        CHECK(p.rlimits[i].soft == soft);
        CHECK(p.rlimits[i].hard == hard);
        CHECK(p.rlimits[i].pos.line == 3);
        CHECK(p.rlimits[i].pos.col == col);
    };
    check(0, 7, 1024, 4096, 13);
    check(1, 3, 8ull << 20, 8ull << 20, 52);
    check(2, 4, 0, 0, 66);
    check(3, 1, kRlimUnlimited, kRlimUnlimited, 76);
    check(4, 0, 600, 600, 97);
    check(5, 15, 250000, 250000, 110);
    check(6, 13, 5, 5, 128);
}

TEST_CASE("limits: rlimits as a sub-table and their integer units")
{
    const ProcessPolicy p = process("[process.rlimits]\ncpu = 30\nrttime = 500\nmsgqueue = 819200\n"
                                    "nproc = { soft = 100, hard = \"unlimited\" }\n");
    REQUIRE(p.rlimits.size() == 4);
    CHECK(p.rlimits[0].soft == 30);      // seconds
    CHECK(p.rlimits[1].soft == 500);     // microseconds
    CHECK(p.rlimits[2].soft == 819200);  // bytes
    CHECK(p.rlimits[3].soft == 100);
    CHECK(p.rlimits[3].hard == kRlimUnlimited);
    CHECK(p.rlimits[0].pos.line == 4);
}

TEST_CASE("limits: wrong rlimits get a message with a hint")
{
    CHECK(errors("rlimits = { nofiles = 1024 }\n") ==
          "3:13: error: unknown resource 'nofiles' in 'rlimits'; did you mean 'nofile'? [unknown-key]\n");
    CHECK(errors("rlimits = { zzzzzz = 1 }\n") ==
          "3:13: error: unknown resource 'zzzzzz' in 'rlimits'; the resources are cpu fsize data stack core nproc "
          "nofile memlock as locks sigpending msgqueue nice rtprio rttime [unknown-key]\n");
    CHECK(errors("rlimits = { rss = 1 }\n") ==
          "3:13: error: 'rss' in 'rlimits' has no effect on Linux (the kernel ignores RLIMIT_RSS); use [process] "
          "memory_max [unknown-key]\n");
    CHECK(errors("rlimits = { nofile = { soft = 4096, hard = 1024 } }\n") ==
          "3:22: error: 'nofile': soft 4096 is above hard 1024; the soft limit is what applies, the hard limit how "
          "far the command may raise it, so soft <= hard [rlimit-order]\n");
    CHECK(errors("rlimits = { nofile = { soft = \"unlimited\", hard = 1024 } }\n").find("[rlimit-order]") !=
          std::string::npos);
    CHECK(errors("rlimits = { nofile = { soft = 1 } }\n") ==
          "3:22: error: 'nofile' needs both soft and hard in a table; a single value (nofile = ...) sets both "
          "[wrong-type]\n");
    CHECK(errors("rlimits = { nofile = { soft = 1, hard = 2, hrad = 3 } }\n") ==
          "3:44: error: unknown key 'hrad' in 'nofile'; it takes soft and hard; did you mean 'hard'? [unknown-key]\n");
    CHECK(errors("rlimits = { nofile = \"1k\" }\n") ==
          "3:22: error: 'nofile': it counts open file descriptors of each process: write an integer (no quotes, no "
          "unit) or \"unlimited\", not \"1k\" [invalid-rlimit]\n");
    CHECK(errors("rlimits = { core = -1 }\n") ==
          "3:20: error: 'core': -1 is negative; write 0 or more, or \"unlimited\" [invalid-rlimit]\n");
    CHECK(errors("rlimits = { memlock = \"unlimted\" }\n") ==
          "3:23: error: 'memlock': \"unlimted\" is not a limit; did you mean \"unlimited\"? [invalid-rlimit]\n");
    CHECK(errors("rlimits = { stack = \"8MB\" }\n").find("'stack': \"8MB\" is ambiguous") != std::string::npos);
    CHECK(errors("rlimits = { stack = \"lots\" }\n") ==
          "3:21: error: 'stack': \"lots\" is not a size; write an integer of bytes or a number with a unit: \"512M\", "
          "\"2G\", \"1.5GiB\" (K M G T P = KiB MiB GiB TiB PiB, powers of 1024), or \"unlimited\" [invalid-size]\n");
    CHECK(errors("rlimits = { cpu = \"1500ms\" }\n") ==
          "3:19: error: 'cpu': \"1500ms\" is not a whole number of seconds: the kernel counts CPU time limits in "
          "seconds [invalid-duration]\n");
    CHECK(errors("rlimits = { rttime = \"5\" }\n").find("'rttime': \"5\" has no unit") != std::string::npos);
    CHECK(errors("rlimits = { as = true }\n") ==
          "3:18: error: 'as' must be an integer of bytes, a size like \"8M\", \"unlimited\" or { soft = ..., hard = "
          "... }, not a boolean [wrong-type]\n");
    CHECK(errors("rlimits = { nofile = { soft = 1.5, hard = 2 } }\n") ==
          "3:31: error: 'nofile' soft limit must be an integer, \"unlimited\" or { soft = ..., hard = ... }, not a "
          "float [wrong-type]\n");
    CHECK(errors("rlimits = [1]\n") ==
          "3:11: error: 'rlimits' must be a table of resources, like { nofile = 1024, core = 0 }, not an array "
          "[wrong-type]\n");
}

TEST_CASE("limits: unknown [process] keys get a did you mean")
{
    CHECK(errors("memory_limit = \"4G\"\n") ==
          "3:1: error: unknown key 'memory_limit' in [process]; did you mean 'memory_max'? [unknown-key]\n");
    CHECK(errors("time_out = 60\n") ==
          "3:1: error: unknown key 'time_out' in [process]; did you mean 'timeout'? [unknown-key]\n");
}
