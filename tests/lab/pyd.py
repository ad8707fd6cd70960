#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The lab tests' Python, started once per run instead of once per call.

  pyd.py DIR     serve the requests of the FIFO DIR/req until killed

A Python interpreter starts in about a second under TCG, and the tests run
their oracle scripts (kcount.py, sesscheck.py, JSON expressions) hundreds
of times a run. This one starts once, with the modules those scripts use
already imported; each request is run in a child forked from it, as
`python3 ARGS...` would run it in a fresh interpreter: the same argv, the
caller's working directory, standard input, output and error (opened
through /proc/PID/fd of the caller, output in append mode), and exit
status.

A request is one line "PATH" on the FIFO DIR/req. PATH.argv holds the
caller's PID, its working directory, the descriptors of the caller that
hold its standard input, output and error (copies of 0, 1 and 2 that no
redirection moves while the request is made: the caller's own 0 and 1 are
the FIFOs for a moment), and then python3's arguments, each ended by a
NUL: "-c CODE ARGS...", "- ARGS..." (the code on standard input) or
"SCRIPT ARGS...". The exit status is written, as a line, to the FIFO
PATH, which the caller reads: 1 with the traceback on an uncaught
exception, 128+N when the child died of signal N.
"""
import copy
import io
import os
import runpy
import signal
import sys
import threading
import traceback

# What the scripts of tests/lab import, loaded once here.
import collections  # noqa: F401
import json  # noqa: F401
import re  # noqa: F401
import socket  # noqa: F401
import struct  # noqa: F401
import subprocess  # noqa: F401

import yaml

# The kernel's YNL library (scripts/ynl.py) parses the family's spec with
# yaml.safe_load, in pure Python: seconds under TCG. Here libyaml parses it,
# and each text is parsed once; the children get the result by fork.
_yaml_cache = {}


def _safe_load(stream):
    text = stream if isinstance(stream, (str, bytes)) else stream.read()
    if text not in _yaml_cache:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        _yaml_cache[text] = yaml.load(text, Loader=loader)
    return copy.deepcopy(_yaml_cache[text])


yaml.safe_load = _safe_load
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
YNL = os.path.join(ROOT, "build/linux-src/tools/net/ynl")
if os.path.isdir(YNL):
    sys.path.insert(0, YNL)
    try:
        import argparse  # noqa: F401
        from lib import YnlFamily  # noqa: F401
        with open(os.path.join(ROOT, "Documentation/netlink/specs/dropscope.yaml")) as f:
            yaml.safe_load(f)
    except Exception:  # noqa: B902 # scripts/ynl.py reports it itself
        pass
    sys.path.remove(YNL)


# The scripts beside this one, compiled once: their code does not change
# during a run (the lab's root is read-only).
HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = {}
for name in os.listdir(HERE):
    if name.endswith(".py") and name != "pyd.py":
        with open(os.path.join(HERE, name)) as f:
            SCRIPTS[os.path.join(HERE, name)] = compile(
                f.read(), os.path.join(HERE, name), "exec")


def open_stream(pid, n, mode, mine):
    """The caller's descriptor n, opened again through /proc. A device
    that opens once only (the lab's console port, run.sh's own output) is
    refused (EBUSY): then this process's own descriptor to the same file,
    which it got from run.sh; else /dev/null."""
    path = f"/proc/{pid}/fd/{n}"
    try:
        return os.open(path, mode)
    except OSError:
        try:
            st = os.stat(path)
        except OSError:
            return os.open(os.devnull, mode)
        for fd in mine:
            try:
                if os.path.samestat(st, os.fstat(fd)):
                    return os.dup(fd)
            except OSError:
                pass
        return os.open(os.devnull, mode)


def run(argv, cwd, pid, streams):
    """In the child: run python3 ARGS as a fresh interpreter would."""
    os.chdir(cwd)
    fds = [open_stream(pid, n, mode, mine) for n, mode, mine in
           zip(streams, (os.O_RDONLY, os.O_WRONLY | os.O_APPEND,
                         os.O_WRONLY | os.O_APPEND), ((0,), (1, 2), (2, 1)))]
    for n, fd in enumerate(fds):
        os.dup2(fd, n)
        os.close(fd)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False))
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False),
                                  line_buffering=True)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    code = 0
    try:
        if argv[0] == "-c":
            sys.argv = ["-c"] + argv[2:]
            sys.path.insert(0, "")
            exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
        elif argv[0] == "-":
            sys.argv = argv
            sys.path.insert(0, "")
            src = sys.stdin.read()
            sys.stdin = io.TextIOWrapper(io.FileIO(os.open(os.devnull, os.O_RDONLY)))
            exec(compile(src, "<stdin>", "exec"), {"__name__": "__main__"})
        else:
            sys.argv = argv
            path = os.path.abspath(argv[0])
            sys.path.insert(0, os.path.dirname(path))
            if path in SCRIPTS:
                exec(SCRIPTS[path], {"__name__": "__main__", "__file__": path})
            else:
                runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code & 0xff
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: B902 # what python3 itself does
        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass
    return code


def serve(path):
    """In a thread of the server: one request, from fork to exit status."""
    try:
        with open(path + ".argv", "rb") as f:
            words = [w.decode() for w in f.read().split(b"\0")[:-1]]
        pid, cwd, streams, argv = int(words[0]), words[1], words[2:5], words[5:]
        child = os.fork()
        if child == 0:
            code = 1
            try:
                code = run(argv, cwd, pid, streams)
            except BaseException:  # noqa: B902 # before the caller's streams
                traceback.print_exc()
            finally:
                os._exit(code)
        _, status = os.waitpid(child, 0)
        code = os.waitstatus_to_exitcode(status)
        if code < 0:
            code = 128 - code
    except Exception:  # noqa: B902 # the caller must get an answer
        traceback.print_exc()
        code = 1
    # blocks until the caller reads; a caller that was killed leaves
    # this thread waiting, which costs nothing
    try:
        with open(path, "w") as f:
            f.write(f"{code}\n")
    except OSError:
        pass


def main():
    # read and write: the FIFO never reaches end of file between callers
    fd = os.open(os.path.join(sys.argv[1], "req"), os.O_RDWR)
    with open(fd, "r") as f:
        for line in f:
            threading.Thread(target=serve, args=(line.rstrip("\n"),),
                             daemon=True).start()


if __name__ == "__main__":
    main()
