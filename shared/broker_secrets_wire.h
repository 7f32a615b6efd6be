/* shared/broker_secrets_wire.h — how the supervisor hands the broker's secrets to tartaros-proxy.
 *
 * Plain C, shared by the static enforcer (writer) and the proxy (reader). The token and the
 * capabilities' values never travel on a command line or in an environment: the supervisor
 * reads them from its own environment once (the names are in the plan's TP_SEC_BROKER and
 * TP_SEC_BROKER_CAPS), writes them into a sealed memfd, and the proxy gets that fd with
 * `--broker-secrets FD`. The proxy reads it whole before it confines itself and closes it.
 *
 * Layout, little-endian, no padding:
 *   struct tbs_header;                              count == 1 + number of capabilities
 *   count times: uint32_t len; uint8_t bytes[len];  len 1..TBS_MAX_VALUE
 * Record 0 is the broker token; record i (i >= 1) is the value of the i-th capability, in the
 * order of the plan's TP_SEC_BROKER_CAPS, which is the order of the proxy's --capability
 * flags. The file ends exactly after the last record.
 * Invariant (checked by both sides): every value is printable ASCII (0x21..0x7e) or space and
 * tab inside, with no leading or trailing whitespace — a value that could end a header line
 * (CR, LF) or hide in one (NUL, other controls) is refused before anything runs.
 */
#ifndef TARTAROS_IR_BROKER_SECRETS_H
#define TARTAROS_IR_BROKER_SECRETS_H

#include <stdint.h>

#define TBS_MAGIC       0x31534254u /* "TBS1" little-endian */
#define TBS_MAX_VALUE   16384u      /* bytes of one token or value */
#define TBS_MAX_RECORDS 65u         /* the token plus TP_MAX_BROKER_CAPS values */

struct tbs_header { /* 8 bytes */
    uint32_t magic; /* TBS_MAGIC */
    uint32_t count; /* records that follow: 1..TBS_MAX_RECORDS */
};

#endif /* TARTAROS_IR_BROKER_SECRETS_H */
