/* proxy/broker_secrets.h — the broker's token and values in the proxy's memory.
 *
 * read_broker_secrets takes the --broker-secrets descriptor (layout: shared/broker_secrets_wire.h),
 * reads it whole before the proxy confines itself (from offset 0 when it is seekable, as a
 * memfd is), and closes it. Each record is read straight into a buffer of its exact size, so
 * no growing buffer leaves a copy behind. What is kept:
 *  - the token only as its SHA-256 digest: a request's token is hashed and compared with
 *    CRYPTO_memcmp, in constant time whatever its length, and the token itself is wiped;
 *    and as a fingerprint that finds it in log text (TokenPrint);
 *  - per capability, its value (to recognise it in a response header) and the whole header
 *    line the broker injects ("Name: <format with the value>\r\n").
 * Invariants: every Secret is wiped with OPENSSL_cleanse when destroyed and is never copied;
 * error messages name the record ("the token", "the value of capability gh"), never a byte of
 * it; the process must already be non-dumpable (main.cpp) when this runs.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "broker_config.h"

namespace tproxy {

// Bytes that hold a secret: a fixed size, never copied, wiped when destroyed.
class Secret {
public:
    Secret() = default;
    explicit Secret(size_t n);
    ~Secret();
    Secret(Secret &&o) noexcept;
    Secret &operator=(Secret &&o) noexcept;
    Secret(const Secret &) = delete;
    Secret &operator=(const Secret &) = delete;

    char *data() { return p_.get(); }
    const char *data() const { return p_.get(); }
    size_t size() const { return n_; }
    std::string_view view() const { return {p_.get(), n_}; }
    void wipe();  // zeroes and releases now

private:
    std::unique_ptr<char[]> p_;
    size_t n_ = 0;
};

// Zeroes a string's whole buffer (its capacity, not only its size), then empties it.
void wipe_string(std::string &s);

// A Rabin-Karp fingerprint of the token, to star it in log lines (broker_mask.h) without
// keeping it: a hash modulo 2^61-1 with a random base is 61 bits of a 256-bit token, no copy.
struct TokenPrint {
    uint64_t hash = 0;
    uint64_t base = 0;
    uint64_t top = 0;  // base^(len-1): what the byte leaving a window weighs
    size_t len = 0;    // 0: nothing to star
};

struct BrokerSecrets {
    unsigned char token_digest[32] = {};
    TokenPrint token_print;
    std::vector<Secret> values;  // per capability, in --capability order
    std::vector<Secret> lines;   // per capability: the injected header line, CRLF included

    BrokerSecrets() = default;
    ~BrokerSecrets();
    BrokerSecrets(BrokerSecrets &&) = default;
    BrokerSecrets &operator=(BrokerSecrets &&) = default;

    // Whether `supplied` is the token (constant time).
    bool token_matches(std::string_view supplied) const;
};

// Reads and checks the secrets file; closes fd. "" or the error line (no secret in it).
std::string read_broker_secrets(int fd, const BrokerConfig &b, BrokerSecrets *out);

// The checks of one record (shared/broker_secrets_wire.h's invariant): "" or what is wrong with it.
std::string check_secret_bytes(std::string_view v);

}  // namespace tproxy
