#!/usr/bin/env python3
"""Early records by the wall clock (issue 29 item 2): --early-every on live input.

1. A producer writes sparse events into logtide's standard input and waits after each one:
   the provisional record of the current hour comes while the pipe is open and quiet (the timer
   fires while the reader waits), with the count so far and the next revision; a key that does
   not change writes nothing more; the end of the input writes the on-time records, final.
   With one thread and with the default threads.
2. --follow: a followed file is live input too.
3. Under --state, killed twice and resumed: once quiet, once (with logtide_faults) between a
   firing and its checkpoint, in the producer's burst. Every firing's records are committed by
   a checkpoint at once (with --checkpoint-interval 1h nothing else would commit them); the
   interrupted runs' committed output is kept byte for byte, and the records of the firing
   whose checkpoint did not commit are cut and decided again; no (window, key) revision is
   written twice or skipped, every
   record holds the aggregates of a prefix of its pair's events, and the man page's consumer
   rule (the highest revision of each window and key) gives exactly the --emit final table.

Expectations come from the events the test writes (counts and sums computed here), never from
logtide's own output. Every wait is for a condition, bounded generously (checks.PATIENCE_S);
the one timed bound (a record within 2 s of its event, for a 100-200 ms interval) is loose
enough for a busy machine.

Usage: early_every_test.py LOGTIDE LOGTIDE_FAULTS [--busy]
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

from checks import Checks, wait_for

BASE = 1_700_000_000_000  # ms: 2023-11-14T22:13:20Z


def event(i, svc, n=0):
    return b'{"ts":%d,"svc":"%s","n":%d}\n' % (BASE + i * 500, svc.encode(), n)


class Reader:
    """The records a process writes to its standard output, parsed as they come, each with the
    time it arrived."""

    def __init__(self, pipe):
        self.records = []
        self.lock = threading.Lock()
        self.t = threading.Thread(target=self._read, args=(pipe,))
        self.t.start()

    def _read(self, pipe):
        for line in pipe:
            with self.lock:
                self.records.append((time.monotonic(), json.loads(line)))

    def find(self, svc, count):
        with self.lock:
            for at, r in self.records:
                if r["svc"] == svc and r["count"] == count:
                    return at, r
        return None

    def of(self, svc):
        with self.lock:
            return [r for _, r in self.records if r["svc"] == svc]


def sparse_pipe(check, binary, threads):
    what = "--threads %s" % threads
    p = subprocess.Popen([binary, "--threads", threads, "--window", "tumbling:1h", "--by", "svc",
                          "--early-every", "200ms"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = Reader(p.stdout)
    # a and b once each; then only a, once per record seen. Nothing more is written until the
    # record is there: each one is written while logtide waits on a quiet pipe.
    p.stdin.write(event(0, "a") + event(1, "b"))
    p.stdin.flush()
    first = wait_for(lambda: out.find("a", 1) and out.find("b", 1))
    check(what + ": a and b's first provisional records while the pipe is open and quiet", first)
    latencies = []
    for k in range(2, 7):
        written = time.monotonic()
        p.stdin.write(event(k, "a"))
        p.stdin.flush()
        if not wait_for(lambda: out.find("a", k)):
            break
        latencies.append(round((out.find("a", k)[0] - written) * 1000))
    check(what + ": a's records with counts 2..6 came, each soon after its event (ms: %s)"
          % latencies, len(latencies) == 5 and all(ms < 2000 for ms in latencies))
    a, b = out.of("a"), out.of("b")
    hour = ("2023-11-14T22:00:00Z", "2023-11-14T23:00:00Z")
    check(what + ": while the window is open, a's records are revisions 0..5 with counts 1..6, "
          "phase early, not final",
          [(r["window_start"], r["window_end"], r["count"], r["revision"], r["phase"], r["final"])
           for r in a] == [hour + (k + 1, k, "early", False) for k in range(6)], str(a))
    check(what + ": b, unchanged since its first record, wrote no other",
          [(r["count"], r["revision"], r["phase"]) for r in b] == [(1, 0, "early")], str(b))
    p.stdin.close()
    out.t.join()
    status = p.wait()
    a, b = out.of("a"), out.of("b")
    check(what + ": the end of the input writes each key's on-time record, final, next revision",
          status == 0 and [(r["count"], r["revision"], r["phase"], r["final"]) for r in a[6:]]
          == [(6, 6, "on_time", True)] and
          [(r["count"], r["revision"], r["phase"], r["final"]) for r in b[1:]]
          == [(1, 1, "on_time", True)], "exit %d, %s %s" % (status, a[6:], b[1:]))


def followed_file(check, binary):
    with open("app.log", "wb") as f:
        f.write(event(0, "a"))
    p = subprocess.Popen([binary, "-q", "--follow", "--window", "tumbling:1h", "--by", "svc",
                          "--early-every", "200ms", "app.log"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = Reader(p.stdout)
    ok = wait_for(lambda: out.find("a", 1))
    with open("app.log", "ab") as f:
        f.write(event(1, "a"))
    ok = ok and wait_for(lambda: out.find("a", 2))
    p.send_signal(signal.SIGTERM)
    out.t.join()
    status = p.wait()
    check("--follow: provisional records as the followed file grows (revisions %s)"
          % [r["revision"] for r in out.of("a")],
          ok and status == 143 and [r["revision"] for r in out.of("a")] == [0, 1])


def killed_and_resumed(check, binary, faults):
    # 60 events of 0.5 s: windows of 10 s [20..30), [30..40), [40..50) s hold 20 events each;
    # keys by i % 3, n = i.
    events = [event(i, "abc"[i % 3], i) for i in range(60)]
    with open("all.ndjson", "wb") as f:
        f.write(b"".join(events))
    query = ["--window", "tumbling:10s", "--by", "svc", "--agg", "count", "--agg", "s=sum(n)"]
    job = [binary, "-q"] + query + ["--early-every", "100ms", "--state", "s.db",
                                    "--checkpoint-interval", "1h", "-o", "out.ndjson", "-"]

    def committed():
        r = subprocess.run([binary, "inspect", "s.db"], capture_output=True)
        if r.returncode != 0:
            return -1
        return json.loads(r.stdout)["outputs"][0]["length"]

    def size():
        return os.path.getsize("out.ndjson") if os.path.exists("out.ndjson") else 0

    def records(data):
        return [json.loads(l) for l in data.decode().splitlines()]

    def write_paced(p, lines, pause):
        for line in lines:
            p.stdin.write(line)
            p.stdin.flush()
            time.sleep(pause)

    # Run 1: events 0..19 at a pace that spans several firings, then quiet: once the last
    # event's pair has its record, everything decided is in the output, and all of it must be
    # committed (no timed checkpoint would come for an hour).
    p = subprocess.Popen(job, stdin=subprocess.PIPE)
    write_paced(p, events[:20], 0.02)
    last = ("b", 7, sum(range(1, 20, 3)))  # event 19's key: its count and sum in [20, 30) s

    def shows_last():
        try:
            with open("out.ndjson", "rb") as f:
                got = records(f.read())
        except (FileNotFoundError, ValueError):
            return False
        return any((r["svc"], r["count"], r["s"]) == last for r in got)

    quiet = wait_for(shows_last) and wait_for(lambda: size() > 0 and committed() == size())
    check("run 1: after the last firing, all its records are committed (%d of %d bytes)"
          % (committed(), size()), quiet)
    p.kill()
    p.wait()
    with open("out.ndjson", "rb") as f:
        run1 = f.read()

    # Run 2: the same stream again (its first 20 lines are skipped), then 20..39 at a pace;
    # a resumed run checkpoints only after its firings here, and it is killed at its second
    # one's, with the firing's records written and the checkpoint not committed.
    run1_checkpoints = json.loads(subprocess.run([binary, "inspect", "s.db"], capture_output=True,
                                                 check=True).stdout)["checkpoints"]
    env = dict(os.environ, LOGTIDE_TEST_KILL_AT="before-commit:%d" % (run1_checkpoints + 2))
    p = subprocess.Popen([faults] + job[1:], stdin=subprocess.PIPE, env=env)
    written = 0
    try:
        p.stdin.write(b"".join(events[:20]))
        p.stdin.flush()
        for line in events[20:40]:
            p.stdin.write(line)
            p.stdin.flush()
            written += 1
            time.sleep(0.03)
    except BrokenPipeError:
        pass
    killed = wait_for(lambda: p.poll() is not None)
    if not killed:
        p.kill()
    try:
        p.stdin.close()
    except BrokenPipeError:
        pass
    status = p.wait()
    check("run 2 was killed at its second firing's checkpoint (after %d of 20 lines)" % written,
          killed and status == -signal.SIGKILL, "exit %d" % status)
    with open("out.ndjson", "rb") as f:
        run2 = f.read()
    run2_committed = committed()
    last_written = 20 + written

    # Run 3: the whole stream, the rest at a pace, then its end: every window on time.
    p = subprocess.Popen(job, stdin=subprocess.PIPE)
    p.stdin.write(b"".join(events[:last_written]))
    p.stdin.flush()
    write_paced(p, events[last_written:], 0.01)
    p.stdin.close()
    status = p.wait()
    with open("out.ndjson", "rb") as f:
        final = f.read()
    check("run 3 ends well", status == 0, "exit %d" % status)

    check("run 1's output is kept byte for byte (%d bytes)" % len(run1), final.startswith(run1))
    check("run 2's committed output is kept byte for byte (%d bytes)" % run2_committed,
          0 < run2_committed <= len(run2) and final[:run2_committed] == run2[:run2_committed])
    cut = records(run2[run2_committed:])
    # Run 3 cut them (its output goes on from the committed length) and decided anew: had they
    # stayed, their revisions would be repeated, which the next check would see.
    check("run 2's uncommitted firing wrote records (%d), all provisional" % len(cut),
          len(cut) > 0 and all(r["phase"] == "early" for r in cut), str(cut))
    got = records(final)
    early1 = [r for r in records(run1) if r["phase"] == "early"]
    check("run 1 wrote provisional records (%d)" % len(early1), len(early1) > 0)

    # Each pair's revisions in output order: 0, 1, 2 ... with no repeat and no gap, the last
    # final and no other.
    pairs = {}
    for r in got:
        pairs.setdefault((r["window_start"], r["svc"]), []).append(r)
    bad = [k for k, rs in pairs.items()
           if [r["revision"] for r in rs] != list(range(len(rs)))
           or [r["final"] for r in rs] != [False] * (len(rs) - 1) + [True]]
    check("every (window, key) has revisions 0, 1, 2 ... once each, the last final (%d pairs, "
          "%d records)" % (len(pairs), len(got)), not bad, str(bad[:3]))

    # Every record holds the aggregates of a prefix of its pair's events: a value the pair had.
    prefixes = {}
    for i in range(60):
        key = (i // 20, "abc"[i % 3])
        c, s = prefixes.get(key, [(0, 0)])[-1]
        prefixes.setdefault(key, [(0, 0)]).append((c + 1, s + i))
    window_of = {start: k for k, start in enumerate(sorted({r["window_start"] for r in got}))}
    wrong = [r for r in got if (r["count"], r["s"]) not in
             prefixes.get((window_of[r["window_start"]], r["svc"]), [])]
    check("every record holds the count and sum of a prefix of its pair's events", not wrong,
          str(wrong[:3]))

    # The consumer rule of the man page: per (window_start, window_end, key) the record with
    # the highest revision. It is the --emit final run's table.
    table = {}
    for r in got:
        k = (r["window_start"], r["window_end"], r["svc"])
        if k not in table or r["revision"] > table[k]["revision"]:
            table[k] = r
    applied = sorted((k + (r["count"], r["s"], r["final"])) for k, r in table.items())
    batch = subprocess.run([binary, "-q"] + query + ["all.ndjson"], capture_output=True, check=True)
    expected = sorted((r["window_start"], r["window_end"], r["svc"], r["count"], r["s"], True)
                      for r in records(batch.stdout))
    check("the highest revision of each window and key is the --emit final table (%d rows)"
          % len(expected), applied == expected and len(expected) == 9,
          "%s != %s" % (applied, expected))


def main():
    faults = os.path.abspath(sys.argv[2])  # before Checks moves to its scratch folder
    check = Checks("logtide-early-every-")
    for threads in ("1", "2"):
        sparse_pipe(check, check.binary, threads)
    followed_file(check, check.binary)
    killed_and_resumed(check, check.binary, faults)
    check.done()


if __name__ == "__main__":
    main()
