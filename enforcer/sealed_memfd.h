/* enforcer/sealed_memfd.h — the sealed memfds the supervisor hands tartaros-proxy (the plan,
 * the broker's secrets): written once, then sealed, so neither side's later mistake, nor anyone
 * holding the descriptor, can change what the other reads. */
#pragma once

#include <stddef.h>

/* A new memfd (close-on-exec, sealing allowed) named `name`, or -1 with errno set; filled
 * with write_all (shared/write_all.h), then sealed. */
int sealed_memfd_create(const char *name);

/* Seals it against writes, resizing and further seals, and rewinds it; false with errno set. */
bool sealed_memfd_seal(int fd);
