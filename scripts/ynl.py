#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# The body of scripts/ynl: cli.py's options for one family, with errors
# that are reliable to script against. cli.py itself prints a refused
# request as a Python repr on stdout; this prints the error and the kernel's
# extended ack message on stderr and exits 1.
import argparse
import errno
import json
import os
import pprint
import subprocess
import sys
import time

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, "Documentation/netlink/specs/dropscope.yaml")
KSRC = os.path.join(ROOT, "build/linux-src")


def die(msg, code=2):
    print(f"ynl: {msg}", file=sys.stderr)
    sys.exit(code)


if not os.path.exists(os.path.join(KSRC, ".stamp")):
    # On the host: extract the kernel's tools. (The lab guest sees the
    # host's build/linux-src read-only.)
    if subprocess.run([os.path.join(ROOT, "scripts/kernel-src")],
                      stdout=subprocess.DEVNULL).returncode:
        die("no kernel YNL tools in build/linux-src: run scripts/kernel-src")
sys.path.insert(0, os.path.join(KSRC, "tools/net/ynl"))
from lib import YnlFamily, NlError  # noqa: E402

p = argparse.ArgumentParser(prog="scripts/ynl",
                            description="Drive the dropscope family by name.")
g = p.add_mutually_exclusive_group()
g.add_argument("--do", metavar="OP")
g.add_argument("--dump", metavar="OP")
g.add_argument("--list-ops", action="store_true")
p.add_argument("--json", dest="json_text", metavar="JSON",
               help="the request's attributes, by name")
p.add_argument("--subscribe", metavar="GROUP")
p.add_argument("--sleep", type=float, default=0,
               help="with --subscribe: listen this many seconds")
p.add_argument("--output-json", action="store_true")
args = p.parse_args()


class Enc(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, bytes):
            return o.hex()
        if isinstance(o, set):
            return list(o)
        return super().default(o)


def output(msg):
    if msg is None:
        return
    if args.output_json:
        print(json.dumps(msg, cls=Enc))
    else:
        pprint.PrettyPrinter().pprint(msg)


try:
    attrs = json.loads(args.json_text) if args.json_text else {}
except json.JSONDecodeError as e:
    die(f"--json: {e}")

# No schema validation here (make spec-check does it): jsonschema costs
# seconds in an emulated lab guest.
try:
    ynl = YnlFamily(SPEC, "")
except Exception as e:  # no module, or no such family
    die(f"cannot open the dropscope family: {e}", 3)

if args.list_ops:
    for name, op in ynl.ops.items():
        print(name, "[", ", ".join(op.modes), "]")
    sys.exit(0)

op = args.do or args.dump
if op and op not in ynl.ops:
    die(f"no operation '{op}' (scripts/ynl --list-ops lists them)")

try:
    if args.subscribe:
        ynl.ntf_subscribe(args.subscribe)
    if args.do:
        output(ynl.do(args.do, attrs))
    elif args.dump:
        output(ynl.dump(args.dump, attrs))
    if args.subscribe:
        time.sleep(args.sleep)
        ynl.check_ntf()
        output(ynl.async_msg_queue)
except NlError as e:
    code = errno.errorcode.get(e.error, str(e.error))
    ext = e.nl_msg.extack or {}
    msg = f"ynl: {op}: {os.strerror(e.error)} ({code})"
    if "msg" in ext:
        msg += f": {ext['msg']}"
    if "bad-attr" in ext:
        msg += f" (attribute {ext['bad-attr']})"
    if "miss-type" in ext:
        msg += f" (missing attribute {ext['miss-type']})"
    if "policy" in ext:
        pol = ext["policy"]
        msg += " (the policy: " + ", ".join(
            f"{k} {v}" for k, v in pol.items()) + ")"
    print(msg, file=sys.stderr)
    sys.exit(1)
except (KeyError, ValueError, TypeError, AttributeError) as e:
    die(f"{op}: cannot encode the request: {e!r}")
