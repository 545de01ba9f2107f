#!/usr/bin/env python3
"""Crash test for --state, SQLite style.

  kill_test.py random LOGTIDE LOGTIDE_GEN    SIGKILL at random moments, at least 20 times, resuming
                                             until the run finishes; for a file and for a pipe
  kill_test.py points LOGTIDE LOGTIDE_GEN    SIGKILL at chosen points of a checkpoint (test hook
                                             LOGTIDE_TEST_KILL_AT): before the outputs are flushed,
                                             between the output write and the commit, after the commit;
                                             for every query shape, with a file and with a pipe

The queries include early records (--early, issue 29), the change formats (--changes), local
calendars (--tz with --local-times, across a daylight-saving change, issue 31), logfmt and CSV
input (issue 32), the sketches (quantiles, approx_count_distinct, top_k) in each window kind, and
expressions: --where (whose fields are read first), a filter aggregate and a derived key.
Every interrupted job must end with outputs byte-identical to an uninterrupted run (results and
--late-output), and the state file must pass PRAGMA integrity_check after every kill.
Prints 'N passed, N failed'.
"""
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

QUERIES = [
    ["--window", "tumbling:10s", "--by", "service", "--agg", "count", "--agg", "sum(bytes)", "--agg", "avg(latency_ms)",
     "--agg", "count_distinct(host)", "--agg", "last(path)", "--agg", "p99(latency_ms)",
     "--agg", "approx_count_distinct(user)", "--agg", "errors=count() filter status >= 500",
     "--delay", "2s", "--lateness", "5s"],
    ["--window", "session:2s", "--by", "host", "--agg", "count", "--agg", "max(latency_ms)", "--emit", "update",
     "--agg", "median(latency_ms)", "--agg", "top_k(path, 3)", "--lateness", "3s", "--delay", "1s",
     "--where", "status != 404 and latency_ms > 1"],
    ["--window", "sliding:30s:10s", "--by", "class=floor(status / 100)", "--agg", "count", "--agg", "first(user)",
     "--agg", "p50(latency_ms),p95(latency_ms)", "--agg", "approx_count_distinct(latency_ms)", "--agg", "top_k(path, 2)",
     "--delay", "2s"],
    # Issue 29: early records by event time, with the changed-since-last-record state, in update
    # mode with lateness (closing records) on sliding windows, and in final mode on sessions.
    ["--window", "sliding:20s:10s", "--by", "service", "--agg", "count", "--agg", "max(latency_ms)",
     "--early", "3s", "--emit", "update", "--lateness", "4s", "--delay", "1s"],
    ["--window", "session:2s", "--by", "host", "--agg", "count", "--agg", "sum(bytes)", "--early", "500ms",
     "--delay", "1s"],
    # Issue 29 item 4: the change formats keep each window and key's last record in the state
    # (section "changes"): sessions merging under retract, and debezium with --having, whose
    # records that stop matching are taken back.
    ["--window", "session:2s", "--by", "host", "--agg", "count", "--agg", "max(latency_ms)", "--emit", "update",
     "--lateness", "3s", "--delay", "1s", "--early", "700ms", "--changes", "retract"],
    ["--window", "tumbling:10s", "--by", "service", "--agg", "count", "--agg", "sum(bytes)", "--early", "3s",
     "--emit", "update", "--lateness", "5s", "--delay", "2s", "--changes", "debezium", "--having", "count >= 3"],
    # Issue 31: local calendars. Six-hour windows of Europe/Berlin's local clock across the
    # spring change (2024-03-31, 02:00 local is skipped: that day's 00:00-06:00 window is five
    # hours long), written in local time with the offsets of each side; its input, at a slower
    # rate, covers the change (ZONE_INPUT).
    ["--window", "tumbling:6h", "--tz", "Europe/Berlin", "--local-times", "--by", "service", "--agg", "count",
     "--agg", "sum(bytes)", "--agg", "p50(latency_ms)", "--emit", "update", "--lateness", "20s", "--delay", "2s"],
    # Issue 32: the same events as logfmt lines and as CSV rows (resumed past the header; from a
    # file only: standard input cannot be read again for its header), whose late lines' records
    # hold them as strings.
    ["--input-format", "logfmt", "--window", "tumbling:10s", "--by", "service", "--agg", "count",
     "--agg", "sum(bytes)", "--agg", "p99(latency_ms)", "--delay", "2s", "--lateness", "5s"],
    ["--input-format", "csv", "--window", "sliding:30s:10s", "--by", "host", "--agg", "count",
     "--agg", "max(latency_ms)", "--emit", "update", "--lateness", "3s", "--delay", "1s"],
]
# The queries with --tz read an input that spans Europe/Berlin's spring change of 2024-03-31
# (01:00 UTC) instead: per mode, logtide_gen's start (UTC seconds) and rate, for the mode's
# number of lines (200000 lines from 12:00 UTC the day before; 30000 from 20:00).
ZONE_INPUT = {"random": ["--start", "1711800000", "--rate-per-s", "2"],
              "points": ["--start", "1711828800", "--rate-per-s", "0.5"]}


def file_only(query):
    """Whether the query reads its input from a file only: a CSV file's header is read again
    from its start when a run resumes past it, which standard input cannot do."""
    return "csv" in query


def converted(default, fmt):
    """`default`'s events (logtide_gen's: flat, the same fields on every line, values without
    spaces or quotes) as logfmt lines or CSV rows, written once beside it."""
    path = default + "." + fmt
    if os.path.exists(path):
        return path
    with open(default) as f, open(path, "w") as o:
        header = None
        for line in f:
            rec = json.loads(line)
            text = {k: json.dumps(v) if not isinstance(v, str) else v for k, v in rec.items()}
            if fmt == "logfmt":
                o.write(" ".join("%s=%s" % kv for kv in text.items()) + "\n")
                continue
            if header is None:
                header = list(rec)
                o.write(",".join(header) + "\n")
            assert list(rec) == header, line
            o.write(",".join(text[k] for k in header) + "\n")
    return path


def input_for(query, mode, default, gen, args, work):
    """The input a query of `mode` reads: `default`, or for a --tz query the one across the change
    (made once, from logtide_gen's `args` with ZONE_INPUT's start and rate), or for an
    --input-format query `default` converted to that format."""
    if "--input-format" in query:
        return converted(default, query[query.index("--input-format") + 1])
    if "--tz" not in query:
        return default
    path = os.path.join(work, "zone-in.ndjson")
    if not os.path.exists(path):
        extra = ZONE_INPUT[mode]
        kept = []
        i = 0
        while i < len(args):
            if args[i] in extra[::2]:
                i += 2
                continue
            kept.append(args[i])
            i += 1
        with open(path, "wb") as f:
            subprocess.run([gen] + kept + extra, stdout=f, check=True)
    return path


THREADS = random.Random(5)


def integrity(state):
    if not os.path.exists(state):
        return True
    con = sqlite3.connect(state)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        con.close()


def read(path):
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return f.read()


class Job:
    def __init__(self, binary, work, query, input_path, use_stdin):
        self.binary, self.work, self.query, self.input, self.stdin = binary, work, query, input_path, use_stdin
        self.state = os.path.join(work, "s.db")
        self.out = os.path.join(work, "out.ndjson")
        self.late = os.path.join(work, "late.ndjson")

    def args(self, state=True):
        a = [self.binary, "-q"] + self.query + ["-o", self.out, "--late-output", self.late]
        if state:
            # Runs that are killed and resumed use any number of threads, to parse and to apply
            # (a state written with N apply threads resumes with M: every run draws its own);
            # the uninterrupted reference uses one.
            a += ["--state", self.state, "--checkpoint-every", "1500", "--threads", str(THREADS.choice([1, 2, 4])),
                  "--apply-threads", str(THREADS.choice([1, 2, 3]))]
        else:
            a += ["--threads", "1"]
        return a + ["-" if self.stdin else self.input]

    def start(self, state=True, env=None):
        if not self.stdin:
            return subprocess.Popen(self.args(state), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env), None
        p = subprocess.Popen(self.args(state), stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=env)

        def feed():
            try:
                with open(self.input, "rb") as f:
                    while True:
                        chunk = f.read(1 << 16)
                        if not chunk:
                            break
                        p.stdin.write(chunk)
                p.stdin.close()
            except (BrokenPipeError, ValueError, OSError):
                pass
        t = threading.Thread(target=feed)
        t.start()
        return p, t

    @staticmethod
    def finish(p, t):
        """Waits for a run to end by itself; returns its standard error."""
        if t:
            t.join()  # the feeder closes stdin when the whole input is written
        err = p.stderr.read().decode()
        p.stderr.close()
        p.wait()
        return err

    def reference(self):
        p, t = self.start(state=False)
        err = self.finish(p, t)
        assert p.returncode == 0, err
        return read(self.out), read(self.late)

    def clean(self):
        for f in (self.state, self.state + "-wal", self.state + "-shm", self.out, self.late):
            if os.path.exists(f):
                os.remove(f)


def random_kills(binary, gen, rng, work, min_kills):
    """Returns a list of failure messages."""
    failures = []
    input_path = os.path.join(work, "in.ndjson")
    gen_args = ["--lines", "200000", "--seed", "7", "--rate-per-s", "400", "--users", "500",
                "--disorder-ms", "3000", "--late-fraction", "0.01"]
    with open(input_path, "wb") as f:
        subprocess.run([gen] + gen_args, stdout=f, check=True)
    starts = []
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([binary, "--version"], stdout=subprocess.DEVNULL, check=True)
        starts.append(time.perf_counter() - t0)
    startup = sorted(starts)[1]
    kills_by_kind = {False: 0, True: 0}
    rounds = 0
    while min(kills_by_kind.values()) < min_kills or rounds < 2 * len(QUERIES):
        query = QUERIES[(rounds // 2) % len(QUERIES)]
        use_stdin = rounds % 2 == 1 and not file_only(query)
        rounds += 1
        if rounds > 200:
            failures.append("could not reach %d kills per input kind: %r" % (min_kills, kills_by_kind))
            break
        job = Job(binary, work, query, input_for(query, "random", input_path, gen, gen_args, work), use_stdin)
        job.clean()
        t0 = time.perf_counter()
        want_out, want_late = job.reference()
        full = time.perf_counter() - t0
        job.clean()
        kills = 0
        # Half the jobs compact the window log as logtide does; the other half never do (test
        # hook), so that resumes replay long logs of changes.
        env = dict(os.environ, LOGTIDE_TEST_COMPACT_SLACK="1000000000") if rounds % 4 >= 2 else None
        for attempt in range(500):
            p, t = job.start(env=env)
            try:
                # Kill delays scale with this binary's speed (a sanitizer build is much
                # slower to start and to run): somewhere between start-up and most of a run.
                # They grow every 50 attempts, so that a machine slower now than when the
                # reference ran (another job on its cores) still lets the run finish.
                p.wait(timeout=rng.uniform(startup, startup + 0.6 * full * (1 + attempt // 50)))
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                p.wait()
                kills += 1
            if t:
                t.join()
            err = p.stderr.read().decode()
            p.stderr.close()
            if not integrity(job.state):
                failures.append("integrity_check failed after kill %d (%s)" % (kills, " ".join(query)))
                break
            if p.returncode == 0:
                break
            if p.returncode != -signal.SIGKILL:
                failures.append("exit %d after %d kills (%s): %s" % (p.returncode, kills, " ".join(query), err))
                break
        else:
            failures.append("never finished (%s)" % " ".join(query))
        kills_by_kind[use_stdin] += kills
        what = "%s, %s, %d kills" % (" ".join(query[:2]), "stdin" if use_stdin else "file", kills)
        if read(job.out) != want_out:
            failures.append("results differ from the uninterrupted run: " + what)
        elif read(job.late) != want_late:
            failures.append("--late-output differs from the uninterrupted run: " + what)
        else:
            print("ok: " + what)
    print("kills: %d with a file, %d with a pipe, in %d jobs" % (kills_by_kind[False], kills_by_kind[True], rounds))
    return failures


def kill_points(binary, gen, work):
    failures = []
    input_path = os.path.join(work, "in.ndjson")
    gen_args = ["--lines", "30000", "--seed", "11", "--rate-per-s", "300", "--disorder-ms", "2000",
                "--late-fraction", "0.02"]
    with open(input_path, "wb") as f:
        subprocess.run([gen] + gen_args, stdout=f, check=True)
    for query, use_stdin in [(q, s) for q in QUERIES for s in (False, True) if not (s and file_only(q))]:
        job = Job(binary, work, query, input_for(query, "points", input_path, gen, gen_args, work), use_stdin)
        job.clean()
        want = job.reference()
        for point in ("before-flush", "before-commit", "after-commit"):
            for n in (1, 3):
                job.clean()
                env = dict(os.environ, LOGTIDE_TEST_KILL_AT="%s:%d" % (point, n))
                p, t = job.start(env=env)
                p.wait()
                if t:
                    t.join()
                p.stderr.close()
                what = "%s:%d (%s, %s)" % (point, n, " ".join(query[:2]), "stdin" if use_stdin else "file")
                if p.returncode != -signal.SIGKILL:
                    failures.append("%s: the hook did not fire (exit %d)" % (what, p.returncode))
                    continue
                if not integrity(job.state):
                    failures.append("%s: integrity_check failed" % what)
                p, t = job.start()
                err = Job.finish(p, t)
                if p.returncode != 0:
                    failures.append("%s: resume exited %d: %s" % (what, p.returncode, err))
                elif (read(job.out), read(job.late)) != want:
                    failures.append("%s: outputs differ from the uninterrupted run" % what)
                else:
                    print("ok: " + what)
    return failures


def main():
    mode, binary, gen = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    work = tempfile.mkdtemp(prefix="logtide-kill-")
    try:
        if mode == "random":
            seed = 20261129
            print("seed %d (kill moments also depend on timing)" % seed)
            failures = random_kills(binary, gen, random.Random(seed), work, 20)
        else:
            failures = kill_points(binary, gen, work)
    finally:
        shutil.rmtree(work)
    for f in failures:
        print("FAIL " + f)
    passed = 1 if not failures else 0
    print("%d passed, %d failed" % (passed, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
