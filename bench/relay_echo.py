"""bench/relay_echo.py NAME N [PREFIX...] — keystroke echo latency on a pseudo-terminal.

Starts PREFIX + a raw-mode echo program on a fresh pty, writes one byte at a time and times
until that byte is read back; prints the median and the 99th percentile in microseconds.
"""
import os
import pty
import statistics
import sys
import time

name, count, prefix = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
ECHO = ("import os, tty\n"
        "tty.setraw(0)\n"
        "os.write(1, b'R')\n"
        "while True:\n"
        "    b = os.read(0, 1)\n"
        "    if b == b'q': break\n"
        "    os.write(1, b)\n")
KEYS = [bytes([c]) for c in b"abcdefghijklmnoprstuvwxyz"]  # no "q": it ends the echo program
pid, fd = pty.fork()
if pid == 0:
    argv = prefix + ["/usr/bin/python3", "-c", ECHO]
    os.execvp(argv[0], argv)
while os.read(fd, 1) != b"R":
    pass
samples = []
for i in range(count):
    byte = KEYS[i % len(KEYS)]
    start = time.perf_counter()
    os.write(fd, byte)
    got = b""
    while byte not in got:
        got += os.read(fd, 16)
    samples.append((time.perf_counter() - start) * 1e6)
os.write(fd, b"q")
os.waitpid(pid, 0)
samples.sort()
print("%-9s median %7.1f us   p99 %7.1f us" % (name, statistics.median(samples), samples[int(len(samples) * 0.99)]))
