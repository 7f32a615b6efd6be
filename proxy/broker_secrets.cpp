/* proxy/broker_secrets.cpp — reading and holding the broker's secrets (see broker_secrets.h). */
#include "broker_secrets.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "broker_mask.h"
#include "broker_secrets_wire.h"

namespace tproxy {
namespace {

// Reads exactly n bytes; false at EOF or on an error before that.
bool read_exact(int fd, void *buf, size_t n)
{
    char *p = static_cast<char *>(buf);
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= static_cast<size_t>(r);
    }
    return true;
}

uint32_t le32(const unsigned char b[4])
{
    return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

std::string record_name(size_t i, const BrokerConfig &b)
{
    return i == 0 ? "the token" : "the value of capability " + b.caps[i - 1].name;
}

// The header line for capability c: "Header: <format with {value} replaced>\r\n", built in a
// buffer of its exact size.
Secret header_line(const Capability &c, const Secret &value)
{
    size_t at = c.format.find("{value}");
    std::string_view before(c.format.data(), at), after(c.format.data() + at + 7);
    Secret line(c.header.size() + 2 + before.size() + value.size() + after.size() + 2);
    char *p = line.data();
    for (std::string_view part :
         {std::string_view(c.header), std::string_view(": "), before, value.view(), after, std::string_view("\r\n")}) {
        std::memcpy(p, part.data(), part.size());
        p += part.size();
    }
    return line;
}

std::string read_records(int fd, const BrokerConfig &b, BrokerSecrets *out)
{
    tbs_header h{};
    unsigned char raw[8];
    if (!read_exact(fd, raw, sizeof raw))
        return "the file ends before its header";
    h.magic = le32(raw);
    h.count = le32(raw + 4);
    if (h.magic != TBS_MAGIC)
        return "bad magic (not a broker secrets file)";
    if (h.count != 1 + b.caps.size())
        return std::to_string(h.count) + " records, expected " + std::to_string(1 + b.caps.size()) +
            " (the token and one value per --capability)";
    for (size_t i = 0; i < h.count; i++) {
        unsigned char lenb[4];
        if (!read_exact(fd, lenb, sizeof lenb))
            return "the file ends before " + record_name(i, b);
        uint32_t len = le32(lenb);
        if (len == 0 || len > TBS_MAX_VALUE)
            return record_name(i, b) + " is " + std::to_string(len) + " bytes, not 1.." + std::to_string(TBS_MAX_VALUE);
        Secret v(len);
        if (!read_exact(fd, v.data(), len))
            return "the file ends inside " + record_name(i, b);
        if (std::string err = check_secret_bytes(v.view()); !err.empty())
            return record_name(i, b) + " " + err;
        if (i == 0) {
            SHA256(reinterpret_cast<const unsigned char *>(v.data()), v.size(), out->token_digest);
            out->token_print = token_print(v.view());
            continue;  // v is wiped here: the token itself is never kept
        }
        out->lines.push_back(header_line(b.caps[i - 1], v));
        out->values.push_back(std::move(v));
    }
    char extra;
    if (read(fd, &extra, 1) != 0)
        return "bytes after the last record";
    return "";
}

}  // namespace

Secret::Secret(size_t n) : p_(new char[n]()), n_(n) {}

Secret::~Secret()
{
    wipe();
}

Secret::Secret(Secret &&o) noexcept : p_(std::move(o.p_)), n_(o.n_)
{
    o.n_ = 0;
}

Secret &Secret::operator=(Secret &&o) noexcept
{
    if (this != &o) {
        wipe();
        p_ = std::move(o.p_);
        n_ = o.n_;
        o.n_ = 0;
    }
    return *this;
}

void Secret::wipe()
{
    if (p_)
        OPENSSL_cleanse(p_.get(), n_);
    p_.reset();
    n_ = 0;
}

void wipe_string(std::string &s)
{
    s.resize(s.capacity());
    OPENSSL_cleanse(s.data(), s.size());
    s.clear();
}

BrokerSecrets::~BrokerSecrets()
{
    OPENSSL_cleanse(token_digest, sizeof token_digest);
    OPENSSL_cleanse(&token_print, sizeof token_print);
}

bool BrokerSecrets::token_matches(std::string_view supplied) const
{
    unsigned char d[32];
    SHA256(reinterpret_cast<const unsigned char *>(supplied.data()), supplied.size(), d);
    bool same = CRYPTO_memcmp(d, token_digest, sizeof d) == 0;
    OPENSSL_cleanse(d, sizeof d);
    return same;
}

std::string check_secret_bytes(std::string_view v)
{
    for (char c : v)
        if ((c < 0x20 || c > 0x7e) && c != '\t')
            return "has a byte outside printable ASCII, space and tab";
    if (v.empty() || v.front() == ' ' || v.front() == '\t' || v.back() == ' ' || v.back() == '\t')
        return "is empty or starts or ends with whitespace";
    return "";
}

std::string read_broker_secrets(int fd, const BrokerConfig &b, BrokerSecrets *out)
{
    lseek(fd, 0, SEEK_SET);  // a memfd the supervisor wrote is at its end; a pipe is not seekable
    std::string err = read_records(fd, b, out);
    close(fd);
    if (!err.empty()) {
        out->values.clear();
        out->lines.clear();
        return "--broker-secrets: " + err;
    }
    return "";
}

}  // namespace tproxy
