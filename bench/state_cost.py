#!/usr/bin/env python3
"""What durable state costs (issue 33): checkpoints against what changed, and resuming a large
state.

  bench/state_cost.py [--build DIR] [--keys N] [--changes M] [--every K] [--gen-lines L]

  1. A state of N open (window, key) pairs: N distinct users in one hour window, counted and
     summed, written by one run with a single checkpoint at its end (a full write of N rows).
  2. M more lines on users drawn at random from the N, checkpointed every K lines: each
     checkpoint writes about K changed rows of N (K/N of the state); time per checkpoint
     against the full write, from --stats.
  3. Resuming the state of step 1 to read one more line: wall time and peak RSS, against the
     run with the default cadence.
  4. Job 3 of bench/run.py (count per user per minute) on L generated lines without --state,
     with --state at the default cadence, and with --checkpoint-interval 1s alone: the share
     of the run spent in checkpoints, from --stats.
Files go to tmpfs (/dev/shm) when it has room. Single runs: repeat it to see the spread. It
asserts nothing.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import tempfile


def run(cmd, stdin=None):
    """Runs cmd (its records to /dev/null, or -o in cmd); returns (wall s, peak MB, stats)."""
    with tempfile.NamedTemporaryFile("r") as t, tempfile.NamedTemporaryFile("r") as err:
        subprocess.run(["/usr/bin/time", "-o", t.name, "-f", "%e %M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=open(err.name, "w"), check=True)
        wall, kb = t.read().split()[-2:]
        stats = None
        for line in open(err.name):
            if line.startswith("{") and '"checkpoints"' in line:
                stats = json.loads(line)
    return float(wall), int(kb) / 1024, stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--keys", type=int, default=1_000_000)
    ap.add_argument("--changes", type=int, default=500_000)
    ap.add_argument("--every", type=int, default=10_000)
    ap.add_argument("--gen-lines", type=int, default=3_000_000)
    a = ap.parse_args()
    logtide = os.path.abspath(os.path.join(a.build, "logtide"))
    gen = os.path.abspath(os.path.join(a.build, "logtide_gen"))
    base = "/dev/shm" if shutil.disk_usage("/dev/shm").free > 2 * a.gen_lines * 200 + a.keys * 300 else None
    work = tempfile.mkdtemp(prefix="logtide-state-cost-", dir=base)
    try:
        line = '{"ts":"2024-01-01T00:%02d:%02d.000Z","user":"user%09d","bytes":%d}\n'
        first = os.path.join(work, "first.ndjson")
        with open(first, "w") as f:
            per_second = max(1, a.keys // 1800)
            for i in range(a.keys):
                s = min(i // per_second, 1799)
                f.write(line % (s // 60, s % 60, i, i % 977))
        rng = random.Random(33)
        grown = os.path.join(work, "grown.ndjson")
        shutil.copy(first, grown)
        with open(grown, "a") as f:
            per_second = max(1, a.changes // 1800)
            for i in range(a.changes):
                s = 1800 + min(i // per_second, 1799)
                f.write(line % (s // 60, s % 60, rng.randrange(a.keys), i % 977))
        one_more = os.path.join(work, "one-more.ndjson")
        shutil.copy(first, one_more)
        with open(one_more, "a") as f:
            f.write(line % (59, 59, 0, 1))
        q = ["--window", "tumbling:1h", "--by", "user", "--agg", "count,sum(bytes)", "--hold", "--stats", "-q"]
        db = os.path.join(work, "s.db")
        saved = os.path.join(work, "saved.db")
        out = ["-o", os.path.join(work, "out.ndjson"), "--overwrite"]
        never = ["--checkpoint-every", "1000000000000", "--checkpoint-interval", "1000h"]

        wall, mb, st = run([logtide, "--state", db] + q + never + out + [first])
        full = st["checkpoint_seconds"]
        print("1. %d open pairs written by one run: %.2f s, peak %.0f MB; its checkpoints (the last one"
              " writes all %d rows) %.3f s" % (a.keys, wall, mb, st["last_checkpoint_rows"], full))
        shutil.copy(db, saved)
        # The same run as a job runs it, with the default checkpoint cadence (step 1's one
        # checkpoint of every row holds them all at once besides the windows).
        normal = os.path.join(work, "normal.db")
        build_wall, build_mb, _ = run([logtide, "--state", normal] + q + out + [first])

        wall, mb, st = run([logtide, "--state", db] + q + ["--checkpoint-every", str(a.every),
                                                             "--checkpoint-interval", "1000h"] + out + [grown])
        n = st["checkpoints"] - 1  # less the last one, at the end
        per = st["checkpoint_seconds"] / max(1, st["checkpoints"])
        print("2. %d changes, a checkpoint every %d lines (%.2f%% of the state): %d checkpoints, %.4f s each"
              " on average, %.2f%% of the full write (the run, with its resume: %.2f s)" % (
                  a.changes, a.every, 100.0 * a.every / a.keys, n, per, 100.0 * per / full, wall))

        shutil.copy(saved, db)
        for suffix in ("-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        wall, mb, st = run([logtide, "--state", db] + q + out + [one_more])
        print("3. resuming it to read one more line: %.2f s, peak %.0f MB (the run that wrote it, with the"
              " default checkpoint cadence: %.2f s, %.0f MB)" % (wall, mb, build_wall, build_mb))

        logs = os.path.join(work, "logs.ndjson")
        with open(logs, "w") as f:
            subprocess.run([gen, "--lines", str(a.gen_lines), "--seed", "1"], stdout=f, check=True)
        j3 = ["--window", "tumbling:1m", "--by", "user", "--agg", "count", "--stats", "-q"]
        for label, flags in (("without --state", []),
                             ("--state, default cadence", ["--state", db]),
                             ("--state --checkpoint-interval 1s alone",
                              ["--state", db, "--checkpoint-interval", "1s",
                               "--checkpoint-every", "1000000000000"])):
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            wall, mb, st = run([logtide] + j3 + flags + out[:2] + (out[2:] if flags else []) + [logs])
            extra = ""
            if flags:
                extra = ": %d checkpoints, %.3f s (%.1f%% of the run)" % (
                    st["checkpoints"], st["checkpoint_seconds"], 100.0 * st["checkpoint_seconds"] / st["seconds"])
            print("4. job 3 on %d lines, %s: %.2f s%s" % (a.gen_lines, label, wall, extra))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
