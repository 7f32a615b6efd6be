// The broker's secrets (proxy/broker_secrets.h): the --broker-secrets layout from a memfd and
// a pipe, every malformed file, the constant-time token check, and that no error names a value.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "broker_secrets.h"
#include "broker_secrets_wire.h"

namespace {

std::string le32(uint32_t v)
{
    std::string s(4, '\0');
    for (int i = 0; i < 4; i++)
        s[static_cast<size_t>(i)] = static_cast<char>(v >> (8 * i) & 0xff);
    return s;
}

std::string file_of(const std::vector<std::string> &records, uint32_t magic = TBS_MAGIC)
{
    std::string s = le32(magic) + le32(static_cast<uint32_t>(records.size()));
    for (const std::string &r : records)
        s += le32(static_cast<uint32_t>(r.size())) + r;
    return s;
}

// A memfd holding `bytes`, at its end as the supervisor leaves it.
int memfd_with(const std::string &bytes)
{
    int fd = memfd_create("secrets", MFD_CLOEXEC);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    return fd;
}

tproxy::BrokerConfig two_caps()
{
    tproxy::BrokerConfig b;
    tproxy::Capability gh;
    gh.name = "gh";
    gh.format = "Bearer {value}";
    tproxy::Capability npm;
    npm.name = "npm";
    npm.header = "X-Key";
    b.caps = {gh, npm};
    return b;
}

std::string read_error(const std::string &bytes, tproxy::BrokerSecrets *out = nullptr)
{
    tproxy::BrokerSecrets local;
    int fd = memfd_with(bytes);
    std::string err = tproxy::read_broker_secrets(fd, two_caps(), out ? out : &local);
    CHECK(fcntl(fd, F_GETFD) == -1);  // closed, whatever happened
    return err;
}

const std::string kToken = "f00dfeedf00dfeedf00dfeedf00dfeed";
const std::string kGh = "ghp_SECRET_value_1";
const std::string kNpm = "npm_SECRET_value_2";

}  // namespace

TEST_CASE("broker secrets: a memfd is read from its start and the lines are built")
{
    tproxy::BrokerSecrets s;
    CHECK(read_error(file_of({kToken, kGh, kNpm}), &s) == "");
    REQUIRE(s.values.size() == 2);
    CHECK(s.values[0].view() == kGh);
    CHECK(s.values[1].view() == kNpm);
    CHECK(s.lines[0].view() == "Authorization: Bearer " + kGh + "\r\n");
    CHECK(s.lines[1].view() == "X-Key: " + kNpm + "\r\n");
    CHECK(s.token_matches(kToken));
    CHECK_FALSE(s.token_matches(kToken.substr(1)));
    CHECK_FALSE(s.token_matches(kToken + "0"));
    CHECK_FALSE(s.token_matches(""));
    std::string wrong = kToken;
    wrong.back() = '0';
    CHECK_FALSE(s.token_matches(wrong));
}

TEST_CASE("broker secrets: a pipe is read as it comes")
{
    int p[2];
    REQUIRE(pipe2(p, O_CLOEXEC) == 0);
    std::string bytes = file_of({kToken, kGh, "a b\tc"});
    REQUIRE(write(p[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    close(p[1]);
    tproxy::BrokerSecrets s;
    CHECK(tproxy::read_broker_secrets(p[0], two_caps(), &s) == "");
    CHECK(s.values[1].view() == "a b\tc");
}

TEST_CASE("broker secrets: malformed files are refused without naming a value")
{
    struct Case {
        std::string bytes, error;
    } cases[] = {
        {"", "the file ends before its header"},
        {file_of({kToken, kGh, kNpm}, 0x12345678), "bad magic"},
        {file_of({kToken, kGh}), "2 records, expected 3"},
        {file_of({kToken, kGh, kNpm, "x"}), "4 records, expected 3"},
        {file_of({"", kGh, kNpm}), "the token is 0 bytes"},
        {file_of({kToken, std::string(TBS_MAX_VALUE + 1, 'a'), kNpm}), "the value of capability gh is 16385 bytes"},
        {file_of({kToken, kGh + "\r\nX-Evil: 1", kNpm}),
         "the value of capability gh has a byte outside printable ASCII"},
        {file_of({kToken, kGh, std::string("a\0b", 3)}), "the value of capability npm has a byte"},
        {file_of({kToken, kGh, std::string("caf\xc3\xa9")}), "the value of capability npm has a byte"},
        {file_of({kToken, " " + kGh, kNpm}), "starts or ends with whitespace"},
        {file_of({kToken + "\t", kGh, kNpm}), "the token is empty or starts or ends"},
        {file_of({kToken, kGh, kNpm}) + "!", "bytes after the last record"},
        {file_of({kToken, kGh, kNpm}).substr(0, 53), "the file ends inside the value of capability gh"},
        {file_of({kToken, kGh, kNpm}).substr(0, 10), "the file ends before the token"},
    };
    for (const Case &c : cases) {
        std::string err = read_error(c.bytes);
        CAPTURE(err);
        CHECK(err.find("--broker-secrets: ") == 0);
        CHECK(err.find(c.error) != std::string::npos);
        CHECK(err.find("SECRET") == std::string::npos);
        CHECK(err.find(kToken) == std::string::npos);
    }
}

TEST_CASE("broker secrets: the character invariant")
{
    CHECK(tproxy::check_secret_bytes("Bearer abc~!") == "");
    CHECK(tproxy::check_secret_bytes("a\tb c") == "");
    CHECK(tproxy::check_secret_bytes("") != "");
    CHECK(tproxy::check_secret_bytes(" a") != "");
    CHECK(tproxy::check_secret_bytes("a ") != "");
    CHECK(tproxy::check_secret_bytes("a\nb") != "");
    CHECK(tproxy::check_secret_bytes("a\rb") != "");
    CHECK(tproxy::check_secret_bytes("a\x7f") != "");
}

TEST_CASE("broker secrets: a Secret is wiped and moved never copied")
{
    tproxy::Secret a(4);
    std::memcpy(a.data(), "abcd", 4);
    tproxy::Secret b(std::move(a));
    CHECK(a.size() == 0);
    CHECK(b.view() == "abcd");
    b.wipe();
    CHECK(b.size() == 0);
    CHECK(b.data() == nullptr);
    std::string s = "a fairly long string that is surely on the heap";
    tproxy::wipe_string(s);
    CHECK(s.empty());
}
