#!/usr/bin/env python3
"""Cron runs racing logrotate (issue 28, item 4). A writer appends whole lines to app.log; then
logrotate (the real one, its configuration and state file in the test's folder) rotates it while
a cron-like `logtide --state --hold ... app.log*` runs, the two started together in a seeded
order and offset, and the run SIGKILLed at a seeded moment half the time. A run that was killed
is run again once the rotation is over, so every round ends with one finished run. Rotation:
create or copytruncate, with compress and delaycompress (the newest generation stays plain, the
one before it is compressed and the plain one removed, the oldest deleted), so a run's glob can
name a generation that is renamed, compressed or deleted before the run opens it.
The writer is still while logrotate runs, so no rotation loses a line (copytruncate loses what
is written between its copy and its truncation).
Checks:
  - no run fails (exit other than 0 or SIGKILL) and no run warns: nothing is lost, so nothing
    may be reported lost. One warning is true and allowed: that a log was truncated after a
    copy was made to a name the run's glob did not give (a copy made between the glob and the
    run's start cannot be told from one the job does not name; the run keeps its position);
  - a last run without --hold ends the stream, and the output is byte-identical to one batch
    run over the whole history in the order it was written: every generation that existed at
    some run's start was read exactly once.
The seed (LOGTIDE_TEST_SEED, else a fixed one) is printed, and again with every failure.

Usage: rotation_race_test.py LOGTIDE LOGTIDE_GEN [SCENARIO...]
Half the runs start up to 60 ms after their glob, as a slow start does (under a sanitizer or
on a loaded machine): the rotation then often runs whole between the glob and the open.

Scenarios: create-gzip, copytruncate-gzip, create-zstd (default: all).
"""
import glob
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

QUERY = ["--window", "tumbling:1m", "--by", "service", "--agg", "count", "--agg", "sum(bytes)",
         "--delay", "5s"]
ROUNDS = 20
SEED = int(os.environ.get("LOGTIDE_TEST_SEED", "20261202"))

CONFIGS = {
    "create-gzip": "create\ncompress\ndelaycompress\n",
    "copytruncate-gzip": "copytruncate\ncompress\ndelaycompress\n",
    "create-zstd": "create\ncompress\ndelaycompress\ncompresscmd /usr/bin/zstd\n"
                   "compressext .zst\ncompressoptions -q\nuncompresscmd /usr/bin/unzstd\n",
}


def scenario(binary, gen, name, rng, work):
    failures = []
    os.chdir(work)
    with open("history.ndjson", "wb") as f:
        subprocess.run([gen, "--lines", "12000", "--seed", str(rng.randrange(1000)), "--rate-per-s", "40",
                        "--disorder-ms", "2000", "--late-fraction", "0"], stdout=f, check=True)
    lines = open("history.ndjson", "rb").read().splitlines(keepends=True)
    with open("ref.ndjson", "wb") as f:
        subprocess.run([binary, "-q"] + QUERY + ["history.ndjson"], stdout=f, check=True)
    # rotate 2: app.log, app.log.1, app.log.2.gz; a third rotation deletes the oldest.
    with open("logrotate.conf", "w") as f:
        f.write("%s/app.log {\n  rotate 2\n  missingok\n%s}\n" % (work, CONFIGS[name]))
    rotate = ["logrotate", "-f", "-s", os.path.join(work, "logrotate.state"), "logrotate.conf"]
    written = 0
    kills = 0
    last_run = [0.02]  # seconds the last finished run took: kills land within such a run

    def append(n):
        nonlocal written
        chunk = lines[written:written + n]
        with open("app.log", "ab") as f:
            f.writelines(chunk)
        written += len(chunk)

    def cron(hold=True, lag=0.0):
        args = [binary] + QUERY + ["--state", "s.db", "-o", "out.ndjson"] + (["--hold"] if hold else [])
        names = sorted(glob.glob("app.log*"))
        time.sleep(lag)  # a slow start: the rotation may run whole between the glob and the open
        p = subprocess.Popen(args + names, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        p.names = names
        return p

    def judge(p, what):
        err = p.stderr.read().decode()
        p.stderr.close()
        # The one warning a race makes true: a copy the glob could not name.
        copy_not_named = re.compile(r"logtide: warning: app\.log was truncated in place after a copy "
                                    r"of it was made to (\S+), which is not among this run's inputs")
        warnings = [w for w in err.splitlines() if "warning" in w and not (
            copy_not_named.match(w) and copy_not_named.match(w).group(1) not in p.names)]
        if p.returncode not in (0, -signal.SIGKILL):
            failures.append("%s: %s: exit %d: %s" % (name, what, p.returncode, err.strip()))
        elif warnings:
            failures.append("%s: %s warned: %s" % (name, what, err.strip()))
        return p.returncode

    append(rng.randrange(50, 800))
    for k in range(1, ROUNDS + 1):
        append(rng.randrange(1, 800))
        # The rotation and the run, started together: either first, by up to a few ms.
        offset = rng.uniform(0, 0.004)
        kill_after = rng.uniform(0, last_run[0]) if rng.random() < 0.5 else None
        run_first = rng.random() < 0.5
        lag = rng.uniform(0, 0.06) if rng.random() < 0.5 else 0.0
        if run_first:
            t0 = time.perf_counter()
            p = cron(lag=lag)
            time.sleep(offset)
            r = subprocess.Popen(rotate)
        else:
            r = subprocess.Popen(rotate)
            time.sleep(offset)
            t0 = time.perf_counter()
            p = cron(lag=lag)
        if kill_after is not None:
            try:
                p.wait(timeout=kill_after)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                kills += 1
        p.wait()
        if p.returncode == 0:
            last_run[0] = time.perf_counter() - t0
        code = judge(p, "round %d's run" % k)
        if r.wait() != 0:
            failures.append("%s: round %d: logrotate failed" % (name, k))
        if code != 0:  # killed, or failed: the round's finished run, after the rotation
            p = cron()
            p.wait()
            judge(p, "round %d's rerun" % k)
    append(len(lines))  # the rest of the history
    p = cron(hold=False)
    p.wait()
    judge(p, "the last run")
    if written != len(lines):
        failures.append("%s: the test wrote %d of %d lines" % (name, written, len(lines)))
    out = open("out.ndjson", "rb").read() if os.path.exists("out.ndjson") else b""
    ref = open("ref.ndjson", "rb").read()
    if out != ref:
        failures.append("%s: the output differs from one batch run over the whole history (%d of %d "
                        "records)" % (name, out.count(b"\n"), ref.count(b"\n")))
    print("%s: %d rounds, %d kills, %d records; files at the end: %s" % (
        name, ROUNDS, kills, ref.count(b"\n"), " ".join(sorted(glob.glob("app.log*")))))
    return failures


def main():
    binary, gen = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    names = sys.argv[3:] or list(CONFIGS)
    if shutil.which("logrotate") is None:
        print("logrotate is not installed (.ci/install-deps installs it)")
        return 1
    print("seed %d" % SEED)
    rng = random.Random(SEED)
    failures = []
    for name in names:
        work = tempfile.mkdtemp(prefix="logtide-rotation-race-")
        try:
            failures += scenario(binary, gen, name, rng, work)
        finally:
            os.chdir("/")
            shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL (seed %d) %s" % (SEED, f))
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
