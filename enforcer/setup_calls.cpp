/* enforcer/setup_calls.cpp — the command's set-up calls after an early filter (setup_calls.h). */
#include "setup_calls.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "bpf_interp.h"
#include "kuapi.h"

namespace {

constexpr uint32_t arg(int k)
{
    return 1u << k;
}

constexpr uint64_t kSigsetSize = 8; /* what musl passes as rt_sig*'s sigsetsize */
constexpr uint64_t kNoFd = (uint64_t)-1;

/* Each with who makes it. Constants are the enforcer's own arguments; the rest vary. */
const setup_call kSetupCalls[] = {
    /* launch.cpp: the early command waits for init's go (raw_futex_wait) */
    {SYS_futex, arg(1) | arg(3), {0, kuapi::FUTEX_WAIT, 0, 0, 0, 0}},
    /* launch.cpp run_command: the working directory, else / */
    {SYS_chdir, 0, {}},
    /* stdio_fds.cpp stdio_take_terminal: its own group in the foreground of the terminal */
    {SYS_rt_sigprocmask, arg(3), {0, 0, 0, kSigsetSize, 0, 0}},
    {SYS_setpgid, arg(0) | arg(1), {0, 0, 0, 0, 0, 0}},
    {SYS_getpid, 0, {}},
    {SYS_ioctl, arg(1), {0, TIOCSPGRP, 0, 0, 0, 0}},
    /* signals.cpp signals_restore_defaults */
    {SYS_rt_sigaction, arg(3), {0, 0, 0, kSigsetSize, 0, 0}},
    /* process.cpp command_main: parent-death signal, then init still its parent */
    {SYS_prctl, arg(0) | arg(1) | arg(2) | arg(3) | arg(4), {PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0, 0}},
    {SYS_getppid, 0, {}},
    /* arena.cpp: the environment's strings, when the arena needs another mapping */
    {SYS_mmap,
     arg(0) | arg(2) | arg(3) | arg(4) | arg(5),
     {0, 0, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, kNoFd, 0}},
    /* process.cpp close_inherited_fds_at_exec, and its fallback before Linux 5.11 */
    {SYS_close_range, 0, {}},
    /* run_limits.cpp limits_apply_rlimits: setrlimit is prlimit64 on the caller */
    {SYS_prlimit64, arg(0), {0, 0, 0, 0, 0, 0}},
    /* process.cpp drop_capabilities */
    {SYS_prctl, arg(0) | arg(1) | arg(2) | arg(3) | arg(4), {PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0, 0}},
    {SYS_capget, 0, {}},
    {SYS_capset, 0, {}},
    /* landlock.cpp landlock_enforce and landlock_deny_tcp_without_netns */
    {SYS_landlock_create_ruleset, arg(2), {0, 0, 0, 0, 0, 0}},
    {SYS_landlock_restrict_self, arg(1), {0, 0, 0, 0, 0, 0}},
    {SYS_close, 0, {}},
    /* process.cpp exec_command: execve along PATH, stat of a candidate that is not executable */
    {SYS_execve, 0, {}},
    {SYS_newfstatat, 0, {}},
    /* report.cpp fail: the failure's line to the supervisor, then _exit */
    {SYS_write, 0, {}},
    {SYS_exit_group, 0, {}},
    /* the kernel's own: a signal handler's return, an interrupted call's restart */
    {SYS_rt_sigreturn, 0, {}},
    {SYS_restart_syscall, 0, {}},
};

/* The seccomp_data words a call fixes (ir/bpf_interp.h numbering): nr, arch, constant args. */
uint32_t fixed_words(const setup_call &c)
{
    uint32_t words = 1u << 0 | 1u << 1;
    for (int k = 0; k < 6; k++)
        if (c.constant_args & arg(k))
            words |= 3u << (4 + 2 * k);
    return words;
}

bool admits(const tp_bpf_insn *prog, uint32_t len, const setup_call &c)
{
    tp_seccomp_data data = {};
    data.nr = c.nr;
    data.arch = TP_ARCH_X86_64;
    for (int k = 0; k < 6; k++)
        data.args[k] = (c.constant_args & arg(k)) ? c.args[k] : 0;
    tp_bpf_result r = tp_bpf_evaluate(prog, len, &data);
    return r.fault == TP_BPF_FAULT_NONE && r.ret == TP_RET_ALLOW && (r.loaded & ~fixed_words(c)) == 0;
}

}  // namespace

const setup_call *setup_calls()
{
    return kSetupCalls;
}

uint32_t setup_call_count()
{
    return sizeof kSetupCalls / sizeof kSetupCalls[0];
}

bool filter_admits_setup_calls(const tp_bpf_insn *prog, uint32_t len)
{
    for (const setup_call &c : kSetupCalls)
        if (!admits(prog, len, c))
            return false;
    return true;
}
