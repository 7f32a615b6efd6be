/* enforcer/signals.cpp — forwarding handlers shared by the supervisor and init. */
#include "signals.h"

#include <signal.h>

#include "raw.h"

namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT};

/* One target per forwarder: the supervisor and init share their memory (CLONE_VM). */
volatile sig_atomic_t g_target[2] = {0, 0};

/* kill(2) without errno: the handler may interrupt C code of another process on this memory. */
void forward(int sig, forwarder from)
{
    if (g_target[from] > 0)
        raw_syscall2(SYS_kill, g_target[from], sig);
}

void forward_from_supervisor(int sig)
{
    forward(sig, FORWARD_FROM_SUPERVISOR);
}

void forward_from_init(int sig)
{
    forward(sig, FORWARD_FROM_INIT);
}

sigset_t forwarded_set()
{
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kForwarded)
        sigaddset(&set, sig);
    return set;
}

void set_handlers(void (*handler)(int))
{
    struct sigaction sa = {};
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (int sig : kForwarded)
        sigaction(sig, &sa, nullptr);
}

}  // namespace

void signals_block_forwarded()
{
    sigset_t set = forwarded_set();
    sigprocmask(SIG_BLOCK, &set, nullptr);
}

void signals_forward_to(pid_t pid, forwarder from)
{
    g_target[from] = pid;
    set_handlers(from == FORWARD_FROM_SUPERVISOR ? forward_from_supervisor : forward_from_init);
    sigset_t set = forwarded_set();
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

void signals_restore_defaults()
{
    set_handlers(SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
}
