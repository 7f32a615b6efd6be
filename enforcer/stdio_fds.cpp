/* enforcer/stdio_fds.cpp — what the command gets as fds 0-2 (stdio_fds.h): the supervisor decides,
 * init installs, the command takes its terminal. The relay itself: relay.cpp. */
#include "stdio_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "arena.h"
#include "exit_notice.h"
#include "fd_passing.h"
#include "mount_steps.h"
#include "raw.h"
#include "report.h"

namespace {

constexpr int kStdio = 3;
/* A relayed pipe holds 1 MiB (the default pipe-max-size), not 64 KiB: a copy through the
 * supervisor then costs a wake-up per megabyte, not per 64 KiB. */
constexpr int kPipeSize = 1 << 20;

bool is_dev_null(const struct stat *st)
{
    return S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3);
}

/* The plan builds the sandbox's /dev, whose null is a read-only bind (devfs.cpp). */
bool sandbox_has_dev(const run_ctx *ctx)
{
    if (!ctx->mount_layer)
        return false;
    for (uint32_t i = 0; i < ctx->plan->mount_count; i++)
        if (ctx->plan->mounts[i].op == TP_MNT_DEV)
            return true;
    return false;
}

/* Whether fds a and b are one open file (kcmp), or at least one file when kcmp is refused. */
bool same_open_file(int a, int b)
{
    long r = syscall(SYS_kcmp, getpid(), getpid(), 0 /* KCMP_FILE */, a, b);
    if (r >= 0)
        return r == 0;
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool same_terminal(int fd, int terminal)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && fstat(terminal, &b) == 0 && a.st_rdev == b.st_rdev;
}

stdio_kind classify(const run_ctx *ctx, int fd, int *terminal)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        fail(EXIT_STARTUP, "cannot relay fd %d: %s", fd, strerror(errno));
    if (is_dev_null(&st) && sandbox_has_dev(ctx))
        return STDIO_NULL;
    if (!isatty(fd))
        return STDIO_PIPE;
    if (*terminal < 0)
        *terminal = fd;
    return same_terminal(fd, *terminal) ? STDIO_TERMINAL : STDIO_PIPE;
}

int checked(int ret, const char *what)
{
    if (ret < 0)
        fail(EXIT_STARTUP, "cannot relay the standard descriptors: %s: %s", what, strerror(errno));
    return ret;
}

/* fd k's pipe: for stdin the command reads, for stdout and stderr it writes. */
void make_pipe(stdio_setup *s, int k)
{
    int fds[2];
    checked(pipe2(fds, O_CLOEXEC), "pipe");
    int mine = k == 0 ? fds[1] : fds[0];
    s->sandbox_end[k] = k == 0 ? fds[0] : fds[1];
    s->relay_end[k] = mine;
    checked(fcntl(mine, F_SETFL, O_NONBLOCK), "fcntl");
    fcntl(fds[0], F_SETPIPE_SZ, kPipeSize); /* best effort: pipe-max-size may be lower */
}

/* A run started in the background finds the terminal in whatever modes its foreground has
 * (a shell's line editor: no echo, not canonical); the pty starts as a cooked terminal. */
void make_cooked(struct termios *t)
{
    t->c_iflag |= ICRNL;
    t->c_oflag |= OPOST | ONLCR;
    t->c_lflag |= ICANON | ECHO | ECHOE | ECHOK | ISIG | IEXTEN;
}

void prepare_terminal(stdio_setup *s)
{
    int pair[2];
    checked(tcgetattr(s->terminal, &s->modes), "tcgetattr");
    if (tcgetpgrp(s->terminal) != getpgrp())
        make_cooked(&s->modes);
    if (ioctl(s->terminal, TIOCGWINSZ, &s->size) != 0)
        memset(&s->size, 0, sizeof s->size);
    checked(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), "socketpair");
    s->pty_channel[0] = pair[0];
    s->pty_channel[1] = pair[1];
}

/* Init: the sandbox's /dev/null (a read-only bind of the host's node: no chmod through it). */
int open_sandbox_null()
{
    int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    struct statvfs vfs;
    if (fd < 0 || fstatvfs(fd, &vfs) != 0 || !(vfs.f_flag & ST_RDONLY))
        fail(EXIT_STARTUP, "the sandbox's /dev/null is not a read-only node");
    return fd;
}

/* Init: the sandbox's devpts instance, made now (the DEV step attaches it at /dev/pts, devfs.cpp)
 * so that the pty exists before the command is cloned; or the host's ptmx when the plan
 * builds no /dev. */
int open_master(const run_ctx *ctx, stdio_setup *s)
{
    if (!sandbox_has_dev(ctx))
        return open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    s->devpts = new_devpts();
    return s->devpts < 0 ? -1 : openat(s->devpts, "ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
}

void send_master(const stdio_setup *s, int master)
{
    long n = raw_send_fd(s->pty_channel[1], master, 't');
    if (n != 1)
        fail(EXIT_STARTUP, "cannot hand the pseudo-terminal to the supervisor: %s", strerror((int)-n));
}

/* Init: the pty with the caller's modes and size; its master goes to the supervisor; returns
 * the peer (the command's terminal). */
int open_sandbox_pty(const run_ctx *ctx, stdio_setup *s)
{
    int master = open_master(ctx, s);
    int unlock = 0;
    if (master < 0 || ioctl(master, TIOCSPTLCK, &unlock) != 0)
        fail(EXIT_STARTUP, "cannot open the sandbox's pseudo-terminal: %s", strerror(errno));
    int peer = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (peer < 0 || tcsetattr(peer, TCSANOW, &s->modes) != 0 || ioctl(master, TIOCSWINSZ, &s->size) != 0)
        fail(EXIT_STARTUP, "cannot set up the sandbox's pseudo-terminal: %s", strerror(errno));
    send_master(s, master);
    close(master);
    return peer;
}

void install_fd(int from, int k)
{
    if (from != k && dup2(from, k) != k)
        fail(EXIT_STARTUP, "cannot install the sandbox's fd %d: %s", k, strerror(errno));
}

}  // namespace

void stdio_prepare(run_ctx *ctx)
{
    stdio_setup *s = (stdio_setup *)arena_alloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->terminal = s->devpts = -1;
    s->wake = s->pty_channel[0] = s->pty_channel[1] = -1;
    ctx->stdio = s;
    for (int k = 0; k < kStdio; k++) {
        s->kind[k] = classify(ctx, k, &s->terminal);
        s->sandbox_end[k] = s->relay_end[k] = -1;
        s->relayed |= s->kind[k] == STDIO_PIPE || s->kind[k] == STDIO_TERMINAL;
    }
    if (!s->relayed)
        return; /* nothing of the caller's reaches the command: no relay, no thread */
    for (int k = 0; k < kStdio; k++) {
        if (s->kind[k] != STDIO_PIPE)
            continue;
        if (k == 2 && s->kind[1] == STDIO_PIPE && same_open_file(1, 2))
            s->sandbox_end[2] = s->sandbox_end[1]; /* 2>&1: one pipe keeps the order */
        else
            make_pipe(s, k);
    }
    if (s->terminal >= 0)
        prepare_terminal(s);
    s->wake = checked(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), "eventfd");
}

void stdio_after_clone(const run_ctx *ctx)
{
    const stdio_setup *s = ctx->stdio;
    if (!s->relayed)
        return;
    for (int k = 0; k < kStdio; k++)
        if (s->sandbox_end[k] >= 0 && (k != 2 || s->sandbox_end[2] != s->sandbox_end[1]))
            close(s->sandbox_end[k]);
    if (s->pty_channel[1] >= 0)
        close(s->pty_channel[1]);
}

void stdio_install(const run_ctx *ctx)
{
    const stdio_setup *s = ctx->stdio;
    int null_fd = -1;
    for (int k = 0; k < kStdio; k++) {
        switch (s->kind[k]) {
        case STDIO_NULL:
            /* The mount namespace was lost after this was decided (clone refused the user
             * namespace, which root never loses): the caller's /dev/null stays, root's, which
             * a caller that is not root can neither chmod nor chown. */
            if (!ctx->mount_layer)
                break;
            if (null_fd < 0)
                null_fd = open_sandbox_null();
            install_fd(null_fd, k);
            break;
        case STDIO_PIPE: install_fd(s->sandbox_end[k], k); break;
        case STDIO_TERMINAL: break; /* stdio_open_terminal */
        }
    }
    const int done[] = {null_fd, s->pty_channel[0], s->pty_channel[1], s->wake};
    for (int fd : done)
        if (fd > 2)
            close(fd);
    for (int k = 0; k < kStdio; k++) {
        if (s->relay_end[k] >= 0)
            close(s->relay_end[k]);
        if (s->sandbox_end[k] > 2 && (k != 2 || s->sandbox_end[2] != s->sandbox_end[1]))
            close(s->sandbox_end[k]);
    }
}

void stdio_open_terminal(const run_ctx *ctx)
{
    stdio_setup *s = ctx->stdio;
    if (s->terminal < 0)
        return;
    int peer = open_sandbox_pty(ctx, s);
    if (ioctl(peer, TIOCSCTTY, 0) != 0)
        fail(EXIT_STARTUP, "cannot take the sandbox's pseudo-terminal: %s", strerror(errno));
    for (int k = 0; k < kStdio; k++)
        if (s->kind[k] == STDIO_TERMINAL)
            install_fd(peer, k);
    close(peer);
}

void stdio_command_stopped(const run_ctx *ctx)
{
    stdio_setup *s = ctx->stdio;
    if (s->terminal < 0)
        return;
    __atomic_add_fetch(&s->stops, 1u, __ATOMIC_RELEASE);
    exit_notice_poke(ctx->exit_notice);
}

void stdio_take_terminal(const run_ctx *ctx)
{
    const stdio_setup *s = ctx->stdio;
    if (s->terminal < 0)
        return;
    int k = s->kind[0] == STDIO_TERMINAL ? 0 : s->kind[1] == STDIO_TERMINAL ? 1 : 2;
    /* SIGTTOU held: tcsetpgrp from a group not yet in the foreground would stop us. */
    sigset_t ttou, old_mask;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    sigprocmask(SIG_BLOCK, &ttou, &old_mask);
    if (setpgid(0, 0) != 0 || tcsetpgrp(k, getpid()) != 0)
        fail(EXIT_STARTUP, "cannot put the command in the foreground of its terminal: %s", strerror(errno));
    sigprocmask(SIG_SETMASK, &old_mask, nullptr);
}
