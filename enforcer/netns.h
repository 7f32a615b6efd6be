/* enforcer/netns.h — the sandbox's private network namespace. */
#pragma once

#include <stdint.h>

/* Brings the loopback interface of the (new, private) network namespace up, so 127.0.0.1
 * works inside: a test suite's local server, a language server. Nothing else exists in the
 * namespace, so nothing outside is reachable. Fails the start-up (125) if the kernel refuses. */
void netns_loopback_up();

/* A close-on-exec TCP socket listening on 127.0.0.1:port in the caller's network namespace,
 * or -1 with errno set. `reuse_address`: SO_REUSEADDR, for a host port a previous run's
 * connections may still hold in TIME_WAIT. */
int loopback_listener(uint16_t port, bool reuse_address);
