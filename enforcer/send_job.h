/* enforcer/send_job.h — one notified send in the making (send_calls.h): what send_held.cpp
 * keeps of a call while it waits, and what send_message.cpp reads, checks and sends. Raw calls
 * only. */
#pragma once

#include <stdint.h>

#include "kuapi.h"
#include "socket_calls.h"

/* The most control data a mediated message carries (253 descriptors take 1028 bytes). */
constexpr uint32_t kMaxControl = 4096;
/* SCM_MAX_FD: the most descriptors one message passes. */
constexpr uint32_t kMaxRights = 253;
/* UIO_MAXIOV: the most buffers in a message, and the most messages of a sendmmsg(). */
constexpr uint32_t kMaxIov = 1024;

struct send_job {
    kuapi::seccomp_notif n; /* the call: n.pid is the caller, n.data.args its arguments */
    int listener;
    int pidfd;         /* the caller's, for its descriptors and its memory */
    int sock;          /* the mediator's duplicate of the command's socket; -1: slot free */
    uint64_t sock_ino; /* sends held on one socket go out in order */
    uint64_t order;    /* when the call came */
    int domain, type;
    uint32_t flags;       /* the caller's MSG_ flags */
    bool blocking;        /* neither O_NONBLOCK nor MSG_DONTWAIT: wait for room */
    uint64_t deadline_ns; /* SO_SNDTIMEO as a CLOCK_MONOTONIC time; 0: none */
    bool timer;           /* poll() said there was room and there was none: retry on a timer */
    uint64_t retry_ns;
    uint32_t vlen, done; /* messages asked (1 but for sendmmsg), messages sent */

    /* The current message. */
    uint64_t iov;            /* the caller's iovec array; for sendto(), the buffer itself */
    uint32_t iovlen;         /* its entries; 0 for sendto() */
    bool iov_fresh;          /* g_iov holds them, just read by prepare_message() */
    uint64_t size, sent;     /* its bytes, and how many of them went out */
    int target;              /* the checked socket a pathname address names (O_PATH); -1 */
    unsigned char name[128]; /* the address to send to, as the mediator names it */
    uint32_t name_len;
    unsigned char control[kMaxControl + 8]; /* translated: the mediator's descriptors, no credentials */
    uint32_t control_len;                   /* 0 once sent with the message's first bytes */
    int rights[kMaxRights];                 /* the mediator's copies of the descriptors passed */
    uint32_t rights_count;
};

/* Reads message `j.done` of the call into `j` and checks its address: 0, or -errno (a refusal
 * recorded in the effect log). send_once() must follow: it checks that the call is still
 * pending before anything read here is used. send_message.cpp. */
long prepare_message(send_job &j);

/* One sendmsg() of the current message's next bytes, with MSG_DONTWAIT: its result. */
long send_once(send_job &j);

/* Closes what the current message holds (the checked target, the passed descriptors). */
void release_message(send_job &j);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t monotonic_ns();
