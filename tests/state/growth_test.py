#!/usr/bin/env python3
"""The state file is bounded by the open state, not by the input (issue 16, item 8).

A cron job: a log grows by a chunk between runs, and each run is `logtide --state s.db --hold`
over it. After RUNS runs the state must be within 2x the size of a fresh state holding the same
open windows: one --hold run over the whole log into a new state file (which must also have
written the same records). Then:
  - a state file made by an earlier logtide (SQLite auto_vacuum NONE, made here from the cron
    state with SQLite itself) resumes to the same records, is converted at its first compaction
    and passes PRAGMA integrity_check;
  - the run that ends the stream (no --hold) leaves no window rows and no free pages, and a file
    no bigger than a finished one-line job's.

Usage: growth_test.py LOGTIDE LOGTIDE_GEN
Prints a line per failed check and 'N passed, N failed'.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

RUNS = 50
LINES = 1500  # per run: 75 s of events at 20/s, so each run closes a minute or two
USERS = 40
QUERY = ["--window", "tumbling:1m", "--by", "user", "--agg", "count", "--agg", "sum(bytes)",
         "--agg", "count_distinct(trace_id)"]  # rows that grow with their window's events


def main():
    binary, gen = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    work = tempfile.mkdtemp(prefix="logtide-growth-")
    passed = failed = 0

    def check(name, ok, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL %s %s" % (name, detail))

    def run(args, state, out, log="app.log"):
        subprocess.run([binary, "-q"] + QUERY + ["--state", state] + args + ["-o", out, log],
                       check=True)

    def inspect(state):
        p = subprocess.run([binary, "inspect", state], capture_output=True, check=True)
        return json.loads(p.stdout)

    def size(state):
        # With its write-ahead log, if any (a run copies it into the file when it ends;
        # inspect may leave an empty one).
        wal = state + "-wal"
        return os.path.getsize(state) + (os.path.getsize(wal) if os.path.exists(wal) else 0)

    def reclaims(info):
        return info.get("file", {}).get("reclaims_space")

    try:
        os.chdir(work)
        open("app.log", "wb").close()
        sizes = []
        for i in range(RUNS):
            with open("app.log", "ab") as f:
                subprocess.run([gen, "--lines", str(LINES), "--seed", str(i + 1), "--users", str(USERS),
                                "--rate-per-s", "20", "--start", str(1714557600 + 100 * i)],
                               stdout=f, check=True)
            run(["--hold"], "s.db", "cron.ndjson")
            sizes.append(size("s.db"))
        run(["--hold"], "fresh.db", "fresh.ndjson")
        cron, fresh = inspect("s.db"), inspect("fresh.db")
        print("cron state after %d runs: %d bytes, %d log rows, %d open windows; sizes %s" %
              (RUNS, sizes[-1], cron["window_log_rows"], cron["open_windows"],
               " ".join(str(s // 1024) + "k" for s in sizes)))
        print("fresh state over the same %d lines: %d bytes, %d log rows, %d open windows" %
              (RUNS * LINES, size("fresh.db"), fresh["window_log_rows"], fresh["open_windows"]))
        check("same open windows", cron["open_windows"] == fresh["open_windows"] > 0,
              "%s against %s" % (cron["open_windows"], fresh["open_windows"]))
        check("same records", open("cron.ndjson", "rb").read() == open("fresh.ndjson", "rb").read())
        check("the state is within 2x of a fresh one", sizes[-1] <= 2 * size("fresh.db"),
              "%d bytes against %d" % (sizes[-1], size("fresh.db")))
        check("the log within twice the open windows",
              cron["window_log_rows"] <= 2 * cron["open_windows"], str(cron["window_log_rows"]))
        check("the file reclaims space", reclaims(cron) is True)

        # A state file made by an earlier logtide, without auto-vacuum, is resumed and
        # converted. (Run on the job's own paths, which a resume must keep, then put back.)
        with open("app.log", "ab") as f:
            subprocess.run([gen, "--lines", str(4 * LINES), "--seed", "999", "--users", str(USERS),
                            "--rate-per-s", "20", "--start", str(1714557600 + 100 * RUNS)],
                           stdout=f, check=True)
        for f in ("s.db-wal", "s.db-shm"):
            if os.path.exists(f):
                os.remove(f)
        shutil.copy("s.db", "s.keep")
        shutil.copy("cron.ndjson", "cron.keep")
        db = sqlite3.connect("s.db", isolation_level=None)
        db.execute("PRAGMA auto_vacuum = NONE")
        db.execute("VACUUM")
        db.close()
        check("the old-style copy has no auto-vacuum", reclaims(inspect("s.db")) is False)
        run(["--hold"], "s.db", "cron.ndjson")
        check("an old-style state is converted", reclaims(inspect("s.db")) is True)
        db = sqlite3.connect("file:s.db?mode=ro", uri=True)
        verdict = db.execute("PRAGMA integrity_check").fetchone()[0]
        db.close()
        check("the converted state passes integrity_check", verdict == "ok", verdict)
        converted = open("cron.ndjson", "rb").read()
        for f in ("s.db-wal", "s.db-shm"):
            if os.path.exists(f):
                os.remove(f)
        shutil.copy("s.keep", "s.db")
        shutil.copy("cron.keep", "cron.ndjson")
        run(["--hold"], "s.db", "cron.ndjson")
        check("an old-style state resumes to the same records",
              converted == open("cron.ndjson", "rb").read())

        # The end of the stream: nothing of the windows is kept.
        run([], "s.db", "cron.ndjson")
        done = inspect("s.db")
        with open("one.log", "wb") as f:
            subprocess.run([gen, "--lines", "1"], stdout=f, check=True)
        run([], "one.db", "one.ndjson", log="one.log")
        check("a finished job keeps no window rows",
              done["finished"] and done["window_log_rows"] == 0 and
              done.get("file", {}).get("free_pages") == 0,
              json.dumps([done["finished"], done["window_log_rows"], done.get("file")]))
        check("a finished job's file is no bigger than a finished one-line job's",
              size("s.db") <= size("one.db"), "%d bytes against %d" % (size("s.db"), size("one.db")))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
