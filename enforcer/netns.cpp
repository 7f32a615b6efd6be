/* enforcer/netns.cpp — see netns.h. */
#include "netns.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
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

int loopback_listener(uint16_t port, bool reuse_address)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    if ((reuse_address && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) ||
        bind(fd, (const struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, SOMAXCONN) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}
