#!/usr/bin/env python3
"""--follow (issue 15), with real processes and files: logtide follows a log as a writer appends
to it, splits a line across two writes, rotates it by rename (writing a last line to the old
file after the rename, as a writer that has not reopened yet does), and truncates it in place.
Records come out while it runs; SIGINT stops it (exit 130) with the closed windows written.
Then with --state: stopped by SIGTERM mid-stream, resumed with --follow, stopped again, and
finished by a run without it; the output equals one batch run over everything written.

Every step waits for a condition (records out, a warning said), never a fixed time.
Usage: follow_test.py LOGTIDE [--busy]
"""
import json
import os
import signal
import subprocess
import sys

from checks import Checks, Collected, file_lines, wait_for

BASE = 1_700_000_000_000  # ms


def ev(ms):
    return b'{"ts":%d,"svc":"a"}\n' % (BASE + ms)


def append(path, data):
    with open(path, "ab") as f:
        f.write(data)


def wait_lines(path, n):
    return wait_for(lambda: file_lines(path) >= n)


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
        stderr = Collected(p.stderr)
        append("app.log", ev(1100) + b'{"ts":%d,' % (BASE + 1500))
        what = "--threads %s" % threads
        check(what + ": a window comes out as the file grows", wait_lines("out", 1))
        append("app.log", b'"svc":"a"}\n')
        os.rename("app.log", "app.log.1")
        # The writer has not reopened yet: a last line to the old file, and none waited for. It
        # is read before the new file however the reader's checks and these writes interleave.
        append("app.log.1", ev(1900))
        append("app.log", ev(2100))  # the new file
        check(what + ": rotated: the old file's end, then the new file", wait_lines("out", 2))
        with open("app.log", "wb"):
            pass  # truncated in place
        # Only once the truncation was seen does the file grow again: grown past what was read,
        # it could not be told from a file that only grew (as for tail -F).
        check(what + ": the truncation is reported while it runs", stderr.wait_text("was truncated"),
              stderr.text())
        append("app.log", ev(3100) + ev(4200))
        check(what + ": truncated: followed from its start", wait_lines("out", 4))
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)
        err = stderr.close()
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
    check("--state: the first run's windows come out", wait_lines("out", 4))
    p.send_signal(signal.SIGTERM)
    e1 = p.communicate(timeout=10)[1].decode()
    c1 = p.returncode
    write(b"".join(ev(6000 + i * 300) for i in range(10)))
    p = subprocess.Popen([binary, "--follow"] + st, stderr=subprocess.PIPE)
    write(b"".join(ev(9000 + i * 300) for i in range(10)))
    check("--state: the resumed run's windows come out", wait_lines("out", 10))
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
    # Renamed once the run read the file it follows (its windows [0,1) and [1,2) are out):
    # renamed before it opened it, the run would follow the new file only, and the old
    # file's events would be behind its watermark when the next run reads them.
    check("--state, rotation: the first file is read before it is renamed", wait_lines("out", 2))
    os.rename("app.log", "app.log.1")
    write(b"".join(ev(3000 + i * 300) for i in range(5)))
    # Stopped once it read the new file: window [2,3) closed by its first line.
    check("--state, rotation: the new file is read", wait_lines("out", 3))
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
