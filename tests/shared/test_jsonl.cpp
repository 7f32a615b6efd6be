// Unit tests of shared/jsonl.h, the line builder of the effect log: escaping, UTF-8 repair, the
// time format and truncation, which must always leave one valid JSON object and a newline.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "json_checker.h"
#include "jsonl.h"

namespace {

std::string build(size_t cap, void (*fill)(jsonl::line &))
{
    std::vector<char> buf(cap);
    jsonl::line l;
    jsonl::begin(l, buf.data(), buf.size());
    fill(l);
    size_t len = jsonl::finish(l);
    REQUIRE(len <= cap);
    return std::string(buf.data(), len);
}

std::string one_string(const std::string &s)
{
    static std::string text;
    text = s;
    return build(4096, [](jsonl::line &l) { jsonl::field_str(l, "s", text.data(), text.size()); });
}

}  // namespace

TEST_CASE("jsonl escapes quotes backslashes and control characters")
{
    CHECK(one_string("a\"b\\c") == "{\"s\":\"a\\\"b\\\\c\"}\n");
    CHECK(one_string("l1\nl2\tx\r") == "{\"s\":\"l1\\nl2\\tx\\r\"}\n");
    CHECK(one_string(std::string("nul\0bell\x07"
                                 "del\x7f",
                                 13)) == "{\"s\":\"nul\\u0000bell\\u0007del\\u007f\"}\n");
}

TEST_CASE("jsonl keeps valid UTF-8 and replaces every invalid byte")
{
    CHECK(one_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") ==
          "{\"s\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}\n");
    CHECK(one_string("a\xff"
                     "b") == "{\"s\":\"a\\ufffdb\"}\n");
    CHECK(one_string("\xc0\xaf") == "{\"s\":\"\\ufffd\\ufffd\"}\n");                        // overlong '/'
    CHECK(one_string("\xed\xa0\x80") == "{\"s\":\"\\ufffd\\ufffd\\ufffd\"}\n");             // a surrogate
    CHECK(one_string("\xf4\x90\x80\x80") == "{\"s\":\"\\ufffd\\ufffd\\ufffd\\ufffd\"}\n");  // > U+10FFFF
    CHECK(one_string("\xe2\x82") == "{\"s\":\"\\ufffd\\ufffd\"}\n");                        // cut sequence
}

TEST_CASE("jsonl writes numbers booleans nulls arrays and objects")
{
    std::string s = build(4096, [](jsonl::line &l) {
        jsonl::field_u64(l, "u", 18446744073709551615ull);
        jsonl::field_i64(l, "i", -9223372036854775807ll - 1);
        jsonl::field_bool(l, "t", true);
        jsonl::field_null(l, "n");
        jsonl::open(l, "a", '[');
        jsonl::item_str(l, "x");
        jsonl::open(l, nullptr, '{');
        jsonl::field_str(l, "k", "v");
        jsonl::close(l);
        jsonl::open(l, nullptr, '[');
        jsonl::close(l);
        jsonl::close(l);
    });
    CHECK(s ==
          "{\"u\":18446744073709551615,\"i\":-9223372036854775808,\"t\":true,\"n\":null,"
          "\"a\":[\"x\",{\"k\":\"v\"},[]]}\n");
}

TEST_CASE("jsonl formats CLOCK_REALTIME as UTC with microseconds")
{
    static long long sec;
    static long nsec;
    auto time_of = [](long long s, long ns) {
        sec = s;
        nsec = ns;
        return build(256, [](jsonl::line &l) { jsonl::field_time(l, "time", sec, nsec); });
    };
    CHECK(time_of(0, 0) == "{\"time\":\"1970-01-01T00:00:00.000000Z\"}\n");
    CHECK(time_of(951782400, 999999999) == "{\"time\":\"2000-02-29T00:00:00.999999Z\"}\n");
    CHECK(time_of(1735689599, 123456000) == "{\"time\":\"2024-12-31T23:59:59.123456Z\"}\n");
    CHECK(time_of(4107542400, 0) == "{\"time\":\"2100-03-01T00:00:00.000000Z\"}\n");
}

TEST_CASE("a line that does not fit is cut and stays one valid JSON object")
{
    for (size_t cap = jsonl::kReserve + 1; cap < 400; cap++) {
        std::vector<char> buf(cap);
        jsonl::line l;
        jsonl::begin(l, buf.data(), buf.size());
        jsonl::field_str(l, "event", "exec");
        jsonl::open(l, "argv", '[');
        for (int i = 0; i < 20; i++)
            jsonl::item_str(l, "arg\xc3\xa9\"\n");
        jsonl::open(l, nullptr, '{');
        jsonl::field_u64(l, "n", 12345);
        jsonl::close(l);
        jsonl::close(l);
        jsonl::field_bool(l, "last", true);
        size_t len = jsonl::finish(l);
        std::string s(buf.data(), len);
        REQUIRE(len <= cap);
        CHECK_MESSAGE(s.back() == '\n', s);
        s.pop_back();
        CHECK_MESSAGE(tartaros::test::JsonChecker(s).document(), s);
        CHECK(s.find('\n') == std::string::npos);
        bool cut = s.find("\"truncated\":true") != std::string::npos;
        CHECK(cut == (s.find("\"last\":true") == std::string::npos));
    }
}
