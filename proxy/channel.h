/* proxy/channel.h — the proxy's end of the sandbox channel (the protocol: shared/net_channel.h).
 *
 * Start-up, once: receive_listeners blocks for message 1 (the listeners the sandbox made),
 * check_listeners compares them with the command line, send_ready answers. Message 1 starts
 * with a tnc_hello, so it is never empty (with only --expose it carries no listener): zero
 * bytes is EOF. The proxy answers
 * only after message 1, even to report a failure it knew before (a bad command line, a
 * confinement it cannot install): the sandbox side then always sends first and reads second,
 * and never meets a peer that wrote and left while it was still sending.
 * Serving, per host connection to an exposed port: request_socket sends one
 * TNC_SOCKET_REQUEST byte, receive_socket_reply takes one answer; answers come in request
 * order, so the caller matches them with a FIFO. Both never block.
 * Invariant: every descriptor received is close-on-exec (MSG_CMSG_CLOEXEC) and ends with the
 * caller or is closed here; none leaks from a malformed message.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config.h"
#include "net_channel.h"

namespace tproxy {

struct ChannelListener {
    int fd;
    uint8_t kind;  // tnc_listener_kind
    unsigned port;
};

enum class ChannelEnd { Message, Closed, Signalled };

struct ListenerMessage {
    ChannelEnd end = ChannelEnd::Closed;
    std::vector<ChannelListener> listeners;  // end == Message and error empty
    std::string error;                       // end == Message: the message was malformed (its fds are closed)
};

// Waits for message 1 on `chan` or a readable `sigfd` (SIGTERM, SIGINT), whichever is first.
ListenerMessage receive_listeners(int chan, int sigfd);

// "" when `got` is exactly the listener set the command line names (one TNC_PROXY on
// --proxy-port iff given, one TNC_BROKER on --broker-port iff given, one TNC_RELAY per
// --relay) and every fd is a listening AF_INET
// SOCK_STREAM socket bound to 127.0.0.1 and its port; otherwise why not.
std::string check_listeners(const Config &c, const std::vector<ChannelListener> &got);

void close_listeners(const std::vector<ChannelListener> &got);

// Sends message 2 (message cut to 254 bytes). False when the sandbox side is gone.
bool send_ready(int chan, uint8_t status, const std::string &message);

// Sends one TNC_SOCKET_REQUEST; 0 or the errno (EAGAIN: the channel is full, retry on EPOLLOUT).
int request_socket(int chan);

enum class ReplyStatus { Reply, Again, Closed, Malformed };

struct SocketReply {
    int error = 0;  // the sandbox's errno from socket(2); 0 when fd is set
    int fd = -1;
};

// Takes one answer to a socket request. Malformed: not one byte, or an fd count that does not
// match it (whatever fds came are closed).
ReplyStatus receive_socket_reply(int chan, SocketReply *out);

// "" when fd is an AF_INET SOCK_STREAM TCP socket; otherwise what it is not.
std::string check_inet_stream(int fd);

}  // namespace tproxy
