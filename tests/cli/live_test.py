#!/usr/bin/env python3
"""Answers on time (issue 15): a producer writes one event every 0.2 s into logtide's standard
input, 1-second tumbling windows. Each window's record must come out while the producer is still
running, soon after the event that closed it (the bound here is a generous 1 s; the benchmark
measures the real latency), with one thread and with the default threads. With --state and
--checkpoint-interval, checkpoints go on on wall-clock time while the input is quiet.
The producer's pace is the input's schedule; everything else waits for a condition (records
out, checkpoints counted), never a fixed time.

Usage: live_test.py LOGTIDE [--busy]
"""
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time

from checks import Checks, wait_for

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
        wait_for(lambda: len(arrivals) >= 5)  # the pipe still open
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
        wait_for(lambda: len(arrivals) >= 5)  # the pipe still open
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

    # Checkpoints on wall-clock time while the input is quiet: after each line, nothing more
    # until the line is in a checkpoint, taken while the open pipe holds no input.
    args = [binary, "-q", "--window", "tumbling:1s", "--state", "s.db", "--checkpoint-interval", "200ms",
            "-o", "out.ndjson", "-"]
    p = subprocess.Popen(args, stdin=subprocess.PIPE)

    def checkpoints():
        try:
            c = sqlite3.connect("file:s.db?mode=ro", uri=True)
            try:
                row = c.execute("SELECT value FROM meta WHERE key = 'checkpoints'").fetchone()
            finally:
                c.close()
        except sqlite3.Error:
            return 0  # not made yet, or being written
        return int(row[0]) if row else 0

    counts = []
    for i in range(6):
        before = checkpoints()
        p.stdin.write(b'{"ts":%d}\n' % (BASE + i * 500))
        p.stdin.flush()
        if not wait_for(lambda: checkpoints() > before):
            break
        counts.append(checkpoints())
    p.stdin.close()
    p.wait()
    check("--checkpoint-interval 200ms on a quiet pipe: each of 6 lines checkpointed while no "
          "more came (%s)" % counts, len(counts) == 6)

    check.done()


if __name__ == "__main__":
    main()
