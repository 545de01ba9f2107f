#!/usr/bin/env python3
"""Cron over a rotating log (issue 14): a writer appends whole lines to app.log, logrotate
rotates it now and then (create mode or copytruncate, optionally compressing older
generations), and a cron-like `logtide --state --hold ... app.log*` runs after each step, some
runs killed with SIGKILL and started again. Checks:
  - after every run, each window whose end the newest file's events have passed (minus the
    delay) has been written: no window is held back past the run that could write it;
  - no run warns (nothing was lost, so nothing may be reported lost);
  - a last run without --hold ends the stream, and the output is byte-identical to one batch
    run over the whole history in the order it was written: nothing lost, nothing doubled.

Usage: rotation_test.py LOGTIDE LOGTIDE_GEN [SCENARIO...]
Scenarios: create, copytruncate, create-gzip, copytruncate-zstd (default: all).
"""
import datetime
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

QUERY = ["--window", "tumbling:1m", "--by", "service", "--agg", "count", "--agg", "sum(bytes)",
         "--delay", "5s"]
DELAY_MS = 5000
RUNS = 24
SEED = 20261130

CONFIGS = {
    "create": "create\n",
    "copytruncate": "copytruncate\n",
    # The usual Debian setup: the newest generation stays plain (the writer may still be
    # finishing it), older ones are compressed.
    "create-gzip": "create\ncompress\ndelaycompress\n",
    "copytruncate-zstd": "copytruncate\ncompress\ndelaycompress\ncompresscmd /usr/bin/zstd\n"
                         "compressext .zst\ncompressoptions -q\nuncompresscmd /usr/bin/unzstd\n",
}


def millis(ts):
    return int(datetime.datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000)


def scenario(binary, gen, name, rng, work):
    failures = []
    os.chdir(work)
    with open("history.ndjson", "wb") as f:
        subprocess.run([gen, "--lines", "30000", "--seed", str(rng.randrange(1000)), "--rate-per-s", "40",
                        "--disorder-ms", "2000", "--late-fraction", "0"], stdout=f, check=True)
    lines = open("history.ndjson", "rb").read().splitlines(keepends=True)
    with open("ref.ndjson", "wb") as f:
        subprocess.run([binary, "-q"] + QUERY + ["history.ndjson"], stdout=f, check=True)
    reference = open("ref.ndjson").read().splitlines()
    ref_windows = [(millis(json.loads(r)["window_end"]), r) for r in reference]

    with open("logrotate.conf", "w") as f:
        f.write("%s/app.log {\n  rotate 4\n  missingok\n%s}\n" % (work, CONFIGS[name]))
    written = 0
    current_max = None  # largest event time in the file now at app.log
    kills = rotations = checked = 0
    last_run = [0.01]  # seconds the last whole run took: kills land within such a run

    def append(path, n):
        nonlocal written, current_max
        chunk = lines[written:written + n]
        with open(path, "ab") as f:
            f.writelines(chunk)
        written += len(chunk)
        if path == "app.log":
            for line in chunk:
                t = millis(json.loads(line)["ts"])
                current_max = t if current_max is None else max(current_max, t)

    def run(hold):
        nonlocal kills
        inputs = sorted(glob.glob("app.log*"))
        args = [binary] + QUERY + ["--state", "s.db", "-o", "out.ndjson"] + (["--hold"] if hold else []) + inputs
        for attempt in range(200):
            t0 = time.perf_counter()
            p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if rng.random() < 0.5:
                # SIGKILL at a random moment (later and later, so that a run finishes).
                try:
                    p.wait(timeout=rng.uniform(0, last_run[0]) * (1 + attempt // 20))
                except subprocess.TimeoutExpired:
                    p.send_signal(signal.SIGKILL)
                    p.wait()
                    kills += 1
            else:
                p.wait()
            err = p.stderr.read().decode()
            p.stderr.close()
            if p.returncode == 0:
                last_run[0] = time.perf_counter() - t0
                return err
            if p.returncode != -signal.SIGKILL:
                failures.append("%s: exit %d: %s" % (name, p.returncode, err.strip()))
                return err
        failures.append("%s: a run never finished" % name)
        return ""

    append("app.log", rng.randrange(50, 1500))
    for k in range(1, RUNS + 1):
        if k > 1 and rng.random() < 0.35:
            rotations += 1
            subprocess.run(["logrotate", "-f", "-s", os.path.join(work, "logrotate.state"), "logrotate.conf"],
                           check=True)
            if "create" in name and rng.random() < 0.5 and os.path.exists("app.log.1"):
                # The writer has not reopened its log yet: a few lines still go to the old file.
                append("app.log.1", rng.randrange(1, 20))
            current_max = None  # app.log is a new file (create) or was truncated (copytruncate)
        # Whole lines, as a writer produces them; at least one after a rotation.
        append("app.log", rng.randrange(1, 1500))
        err = run(hold=True)
        if "warning" in err:
            failures.append("%s run %d warned: %s" % (name, k, err.strip()))
        out = open("out.ndjson").read().splitlines() if os.path.exists("out.ndjson") else []
        due = [r for end, r in ref_windows if current_max is not None and end <= current_max - DELAY_MS]
        missing = [r for r in due if r not in set(out)]
        checked += len(due)
        if missing:
            failures.append("%s run %d: %d window(s) due were not written, first: %s" %
                            (name, k, len(missing), missing[0]))
    append("app.log", len(lines))  # the rest of the history
    err = run(hold=False)
    if "warning" in err:
        failures.append("%s last run warned: %s" % (name, err.strip()))
    if written != len(lines):
        failures.append("%s: the test wrote %d of %d lines" % (name, written, len(lines)))
    if open("out.ndjson").read() != open("ref.ndjson").read():
        failures.append("%s: the output differs from one batch run over the whole history" % name)
    generations = sorted(os.path.basename(p) for p in glob.glob("app.log*"))
    print("%s: %d runs, %d rotations, %d kills, %d records, %d checks of a due window; files at "
          "the end: %s" % (name, RUNS + 1, rotations, kills, len(reference), checked, " ".join(generations)))
    if checked < 100:
        failures.append("%s: only %d checks of a due window" % (name, checked))
    return failures


def main():
    binary, gen = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    names = sys.argv[3:] or list(CONFIGS)
    if shutil.which("logrotate") is None:
        print("logrotate is not installed (.ci/install-deps installs it)")
        return 1
    rng = random.Random(SEED)
    print("seed %d" % SEED)
    failures = []
    for name in names:
        work = tempfile.mkdtemp(prefix="logtide-rotation-")
        try:
            failures += scenario(binary, gen, name, rng, work)
        finally:
            os.chdir("/")
            shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL " + f)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
