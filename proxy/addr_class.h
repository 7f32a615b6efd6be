/* proxy/addr_class.h — which destination addresses the proxy refuses for unpinned names.
 *
 * The rule: an address is "internal" unless it is ordinary globally routed unicast. IPv4
 * refuses every special-purpose block of the IANA registry that is not globally reachable
 * (loopback, RFC 1918, CGNAT, link-local, 0/8, multicast, 240/4 and broadcast, the
 * documentation, benchmarking and protocol-assignment blocks). IPv6 is allowed only inside
 * 2000::/3 (minus its documentation, Teredo/ORCHID/benchmarking, 6to4 and 3fff::/20 blocks)
 * or as NAT64 64:ff9b::/96 whose embedded IPv4 is itself public; every other IPv6 address —
 * ::, ::1, v4-mapped, v4-compatible, ULA, link- and site-local, multicast — is internal.
 * Invariant: classify never says "public" for an address from which the kernel would reach
 * this host or its local networks.
 */
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

namespace tproxy {

struct AddrClass {
    bool internal;
    const char *range;  // e.g. "loopback 127.0.0.0/8"; "public" when not internal
};

AddrClass classify_v4(const in_addr &a);
AddrClass classify_v6(const in6_addr &a);
// AF_INET or AF_INET6 socket address; any other family is internal ("unknown family").
AddrClass classify(const sockaddr *sa);

}  // namespace tproxy
