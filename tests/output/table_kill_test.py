#!/usr/bin/env python3
"""--format table under --state (issue 32): a job killed at chosen points of a checkpoint
(before the outputs are flushed, between the output write and the commit, after the commit)
and resumed writes the same bytes as an uninterrupted run, for a file and for a pipe. Each
firing is a table of its own, so a committed length always ends between two tables.

The kill points and the comparison are those of tests/state/kill_test.py, over queries of
this format (a table with keys, and one with revision columns and early records); the
uninterrupted run has --state too.

  table_kill_test.py LOGTIDE_FAULTS LOGTIDE_GEN
Prints 'N passed, N failed'.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "state"))
import kill_test  # noqa: E402

kill_test.QUERIES = [
    ["--window", "tumbling:10s", "--by", "service", "--agg", "count", "--agg", "avg(latency_ms)",
     "--agg", "last(path)", "--delay", "2s", "--lateness", "5s", "--format", "table"],
    ["--window", "sliding:20s:10s", "--by", "service", "--agg", "count", "--agg", "max(latency_ms)",
     "--early", "3s", "--emit", "update", "--lateness", "4s", "--delay", "1s", "--format", "table"],
]


def reference_with_state(job):
    """The uninterrupted run, with --state too: without it the run's records would be one
    table, written at its end (man/logtide.1, Tables)."""
    p, t = job.start(state=True)
    err = kill_test.Job.finish(p, t)
    assert p.returncode == 0, err
    want = kill_test.read(job.out), kill_test.read(job.late)
    job.clean()
    return want


kill_test.Job.reference = reference_with_state


def main():
    binary, gen = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    work = tempfile.mkdtemp(prefix="logtide-table-kill-")
    try:
        failures = kill_test.kill_points(binary, gen, work)
    finally:
        shutil.rmtree(work)
    for f in failures:
        print("FAIL " + f)
    print("%d passed, %d failed" % (0 if failures else 1, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
