/* proxy/confine.h — the proxy confines itself before it reads any traffic.
 *
 * Order (confine_self): load the name-service modules by one lookup of "localhost" (and, with
 * a broker, the time zone OpenSSL's certificate checks read), set no_new_privs, drop every
 * capability, install Landlock, install seccomp. With a broker, OpenSSL was initialised (its
 * configuration file) and the CA bundles read before this, in main (tls_client.h). It must run while
 * the process has a single thread — capabilities and Landlock bind only the calling thread and
 * the threads it creates later — so the resolver pool is started after it, and the seccomp
 * filter lets clone through only with CLONE_THREAD for that.
 *
 * Landlock: every filesystem right the kernel knows is handled; the only rules grant
 * READ_FILE on the files name resolution opens on each lookup (/etc/hosts, resolv.conf,
 * nsswitch.conf, host.conf, gai.conf). TCP bind is handled with no rule (denied); TCP connect
 * is allowed only to the policy's ports and 53 (DNS falls back to TCP), to each broker
 * capability's port, and in channel mode to each --relay and --expose port. A proxy with
 * neither an HTTP listener nor a broker capability named by host looks nothing up: it gets
 * neither the resolver files, nor the warm-up lookup, nor 53 (nor the policy ports without
 * the HTTP proxy).
 * Abstract unix sockets and signals are scoped to the proxy's own domain; the channel is an
 * unnamed socketpair, and fds received over it with SCM_RIGHTS (recvmsg) are not affected.
 *
 * seccomp: an exact allow-list (what glibc's event loop, threads, malloc and resolver use),
 * anything else fails with EPERM so a glibc probe of a newer call degrades instead of dying,
 * and a named set a proxy never needs (execve, ptrace, mount, bpf, io_uring, bind, listen, …)
 * kills the process, so an exploited proxy cannot quietly try them. The rules are
 * proxy_filter_rules.h's; libseccomp turns them into a program at build time, and the proxy
 * only writes its pid into it and loads it.
 */
#pragma once

#include <string>

#include "config.h"

namespace tproxy {

struct ConfineResult {
    std::string error;                  // non-empty: the proxy must not run
    std::vector<std::string> warnings;  // layers this kernel cannot install
};

ConfineResult confine_self(const Config &c);

}  // namespace tproxy
