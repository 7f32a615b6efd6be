/* enforcer/signals.cpp — forwarding handlers shared by the supervisor and init. */
#include "signals.h"

#include <signal.h>

#include "raw.h"
#include "stdio_fds.h"

namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT};

/* One target per forwarder: the supervisor and init share their memory (CLONE_VM). */
volatile sig_atomic_t g_target[2] = {0, 0};
/* Signals the caller ignores (nohup's SIGHUP): they stay ignored in the supervisor and init
 * and are ignored in the command too, as they would be for any program the caller starts. */
sigset_t g_caller_ignores;

/* kill(2) without errno: the handler may interrupt C code of another process on this memory. */
void forward(int sig, forwarder from)
{
    if (from == FORWARD_FROM_SUPERVISOR && relay_signal(sig))
        return;
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

/* `handler` NULL: the default disposition. */
void set_handlers(void (*handler)(int))
{
    struct sigaction sa = {};
    sa.sa_handler = handler != nullptr ? handler : SIG_DFL;
    sa.sa_flags = handler != nullptr ? SA_RESTART : 0;
    sigemptyset(&sa.sa_mask);
    for (int sig : kForwarded)
        if (!sigismember(&g_caller_ignores, sig))
            sigaction(sig, &sa, nullptr);
}

}  // namespace

void signals_block_forwarded()
{
    sigemptyset(&g_caller_ignores);
    for (int sig : kForwarded) {
        struct sigaction old;
        if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN)
            sigaddset(&g_caller_ignores, sig);
    }
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
    set_handlers(nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
}
