#!/usr/bin/env python3
"""Idle inputs (issue 15, --idle-timeout), with real processes, pipes and files:

- one pipe that goes quiet but stays open: its last window comes out about the timeout after
  its last line, while the pipe is still open; an event sent after that, behind the
  watermark, is late;
- two pipes, one quiet from its first line: the other's windows come out while both are
  open, and the quiet one's event when it rejoins, behind the watermark, is late;
- cron runs under --state --hold: a log that stopped growing has its last window written by
  the first run at least the timeout after its last line was read, not before.

Bounds are generous (seconds): exact latencies are the benchmark's (bench/latency.py). The
producers' pace is the input's schedule; the tests wait for records, never a fixed time, except
for the idle timeout itself between cron runs.
Usage: idle_test.py LOGTIDE [--busy]
"""
import json
import os
import subprocess
import sys
import threading
import time

from checks import Checks, wait_for

BASE = 1_700_000_000_000  # ms: window boundaries fall on whole seconds


def ev(ms, svc="a"):
    return b'{"ts":%d,"svc":"%s"}\n' % (BASE + ms, svc.encode())


class Run:
    """logtide reading the given pipes (stdin first), its records timed as they arrive."""

    def __init__(self, binary, args, pipes=1):
        self.fds = []
        pass_fds = []
        inputs = []
        for k in range(pipes - 1):
            r, w = os.pipe()
            pass_fds.append(r)
            inputs.append("/dev/fd/%d" % r)
            self.fds.append(w)
        self.p = subprocess.Popen([binary, "--time-format", "epoch_ms", "--stats"] + args + (["-"] + inputs if inputs else []),
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  pass_fds=pass_fds)
        for r in pass_fds:
            os.close(r)
        self.fds.insert(0, self.p.stdin.fileno())
        self.records = []
        self.t = threading.Thread(target=self._read)
        self.t.start()

    def _read(self):
        for line in self.p.stdout:
            self.records.append((time.monotonic(), json.loads(line)))

    def write(self, k, data):
        os.write(self.fds[k], data)

    def finish(self):
        self.p.stdin.close()
        for fd in self.fds[1:]:
            os.close(fd)
        self.t.join()
        err = self.p.stderr.read().decode()
        self.p.wait()
        stats = json.loads(err.strip().splitlines()[-1])
        return self.p.returncode, stats, err


def main():
    check = Checks("logtide-idle-")
    binary = check.binary

    for threads in ("1", "2"):
        # One pipe, quiet but open.
        r = Run(binary, ["--threads", threads, "--window", "tumbling:1s", "--by", "svc", "--idle-timeout", "500ms"])
        for i in range(13):  # 0 .. 2.4 s of event time, one line every 0.1 s
            r.write(0, ev(i * 200))
            last_line = time.monotonic()
            time.sleep(0.1)
        wait_for(lambda: len(r.records) >= 3)  # the pipe still open
        during = list(r.records)
        r.write(0, ev(2500))  # the watermark passed it: late
        code, stats, err = r.finish()
        what = "--threads %s, one quiet pipe" % threads
        ends = [rec["window_end"] for _, rec in during]
        check(what + ": all 3 windows came out while the pipe was open (%d)" % len(during), len(during) == 3, err)
        if len(during) == 3:
            waited = during[2][0] - last_line
            # Event time reaches the window's end 0.6 s after the last line, past the timeout.
            check(what + ": the last one 0.6 s after the last line, within 1.5 s (%.2f s)" % waited,
                  0.55 <= waited <= 1.5)
        check(what + ": the event sent after it is late", stats.get("late_events") == 1 and code == 0, err)

        # Two pipes; the second says one thing, then nothing for 2 s, then something old.
        r = Run(binary, ["--threads", threads, "--window", "tumbling:1s", "--by", "svc", "--idle-timeout", "400ms"],
                pipes=2)
        r.write(1, ev(0, "b"))
        for i in range(16):  # 0 .. 3 s of event time on the first pipe
            r.write(0, ev(i * 200))
            time.sleep(0.1)
        wait_for(lambda: len(r.records) >= 2)  # both pipes still open
        during = list(r.records)
        r.write(1, ev(100, "b"))
        code, stats, err = r.finish()
        what = "--threads %s, two pipes, one quiet" % threads
        check(what + ": windows came out while the quiet one held nothing back (%d)" % len(during),
              len(during) >= 2, err)
        check(what + ": its event on rejoining is late", stats.get("late_events") == 1 and code == 0, err)

    # Cron runs over a log that stopped growing.
    with open("app.log", "wb") as f:
        f.write(ev(0) + ev(500) + ev(1100))
    cron = [binary, "-q", "--time-format", "epoch_ms", "--window", "tumbling:1s", "--state", "s.db", "--hold",
            "--idle-timeout", "1s", "-o", "out.ndjson", "app.log"]

    def records():
        with open("out.ndjson") as f:
            return [json.loads(l)["window_end"] for l in f]

    subprocess.run(cron, check=True)
    first = records()
    subprocess.run(cron, check=True)
    second = records()
    time.sleep(1.2)  # the idle timeout (1 s) passes: what is tested, not a wait for a race
    subprocess.run(cron, check=True)
    third = records()
    check("cron: the first run writes the closed window only (%s)" % first, len(first) == 1)
    check("cron: a run before the timeout passed writes nothing more (%s)" % second, second == first)
    check("cron: a run after it writes the last window (%s)" % third, len(third) == 2)

    check.done()


if __name__ == "__main__":
    main()
