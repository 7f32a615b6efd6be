"""tests/integration/pty_session.py — a caller's interactive shell on a real pseudo-terminal.

Usage: pty_session.py UID GID HOME EXEC PLAN WS SCENARIO

Runs `bash -i` (the caller's shell, prompt "CALLER$ ") on a pseudo-terminal made by python's
pty, as UID/GID, and drives one scenario through it by typing, as a user would, a
tartaros-exec run of PLAN and keys into it. Prints `KEY=VALUE` result lines, then the whole
transcript prefixed with "| ". Markers are computed ($((...)), 6*7), so the echo of a typed
line never contains them.
"""
import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time

uid, gid = int(sys.argv[1]), int(sys.argv[2])
home, exe, plan, ws, scenario = sys.argv[3:8]
env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TERM": "xterm", "LC_ALL": "C",
       "PS1": "CALLER$ ", "PYTHONSTARTUP": ""}
RUN = exe + " " + plan + " -- "

pid, fd = pty.fork()
if pid == 0:
    if uid != 0:
        os.fchown(0, uid, gid)  # the terminal is the user's, as after a login
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    os.chdir(home)
    os.execve("/bin/bash", ["bash", "--norc", "--noprofile", "-i"], env)

out = bytearray()
results = {}


def pump(token=None, timeout=10.0, since=0):
    """Reads the terminal until `token` appears after offset `since`; True when it did."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if token is not None and token.encode() in out[since:]:
            return True
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:
                return False
            if not data:
                return False
            out.extend(data)
    return token is not None and token.encode() in out[since:]


def say(text, token, timeout=10.0):
    mark = len(out)
    os.write(fd, text.encode())
    return pump(token, timeout, mark)


def key(data, token, timeout=10.0):
    mark = len(out)
    os.write(fd, data)
    return pump(token, timeout, mark)


def result(name, ok):
    results[name] = "yes" if ok else "no"


def resize(rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def size_reaches_repl(token, timeout=5.0):
    """The REPL reports the new size within `timeout`: the supervisor copies a resize to the
    sandbox's pty when its SIGWINCH handler runs, which on a loaded machine can take longer
    than any fixed pause, so the size is asked again until it shows."""
    deadline = time.time() + timeout
    while True:
        if say("print('SIZE=%d' % (os.get_terminal_size().columns * 1000 + os.get_terminal_size().lines))\n",
               token, 0.5):
            return True
        if time.time() > deadline:
            return False


def caller_prompt_after_stop(mark):
    """Ctrl-Z or a self-suspend (typed after offset `mark`): the caller's shell reports the
    job stopped and prompts again."""
    ok = pump("CALLER$ ", 10, mark)
    return ok and re.search(rb"Stopped", bytes(out[mark:])) is not None


def repl():
    resize(24, 80)
    result("repl_started", say(RUN + "python3 -q\n", ">>> "))
    result("ttyname", say("import os; print('TTY=' + os.ttyname(0), os.isatty(1))\n", "TTY=/dev/pts/0 True"))
    resize(33, 111)
    result("resized", size_reaches_repl("SIZE=111033"))
    mark = len(out)
    os.write(fd, b"\x1a")
    result("ctrlz_prompt", caller_prompt_after_stop(mark))
    result("jobs_stopped", say("jobs; echo J$((1+1))\n", "J2") and b"Stopped" in out[-300:])
    say("fg\n", "python3")
    time.sleep(0.3)
    result("fg_resumed", say("print('BACK', 6*7)\n", "BACK 42"))
    say("import time\n", ">>> ")
    say("time.sleep(30)\n", None, 0.5)
    result("ctrlc", key(b"\x03", "KeyboardInterrupt"))
    result("repl_alive", say("print('ALIVE', 7*7)\n", "ALIVE 49"))
    say("exit(5)\n", "CALLER$ ")
    result("repl_exit", say("echo RC=$?\n", "RC=5"))


def suspend_self():
    mark = len(out)
    os.write(fd, (RUN + "sh -c 'kill -TSTP $$; echo RESUMED$((6*7))'\n").encode())
    result("suspend_prompt", caller_prompt_after_stop(mark))
    result("suspend_fg", say("fg\n", "RESUMED42"))
    pump("CALLER$ ", 5, len(out) - 20)
    result("suspend_exit", say("echo RC=$?\n", "RC=0"))


def inner_shell():
    say(RUN + "bash --norc --noprofile -i\n", None, 1.0)
    result("inner_started", say("PS1='INNER$ '\n", "INNER$ "))
    result("inner_tty", say("tty; echo T$((1+2))\n", "T3") and b"/dev/pts/0" in out[-200:])
    say("sleep 30\n", None, 0.5)
    key(b"\x1a", "INNER$ ")
    result("inner_ctrlz", b"Stopped" in out[-200:])
    result("inner_bg", say("bg; jobs; echo J$((3+4))\n", "J7") and b"Running" in out[-300:])
    say("kill %1; wait; echo K$((2+3))\n", "K5")
    say("sleep 30\n", None, 0.5)
    result("inner_ctrlc", key(b"\x03", "INNER$ "))
    mark = len(out)
    os.write(fd, b"suspend\n")
    result("inner_suspend", caller_prompt_after_stop(mark))
    say("fg\n", None, 0.5)
    result("inner_back", say("echo B$((4+5))\n", "B9"))
    say("exit 7\n", "CALLER$ ")
    result("inner_exit", say("echo RC=$?\n", "RC=7"))


def background():
    """Started with &: it writes to the terminal but reads nothing until `fg` (which sends
    no SIGCONT to a running job), then its terminal is a cooked one: echo, lines, ^D."""
    say(RUN + "sh -c 'sleep 1; echo BG$((5*5)); cat' &\n", "CALLER$ ")
    result("bg_output", pump("BG25", 5, len(out) - 40))
    say("fg\n", None, 1.0)
    result("bg_fg_reads", say("typed\n", "typed\r\ntyped", 5))
    result("bg_eof", key(b"\x04", "CALLER$ "))
    result("bg_exit", say("echo RC=$?\n", "RC=0"))


def vi():
    note = ws + "/note.txt"
    say(RUN + "vi " + note + "\n", None, 1.5)
    key(b"ihello from vi\x1b", None, 0.5)
    mark = len(out)
    os.write(fd, b"\x1a")
    result("vi_ctrlz", caller_prompt_after_stop(mark))
    say("fg\n", None, 1.0)
    key(b":wq\r", "CALLER$ ")
    result("vi_exit", say("echo RC=$?\n", "RC=0"))
    try:
        result("vi_saved", open(note).read().strip() == "hello from vi")
    except OSError:
        result("vi_saved", False)


def less():
    say(RUN + "less /etc/os-release\n", None, 1.0)
    key(b"q", "CALLER$ ")
    result("less_exit", say("echo RC=$?\n", "RC=0"))


def chmod_terminal():
    slave = os.readlink("/proc/%d/fd/0" % pid)
    before = os.stat(slave)
    say(RUN + "sh -c 'chmod 666 /proc/self/fd/0; chmod 666 $(tty); touch -d 2001-01-01 /proc/self/fd/1;"
        " echo DONE$((2*4))'\n", "DONE8")
    pump("CALLER$ ", 5, len(out) - 20)
    after = os.stat(slave)
    result("terminal_mode_kept", after.st_mode == before.st_mode)
    result("terminal_time_kept", time.gmtime(after.st_mtime).tm_year != 2001)


scenarios = {"repl": repl, "suspend": suspend_self, "inner": inner_shell, "background": background, "vi": vi,
             "less": less, "chmod": chmod_terminal}
pump("CALLER$ ")
scenarios[scenario]()
os.write(fd, b"exit\n")
pump(timeout=3)
try:
    os.kill(pid, 9)
except OSError:
    pass
os.waitpid(pid, 0)
for name, value in results.items():
    print("%s=%s" % (name, value))
for line in out.replace(b"\r", b"").decode(errors="replace").splitlines():
    print("| " + line)
