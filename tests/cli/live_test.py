#!/usr/bin/env python3
"""Answers on time (issue 15): a producer writes one event every 0.2 s into logtide's standard
input, 1-second tumbling windows. Each window's record must come out while the producer is still
running, soon after the event that closed it (the bound here is a generous 1 s; the benchmark
measures the real latency), with one thread and with the default threads. With --state and
--checkpoint-interval, checkpoints keep their wall-clock pace while the input is quiet.

Usage: live_test.py LOGTIDE
"""
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time

from checks import Checks

BASE = 1_700_000_000_000  # ms


def main():
    check = Checks("logtide-live-")
    binary = check.binary

    for threads in ("1", "2"):
        p = subprocess.Popen([binary, "--threads", threads, "--window", "tumbling:1s", "--by", "svc"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        arrivals = []

        def read():
            for line in p.stdout:
                arrivals.append((time.monotonic(), json.loads(line)["window_end"]))

        t = threading.Thread(target=read)
        t.start()
        closed_at = {}  # window index -> when the event that closed it was written
        for i in range(30):
            if i % 5 == 0 and i > 0:
                closed_at[i // 5 - 1] = time.monotonic()
            p.stdin.write(b'{"ts":%d,"svc":"a"}\n' % (BASE + i * 200))
            p.stdin.flush()
            time.sleep(0.2)
        during = len(arrivals)
        p.stdin.close()
        t.join()
        p.wait()
        what = "--threads %s" % threads
        check(what + ": the 5 closed windows came out while the producer was running", during == 5,
              "%d" % during)
        late = [round((arrivals[k][0] - closed_at[k]) * 1000) for k in range(min(during, 5))]
        check(what + ": each within 1 s of the event that closed it (ms: %s)" % late,
              len(late) == 5 and all(x < 1000 for x in late))
        check(what + ": the last window at the end of input", len(arrivals) == 6, "%d" % len(arrivals))

    # A steady trickle that is never quiet for 10 ms (a write every 2 ms): records still come out
    # while it runs, each soon after the event that closed its window, not when a buffer fills.
    for threads in ("1", "2"):
        p = subprocess.Popen([binary, "--threads", threads, "--window", "tumbling:500ms", "--by", "svc"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        arrivals = []

        def read():
            for line in p.stdout:
                arrivals.append(time.monotonic())

        t = threading.Thread(target=read)
        t.start()
        closed_at = []
        for i in range(1500):  # 3 s, 2 ms of event time per line
            if i % 250 == 0 and i > 0:
                closed_at.append(time.monotonic())
            os.write(p.stdin.fileno(), b'{"ts":%d,"svc":"a"}\n' % (BASE + i * 2))
            time.sleep(0.002)
        during = len(arrivals)
        p.stdin.close()
        t.join()
        p.wait()
        what = "--threads %s, a write every 2 ms" % threads
        check(what + ": the 5 closed windows came out while the producer was running (%d)" % during,
              during == 5)
        late = [round((arrivals[k] - closed_at[k]) * 1000) for k in range(min(during, 5))]
        check(what + ": each within 1 s of the event that closed it (ms: %s)" % late,
              len(late) == 5 and all(x < 1000 for x in late))

    # Checkpoints on wall-clock time while the input is quiet: one line every 0.5 s for 3 s.
    args = [binary, "-q", "--window", "tumbling:1s", "--state", "s.db", "--checkpoint-interval", "200ms",
            "-o", "out.ndjson", "-"]
    p = subprocess.Popen(args, stdin=subprocess.PIPE)
    for i in range(6):
        p.stdin.write(b'{"ts":%d}\n' % (BASE + i * 500))
        p.stdin.flush()
        time.sleep(0.5)
    c = sqlite3.connect("file:s.db?mode=ro", uri=True)
    row = c.execute("SELECT value FROM meta WHERE key = 'checkpoints'").fetchone()
    n = int(row[0]) if row else 0
    c.close()
    p.stdin.close()
    p.wait()
    check("--checkpoint-interval 200ms on a quiet pipe: at least 5 checkpoints in 3 s (%d)" % n, n >= 5)

    check.done()


if __name__ == "__main__":
    main()
