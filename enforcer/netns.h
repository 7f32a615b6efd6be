/* enforcer/netns.h — the sandbox's private network namespace. */
#pragma once

/* Brings the loopback interface of the (new, private) network namespace up, so 127.0.0.1
 * works inside: a test suite's local server, a language server. Nothing else exists in the
 * namespace, so nothing outside is reachable. Fails the start-up (125) if the kernel refuses. */
void netns_loopback_up();
