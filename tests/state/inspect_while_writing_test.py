#!/usr/bin/env python3
"""`logtide inspect` takes no lock: it must read a state file whole and consistent while a run
commits checkpoints to it. A job reads a pipe and checkpoints every 2000 lines; the test feeds
it chunks of lines and runs inspect after each chunk, while the job is at work. Every inspect
must exit 0 (a healthy file is never called damaged) and show the job's query.

Usage: inspect_while_writing_test.py LOGTIDE LOGTIDE_GEN
"""
import json
import os
import subprocess
import sys
import tempfile

CHUNKS = 150
CHUNK_LINES = 2500


def main():
    binary, gen = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="logtide-inspect-") as work:
        lines = subprocess.run([gen, "--lines", str(CHUNKS * CHUNK_LINES), "--users", "20000"],
                               check=True, capture_output=True).stdout.splitlines(keepends=True)
        state = os.path.join(work, "s.db")
        job = subprocess.Popen([binary, "-q", "--window", "tumbling:1s", "--by", "user", "--agg", "count",
                                "--state", state, "--checkpoint-every", "2000",
                                "-o", os.path.join(work, "out.ndjson"), "-"],
                               stdin=subprocess.PIPE)
        failures, runs = [], 0
        for k in range(CHUNKS):
            job.stdin.write(b"".join(lines[k * CHUNK_LINES:(k + 1) * CHUNK_LINES]))
            job.stdin.flush()
            r = subprocess.run([binary, "inspect", state], capture_output=True)
            runs += 1
            if r.returncode != 0:
                failures.append("inspect after chunk %d exited %d: %s" % (k, r.returncode, r.stderr.decode()[:300]))
                continue
            try:
                shown = json.loads(r.stdout)
            except ValueError:
                failures.append("inspect after chunk %d printed no JSON object" % k)
                continue
            if "tumbling:1s" not in json.dumps(shown):
                failures.append("inspect after chunk %d does not show the job's query" % k)
        job.stdin.close()
        rc = job.wait()
        for f in failures[:5]:
            print("FAIL " + f)
        if rc != 0:
            print("FAIL the job exited %d" % rc)
        print("%d passed, %d failed" % (runs - len(failures), len(failures) + (rc != 0)))
        sys.exit(1 if failures or rc != 0 else 0)


if __name__ == "__main__":
    main()
