/* enforcer/signals.cpp — forwarding handlers shared by the supervisor and init. */
#include "signals.h"

#include <signal.h>

#include "raw.h"

namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT};

/* One target per forwarder: the supervisor and init share their memory (CLONE_VM). */
volatile sig_atomic_t g_target[2] = {0, 0};
/* The command shares the caller's terminal: what the terminal sends (SI_KERNEL: Ctrl-C, a
 * resize) reaches its foreground process group directly, so forwarding it would repeat it. */
volatile sig_atomic_t g_terminal_shared[2] = {0, 0};

/* Signals the caller ignores (nohup's SIGHUP): they stay ignored in the supervisor and init
 * and are ignored in the command too, as they would be for any program the caller starts. */
sigset_t g_caller_ignores;

/* kill(2) without errno: the handler may interrupt C code of another process on this memory. */
void forward(int sig, const siginfo_t *info, forwarder from)
{
    if (g_terminal_shared[from] && info->si_code == SI_KERNEL)
        return;
    if (g_target[from] > 0)
        raw_syscall2(SYS_kill, g_target[from], sig);
}

void forward_from_supervisor(int sig, siginfo_t *info, void *)
{
    forward(sig, info, FORWARD_FROM_SUPERVISOR);
}

void forward_from_init(int sig, siginfo_t *info, void *)
{
    forward(sig, info, FORWARD_FROM_INIT);
}

sigset_t forwarded_set()
{
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kForwarded)
        sigaddset(&set, sig);
    return set;
}

void set_handlers(void (*handler)(int, siginfo_t *, void *))
{
    struct sigaction sa = {};
    if (handler != nullptr) {
        sa.sa_sigaction = handler;
        sa.sa_flags = SA_RESTART | SA_SIGINFO;
    } else {
        sa.sa_handler = SIG_DFL;
    }
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

void signals_forward_to(pid_t pid, forwarder from, bool terminal_shared)
{
    g_target[from] = pid;
    g_terminal_shared[from] = terminal_shared;
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
