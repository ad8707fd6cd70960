#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ptytop.py KEY CMD...: run CMD (dropscope top) on a pseudo-terminal of
100x30, wait for its first frame, press s (the sort must change), shrink
the terminal to 12x60 (the next frame must fit), then press KEY ("q" or
"ctrl-c") and wait at most 10 s for the exit. Prints one line:

  exit STATUS fast BOOL sort BOOL fits BOOL screen BOOL stty BOOL

fast: it left within 2 s of the key; screen: it entered the alternate
screen and left it, cursor shown again; stty: the terminal's settings
(termios) after equal those before."""
import fcntl
import os
import pty
import select
import struct
import sys
import termios
import time

key = {"q": b"q", "ctrl-c": b"\x03", "enter": b"\r"}[sys.argv[1]]
cmd = sys.argv[2:]
master, slave = pty.openpty()


def winsize(rows, cols):
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


winsize(30, 100)
before = termios.tcgetattr(slave)
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.close(master)
    os.close(slave)
    os.execvp(cmd[0], cmd)

out = b""


def read_until(pred, timeout):
    global out
    end = time.time() + timeout
    while not pred():
        left = end - time.time()
        if left <= 0:
            return False
        r, _, _ = select.select([master], [], [], left)
        if r:
            try:
                out += os.read(master, 65536)
            except OSError:
                return pred()
    return True


CLEAR = b"\x1b[H\x1b[2J"
read_until(lambda: b"sort bytes" in out, 60)
os.write(master, b"s")
sort = read_until(lambda: b"sort rx" in out, 10)
mark = len(out)
winsize(12, 60)
# the frames drawn after the resize (at SIGWINCH, then every interval):
# the first might have been under way before it, the last unfinished
read_until(lambda: False, 2.5)
frames = out[mark:].split(CLEAR)[2:-1]
sizes = [(len(ls), max(len(l) for l in ls)) for ls in
         ([l.rstrip(b"\r") for l in f.split(b"\n")] for f in frames)]
fits = bool(sizes) and all(n <= 12 and w <= 60 for n, w in sizes)
if not fits:
    sys.stderr.write(f"frames after the resize (lines, widest): {sizes}\n")
os.write(master, key)
t0 = time.time()
status = None
while time.time() - t0 < 10:
    read_until(lambda: False, 0.05)
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = os.waitstatus_to_exitcode(st)
        break
took = time.time() - t0
if status is None:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
read_until(lambda: False, 0.2)
after = termios.tcgetattr(slave)
screen = (b"\x1b[?1049h\x1b[?25l" in out and
          out.rstrip().endswith(b"\x1b[?25h\x1b[?1049l"))
print(f"exit {status} fast {took < 2} sort {sort} fits {fits} "
      f"screen {screen} stty {before == after}")
if os.environ.get("PTYTOP_DUMP"):
    sys.stderr.write(repr(out[-3000:]) + "\n")
