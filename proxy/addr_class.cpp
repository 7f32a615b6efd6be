/* proxy/addr_class.cpp — the internal-address table (see addr_class.h). */
#include "addr_class.h"

#include <cstdint>
#include <cstring>

namespace tproxy {
namespace {

struct V4Block {
    uint32_t net;
    unsigned bits;
    const char *range;
};

// IANA IPv4 special-purpose registry, every block that is not globally reachable, plus
// multicast and 240/4. Order does not matter: the blocks do not overlap.
constexpr V4Block kV4Blocks[] = {
    {0x00000000, 8, "this-network 0.0.0.0/8"},        {0x0A000000, 8, "private 10.0.0.0/8"},
    {0x64400000, 10, "cgnat 100.64.0.0/10"},          {0x7F000000, 8, "loopback 127.0.0.0/8"},
    {0xA9FE0000, 16, "link-local 169.254.0.0/16"},    {0xAC100000, 12, "private 172.16.0.0/12"},
    {0xC0000000, 24, "ietf-protocol 192.0.0.0/24"},   {0xC0000200, 24, "documentation 192.0.2.0/24"},
    {0xC0586300, 24, "6to4-relay 192.88.99.0/24"},    {0xC0A80000, 16, "private 192.168.0.0/16"},
    {0xC6120000, 15, "benchmarking 198.18.0.0/15"},   {0xC6336400, 24, "documentation 198.51.100.0/24"},
    {0xCB007100, 24, "documentation 203.0.113.0/24"}, {0xE0000000, 4, "multicast 224.0.0.0/4"},
    {0xF0000000, 4, "reserved 240.0.0.0/4"},  // includes broadcast 255.255.255.255
};

bool in_v4_block(uint32_t host_order, const V4Block &b)
{
    uint32_t mask = b.bits == 0 ? 0 : ~uint32_t{0} << (32 - b.bits);
    return (host_order & mask) == b.net;
}

struct V6Block {
    uint8_t prefix[16];
    unsigned bits;
    const char *range;
};

// Blocks inside 2000::/3 that are still not ordinary global unicast.
const V6Block kV6GlobalExceptions[] = {
    {{0x20, 0x01, 0x0d, 0xb8}, 32, "documentation 2001:db8::/32"},
    {{0x20, 0x01}, 23, "ietf-protocol 2001::/23"},  // Teredo, ORCHID, benchmarking
    {{0x20, 0x02}, 16, "6to4 2002::/16"},
    {{0x3f, 0xff}, 20, "documentation 3fff::/20"},
};

// Outside 2000::/3 everything is internal; these names only make the log precise.
const V6Block kV6Named[] = {
    {{}, 128, "unspecified ::/128"},
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 128, "loopback ::1/128"},
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, 96, "v4-mapped ::ffff:0:0/96"},
    {{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0}, 96, "v4-translated ::ffff:0:0:0/96"},
    {{}, 96, "v4-compatible ::/96"},
    {{0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48, "nat64-local 64:ff9b:1::/48"},
    {{0x01}, 64, "discard 100::/64"},
    {{0xfc}, 7, "ula fc00::/7"},
    {{0xfe, 0x80}, 10, "link-local fe80::/10"},
    {{0xfe, 0xc0}, 10, "site-local fec0::/10"},
    {{0xff}, 8, "multicast ff00::/8"},
};

bool in_v6_block(const uint8_t *a, const V6Block &b)
{
    unsigned full = b.bits / 8, rest = b.bits % 8;
    if (std::memcmp(a, b.prefix, full) != 0)
        return false;
    if (rest == 0)
        return true;
    uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
    return (a[full] & mask) == (b.prefix[full] & mask);
}

constexpr uint8_t kNat64Wkp[12] = {0x00, 0x64, 0xff, 0x9b};  // 64:ff9b::/96

}  // namespace

AddrClass classify_v4(const in_addr &a)
{
    uint32_t h = ntohl(a.s_addr);
    for (const V4Block &b : kV4Blocks)
        if (in_v4_block(h, b))
            return {true, b.range};
    return {false, "public"};
}

AddrClass classify_v6(const in6_addr &a)
{
    const uint8_t *b = a.s6_addr;
    if (std::memcmp(b, kNat64Wkp, sizeof kNat64Wkp) == 0) {
        // A NAT64 gateway reaches the embedded IPv4: it is exactly as internal as that.
        in_addr v4;
        std::memcpy(&v4.s_addr, b + 12, 4);
        AddrClass inner = classify_v4(v4);
        return inner.internal ? AddrClass{true, "nat64-embedded internal IPv4 64:ff9b::/96"}
                              : AddrClass{false, "public"};
    }
    if ((b[0] & 0xe0) == 0x20) {
        for (const V6Block &blk : kV6GlobalExceptions)
            if (in_v6_block(b, blk))
                return {true, blk.range};
        return {false, "public"};
    }
    for (const V6Block &blk : kV6Named)
        if (in_v6_block(b, blk))
            return {true, blk.range};
    return {true, "not-global-unicast outside 2000::/3"};
}

AddrClass classify(const sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return classify_v4(reinterpret_cast<const sockaddr_in *>(sa)->sin_addr);
    if (sa->sa_family == AF_INET6)
        return classify_v6(reinterpret_cast<const sockaddr_in6 *>(sa)->sin6_addr);
    return {true, "unknown family"};
}

}  // namespace tproxy
