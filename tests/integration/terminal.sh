#!/bin/bash
# Interactive use on a real pseudo-terminal (pty_session.py: the caller's `bash -i` on a pty
# from python, driven by keystrokes). The command's terminal is a pty of the sandbox's own:
# ttyname and `tty` name it, a resize reaches it, Ctrl-C interrupts a Python REPL, Ctrl-Z and
# a program that suspends itself stop the run and give the caller's shell its prompt back,
# `fg` resumes it; an interactive shell inside has its own job control and `suspend`; vi
# edits and saves a file and survives Ctrl-Z; less pages and quits; a run started with `&`
# reads nothing until `fg`, then has a cooked terminal. An attacker's chmod and
# touch of its terminal leave the caller's terminal as it was.
. "$(dirname "$0")/lib.sh"
it_setup "$@"

W=$T/ws
mkdir -p "$W"
cat >"$T/policy.toml" <<EOF
version = 1
[filesystem]
writable_roots = ["$W"]
EOF
compile "$T/policy.toml" "$T/plan" || it_finish
cp "$(dirname "$0")/pty_session.py" "$T/"
give_to_user
uid=$(id -u "$RUN_USER")
gid=$(id -g "$RUN_USER")

# session SCENARIO: one pty_session.py scenario (the driver as root; its shell as the user).
session() {
    IT_RUNS=$((IT_RUNS + 1))
    LAST_CMD="python3 pty_session.py ... $1" LAST_SCRIPT="" IT_DUMPED=0
    OUT=$(timeout -k 5 90 /usr/bin/python3 "$T/pty_session.py" "$uid" "$gid" "$T/home" "$EXEC" "$T/plan" "$W" "$1" \
        2>"$T/.runs/$IT_RUNS.err")
    RC=$?
    ERR=$(<"$T/.runs/$IT_RUNS.err")
}

section "a Python REPL: its terminal, a resize, Ctrl-Z / fg, Ctrl-C"
session repl
expect repl_started yes "the REPL prompts"
expect ttyname yes "os.ttyname(0) names the sandbox's pty, and stdout is a terminal"
expect resized yes "a resize of the caller's terminal reaches the command"
expect ctrlz_prompt yes "Ctrl-Z: the caller's shell reports the run stopped and prompts"
expect jobs_stopped yes "jobs lists it stopped"
expect fg_resumed yes "fg: the REPL answers again"
expect ctrlc yes "Ctrl-C interrupts time.sleep (KeyboardInterrupt)"
expect repl_alive yes "and the REPL goes on"
expect repl_exit yes "its exit status reaches the caller"

section "a program that suspends itself"
session suspend
expect suspend_prompt yes "kill -TSTP \$\$: the caller's shell prompts"
expect suspend_fg yes "fg: it resumes"
expect suspend_exit yes "and exits 0"

section "an interactive shell inside: its own job control"
session inner
expect inner_started yes "bash -i starts"
expect inner_tty yes "tty names /dev/pts/0"
expect inner_ctrlz yes "Ctrl-Z stops its foreground job; its prompt returns"
expect inner_bg yes "bg runs the job again"
expect inner_ctrlc yes "Ctrl-C ends a foreground sleep"
expect inner_suspend yes "suspend: the caller's shell prompts"
expect inner_back yes "fg: the inner shell answers"
expect inner_exit yes "its exit status reaches the caller"

section "started in the background, then brought to the foreground"
session background
expect bg_output yes "its output reaches the terminal while in the background"
expect bg_fg_reads yes "after fg a typed line is echoed and read by cat"
expect bg_eof yes "^D ends cat: the pty is a cooked terminal, not the shell's line-editor modes"
expect bg_exit yes "and the run exits 0"

section "vi and less"
session vi
expect vi_ctrlz yes "Ctrl-Z in vi: the caller's shell prompts"
expect vi_exit yes ":wq after fg: vi exits 0"
expect vi_saved yes "the file holds what was typed"
session less
expect less_exit yes "less pages and quits"

section "escape: chmod and touch of its terminal"
session chmod
expect terminal_mode_kept yes "the caller's terminal keeps its mode"
expect terminal_time_kept yes "and its times"

it_finish
