/* enforcer/signals.cpp — forwarding handlers shared by the supervisor and init. */
#include "signals.h"

#include <errno.h>
#include <signal.h>

namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT};

volatile sig_atomic_t g_forward_to = 0;

void forward(int sig)
{
    int saved = errno;
    if (g_forward_to > 0)
        kill((pid_t)g_forward_to, sig);
    errno = saved;
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

void signals_forward_to(pid_t pid)
{
    g_forward_to = pid;
    set_handlers(forward);
    sigset_t set = forwarded_set();
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

void signals_restore_defaults()
{
    g_forward_to = 0;
    set_handlers(SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
}
