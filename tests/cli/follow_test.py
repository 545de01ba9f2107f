#!/usr/bin/env python3
"""--follow (issue 15), with real processes and files: logtide follows a log as a writer appends
to it, splits a line across two writes, rotates it by rename (writing a last line to the old
file after the rename, as a writer that has not reopened yet does), and truncates it in place.
Records come out while it runs; SIGINT stops it (exit 130) with the closed windows written.
Then with --state: stopped by SIGTERM mid-stream, resumed with --follow, stopped again, and
finished by a run without it; the output equals one batch run over everything written.

Usage: follow_test.py LOGTIDE
"""
import json
import os
import signal
import subprocess
import sys
import time

from checks import Checks

BASE = 1_700_000_000_000  # ms


def ev(ms):
    return b'{"ts":%d,"svc":"a"}\n' % (BASE + ms)


def append(path, data):
    with open(path, "ab") as f:
        f.write(data)


def wait_lines(path, n, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.path.exists(path):
            with open(path, "rb") as f:
                if f.read().count(b"\n") >= n:
                    return True
        time.sleep(0.02)
    return False


def main():
    check = Checks("logtide-follow-")
    binary = check.binary

    q = ["--time-format", "epoch_ms", "--window", "tumbling:1s", "--by", "svc"]
    for threads in ("1", "3"):
        for f in os.listdir("."):
            os.remove(f)
        append("app.log", ev(0) + ev(500))
        p = subprocess.Popen([binary, "--threads", threads, "--follow"] + q + ["-o", "out", "app.log"],
                             stderr=subprocess.PIPE)
        append("app.log", ev(1100) + b'{"ts":%d,' % (BASE + 1500))
        what = "--threads %s" % threads
        check(what + ": a window comes out as the file grows", wait_lines("out", 1))
        append("app.log", b'"svc":"a"}\n')
        os.rename("app.log", "app.log.1")
        append("app.log.1", ev(1900))  # the writer has not reopened yet
        time.sleep(0.2)
        append("app.log", ev(2100))  # the new file
        check(what + ": rotated: the old file's end, then the new file", wait_lines("out", 2))
        with open("app.log", "wb"):
            pass  # truncated in place
        time.sleep(0.5)
        append("app.log", ev(3100) + ev(4200))
        check(what + ": truncated: followed from its start", wait_lines("out", 4))
        p.send_signal(signal.SIGINT)
        err = p.communicate(timeout=10)[1].decode()
        with open("out") as f:
            got = [(json.loads(l)["window_end"], json.loads(l)["count"]) for l in f]
        check(what + ": SIGINT: exit 130 (%d)" % p.returncode, p.returncode == 130, err)
        check(what + ": the closed windows, counted right (%s)" % got,
              [c for _, c in got] == [2, 3, 1, 1], err)
        check(what + ": the truncation was reported", "was truncated" in err, err)

    # --state: stop, resume, stop, finish; equal to one batch run.
    for f in os.listdir("."):
        os.remove(f)
    written = []

    def write(data):
        written.append(data)
        append("app.log", data)

    st = q + ["--state", "s.db", "-o", "out", "app.log"]
    write(b"".join(ev(i * 300) for i in range(10)))
    p = subprocess.Popen([binary, "--follow"] + st, stderr=subprocess.PIPE)
    write(b"".join(ev(3000 + i * 300) for i in range(10)))
    wait_lines("out", 4)
    p.send_signal(signal.SIGTERM)
    e1 = p.communicate(timeout=10)[1].decode()
    c1 = p.returncode
    write(b"".join(ev(6000 + i * 300) for i in range(10)))
    p = subprocess.Popen([binary, "--follow"] + st, stderr=subprocess.PIPE)
    write(b"".join(ev(9000 + i * 300) for i in range(10)))
    wait_lines("out", 10)
    p.send_signal(signal.SIGTERM)
    e2 = p.communicate(timeout=10)[1].decode()
    c2 = p.returncode
    last = subprocess.run([binary] + st, capture_output=True)
    with open("all.log", "wb") as f:
        f.write(b"".join(written))
    batch = subprocess.run([binary] + q + ["all.log"], capture_output=True).stdout
    with open("out", "rb") as f:
        out = f.read()
    check("--state: two SIGTERMs exit 143 (%d, %d)" % (c1, c2), c1 == 143 and c2 == 143, e1 + e2)
    check("--state: followed, stopped, resumed and finished = one batch run (%d records)" % out.count(b"\n"),
          out == batch and last.returncode == 0 and out.count(b"\n") == 12, last.stderr.decode())

    # --state and a rotation while following: stopped after it, resumed naming both generations
    # (app.log*): the rotated file is known as read to its end, never read again.
    for f in os.listdir("."):
        os.remove(f)
    written = []
    write(b"".join(ev(i * 300) for i in range(10)))
    p = subprocess.Popen([binary, "--follow"] + st, stderr=subprocess.PIPE)
    time.sleep(0.3)
    os.rename("app.log", "app.log.1")
    write(b"".join(ev(3000 + i * 300) for i in range(5)))
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=10)
    write(b"".join(ev(4500 + i * 300) for i in range(5)))
    last = subprocess.run([binary] + q + ["--state", "s.db", "-o", "out", "app.log.1", "app.log"], capture_output=True)
    batch = subprocess.run([binary] + q + ["-"], input=b"".join(written), capture_output=True).stdout
    with open("out", "rb") as f:
        out = f.read()
    check("--state: rotated while followed, resumed with both names = one batch run (%s)" % out.count(b"\n"),
          out == batch and last.returncode == 0, last.stderr.decode() + out.decode())

    check.done()


if __name__ == "__main__":
    main()
