/* enforcer/netns.cpp — see netns.h. */
#include "netns.h"

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "report.h"

void netns_loopback_up()
{
    int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sock < 0)
        fail(EXIT_STARTUP, "network namespace: socket: %s", strerror(errno));
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    memcpy(ifr.ifr_name, "lo", 3);
    if (ioctl(sock, SIOCGIFFLAGS, &ifr) != 0)
        fail(EXIT_STARTUP, "network namespace: reading the flags of lo: %s", strerror(errno));
    ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP | IFF_RUNNING);
    if (ioctl(sock, SIOCSIFFLAGS, &ifr) != 0)
        fail(EXIT_STARTUP, "network namespace: bringing lo up: %s", strerror(errno));
    close(sock);
}
